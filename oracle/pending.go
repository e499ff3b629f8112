package oracle

import "github.com/fickle-db/fickle/history"

// settled returns h with its pending transactions decided as far as the
// history allows, so that every path of the checker (a recorded commit
// order, saturation, the search) sees the same history:
//
//   - one that may still be aborted (no later transaction of its session
//     ended) is taken as server-aborted: its reads are not held against the
//     history, since fickle dooms a pending transaction whose reads no
//     longer fit and fails its next statement with 40001, and a history cut
//     while a transaction runs says nothing of how it ends;
//   - one that a later ended transaction of its session follows ended in
//     effect, without a commit the history shows: it is taken as
//     client-aborted (its reads checked, its writes invisible).
//
// A pending transaction whose writes a transaction not ignored read, or
// that a version order lists, stays pending: that is a structural
// violation, named as reading from a transaction that never committed. h itself is
// returned when nothing changes; otherwise a copy sharing all but the
// transactions' outcomes and the commit order.
func settled(h *history.History) *history.History {
	decided := map[history.TxnID]history.Outcome{}
	for _, s := range h.Sessions {
		ended := false
		for i := len(s.Txns) - 1; i >= 0; i-- {
			switch t := s.Txns[i]; {
			case int(t) >= len(h.Txns):
				return h // malformed: the structural checks name it
			case h.Txns[t].Outcome != history.Pending:
				ended = true
			case ended:
				decided[t] = history.ClientAborted
			default:
				decided[t] = history.ServerAborted
			}
		}
	}
	if len(decided) == 0 {
		return h
	}
	for _, writers := range h.VersionOrder {
		for _, t := range writers {
			delete(decided, t)
		}
	}
	// A read of a pending transaction's write keeps it pending unless the
	// reader is ignored too (server-aborted, or taken as such): repeat
	// until no more is kept.
	readers := map[history.TxnID][]history.TxnID{}
	for i := range h.Txns {
		for _, op := range h.Txns[i].Ops {
			if op.Kind == history.OpRead && op.Writer != history.TxnID(i) && int(op.Writer) < len(h.Txns) &&
				h.Txns[op.Writer].Outcome == history.Pending && h.Txns[i].Outcome != history.ServerAborted {
				readers[op.Writer] = append(readers[op.Writer], history.TxnID(i))
			}
		}
	}
	for kept := true; kept; {
		kept = false
		for t := range decided {
			for _, r := range readers[t] {
				if o, ok := decided[r]; !ok || o != history.ServerAborted {
					delete(decided, t)
					kept = true
					break
				}
			}
		}
	}
	if len(decided) == 0 {
		return h
	}
	c := *h
	c.Txns = append([]history.Txn(nil), h.Txns...)
	for t, o := range decided {
		c.Txns[t].Outcome = o
	}
	if h.CommitOrder != nil {
		c.CommitOrder = make([]history.TxnID, 0, len(h.CommitOrder))
		for _, t := range h.CommitOrder {
			if decided[t] != history.ServerAborted {
				c.CommitOrder = append(c.CommitOrder, t)
			}
		}
	}
	return &c
}
