package isolation

import "iter"

// undoLog is a transaction's undo entries in the order of its writes. The
// entries after the first undoChunk live in chunks of undoChunk entries, so
// that a bulk load's log grows without copying itself at every doubling
// (appending to one slice of a million entries spent a tenth of a COPY's
// CPU moving and clearing memory).
type undoLog struct {
	head []undoEntry   // entries 0 .. undoChunk-1
	tail [][]undoEntry // the rest, undoChunk entries a chunk (the last may hold fewer)
	n    int
}

const undoChunk = 1024

// len is the number of entries.
func (l *undoLog) len() int { return l.n }

// push appends u.
func (l *undoLog) push(u undoEntry) {
	switch k := len(l.tail); {
	case l.n < undoChunk:
		l.head = append(l.head, u)
	case k == 0 || len(l.tail[k-1]) == undoChunk:
		c := make([]undoEntry, 1, undoChunk)
		c[0] = u
		l.tail = append(l.tail, c)
	default:
		l.tail[k-1] = append(l.tail[k-1], u)
	}
	l.n++
}

// at returns entry i.
func (l *undoLog) at(i int) undoEntry {
	if i < undoChunk {
		return l.head[i]
	}
	i -= undoChunk
	return l.tail[i/undoChunk][i%undoChunk]
}

// from yields the entries from i on, in order.
func (l *undoLog) from(i int) iter.Seq[undoEntry] {
	return func(yield func(undoEntry) bool) {
		for ; i < l.n; i++ {
			if !yield(l.at(i)) {
				return
			}
		}
	}
}

// truncate drops the entries from n on.
func (l *undoLog) truncate(n int) {
	if n >= l.n {
		return
	}
	if n <= undoChunk {
		clear(l.head[min(n, len(l.head)):])
		l.head = l.head[:min(n, len(l.head))]
		clear(l.tail)
		l.tail = l.tail[:0]
		l.n = n
		return
	}
	keep := n - undoChunk
	k := (keep + undoChunk - 1) / undoChunk // chunks kept
	last := keep - (k-1)*undoChunk
	clear(l.tail[k-1][last:])
	l.tail[k-1] = l.tail[k-1][:last]
	clear(l.tail[k:])
	l.tail = l.tail[:k]
	l.n = n
}
