package history

import (
	"fmt"
	"slices"
)

// valueMatcher links reads to writes by value, for the formats that carry
// no explicit write-read link (values written to a key are unique there).
// It keeps one sorted slice rather than a map: 24 bytes a write, which
// matters at ten million operations.
type valueMatcher struct {
	writes []vmWrite
	start  []int32 // by key: index of its first write in writes (len(keys)+1 entries)
	sorted bool
}

type vmWrite struct {
	value int64
	key   KeyID
	txn   TxnID
	line  int32 // where the write was, for the duplicate-value error
}

// matchByValue builds a matcher from the writes with values in h (Init's
// included) and resolves every read with a value (see resolveReads). lines
// gives each transaction's first line for errors; it may be nil.
func matchByValue(file string, h *History, lines []int32, isInitial func(int64) bool) error {
	// Place the writes straight into their key's bucket (see bucket).
	m := valueMatcher{start: make([]int32, len(h.Keys)+1)}
	for i := range h.Txns {
		for _, op := range h.Txns[i].Ops {
			if op.Kind == OpWrite && op.Flags&FlagHasValue != 0 {
				m.start[op.Key+1]++
			}
		}
	}
	for i := 1; i < len(m.start); i++ {
		m.start[i] += m.start[i-1]
	}
	m.writes = make([]vmWrite, m.start[len(h.Keys)])
	next := slices.Clone(m.start[:len(h.Keys)])
	for i := range h.Txns {
		line := int32(0)
		if i < len(lines) {
			line = lines[i]
		}
		for _, op := range h.Txns[i].Ops {
			if op.Kind == OpWrite && op.Flags&FlagHasValue != 0 {
				m.writes[next[op.Key]] = vmWrite{value: op.Value, key: op.Key, txn: TxnID(i), line: line}
				next[op.Key]++
			}
		}
	}
	return m.resolveReads(file, h, isInitial)
}

// prepare sorts the writes and rejects a value written to one key by two
// transactions, which would make the link ambiguous.
func (m *valueMatcher) prepare(file string, keys []Key) error {
	if m.start == nil {
		m.bucket(len(keys))
	}
	// Each key's writes are few: sort them by value (then transaction)
	// bucket by bucket rather than sorting all writes at once.
	for k := 0; k+1 < len(m.start); k++ {
		ws := m.writes[m.start[k]:m.start[k+1]]
		slices.SortFunc(ws, func(a, b vmWrite) int {
			if a.value != b.value {
				return cmpInt(a.value, b.value)
			}
			return cmpInt(int64(a.txn), int64(b.txn))
		})
		for i := 1; i < len(ws); i++ {
			a, b := ws[i-1], ws[i]
			if a.value == b.value && a.txn != b.txn {
				msg := fmt.Sprintf("value %d written to key %s twice (by transactions %d and %d), so reads of it are ambiguous",
					b.value, keys[b.key], a.txn, b.txn)
				if b.line > 0 {
					return lineErr(file, int(b.line), "%s (the other transaction starts at line %d)", msg, a.line)
				}
				return fileErr(file, "%s", msg)
			}
		}
	}
	m.sorted = true
	return nil
}

// bucket reorders m.writes by key (a counting sort) and sets m.start.
func (m *valueMatcher) bucket(nKeys int) {
	m.start = make([]int32, nKeys+1)
	for _, w := range m.writes {
		m.start[w.key+1]++
	}
	for i := 1; i < len(m.start); i++ {
		m.start[i] += m.start[i-1]
	}
	next := slices.Clone(m.start[:nKeys])
	out := make([]vmWrite, len(m.writes))
	for _, w := range m.writes {
		out[next[w.key]] = w
		next[w.key]++
	}
	m.writes = out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lookup returns the transaction that wrote v to k.
func (m *valueMatcher) lookup(k KeyID, v int64) (TxnID, bool) {
	if int(k)+1 >= len(m.start) {
		return 0, false
	}
	ws := m.writes[m.start[k]:m.start[k+1]]
	lo, hi := 0, len(ws)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ws[mid].value < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(ws) && ws[lo].value == v {
		return ws[lo].txn, true
	}
	return 0, false
}

// resolveReads sets the writer of every read in h that carries a value:
// the transaction that wrote that value to the key; else Init when
// isInitial says the value is the key's initial one; else NoWriter (a
// thin-air read). Reads from Init keep their value.
func (m *valueMatcher) resolveReads(file string, h *History, isInitial func(int64) bool) error {
	if !m.sorted {
		if err := m.prepare(file, h.Keys); err != nil {
			return err
		}
	}
	for i := 1; i < len(h.Txns); i++ {
		ops := h.Txns[i].Ops
		for j := range ops {
			op := &ops[j]
			if op.Kind != OpRead || op.Flags&FlagHasValue == 0 {
				continue
			}
			if t, ok := m.lookup(op.Key, op.Value); ok {
				op.Writer = t
			} else if isInitial(op.Value) {
				op.Writer = Init
			} else {
				op.Writer = NoWriter
			}
		}
	}
	return nil
}
