package isolation

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/invariants"
	"github.com/fickle-db/fickle/oracle"
)

// noSession is Init's session (history.NoSession).
const noSession = ^history.SessionID(0)

// recorder keeps the history as the engine runs: every inspected key with
// the writer of the version seen, every write, outcomes, and (derived from
// the order-maintenance list when asked) the commit order. It is off unless
// Config.Record: pgbench-scale runs without a checker keep nothing.
type recorder struct {
	on bool
	h  history.History
}

func (r *recorder) init(on bool) {
	r.on = on
	r.h.Txns = []history.Txn{{ID: history.Init, Session: noSession, Outcome: history.Committed, Name: "init"}}
}

func (r *recorder) session(s *session) {
	if !r.on {
		return
	}
	r.h.Sessions = append(r.h.Sessions, history.Session{ID: s.id, Name: s.name})
}

func (r *recorder) begin(t *txn) {
	if !r.on {
		return
	}
	r.h.Txns = append(r.h.Txns, history.Txn{ID: t.id, Session: t.sess.id, Level: t.level, Outcome: history.Pending})
	s := &r.h.Sessions[t.sess.id]
	s.Txns = append(s.Txns, t.id)
}

func (r *recorder) statement(t *txn, st history.Statement) {
	if !r.on {
		return
	}
	ht := &r.h.Txns[t.id]
	for len(ht.Statements) < int(t.event) {
		ht.Statements = append(ht.Statements, history.Statement{})
	}
	ht.Statements = append(ht.Statements, st)
}

// key returns the history id of a key, interning it on first use.
func (r *recorder) key(tb *table, ks *keyState) history.KeyID {
	if !ks.hidSet {
		ks.hid = r.h.Intern(history.Key{Table: tb.spec.Name, Name: tb.formatKey([]byte(ks.key))})
		ks.hidSet = true
	}
	return ks.hid
}

// read records that t inspected key ks and saw w's version; it returns the
// op's index, for markReturned.
func (r *recorder) read(t *txn, tb *table, ks *keyState, w *txn, tomb bool) int {
	if !r.on {
		return -1
	}
	var fl history.OpFlags
	if tomb {
		fl |= history.FlagTombstone
	}
	ht := &r.h.Txns[t.id]
	ht.Ops = append(ht.Ops, history.Op{Kind: history.OpRead, Flags: fl, Key: r.key(tb, ks), Event: t.event, Writer: w.id})
	return len(ht.Ops) - 1
}

// markReturned flags a recorded read as returned to the client.
func (r *recorder) markReturned(t *txn, op int) {
	if !r.on || op < 0 {
		return
	}
	r.h.Txns[t.id].Ops[op].Flags |= history.FlagReturned
}

// write records a write and returns the op's index.
func (r *recorder) write(t *txn, tb *table, ks *keyState, tomb bool) int {
	if !r.on {
		return -1
	}
	var fl history.OpFlags
	if tomb {
		fl |= history.FlagTombstone
	}
	ht := &r.h.Txns[t.id]
	ht.Ops = append(ht.Ops, history.Op{Kind: history.OpWrite, Flags: fl, Key: r.key(tb, ks), Event: t.event, Writer: t.id})
	return len(ht.Ops) - 1
}

// undoWrites removes the write ops of the undo entries from mark on (ROLLBACK
// TO SAVEPOINT): they never happened for anyone else. Reads stay.
func (r *recorder) undoWrites(t *txn, undone []undoEntry) {
	if !r.on || len(undone) == 0 {
		return
	}
	drop := make(map[int]bool, len(undone))
	for _, u := range undone {
		drop[u.op] = true
	}
	ht := &r.h.Txns[t.id]
	out := ht.Ops[:0]
	for i, op := range ht.Ops {
		if !drop[i] {
			out = append(out, op)
		}
	}
	ht.Ops = out
}

func (r *recorder) end(t *txn) {
	if !r.on {
		return
	}
	ht := &r.h.Txns[t.id]
	ht.Start, ht.End = int64(t.begin), int64(t.commit)
	switch t.state {
	case txnCommitted:
		ht.Outcome = history.Committed
	case txnClientAborted:
		ht.Outcome = history.ClientAborted
	case txnServerAborted:
		ht.Outcome = history.ServerAborted
	}
}

func (e *engine) history() *history.History {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.historyLocked()
}

// historyLocked copies the recorded history; e.mu is held.
func (e *engine) historyLocked() *history.History {
	src := &e.rec.h
	h := &history.History{
		Keys:     slices.Clone(src.Keys),
		Sessions: make([]history.Session, len(src.Sessions)),
		Txns:     make([]history.Txn, len(src.Txns)),
	}
	for i, s := range src.Sessions {
		s.Txns = slices.Clone(s.Txns)
		h.Sessions[i] = s
	}
	for i, t := range src.Txns {
		t.Ops = slices.Clone(t.Ops)
		t.Statements = slices.Clone(t.Statements)
		h.Txns[i] = t
	}
	if e.rec.on {
		for nd := e.co.head; nd != nil; nd = nd.next {
			h.CommitOrder = append(h.CommitOrder, nd.t.id)
		}
	}
	return h
}

// recheck verifies, in invariant builds, that the recorded co still
// witnesses the whole history after t ended (STYLE #9): a failure is a bug
// in the engine, never bad input, so it panics.
func (e *engine) recheck(t *txn) {
	if !invariants.Enabled || !e.rec.on || len(e.rec.h.Txns) > maxRecheckTxns {
		return
	}
	h := e.historyLocked()
	ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{}, nil)
	if err != nil || ex != nil {
		panic(fmt.Sprintf("isolation: after T%d ended the recorded commit order no longer witnesses consistency: %v %+v", t.id, err, ex))
	}
}

// maxRecheckTxns bounds the histories recheck verifies after every
// transaction (each check is linear, so a run costs quadratic time).
const maxRecheckTxns = 2000
