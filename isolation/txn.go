package isolation

import (
	"context"
	"math/rand/v2"
	"slices"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// session is one session's state: its transactions in session order.
type session struct {
	e    *engine
	name string
	id   history.SessionID
	cur  *txn   // the transaction in progress, if any
	ntxn uint64 // transactions begun, for PRNG derivation
	// serverAborts counts the session's latest transactions in a row that
	// the server aborted (40001, 40P01): the adversary calms down for a
	// client's retries (retryCalmed).
	serverAborts int
	// ntxnBase is ntxn when the current history began (the last
	// checkpoint): replay numbers a session's transactions from it.
	ntxnBase uint64

	lastPos *omNode // co position of the session's latest ended transaction
	vc      clock   // the session's causal past
	// pastSeq is the sequence number of its latest transaction that joined
	// the collapsed past before the staleness horizon (collect.go): every
	// earlier one did too, since session order is part of co.
	pastSeq uint64

	idle chan struct{} // closed when the transaction in progress ends (BeginWait)
	// idleWaiters observe the waits for idle (WithWaitObserver).
	idleWaiters []WaitObserver
	// waitRecorder learns of the session's lock waits (RecordWaits).
	waitRecorder WaitRecorder
	holder       *txn                 // holds the session-level advisory locks
	advisory     map[advisoryHold]int // session-level advisory locks held, counted

	stmtMemo statementReads // an empty statement memo for the next transaction (statement_reads.go)
	// spareLocks is the lock list of its last transaction, emptied, for
	// the next one (txn.addLock).
	spareLocks []resource
}

type txnState uint8

const (
	txnActive txnState = iota
	txnCommitted
	txnClientAborted
	txnServerAborted
)

// txn is a transaction's state. What later checks need once it ended
// (its place, level, causal past, writes, a windowed transaction's reads)
// stays in txn, which its versions keep alive; what only a transaction in
// progress needs lives in txnLive, dropped when it ends, so that a stored
// version costs little more than its row.
type txn struct {
	*txnLive // nil once ended

	id history.TxnID
	// xid is its id as PostgreSQL's system columns show it, 0 until it
	// needs one (xmax.go).
	xid      uint32
	e        *engine
	sess     *session
	seq      uint64 // 1-based position in its session
	level    history.Level
	state    txnState
	abortErr error
	pos      *omNode // position in co once ended (committed or client-aborted)
	// sessionHolder marks a session's placeholder for session-level
	// advisory locks: never in the history, never ends.
	sessionHolder bool

	begin, commit uint64 // logical ticks (Config.RealTime)
	rtFront       uint64 // once ended: every commit before this tick is in its causal past

	rd    *readState  // the level's read bookkeeping (PC, SI, SER keep it)
	vc    clock       // once ended: its causal past, itself included
	wrote []*keyState // once committed: the keys it wrote
	// past marks a transaction placed before the staleness horizon
	// (collect.go): its node left co, and it keeps only what the base
	// versions it wrote need (its identity and writes).
	past bool
	// kept is its weight (collect.go) once ended in co.
	kept int
}

// txnLive is the state of a transaction in progress.
type txnLive struct {
	readOnly bool
	strategy Strategy
	mode     advMode
	rng      *rand.Rand

	writes map[TableID]map[string]*write
	// ownXmax is the xmax of its own versions of keys it locked before
	// writing them or after (xmax.go), nil until it has one.
	ownXmax map[*keyState]uint32
	// created lists, table by table, the keys it created (createdKey) and
	// holds a write to: their writes are keyState.pending, out of writes.
	created    []createdKeys
	writeSeq   uint32 // own writes made so far (write.seq, WriteMark)
	undo       chunkList[undoEntry]
	writeSlab  []write // the writes allocated for the next writes (newWrite)
	savepoints []int   // undo log length at each savepoint
	// subXIDs are the ids of its open subtransactions, one a savepoint (0
	// until one needs it), and subXmin the xmin of its writes made in one
	// (xmax.go).
	subXIDs []uint32
	subXmin map[*write]uint32
	// logWritten is how many of undo's entries have their writes in the
	// log (recorder.flushWrites).
	logWritten int

	// keyBufs hold the index keys a write compares while it may wait for
	// locks, which lets other transactions use the engine's (indexKey).
	keyBufs [2][]byte

	locks      []resource
	tableLocks map[TableID]uint16
	waitingFor *txn
	// waitOn is the lock t is queued for while waiting is set, and
	// waitSeq numbers that wait among the engine's (Store.Locks).
	waitOn  resource
	waiting bool
	waitSeq uint64
	// wake lets t's lock wait retry (acquire, wakeWaiters); made at its
	// first wait.
	wake chan struct{}

	snap      *omNode            // Config.StatementSnapshots: co's end when the statement began
	nreads    int                // keys inspected
	logReads  []history.ReadItem // reads not yet logged (Config.Log)
	logGen    uint64             // bumped at every flush of logReads
	visiting  int                // scans in progress (nested in callbacks)
	event     uint32             // current statement event
	stmtEvent uint32             // the event the current statement began with (re-checks add events)
	stmts     int                // statements started with Statement
	stmt      history.Statement  // the current statement (an EvalPlanQual re-check repeats its SQL)
	// tooOld dooms the transaction: the staleness horizon collected
	// versions its reads depend on (collect.go); it fails with 40001.
	tooOld   bool
	validBuf []int
	marks    []markRef  // its scans' marks (phantom.go)
	heaps    []heapSwap // the heaps its TRUNCATEs replaced (tid.go)
}

// write is a transaction's last write to a key.
type write struct {
	row  []any
	tomb bool
	// baseLive: see baseRow below (beside tomb and seq, to pack the
	// struct: a bulk load holds a write a row until it commits).
	baseLive bool
	// seq numbers the transaction's writes (1, 2, ...); before is the own
	// write this one replaced, and for a first own write (before nil)
	// baseRow and baseLive are the version it replaced as the transaction
	// saw it. A read at a WriteMark walks back through them.
	seq    uint32
	ks     *keyState
	tb     *table // kept, not looked up: the table may be dropped meanwhile
	before *write
	// moved is where a tombstone's row went (Txn.Move, Txn.MoveOut), nil
	// when it was deleted.
	moved   *moveTarget
	baseRow []any
	// tid is the version's place in the heap (tid.go); a tombstone's is
	// the place of the version it deletes.
	tid Tid
}

// createdKeys is a transaction's keys of one table that it created and
// holds a write to, in the order of their first writes.
type createdKeys struct {
	tab  TableID
	keys chunkList[*keyState]
}

// undoEntry restores a key's previous own write when rolling back to a
// savepoint.
type undoEntry struct {
	ks   *keyState
	prev *write // nil: the key had no own write
	op   int    // the recorded write op, -1 when not recording
}

func (e *engine) newSession(name string) *Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	if name != "" {
		if s, ok := e.sessions[name]; ok {
			return &Session{s: s}
		}
	}
	s := &session{e: e, name: name, id: e.nextSession}
	e.nextSession++
	e.open[s] = struct{}{}
	if name != "" {
		e.sessions[name] = s
	}
	e.rec.session(s)
	return &Session{s: s}
}

// beginWait waits until the session has no transaction in progress (its
// idle channel), then begins one.
func (e *engine) beginWait(ctx context.Context, s *session, opts TxnOptions) (*Txn, error) {
	e.mu.Lock()
	for s.cur != nil && s.cur.state == txnActive {
		if s.idle == nil {
			s.idle = make(chan struct{})
		}
		idle := s.idle
		if obs := waitObserverOf(ctx); obs != nil {
			s.idleWaiters = append(s.idleWaiters, obs)
			obs.Waiting()
		}
		e.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return nil, ctxError(ctx)
		}
		e.mu.Lock()
	}
	defer e.mu.Unlock()
	return e.beginLocked(s, opts)
}

func (e *engine) begin(s *session, opts TxnOptions) (*Txn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.beginLocked(s, opts)
}

func (e *engine) beginLocked(s *session, opts TxnOptions) (*Txn, error) {
	if s.cur != nil && s.cur.state == txnActive {
		return nil, pgerror.New(pgerror.ActiveSqlTransaction, "there is already a transaction in progress")
	}
	level := opts.Level
	if level == history.LevelUnknown {
		level = history.ReadCommitted
	}
	strat := opts.Strategy
	if strat == StrategyDefault {
		strat = e.cfg.Strategy
	}
	s.ntxn++
	var rng *rand.Rand
	if strat == StrategyRandom || strat == StrategyAdversarial {
		rng = e.txnRand(s, s.ntxn)
	}
	if strat == StrategyAdversarial && retryCalmed(rng, s.serverAborts) {
		strat = StrategyLatest
	}
	t := &txn{
		txnLive: &txnLive{readOnly: opts.ReadOnly, strategy: strat},
		id:      e.nextTxn,
		e:       e,
		sess:    s,
		seq:     s.ntxn,
		level:   level,
	}
	if e.cfg.RealTime {
		e.tick++
		t.begin = e.tick
	}
	t.rd = e.newReadState(t)
	if e.cfg.StatementSnapshots && level == history.ReadCommitted || e.cfg.PostgresConcurrency && t.windowed() {
		t.snap = e.co.tail // PostgreSQL's snapshot: the statement's, or the first statement's
	}
	if strat != StrategyLatest {
		t.rng = rng
	}
	t.mode = e.advMode(t)
	e.nextTxn++
	e.active[t] = struct{}{}
	s.cur = t
	e.rec.begin(t)
	return &Txn{t: t}, nil
}

// liveTable returns the table id names for live t (e.mu held): the error
// of a transaction that is no longer live, or of a dropped table, else.
func (e *engine) liveTable(t *txn, id TableID) (*table, error) {
	if err := e.live(t); err != nil {
		return nil, err
	}
	return e.table(id)
}

// live returns the error for using a transaction that is no longer active.
func (e *engine) live(t *txn) error {
	switch t.state {
	case txnActive:
		return nil
	case txnServerAborted:
		return t.abortErr
	}
	return pgerror.New(pgerror.NoActiveSqlTransaction, "there is no transaction in progress")
}

func (e *engine) statement(t *txn, st history.Statement) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t.state != txnActive {
		return
	}
	if t.stmts > 0 {
		t.event++
	}
	t.stmts++
	t.stmtEvent = t.event
	t.stmt = st
	if e.cfg.StatementSnapshots && t.level == history.ReadCommitted {
		t.snap = e.co.tail
	}
	e.rec.statement(t, st)
}

func (e *engine) writeMark(t *txn) WriteMark {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t.txnLive == nil {
		return 0
	}
	return WriteMark(t.writeSeq + 1)
}

func (e *engine) savepoint(t *txn) Savepoint {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t.state != txnActive {
		return 0 // using it fails: the transaction has ended
	}
	t.savepoints = append(t.savepoints, t.undo.len())
	t.subXIDs = append(t.subXIDs, 0)
	return Savepoint(len(t.savepoints) - 1)
}

func (e *engine) rollbackTo(t *txn, sp Savepoint) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.live(t); err != nil {
		return err
	}
	if int(sp) >= len(t.savepoints) {
		return pgerror.New(pgerror.InvalidSavepointSpecification, "savepoint does not exist")
	}
	mark := t.savepoints[sp]
	for i := t.undo.len() - 1; i >= mark; i-- {
		u := t.undo.at(i)
		if u.prev == nil {
			e.noteUndone(t, t.pendingWrite(u.ks))
		}
		t.restoreWrite(u)
	}
	e.rec.undoWrites(t, &t.undo, mark)
	t.undo.truncate(mark)
	t.restoreHeaps(int(sp) + 1)
	t.savepoints = t.savepoints[:sp+1]
	// The savepoint's subtransaction ended; the next one gets a new id.
	t.subXIDs = t.subXIDs[:sp+1]
	t.subXIDs[sp] = 0
	return nil
}

func (e *engine) isEnded(t *txn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return t.state != txnActive
}

func (e *engine) release(t *txn, sp Savepoint) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.live(t); err != nil {
		return err
	}
	if int(sp) >= len(t.savepoints) {
		return pgerror.New(pgerror.InvalidSavepointSpecification, "savepoint does not exist")
	}
	t.savepoints = t.savepoints[:sp]
	t.subXIDs = t.subXIDs[:sp]
	t.releaseHeaps(int(sp))
	return nil
}

func (e *engine) commit(ctx context.Context, t *txn) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.live(t); err != nil {
		return err
	}
	if err := e.doomed(t); err != nil {
		return err
	}
	if err := e.ssiPreCommit(t); err != nil {
		return err
	}
	pos, err := e.placeCommit(t)
	if err != nil {
		return e.serverAbort(t, err)
	}
	t.pos = e.co.insertAfter(pos, t)
	if e.cfg.RealTime {
		e.tick++
		t.commit = e.tick
	}
	n := t.writeCount()
	t.wrote = slices.Grow(t.wrote, n)
	e.dirty = slices.Grow(e.dirty, n) // most keys written get a second version (markDirty)
	for w := range t.allWrites() {
		w.ks.insertVersion(version{w: t, row: w.row, tid: w.tid})
		e.markDirty(w.ks)
		t.wrote = append(t.wrote, w.ks)
		if w.tomb && w.moved != nil {
			if w.tb.moves == nil {
				w.tb.moves = make(map[movedVersion]moveTarget)
			}
			w.tb.moves[movedVersion{w.ks, t}] = *w.moved
		}
	}
	e.publishVersions(t)
	e.published(t)
	e.end(t, txnCommitted)
	e.maybeCollect()
	return nil
}

func (e *engine) rollback(t *txn) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t.state != txnActive {
		return nil
	}
	if e.doomed(t) != nil {
		return nil // recorded as server-aborted: its reads fit no place in co
	}
	t.pos = e.co.insertAfter(e.placeRollback(t), t)
	e.end(t, txnClientAborted)
	e.maybeCollect()
	return nil
}

// serverAbort ends t as aborted by the server (40001, 40P01) and returns err.
// The checker ignores such transactions.
func (e *engine) serverAbort(t *txn, err error) error {
	if t.state != txnActive {
		return err
	}
	t.abortErr = err
	e.end(t, txnServerAborted)
	return err
}

// end releases t's locks, wakes its waiters and records its outcome.
func (e *engine) end(t *txn, st txnState) {
	if st != txnCommitted {
		for w := range t.allWrites() {
			e.noteUndone(t, firstWrite(w))
		}
		t.restoreHeaps(0)
	}
	t.heaps = nil
	t.state = st
	if t.wake != nil {
		t.signalWake() // ended by another (an SSI pivot) while it waits: it leaves its queue
	}
	if st == txnServerAborted {
		t.sess.serverAborts++
	} else {
		t.sess.serverAborts = 0
	}
	e.releaseLocks(t)
	t.tableLocks = nil
	delete(e.active, t)
	e.ended++
	e.unindexUnwritten(t)
	e.ssiEnd(t)
	if t.sess.cur == t {
		t.sess.cur = nil
		if t.sess.idle != nil {
			close(t.sess.idle)
			t.sess.idle = nil
			wokenAll(t.sess.idleWaiters)
			t.sess.idleWaiters = nil
		}
	}
	e.finishReads(t)
	if t.pos != nil {
		t.kept = t.weight()
		e.kept += t.kept
	}
	e.endMarks(t)
	var after *txn
	if t.pos != nil {
		after = t.pos.prev.t
	}
	e.rec.end(t, after)
	e.recheck(t)
	t.dropCreatedWrites()
	// An ended transaction stays reachable from its versions: keep only
	// what later checks read (its position, clock, writes, and a windowed
	// transaction's reads and window). Nothing checks a server-aborted
	// one again: it leaves the readers lists it joined.
	t.txnLive = nil
	switch {
	case t.state == txnServerAborted && t.rd != nil:
		for ks := range t.rd.reads {
			ks.forgetReaders(func(r *txn) bool { return r == t })
		}
		t.rd = nil
	case !t.windowed():
		t.rd = nil
	default:
		t.rd.vc = nil // t.vc holds its causal past now
	}
}

// writeCount is the number of keys t wrote.
func (t *txn) writeCount() int {
	n := 0
	for _, ws := range t.writes {
		n += len(ws)
	}
	for _, c := range t.created {
		n += c.keys.len()
	}
	return n
}

// insertVersion adds v to the versions in co order.
func (ks *keyState) insertVersion(v version) {
	vs := ks.versions()
	i := len(vs)
	for i > 0 && v.w.pos.before(vs[i-1].w.pos) {
		i--
	}
	vs = append(vs, version{})
	copy(vs[i+1:], vs[i:])
	vs[i] = v
	if ks.spill == nil && len(vs) <= len(ks.inline) {
		ks.nver++ // vs is the inline array
		return
	}
	ks.spillVersions(vs)
}
