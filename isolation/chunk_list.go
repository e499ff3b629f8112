package isolation

import "iter"

// chunkList is a list that a bulk load may grow to millions of entries (a
// transaction's undo log, a statement's memo of its reads): the entries
// after the first chunkSize live in chunks of chunkSize, so that the list
// grows without copying itself at every doubling (appending to one slice of
// 300,000 entries spent a fifth of a COPY's CPU moving and clearing memory).
type chunkList[T any] struct {
	head []T   // entries 0 .. chunkSize-1
	tail [][]T // the rest, chunkSize entries a chunk (the last may hold fewer)
	n    int
}

const chunkSize = 1024

// len is the number of entries.
func (l *chunkList[T]) len() int { return l.n }

// push appends u.
func (l *chunkList[T]) push(u T) {
	switch k := len(l.tail); {
	case l.n < chunkSize:
		l.head = append(l.head, u)
	case k == 0 || len(l.tail[k-1]) == chunkSize:
		c := make([]T, 1, chunkSize)
		c[0] = u
		l.tail = append(l.tail, c)
	default:
		l.tail[k-1] = append(l.tail[k-1], u)
	}
	l.n++
}

// at returns entry i.
func (l *chunkList[T]) at(i int) T { return *l.ref(i) }

// ref returns the address of entry i.
func (l *chunkList[T]) ref(i int) *T {
	if i < chunkSize {
		return &l.head[i]
	}
	i -= chunkSize
	return &l.tail[i/chunkSize][i%chunkSize]
}

// from yields the entries from i on, in order.
func (l *chunkList[T]) from(i int) iter.Seq[T] {
	return func(yield func(T) bool) {
		for ; i < l.n; i++ {
			if !yield(l.at(i)) {
				return
			}
		}
	}
}

// truncate drops the entries from n on.
func (l *chunkList[T]) truncate(n int) {
	if n >= l.n {
		return
	}
	if n <= chunkSize {
		clear(l.head[min(n, len(l.head)):])
		l.head = l.head[:min(n, len(l.head))]
		clear(l.tail)
		l.tail = l.tail[:0]
		l.n = n
		return
	}
	keep := n - chunkSize
	k := (keep + chunkSize - 1) / chunkSize // chunks kept
	last := keep - (k-1)*chunkSize
	clear(l.tail[k-1][last:])
	l.tail[k-1] = l.tail[k-1][:last]
	clear(l.tail[k:])
	l.tail = l.tail[:k]
	l.n = n
}
