package oracle

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// OrderView is a total commit order as the verifier queries it. Positions
// are labels that compare like positions in the order (an order-maintenance
// structure's labels will do); Init has the lowest. The isolation engine,
// which keeps co and every key's versions in co order, implements it over
// its own structures so that checking a candidate insertion costs no copy;
// SliceOrder implements it over a slice.
type OrderView interface {
	// Pos returns t's position, and false when t is not in the order.
	Pos(t history.TxnID) (uint64, bool)
	// NextWriter returns the first transaction after position p that
	// committed a write of key, with its position, or false when none.
	NextWriter(key history.KeyID, p uint64) (history.TxnID, uint64, bool)
	// PrevWriter returns the last transaction before position p that
	// committed a write of key, with its position: Init when no other does
	// (false only when p is Init's position or lower).
	PrevWriter(key history.KeyID, p uint64) (history.TxnID, uint64, bool)
}

// SliceOrder is an OrderView over a commit order given as a slice of
// transaction ids, Init first: positions are indexes into the slice.
type SliceOrder struct {
	co  []history.TxnID
	pos []int32 // -1 when absent
	// writers[k] lists the positions of the committed writers of key k
	// other than Init, ascending.
	writers [][]int32
}

// NewSliceOrder indexes co as a commit order of h. co must start with Init
// and list every transaction that takes part in h (committed or rolled back
// by the client) exactly once; pending transactions may be listed, server-
// aborted ones must not. It costs O(n + w) for w written keys.
func NewSliceOrder(h *history.History, co []history.TxnID) (*SliceOrder, error) {
	n := len(h.Txns)
	if len(co) == 0 || co[0] != history.Init {
		return nil, fmt.Errorf("commit order does not start with Init")
	}
	o := &SliceOrder{co: co, pos: make([]int32, n), writers: make([][]int32, len(h.Keys))}
	for i := range o.pos {
		o.pos[i] = -1
	}
	for p, t := range co {
		if int(t) >= n {
			return nil, fmt.Errorf("commit order names transaction %d, out of range", t)
		}
		if o.pos[t] >= 0 {
			return nil, fmt.Errorf("commit order names transaction %d twice", t)
		}
		if h.Txns[t].Outcome == history.ServerAborted {
			return nil, fmt.Errorf("commit order names server-aborted transaction %d", t)
		}
		o.pos[t] = int32(p)
	}
	for i := range h.Txns {
		switch out := h.Txns[i].Outcome; {
		case o.pos[i] >= 0 || out == history.ServerAborted || out == history.Pending:
		default:
			return nil, fmt.Errorf("commit order misses %s transaction %d", out, i)
		}
	}
	// Counting sort of the committed writes by key, in co order: one flat
	// array, each transaction counted once per key.
	mark := make([]int32, len(h.Keys)) // position+1 of the last writer seen
	start := make([]int32, len(h.Keys)+1)
	committedWrites := func(f func(k history.KeyID, p int32)) {
		for p, t := range co {
			if t == history.Init || h.Txns[t].Outcome != history.Committed {
				continue
			}
			for _, op := range h.Txns[t].Ops {
				if op.Kind == history.OpWrite && int(op.Key) < len(mark) && mark[op.Key] != int32(p)+1 {
					mark[op.Key] = int32(p) + 1
					f(op.Key, int32(p))
				}
			}
		}
	}
	committedWrites(func(k history.KeyID, _ int32) { start[k+1]++ })
	for k := range h.Keys {
		start[k+1] += start[k]
	}
	flat := make([]int32, start[len(h.Keys)])
	fill := slices.Clone(start[:len(h.Keys)])
	clear(mark)
	committedWrites(func(k history.KeyID, p int32) {
		flat[fill[k]] = p
		fill[k]++
	})
	for k := range o.writers {
		o.writers[k] = flat[start[k]:start[k+1]:start[k+1]]
	}
	return o, nil
}

// Pos implements OrderView.
func (o *SliceOrder) Pos(t history.TxnID) (uint64, bool) {
	if int(t) >= len(o.pos) || o.pos[t] < 0 {
		return 0, false
	}
	return uint64(o.pos[t]), true
}

// NextWriter implements OrderView.
func (o *SliceOrder) NextWriter(key history.KeyID, p uint64) (history.TxnID, uint64, bool) {
	ws := o.writers[key]
	i, _ := slices.BinarySearch(ws, int32(p+1))
	if i == len(ws) {
		return 0, 0, false
	}
	return o.co[ws[i]], uint64(ws[i]), true
}

// PrevWriter implements OrderView.
func (o *SliceOrder) PrevWriter(key history.KeyID, p uint64) (history.TxnID, uint64, bool) {
	if p == 0 {
		return 0, 0, false
	}
	ws := o.writers[key]
	i, _ := slices.BinarySearch(ws, int32(p))
	if i == 0 {
		return history.Init, 0, true
	}
	return o.co[ws[i-1]], uint64(ws[i-1]), true
}

// Order returns the commit order as given.
func (o *SliceOrder) Order() []history.TxnID { return o.co }

// writes reports whether t (not Init) committed a write of key: one binary
// search over the key's writers, which the verifier's next question about
// the key then finds in cache.
func (o *SliceOrder) writes(key history.KeyID, t history.TxnID) bool {
	if int(t) >= len(o.pos) || o.pos[t] < 0 {
		return false
	}
	_, ok := slices.BinarySearch(o.writers[key], o.pos[t])
	return ok
}
