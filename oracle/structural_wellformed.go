package oracle

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// checkWellFormed checks, in O(n + ops) and without maps, the invariants
// every later stage relies on (history.Validate's, less the ones
// checkStructure reports as anomalies): ids equal to indexes, Init first,
// committed and in no session, every other transaction in exactly its own
// session's list, levels, outcomes and operation kinds in range, keys in
// range, statement numbers non-decreasing, no reads in Init, and a recorded
// commit order that lists Init first and every committed and client-aborted
// transaction once. A malformed history is a violation of every level.
func checkWellFormed(h *history.History) *Explanation {
	bad := func(format string, args ...any) *Explanation {
		reason := fmt.Sprintf(format, args...)
		return &Explanation{Level: history.ReadCommitted, Anomaly: Malformed.String(),
			Structural: &StructuralIssue{Kind: Malformed, Op: NoOp, Writer: history.NoWriter, Reason: reason}}
	}
	n := len(h.Txns)
	if init := &h.Txns[history.Init]; init.Outcome != history.Committed || init.Session != history.NoSession {
		return bad("init must be committed and in no session")
	}
	listed := make([]bool, n)
	for s := range h.Sessions {
		if h.Sessions[s].ID != history.SessionID(s) {
			return bad("session %d has id %d", s, h.Sessions[s].ID)
		}
		for _, t := range h.Sessions[s].Txns {
			if t == history.Init || int(t) >= n || listed[t] || h.Txns[t].Session != history.SessionID(s) {
				return bad("session %s lists transaction #%d, which is not one of its own", sessionName(h, t), t)
			}
			listed[t] = true
		}
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		switch {
		case t.ID != history.TxnID(i):
			return bad("transaction #%d has id %d", i, t.ID)
		case i != int(history.Init) && !listed[i]:
			return bad("%s is in no session's list", txnName(h, t.ID))
		case t.Level > history.Serializable:
			return bad("%s has level %d", txnName(h, t.ID), t.Level)
		case t.Outcome > history.Pending:
			return bad("%s has outcome %d", txnName(h, t.ID), t.Outcome)
		}
		var last uint32
		for j, op := range t.Ops {
			switch {
			case op.Kind > history.OpWrite:
				return bad("%s operation %d has kind %d", txnName(h, t.ID), j+1, op.Kind)
			case int(op.Key) >= len(h.Keys):
				return bad("%s operation %d names key #%d, which the history does not have", txnName(h, t.ID), j+1, op.Key)
			case op.Event < last:
				return bad("%s operation %d goes back to statement %d", txnName(h, t.ID), j+1, op.Event)
			case i == int(history.Init) && op.Kind == history.OpRead:
				return bad("init reads")
			}
			last = op.Event
		}
	}
	if h.CommitOrder != nil {
		in := make([]bool, n)
		for k, t := range h.CommitOrder {
			switch {
			case int(t) >= n || in[t]:
				return bad("the commit order names transaction #%d twice or out of range", t)
			case k == 0 && t != history.Init:
				return bad("the commit order does not start with init")
			case h.Txns[t].Outcome != history.Committed && h.Txns[t].Outcome != history.ClientAborted:
				return bad("the commit order names %s, which is %s", txnName(h, t), h.Txns[t].Outcome)
			}
			in[t] = true
		}
		for i := range h.Txns {
			if o := h.Txns[i].Outcome; (o == history.Committed || o == history.ClientAborted) && !in[i] {
				return bad("the commit order misses %s", txnName(h, history.TxnID(i)))
			}
		}
	}
	return nil
}
