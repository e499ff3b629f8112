package oracle

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/fickle-db/fickle/history"
)

// miniSubSteps bounds Check on the few transactions of one violation, and
// maxMiniSubTxns how many transactions a violation Check names may have.
const (
	miniSubSteps   = 2_000_000
	maxMiniSubTxns = 16
)

// explain names a violation the mini-transaction check found. The
// transactions involved form a small history of their own (with the reads
// among them and of Init), which violates the checked level as the whole
// history does: the violation's edges are all between them. Check names
// the weakest level that small history violates, with its anomaly and a
// cycle in the user's terms; every level is monotone under removing
// transactions and reads, so the whole history violates that level too.
// When Check is not asked (past maxMiniExplained) or does not decide,
// fallback stands, its edges explained from the graph.
//
// A violation of the checked level alone keeps fallback's cycle, which
// shows every anti-dependency as an edge (Check's may hide some in the
// justification of a write-write edge), and its name counts them.
func (c *miniChecker) explain(fallback *Explanation, involved []history.TxnID, useCheck bool) *Explanation {
	if ts := c.distinctTxns(involved); useCheck && len(ts) <= maxMiniSubTxns {
		sub, ids := c.subHistory(ts)
		r := Check(sub, Options{Level: c.opts.Level, RealTime: c.opts.RealTime, MaxSteps: miniSubSteps})
		if e := r.Explanation; r.Verdict == Violation && e != nil && e.Structural == nil && e.Level < c.opts.Level {
			return c.remap(e, ids)
		}
	}
	fallback.levels = map[history.TxnID]history.Level{}
	for i := range fallback.Cycle {
		e := &fallback.Cycle[i]
		for _, t := range []history.TxnID{e.From, e.To, e.Via} {
			if t != history.Init {
				fallback.levels[t] = c.opts.Level
			}
		}
		if e.Reason == "" {
			e.Reason = c.reason(e)
		}
	}
	return fallback
}

// reason explains one edge of a cycle of the mini-transaction graph.
func (c *miniChecker) reason(e *Edge) string {
	h := c.h
	if e.Kind != EdgeRW {
		var v visibility
		return edgeReason(c.ix, e, &v, c.opts.RealTime)
	}
	src := c.rwSource(e.From, e.Key)
	return fmt.Sprintf("%s read %s%s from %s%s, and %s overwrote that version with %s%s%s",
		txnName(h, e.From), keyName(h, e.Key), opValue(h, e.From, e.FromOp), txnName(h, src), stmtText(h, e.From, e.FromOp),
		txnName(h, e.To), keyName(h, e.Key), opValue(h, e.To, e.ToOp), stmtText(h, e.To, e.ToOp))
}

// rwSource returns the writer of the version of x that t read first.
func (c *miniChecker) rwSource(t history.TxnID, x history.KeyID) history.TxnID {
	for _, r := range c.txnReads(t) {
		if r.key == x {
			return r.src
		}
	}
	return history.NoWriter
}

// lostUpdate explains the Divergence of version v: a and b both read it
// and overwrote it (k transactions did).
func (c *miniChecker) lostUpdate(a, b history.TxnID, v int32, k int) *Explanation {
	readOf := func(t history.TxnID) miniRead {
		for _, r := range c.txnReads(t) {
			if r.ver == v {
				return r
			}
		}
		return miniRead{}
	}
	ra, rb := readOf(a), readOf(b)
	h, x := c.h, ra.key
	edge := func(reader history.TxnID, r miniRead, writer history.TxnID) Edge {
		return Edge{From: reader, To: writer, Kind: EdgeRW, Key: x, FromOp: r.op, ToOp: lastWriteOp(h, writer, x), Via: reader,
			Reason: lostUpdateReason(h, reader, r.op, writer, x, r.src)}
	}
	e := &Explanation{Level: history.Snapshot, Anomaly: "lost update", Cycle: []Edge{edge(a, ra, b), edge(b, rb, a)},
		levels: map[history.TxnID]history.Level{a: c.opts.Level, b: c.opts.Level}}
	if k > 2 {
		e.Cycle[1].Reason += fmt.Sprintf(" (%d transactions read that version and wrote %s)", k, keyName(h, x))
	}
	return e
}

// distinctTxns returns the transactions of ts other than Init, once each,
// in session order.
func (c *miniChecker) distinctTxns(ts []history.TxnID) []history.TxnID {
	h := c.h
	ts = slices.DeleteFunc(slices.Clone(ts), func(t history.TxnID) bool { return t == history.Init })
	slices.SortFunc(ts, func(a, b history.TxnID) int {
		if s := cmp.Compare(h.Txns[a].Session, h.Txns[b].Session); s != 0 {
			return s
		}
		return cmp.Compare(c.ix.pos[a], c.ix.pos[b])
	})
	return slices.Compact(ts)
}

// subHistory builds the history of the transactions ts (distinct, in
// session order) and Init: their writes, their reads of each other and of
// Init, sessions and times kept, transactions named as in h. It returns
// the history and, by its transaction ids, the ids in h.
func (c *miniChecker) subHistory(ts []history.TxnID) (*history.History, []history.TxnID) {
	h := c.h
	ids := append([]history.TxnID{history.Init}, ts...)
	in := make(map[history.TxnID]history.TxnID, len(ids))
	for i, t := range ids {
		in[t] = history.TxnID(i)
	}
	sub := &history.History{Keys: h.Keys, Sessions: make([]history.Session, len(h.Sessions)), Txns: make([]history.Txn, len(ids))}
	for s := range sub.Sessions {
		sub.Sessions[s] = history.Session{ID: history.SessionID(s), Name: h.Sessions[s].Name}
	}
	sub.Txns[0] = history.Txn{ID: history.Init, Session: history.NoSession, Outcome: history.Committed}
	initKeys := map[history.KeyID]bool{}
	for i, t := range ts {
		orig := &h.Txns[t]
		id := history.TxnID(i + 1)
		name := orig.Name
		if name == "" {
			name = strconv.FormatUint(uint64(t), 10)
		}
		txn := history.Txn{ID: id, Session: orig.Session, Level: orig.Level, Outcome: orig.Outcome, Name: name,
			Statements: orig.Statements, Start: orig.Start, End: orig.End}
		for _, op := range orig.Ops {
			if op.Kind == history.OpRead && op.Writer != t {
				w, ok := in[op.Writer]
				if !ok {
					continue
				}
				if w == history.Init {
					initKeys[op.Key] = true
				}
				op.Writer = w
			} else if op.Kind == history.OpRead {
				op.Writer = id
			}
			txn.Ops = append(txn.Ops, op)
		}
		sub.Txns[id] = txn
		sub.Sessions[orig.Session].Txns = append(sub.Sessions[orig.Session].Txns, id)
	}
	init := &sub.Txns[0]
	for x := range initKeys {
		if p := c.ix.lastWrite(history.Init, x); p >= 0 {
			op := h.Txns[history.Init].Ops[p]
			op.Event = 0
			init.Ops = append(init.Ops, op)
		}
	}
	slices.SortFunc(init.Ops, func(a, b history.Op) int { return cmp.Compare(a.Key, b.Key) })
	return sub, ids
}

// remap turns an explanation of a sub-history (see subHistory) into one of
// h: transaction ids mapped back and operation indexes found again in h.
func (c *miniChecker) remap(e *Explanation, ids []history.TxnID) *Explanation {
	back := func(t history.TxnID) history.TxnID {
		if int(t) < len(ids) {
			return ids[t]
		}
		return t
	}
	for i := range e.Cycle {
		ed := &e.Cycle[i]
		ed.From, ed.To, ed.Via = back(ed.From), back(ed.To), back(ed.Via)
		fillEdgeOps(c.h, ed)
	}
	levels := make(map[history.TxnID]history.Level, len(e.levels))
	for t, l := range e.levels {
		levels[back(t)] = l
	}
	e.levels = levels
	return e
}
