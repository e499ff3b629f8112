package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// rtIndex answers the real-time questions of the strict variants over a
// commit order: which position is the highest among the transactions that
// committed before a given instant (they must all be co-before, and PC, SI
// and SER see them), and, per key, which writer of the key is the co-latest
// among those (RC and RA see them as they see their session's). Building it
// costs O(n log n); the strict variants pay it once per check.
type rtIndex struct {
	ends []int64         // End of every timed live transaction in the order, ascending
	txns []history.TxnID // the transaction of each end
	// maxTxn[i] is the transaction of highest position among ends[:i+1].
	maxTxn []history.TxnID
	maxPos []uint64
	byKey  map[history.KeyID]*rtIndex
}

type rtEntry struct {
	end int64
	t   history.TxnID
	pos uint64
}

func newRTIndex(entries []rtEntry) *rtIndex {
	slices.SortFunc(entries, func(a, b rtEntry) int {
		switch {
		case a.end < b.end:
			return -1
		case a.end > b.end:
			return 1
		}
		return 0
	})
	r := &rtIndex{ends: make([]int64, len(entries)), txns: make([]history.TxnID, len(entries)), maxTxn: make([]history.TxnID, len(entries)), maxPos: make([]uint64, len(entries))}
	for i, e := range entries {
		r.ends[i], r.txns[i] = e.end, e.t
		r.maxTxn[i], r.maxPos[i] = e.t, e.pos
		if i > 0 && r.maxPos[i-1] > e.pos {
			r.maxTxn[i], r.maxPos[i] = r.maxTxn[i-1], r.maxPos[i-1]
		}
	}
	return r
}

// buildRTIndex indexes every committed transaction with an end time, and
// per key its writers.
func buildRTIndex(ix *txnIndex, view OrderView) *rtIndex {
	var all []rtEntry
	perKey := make(map[history.KeyID][]rtEntry)
	for i := 1; i < len(ix.h.Txns); i++ {
		t := history.TxnID(i)
		end := ix.h.Txns[i].End
		if end == 0 || !ix.get(t).commit {
			continue
		}
		p, ok := view.Pos(t)
		if !ok {
			continue
		}
		e := rtEntry{end: end, t: t, pos: p}
		all = append(all, e)
		for _, k := range ix.get(t).writes {
			perKey[k] = append(perKey[k], e)
		}
	}
	r := newRTIndex(all)
	r.byKey = make(map[history.KeyID]*rtIndex, len(perKey))
	for k, es := range perKey {
		r.byKey[k] = newRTIndex(es)
	}
	return r
}

// latestBefore returns the transaction of highest position among the
// committed ones that ended before start, or false when none did.
func (r *rtIndex) latestBefore(start int64) (history.TxnID, uint64, bool) {
	if r == nil || start == 0 {
		return 0, 0, false
	}
	i, _ := slices.BinarySearch(r.ends, start) // first end >= start
	if i == 0 {
		return 0, 0, false
	}
	return r.maxTxn[i-1], r.maxPos[i-1], true
}

// latestWriterBefore is latestBefore restricted to committed writers of x.
func (r *rtIndex) latestWriterBefore(x history.KeyID, start int64) (history.TxnID, uint64, bool) {
	if r == nil {
		return 0, 0, false
	}
	return r.byKey[x].latestBefore(start)
}

// before returns the committed transactions that ended before start.
func (r *rtIndex) before(start int64) []history.TxnID {
	if r == nil || start == 0 {
		return nil
	}
	i, _ := slices.BinarySearch(r.ends, start)
	return r.txns[:i]
}
