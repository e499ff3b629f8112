package isolation

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/invariants"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
)

// noSession is Init's session (history.NoSession).
const noSession = ^history.SessionID(0)

// recorder keeps the history as the engine runs: every inspected key with
// the writer of the version seen, every write, outcomes, and (derived from
// the order-maintenance list when asked) the commit order. It is off unless
// Config.Record: pgbench-scale runs without a checker keep nothing.
type recorder struct {
	on  bool
	h   history.History
	log EventLog // nil unless Config.Log
	// late holds, per ended transaction, the reads its scans made after it
	// ended: of keys created later (from init) and of rows that entered an
	// index range it looked up (phantom.go); spliced into copies of h.
	late map[history.TxnID][]phantomRead
	// co is the commit order as recorded: every transaction that took a
	// place, with the one it was placed right after, in the order they
	// ended (co itself forgets the transactions before the staleness
	// horizon; the history keeps them).
	co []coLink
	// logBase is added to the ids of the transactions the log receives, so
	// that ids stay fresh in the log across checkpoints, after which the
	// store numbers transactions from 1 again; logMax is the largest id
	// logged, the next history's logBase.
	logBase, logMax history.TxnID
}

// coLink is one placement in co: t went right after after.
type coLink struct{ t, after history.TxnID }

// logID is t's id in the log.
func (r *recorder) logID(t history.TxnID) history.TxnID {
	if t == history.Init || t == history.NoWriter {
		return t
	}
	t += r.logBase
	r.logMax = max(r.logMax, t)
	return t
}

func (r *recorder) init(on bool, log EventLog) {
	r.on, r.log, r.late = on, log, make(map[history.TxnID][]phantomRead)
	r.h.Txns = []history.Txn{{ID: history.Init, Session: noSession, Outcome: history.Committed, Name: "init"}}
}

func (r *recorder) session(s *session) {
	if r.log != nil {
		_ = r.log.Session(s.id, s.name)
	}
	if !r.on {
		return
	}
	r.h.Sessions = append(r.h.Sessions, history.Session{ID: s.id, Name: s.name})
}

func (r *recorder) begin(t *txn) {
	if r.log != nil {
		_ = r.log.Begin(r.logID(t.id), t.sess.id, t.level, int64(t.begin), "")
	}
	if !r.on {
		return
	}
	r.h.Txns = append(r.h.Txns, history.Txn{ID: t.id, Session: t.sess.id, Level: t.level, Outcome: history.Pending})
	s := &r.h.Sessions[t.sess.id]
	s.Txns = append(s.Txns, t.id)
}

func (r *recorder) statement(t *txn, st history.Statement) {
	if r.log != nil {
		r.flushReads(t, -1)
		r.flushWrites(t, false)
		_ = r.log.Stmt(r.logID(t.id), st)
	}
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

// readRef locates a recorded read: its op in the in-memory history and its
// item in the transaction's buffered log event (-1 when not kept).
type readRef struct {
	op, item int
	gen      uint64 // t.logGen when the item was buffered
}

// read records that t inspected key ks and saw w's version.
func (r *recorder) read(t *txn, tb *table, ks *keyState, w *txn, tomb bool) readRef {
	ref := readRef{op: -1, item: -1}
	if t.txnLive == nil {
		return ref // ended (a callback rolled it back): nothing to record
	}
	if r.log != nil && w != t {
		// Reads of the transaction's own writes carry no wr and are not
		// logged (flushWrites logs the writes).
		it := history.ReadItem{Key: r.logKey(tb, ks), Writer: w.id, Tombstone: tomb}
		if latest := ks.versions()[len(ks.versions())-1].w; latest != w {
			it.Newer = latest.id // a stale read: the log says which version it missed
		}
		t.logReads = append(t.logReads, it)
		ref.item, ref.gen = len(t.logReads)-1, t.logGen
	}
	if !r.on {
		return ref
	}
	var fl history.OpFlags
	if tomb {
		fl |= history.FlagTombstone
	}
	ht := &r.h.Txns[t.id]
	ht.Ops = append(ht.Ops, history.Op{Kind: history.OpRead, Flags: fl, Key: r.key(tb, ks), Event: t.event, Writer: w.id})
	ref.op = len(ht.Ops) - 1
	return ref
}

// notStale clears the stale mark of a read recorded after the fact (a
// phantom materialized when a later writer created the key): when the scan
// ran, the version it is said to have seen was the latest.
func (r *recorder) notStale(t *txn, ref readRef) {
	if ref.item >= 0 && ref.gen == t.logGen && ref.item < len(t.logReads) {
		t.logReads[ref.item].Newer = history.Init
	}
}

// markReturned flags a recorded read as returned to the client.
func (r *recorder) markReturned(t *txn, ref readRef) {
	if t.txnLive == nil {
		return // ended meanwhile: its log event is written
	}
	if ref.item >= 0 && ref.gen == t.logGen && ref.item < len(t.logReads) {
		t.logReads[ref.item].Returned = true
	}
	if r.on && ref.op >= 0 {
		r.h.Txns[t.id].Ops[ref.op].Flags |= history.FlagReturned
	}
}

// flushReads logs t's buffered read items as one read event, unless t is
// inside more than depth scans: a read nested in a scan callback (the inner
// side of a join) waits for the outermost scan, whose pending items still
// expect their returned flags. depth -1 flushes whatever the nesting.
func (r *recorder) flushReads(t *txn, depth int) {
	if r.log != nil && t.txnLive != nil && len(t.logReads) > 0 && (depth < 0 || t.visiting <= depth) {
		if r.logBase != 0 {
			for i := range t.logReads {
				t.logReads[i].Writer = r.logID(t.logReads[i].Writer)
				t.logReads[i].Newer = r.logID(t.logReads[i].Newer)
			}
		}
		_ = r.log.Read(r.logID(t.id), t.logReads)
		t.logReads = t.logReads[:0]
		t.logGen++
	}
}

func (r *recorder) logKey(tb *table, ks *keyState) history.Key {
	return history.Key{Table: tb.spec.Name, Name: tb.formatKey([]byte(ks.key))}
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

// undoWrites removes the write ops of undo's entries from mark on (ROLLBACK
// TO SAVEPOINT): they never happened for anyone else. Reads stay, except
// the reads of those undone writes (a read of its own write carries no wr,
// and the write it named is gone). Every op removed comes after the
// savepoint, so the op indexes of the remaining undo entries hold.
func (r *recorder) undoWrites(t *txn, undo *chunkList[undoEntry], mark int) {
	if !r.on || undo.len() <= mark {
		return
	}
	drop := make(map[int]bool, undo.len()-mark)
	for u := range undo.from(mark) {
		drop[u.op] = true
	}
	ht := &r.h.Txns[t.id]
	out := ht.Ops[:0]
	written := map[history.KeyID]bool{}
	for i, op := range ht.Ops {
		if drop[i] {
			continue
		}
		if op.Kind == history.OpWrite {
			written[op.Key] = true
		} else if op.Writer == t.id && !written[op.Key] {
			continue // it read an undone write: no wr, nothing left to read from
		}
		out = append(out, op)
	}
	ht.Ops = out
}

func (r *recorder) end(t *txn, after *txn) {
	if r.log != nil {
		r.logEnd(t, after)
	}
	if !r.on {
		return
	}
	if after != nil {
		r.co = append(r.co, coLink{t: t.id, after: after.id})
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

// flushWrites logs t's writes not logged yet, in the order it made them,
// after its buffered reads: all of them, or (not all) those no ROLLBACK TO
// SAVEPOINT can undo any more, the writes before its oldest savepoint.
// Logged when their statement ends (the next statement starts, or t ends),
// a write belongs to the statement that made it, as the log's readers take
// it; a write after a savepoint waits for the savepoint's release, or for
// t's end, and is logged with the statement then current.
func (r *recorder) flushWrites(t *txn, all bool) {
	end := t.undo.len()
	if !all && len(t.savepoints) > 0 {
		end = min(end, t.savepoints[0])
	}
	if t.logWritten >= end {
		return
	}
	// The write an undo entry records is the one after its prev in the
	// chain of t's writes to its key: the key's last one unless t wrote
	// the key again later, when the chain is indexed once.
	var chains map[*keyState]map[*write]*write
	for i := t.logWritten; i < end; i++ {
		u := t.undo.at(i)
		w := t.pendingWrite(u.ks)
		if w.before != u.prev {
			if chains == nil {
				chains = make(map[*keyState]map[*write]*write)
			}
			next := chains[u.ks]
			if next == nil {
				next = make(map[*write]*write)
				for x := w; x != nil; x = x.before {
					next[x.before] = x
				}
				chains[u.ks] = next
			}
			w = next[u.prev]
		}
		it := history.WriteItem{Key: r.logKey(w.tb, w.ks), Tombstone: w.tomb}
		if !w.tomb && w.tb.formatRow != nil {
			it.Row = w.tb.formatRow(w.row)
		}
		_ = r.log.Write(r.logID(t.id), it)
	}
	t.logWritten = end
}

// logEnd logs t's end: its writes not logged yet, its place in co, and its
// outcome.
func (r *recorder) logEnd(t *txn, after *txn) {
	r.flushReads(t, -1)
	r.flushWrites(t, true)
	if after != nil {
		_ = r.log.CommitOrder(r.logID(t.id), r.logID(after.id))
	}
	switch t.state {
	case txnCommitted:
		_ = r.log.Commit(r.logID(t.id), int64(t.commit))
	case txnClientAborted:
		_ = r.log.Abort(r.logID(t.id), history.ClientAborted, "", 0)
	case txnServerAborted:
		_ = r.log.Abort(r.logID(t.id), history.ServerAborted, string(pgerror.GetCode(t.abortErr)), 0)
	}
}

func (e *engine) history() *history.History {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.historyLocked()
}

// readHistory is Store.ReadHistory.
func (e *engine) readHistory() (*history.History, error) {
	e.mu.Lock()
	log, ok := e.rec.log.(ReadableLog)
	if e.rec.on || !ok {
		defer e.mu.Unlock()
		return e.historyLocked(), nil
	}
	read, err := log.ReadBack()
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return read()
}

// historyLocked copies the recorded history; e.mu is held.
func (e *engine) historyLocked() *history.History {
	src := &e.rec.h
	h := &history.History{
		Keys:        slices.Clone(src.Keys),
		Sessions:    make([]history.Session, len(src.Sessions)),
		Txns:        make([]history.Txn, len(src.Txns)),
		Checkpoints: src.Checkpoints,
	}
	for i, s := range src.Sessions {
		s.Txns = slices.Clone(s.Txns)
		h.Sessions[i] = s
	}
	for i, t := range src.Txns {
		if late := e.rec.late[t.ID]; len(late) > 0 {
			t.Ops = spliceLate(t.Ops, late)
		} else {
			t.Ops = slices.Clone(t.Ops)
		}
		t.Statements = slices.Clone(t.Statements)
		h.Txns[i] = t
	}
	if e.rec.on {
		h.CommitOrder = e.rec.commitOrder()
	}
	return h
}

// commitOrder replays the recorded placements into co, init first.
func (r *recorder) commitOrder() []history.TxnID {
	next := make([]history.TxnID, len(r.h.Txns))
	for i := range next {
		next[i] = history.NoWriter
	}
	for _, l := range r.co {
		next[l.t], next[l.after] = next[l.after], l.t
	}
	co := make([]history.TxnID, 0, len(r.co)+1)
	for t := history.Init; t != history.NoWriter; t = next[t] {
		co = append(co, t)
	}
	return co
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
