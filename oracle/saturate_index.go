package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// none marks an absent transaction in the oracle's flat arrays.
const none = ^uint32(0)

// index is the read-only view of a history that the structural checks and
// saturation share: which transactions are checked, where each sits in its
// session, and each transaction's written keys with the position of its last
// write to each (sorted by key, so membership is a binary search).
type index struct {
	h      *history.History
	levels []history.Level
	// live is false for server-aborted transactions, which the checker
	// ignores entirely (DESIGN §2).
	live []bool
	// sess lists each session's live transactions in session order; pos is
	// a transaction's index in it (-1 for Init and dead transactions).
	sess [][]history.TxnID
	pos  []int32
	// wStart[t]..wStart[t+1] delimit t's written keys in wKeys, sorted, with
	// the index of t's last write to each in wOps, and that write's flags
	// and value in wFlags and wVals (so that checking a read does not touch
	// the writer's operations).
	wStart []uint32
	wKeys  []history.KeyID
	wOps   []int32
	wFlags []history.OpFlags
	wVals  []int64
	// outcome and session copy each transaction's fields into dense
	// arrays, for the cache.
	outcome []history.Outcome
	session []history.SessionID
}

// newIndex indexes h. It does not assume h is valid: out-of-range
// references are left for checkStructure to report.
func newIndex(h *history.History, levels []history.Level) *index {
	n := len(h.Txns)
	ix := &index{
		h:       h,
		levels:  levels,
		live:    make([]bool, n),
		pos:     make([]int32, n),
		wStart:  make([]uint32, n+1),
		outcome: make([]history.Outcome, n),
		session: make([]history.SessionID, n),
	}
	for i := range h.Txns {
		ix.live[i] = h.Txns[i].Outcome != history.ServerAborted
		ix.pos[i] = -1
		ix.outcome[i], ix.session[i] = h.Txns[i].Outcome, h.Txns[i].Session
	}
	if n > 0 {
		ix.live[history.Init] = true
	}
	ix.sess = make([][]history.TxnID, len(h.Sessions))
	for s := range h.Sessions {
		list := make([]history.TxnID, 0, len(h.Sessions[s].Txns))
		for _, t := range h.Sessions[s].Txns {
			if int(t) < n && t != history.Init && ix.live[t] && ix.pos[t] < 0 && h.Txns[t].Session == history.SessionID(s) {
				ix.pos[t] = int32(len(list))
				list = append(list, t)
			}
		}
		ix.sess[s] = list
	}
	type kw struct {
		key history.KeyID
		op  int32
	}
	writes := 0
	for i := range h.Txns {
		for j := range h.Txns[i].Ops {
			if h.Txns[i].Ops[j].Kind == history.OpWrite {
				writes++
			}
		}
	}
	ix.wKeys = make([]history.KeyID, 0, writes)
	ix.wOps = make([]int32, 0, writes)
	ix.wFlags = make([]history.OpFlags, 0, writes)
	ix.wVals = make([]int64, 0, writes)
	var buf []kw
	for i := range h.Txns {
		ops := h.Txns[i].Ops
		buf = buf[:0]
		for j := range ops {
			if ops[j].Kind == history.OpWrite {
				buf = append(buf, kw{ops[j].Key, int32(j)})
			}
		}
		// Insertion sort: transactions write few keys, and it is stable.
		for a := 1; a < len(buf); a++ {
			for b := a; b > 0 && buf[b-1].key > buf[b].key; b-- {
				buf[b-1], buf[b] = buf[b], buf[b-1]
			}
		}
		if len(buf) > 64 {
			slices.SortStableFunc(buf, func(a, b kw) int { return int(a.key) - int(b.key) })
		}
		for j, w := range buf {
			if j+1 < len(buf) && buf[j+1].key == w.key {
				continue // keep the last write to each key
			}
			ix.wKeys = append(ix.wKeys, w.key)
			ix.wOps = append(ix.wOps, w.op)
			ix.wFlags = append(ix.wFlags, ops[w.op].Flags)
			ix.wVals = append(ix.wVals, ops[w.op].Value)
		}
		ix.wStart[i+1] = uint32(len(ix.wKeys))
	}
	return ix
}

// writes returns the keys t writes, sorted.
func (ix *index) writes(t history.TxnID) []history.KeyID {
	return ix.wKeys[ix.wStart[t]:ix.wStart[t+1]]
}

// lastWrite returns the index in t's Ops of t's last write to x, or -1.
func (ix *index) lastWrite(t history.TxnID, x history.KeyID) int32 {
	if p := ix.writeEntry(t, x); p >= 0 {
		return ix.wOps[p]
	}
	return -1
}

// writeEntry returns the position in wKeys of t's write of x, or -1.
func (ix *index) writeEntry(t history.TxnID, x history.KeyID) int {
	lo, hi := int(ix.wStart[t]), int(ix.wStart[t+1])
	for lo < hi {
		m := (lo + hi) / 2
		if ix.wKeys[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < int(ix.wStart[t+1]) && ix.wKeys[lo] == x {
		return lo
	}
	return -1
}

// visibleWriter reports whether t's writes can be read by others: t
// committed (Init included).
func (ix *index) visibleWriter(t history.TxnID) bool {
	return ix.outcome[t] == history.Committed
}

// checked reports whether t's reads are checked against its level: every
// live transaction but Init.
func (ix *index) checked(t history.TxnID) bool {
	return t != history.Init && ix.live[t]
}

// external reports whether op of transaction t is a read of another
// transaction's version (a wr edge), as opposed to a read of t's own write.
func external(t history.TxnID, op *history.Op) bool {
	return op.Kind == history.OpRead && op.Writer != t
}
