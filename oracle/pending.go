package oracle

import "github.com/fickle-db/fickle/history"

// settled returns h with every pending transaction that may still be
// aborted taken as server-aborted, so that its reads are not held against
// the history whichever way the checker decides (a recorded commit order,
// saturation or the search): fickle dooms a pending transaction whose
// reads no longer fit and fails its next statement with 40001, and a
// history cut while a transaction runs says nothing of how it ends. Kept
// as they are: a pending transaction that an ended transaction of its
// session follows (it ended in effect), and one whose writes another
// transaction read or a version order shows (a structural violation, named
// as reading from a transaction that never committed). h itself is returned when nothing
// changes; otherwise a copy sharing all but the transactions' outcomes and
// the commit order.
func settled(h *history.History) *history.History {
	open := map[history.TxnID]bool{}
	for _, s := range h.Sessions {
		for i := len(s.Txns) - 1; i >= 0 && h.Txns[s.Txns[i]].Outcome == history.Pending; i-- {
			open[s.Txns[i]] = true
		}
	}
	if len(open) == 0 {
		return h
	}
	for i := range h.Txns {
		for _, op := range h.Txns[i].Ops {
			if op.Kind == history.OpRead && op.Writer != history.TxnID(i) {
				delete(open, op.Writer)
			}
		}
	}
	for _, writers := range h.VersionOrder {
		for _, t := range writers {
			delete(open, t)
		}
	}
	if len(open) == 0 {
		return h
	}
	c := *h
	c.Txns = append([]history.Txn(nil), h.Txns...)
	for t := range open {
		c.Txns[t].Outcome = history.ServerAborted
	}
	if h.CommitOrder != nil {
		c.CommitOrder = make([]history.TxnID, 0, len(h.CommitOrder))
		for _, t := range h.CommitOrder {
			if !open[t] {
				c.CommitOrder = append(c.CommitOrder, t)
			}
		}
	}
	return &c
}
