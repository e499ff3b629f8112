package isolation

import (
	"bytes"
	"context"
	"errors"

	"github.com/fickle-db/fickle/history"
)

// TableID identifies a table registered with Store.CreateTable.
type TableID uint32

// IndexID identifies a secondary index registered with Store.CreateIndex.
type IndexID uint32

// TableSpec describes a table to the store. Rows are opaque to the store: it
// never looks inside a row except through the Key functions of the table's
// indexes.
type TableSpec struct {
	// Name is the table's qualified name, used in errors and in the history.
	Name string
	// HiddenRowID says the table has no primary key: Insert with a nil key
	// assigns the next hidden row id (an 8-byte big-endian counter).
	HiddenRowID bool
	// FormatKey renders a primary key for the history and for errors; nil
	// renders it as a quoted byte string.
	FormatKey func(key []byte) string
	// Tuple returns the size of a row's tuple in PostgreSQL's heap (t_len:
	// header, null bitmap, aligned values) and the table's fillfactor in
	// percent (0 for the default, 100: the room an INSERT leaves free on
	// a page for later updates), which place its versions (tid.go). It is
	// called under the store's lock and must be pure. nil sizes every row
	// as a bare tuple header.
	Tuple func(row []any) (size, fillfactor int)
	_     struct{}
}

// IndexSpec describes a secondary index. The executor owns the encoding of
// index keys: Key must be a pure, deterministic function of the row that
// returns an order-preserving byte string.
type IndexSpec struct {
	// Name is the index's (constraint's) name, reported in 23505 errors.
	Name string
	// Unique makes the store reject two live rows with the same index key on
	// the latest committed state plus the transaction's own writes.
	Unique bool
	// Deferred leaves a unique index's check to Txn.CheckUnique: writes do
	// not look for conflicts (a DEFERRABLE constraint, which PostgreSQL
	// checks at the end of the statement or of the transaction).
	Deferred bool
	// Key appends the index key of a row to dst and returns the result, as
	// append does: the store passes a buffer it reuses, so that computing a
	// key allocates nothing. hasNull reports that one of the indexed
	// columns is NULL: the row is indexed (lookups find it) but it never
	// conflicts in a unique index (NULLS DISTINCT, as in PostgreSQL). A
	// partial index reports the rows its predicate leaves out the same way
	// (under a key of its choosing): they never conflict, and the caller
	// does not look them up.
	Key func(dst []byte, row []any) (key []byte, hasNull bool)
	// Excludes, when set, makes the index an exclusion constraint
	// (exclusion.go): a row conflicts with every other live row under
	// the same index key for which Excludes holds, of the latest
	// committed state, of the transaction's own writes and of other
	// transactions' pending writes (which it waits for). Key should then
	// encode only what Excludes compares by equality; rows it reports
	// hasNull for never conflict. Unique must be false. It must be pure
	// and commutative.
	Excludes func(a, b []any) bool
	_        struct{}
}

// Strategy says how a read picks among the versions its level allows.
type Strategy uint8

// The strategies of DESIGN.md §4. StrategyDefault on a transaction means
// the store's strategy.
const (
	StrategyDefault Strategy = iota
	// StrategyLatest picks the co-latest valid version: a well-run database.
	StrategyLatest
	// StrategyRandom picks uniformly among the valid versions.
	StrategyRandom
	// StrategyOldest picks the stalest valid version.
	StrategyOldest
	// StrategyAdversarial mixes the others per transaction and favours
	// choices that create anomalies, less so for a session's retries after
	// server aborts (retryCalmed).
	StrategyAdversarial
)

// Config configures a Store. Every source of choice comes in here: the
// store has no clock and no global randomness.
type Config struct {
	// Strategy is the default strategy of transactions (StrategyLatest when
	// left at StrategyDefault).
	Strategy Strategy
	// Seed derives the PRNG of every session and transaction.
	Seed uint64
	// Record keeps the history (read events with the writer seen, writes,
	// outcomes, commit order) in memory for History.
	Record bool
	// RealTime adds real time to every level (the strict variants,
	// --realtime): a transaction sees every transaction that committed
	// before it began. The engine's clock is logical: the order of its
	// calls. Recorded histories then carry Start and End as logical ticks.
	RealTime bool
	// Log, when set, receives the history as it happens (fickle serve
	// --history): sessions, begins, statements, read events with the
	// writer of every inspected key, and at each end the transaction's
	// final writes, its place in co and its outcome. *history.Writer
	// implements it and flushes at every commit, which Commit calls before
	// returning. Its errors stick in the Writer: check them when closing it.
	// Transaction ids in the log stay unique across checkpoints: the store
	// numbers each new history from 1, the log continues after the largest
	// id it received.
	Log EventLog
	// StatementSnapshots gives READ COMMITTED transactions PostgreSQL's
	// snapshot per statement (part of --profile postgres, with RealTime and
	// StrategyLatest): every read of a statement takes the newest version
	// committed before the statement began (Txn.Statement), not whatever
	// committed while it ran.
	StatementSnapshots bool
	// PostgresConcurrency adds PostgreSQL's own aborts and re-checks to
	// the levels (the rest of --profile postgres, with RealTime, whose
	// logical clock orders its commits, StatementSnapshots and
	// StrategyLatest): PC, SI and SER read from the snapshot of their first
	// statement, and their locking reads their snapshot (ReadOptions.
	// ForLock); an UPDATE, DELETE or locking read of a row whose latest
	// version a concurrent transaction committed fails with 40001 under SI
	// and SER (first-updater-wins, after waiting for its writer), and
	// READ COMMITTED re-evaluates the statement's WHERE clause on that
	// version (Txn.LockRow, EvalPlanQual); SER transactions run
	// PostgreSQL's serializable snapshot isolation (ssi.go). Every abort it
	// adds is a server abort, which the axioms always allow.
	PostgresConcurrency bool
	// StaleWrites restores the pure axioms of paper 000 for writes
	// (--stale-writes): the lock an UPDATE or DELETE takes on a row
	// (LockRow with Write) does not re-read it, so the write computes on
	// the version its WHERE clause read, which the adversary may have
	// chosen stale, and an atomic SET v = v + 1 may lose an update below
	// SI. It models stores that build SQL on a key-value layer without
	// write locks. PostgresConcurrency ignores it.
	StaleWrites bool
	// MaxStaleness and MaxKept bound what the store keeps (collect.go,
	// docs/memory.md). Once more than MaxStaleness transactions follow the
	// horizon in the commit order, or they keep more than MaxKept entries
	// (the row versions they wrote, the keys a PC, SI or SER transaction
	// read, the entries of their causal pasts' clocks), each with a slack
	// of half as many, the horizon moves up to the place that MaxStaleness
	// transactions, or MaxKept entries, follow; no read sees a version
	// older than a key's latest at or before it: older versions, and the
	// transactions and co places only they needed, are freed. A
	// transaction whose reads depend on what was freed fails with 40001
	// "snapshot too old". Zero keeps everything (for either bound).
	MaxStaleness int
	MaxKept      int
	// Replay, when set, re-issues the choices of a recorded history
	// (--replay): see replay.go for how reads and places are matched and
	// how deleting reads from it shrinks a failure.
	Replay *history.History
	_      struct{}
}

// EventLog receives the events of a run in the order the engine makes them
// (under its mutex). *history.Writer implements it.
type EventLog interface {
	Session(s history.SessionID, name string) error
	Begin(t history.TxnID, s history.SessionID, level history.Level, start int64, name string) error
	Stmt(t history.TxnID, st history.Statement) error
	Read(t history.TxnID, items []history.ReadItem) error
	Write(t history.TxnID, it history.WriteItem) error
	Commit(t history.TxnID, end int64) error
	Abort(t history.TxnID, o history.Outcome, code string, end int64) error
	CommitOrder(t, after history.TxnID) error
	Checkpoint() error
}

// ReadableLog is an EventLog that can read back what it logged (a history
// file, *history.FileLog): a store that logs to one and does not Record
// keeps no history in memory and answers ReadHistory from it.
type ReadableLog interface {
	EventLog
	// ReadBack runs under the store's lock, once every event so far was
	// handed to the log; the function it returns reads those events back,
	// without the lock.
	ReadBack() (func() (*history.History, error), error)
}

// ReadOptions qualify a read (Get, Scan, ScanIndex).
type ReadOptions struct {
	// Latest reads the latest committed version (plus the transaction's
	// own writes) whatever the level: for constraint checks (foreign keys,
	// uniqueness). The read is recorded like any other; if the latest
	// version is not one the level allows, the read fails with 40001.
	Latest bool
	// ForLock marks the read of a statement that locks the rows it picks
	// before returning them (SELECT ... FOR UPDATE, then Txn.LockRow). The
	// read takes no lock itself. In the axiomatic profile it sees the
	// latest committed version, as a locking read always does (40001 where
	// the level cannot explain it); under Config.PostgresConcurrency it
	// reads the statement's snapshot, as PostgreSQL's scan does, and
	// LockRow re-checks a row changed since (EvalPlanQual).
	ForLock bool
	// AsOf, when not zero, hides the transaction's own writes made at or
	// after the mark (Txn.WriteMark): the read sees each key as the
	// transaction had it then. It is how a STABLE or IMMUTABLE function
	// reads with its calling statement's snapshot, which does not include
	// the writes that statement has made so far.
	AsOf WriteMark
	// Version, when set, receives the system columns of each version the
	// read returns (RowVersion) before Get returns it or Visit is called
	// on it.
	Version *RowVersion
	_       struct{}
}

// WriteMark is a point in a transaction's own writes (Txn.WriteMark), for
// ReadOptions.AsOf. The zero mark is none.
type WriteMark uint64

// RowLock is the strength of a row lock (SELECT ... FOR ...). Writes take
// RowLockUpdate (DELETE, UPDATE of a key column) or RowLockNoKeyUpdate.
type RowLock uint8

// Row lock strengths, weakest first, with PostgreSQL's conflict table.
const (
	RowLockNone RowLock = iota
	RowLockKeyShare
	RowLockShare
	RowLockNoKeyUpdate
	RowLockUpdate
)

// LockRequest is a row lock request (Txn.LockRow).
type LockRequest struct {
	Mode RowLock
	Wait WaitPolicy
	// Write marks the lock that an UPDATE, a DELETE or an INSERT ... ON
	// CONFLICT DO UPDATE takes on the row it writes: the table must be
	// writable (25006 in a read-only transaction). A read's lock (SELECT
	// ... FOR) leaves Write false.
	Write bool
	// Conditional marks a Write lock taken before deciding whether to
	// write (INSERT ... ON CONFLICT DO UPDATE ... WHERE): PostgreSQL locks
	// the row first, so the row shows the lock in its xmax whether or not
	// it is written, and an update carries the lock to its new version.
	Conditional bool
	// KeyOf, for a RowLockKeyShare request, encodes the columns of a row
	// that such a lock protects (PostgreSQL's key columns: those of the
	// primary key and of the unique indexes). Under
	// Config.PostgresConcurrency, REPEATABLE READ and SERIALIZABLE then
	// conflict only with a concurrent update that changed them (or deleted
	// the row), and lock the version their snapshot sees, as PostgreSQL's
	// foreign key checks do; nil makes every concurrent update conflict.
	KeyOf func(row []any) []byte
	_     struct{}
}

// LockedRow is the row Txn.LockRow locked.
type LockedRow struct {
	// Row is the row's newest version; nil unless Live.
	Row []any
	// Key, when not nil, is the key the row lives at now: a transaction
	// that committed after the statement read the row changed its primary
	// key (Txn.Move), and the lock followed it there. Changed is then set.
	Key []byte
	// Live is false when the newest version is a tombstone: the row was
	// deleted (or never existed).
	Live bool
	// Changed reports that Row may not be the version the statement read
	// before: the caller re-evaluates its conditions on it.
	Changed bool
	// Skipped reports that SKIP LOCKED skipped the row: another
	// transaction holds a conflicting lock. Nothing was read or locked.
	Skipped bool
	// Version is Row's system columns: as they were before the lock, or
	// for a Write request as the write leaves them (xmax is the writer).
	Version RowVersion
}

// WaitPolicy says what a lock request does when it conflicts.
type WaitPolicy uint8

// Wait policies: block (with deadlock detection and the context's deadline),
// NOWAIT (55P03 at once), SKIP LOCKED (the row is skipped and not recorded).
const (
	WaitBlock WaitPolicy = iota
	WaitNoWait
	WaitSkipLocked
)

// TableLock is a LOCK TABLE mode, weakest first, with PostgreSQL's conflict
// table.
type TableLock uint8

// Table lock modes.
const (
	TableLockAccessShare TableLock = iota + 1
	TableLockRowShare
	TableLockRowExclusive
	TableLockShareUpdateExclusive
	TableLockShare
	TableLockShareRowExclusive
	TableLockExclusive
	TableLockAccessExclusive
)

// Span is a half-open range [Start, End) of keys; a nil End is unbounded
// and a nil Start starts at the first key.
type Span struct {
	Start, End []byte
}

// ExactSpan returns the span holding exactly key, for encodings in which no
// key is a proper prefix of another (order-preserving encodings are).
func ExactSpan(key []byte) Span {
	end := make([]byte, len(key)+1)
	copy(end, key)
	return Span{Start: key, End: end}
}

// exact reports whether the span holds a single key, as ExactSpan's do.
func (s Span) exact() bool {
	n := len(s.Start)
	return len(s.End) == n+1 && s.End[n] == 0 && bytes.Equal(s.Start, s.End[:n])
}

// ErrStop, returned by a Visit callback, ends a scan early without error.
// The matched result of that call still counts.
var ErrStop = errors.New("isolation: stop scan")

// Visit is called by Scan and ScanIndex once for every key whose chosen
// version is a live row, in key order. It reports whether the row matched
// the statement's predicate: both the row and the verdict are recorded.
// The row must not be modified or retained beyond the statement unless
// copied; key is only valid during the call.
type Visit func(key []byte, row []any) (matched bool, err error)

// Savepoint identifies a savepoint of a transaction.
type Savepoint uint32

// TxnOptions configure a transaction at Begin.
type TxnOptions struct {
	// Level is the transaction's isolation level (LevelUnknown means RC).
	Level history.Level
	// ReadOnly rejects writes with 25006.
	ReadOnly bool
	// Strategy overrides the store's strategy for this transaction.
	Strategy Strategy
	_        struct{}
}

// UniqueConflict is the cause wrapped by a 23505 error: which key of which
// index conflicts, so that INSERT ... ON CONFLICT can find the row.
type UniqueConflict struct {
	Table TableID
	// Index is the conflicting index; NoIndex for the primary key.
	Index IndexID
	// Key is the primary key of the existing row.
	Key []byte
}

// NoIndex in UniqueConflict.Index means the primary key.
const NoIndex = ^IndexID(0)

// Error describes the conflict.
func (c *UniqueConflict) Error() string { return "unique conflict" }

// Store is the multi-version store and the isolation engine. All methods
// are safe for concurrent use: one owner (a mutex) serializes them, and the
// order of calls is the order recorded in the history.
type Store struct {
	e            *engine
	keepsHistory bool
}

// NewStore returns an empty store.
func NewStore(cfg Config) *Store {
	return &Store{e: newEngine(cfg), keepsHistory: cfg.Record || cfg.Log != nil}
}

// KeepsHistory reports whether the store records (Config.Record) or logs
// (Config.Log) its history. When it does not, what Txn.Statement is given
// goes nowhere, and callers may leave out what only the history reads.
func (s *Store) KeepsHistory() bool { return s.keepsHistory }

// CreateTable registers a table. The store's DDL is not transactional: the
// caller undoes it (DropTable, the restore functions of DropIndex and
// RewriteRows) when the transaction that ran it rolls back.
func (s *Store) CreateTable(spec TableSpec) (TableID, error) { return s.e.createTable(spec) }

// DropTable forgets a table and its indexes. Transactions that still use it
// get 42P01.
func (s *Store) DropTable(t TableID) error { return s.e.dropTable(t) }

// CreateIndex registers a secondary index and indexes every stored version
// of the table's rows. A unique index fails with 23505 when two live rows of
// the latest committed state share a key.
func (s *Store) CreateIndex(t TableID, spec IndexSpec) (IndexID, error) {
	return s.e.createIndex(t, spec)
}

// DropIndex forgets an index. restore brings the same index back (for a
// rollback of the DDL that dropped it): it must be called before any row
// of the table is written that a rollback would not discard, since the
// index is not maintained while dropped.
func (s *Store) DropIndex(i IndexID) (restore func(), err error) { return s.e.dropIndex(i) }

// RewriteRows replaces every stored row of the table (every version, own
// writes of pending transactions included) by f of it, for ALTER TABLE ADD
// or DROP COLUMN and ALTER COLUMN TYPE. It calls f once for each row value,
// without holding the store (f may read and write other tables), for each
// key in key order with its latest row first; f must not fail and must
// return a new slice each call. The caller must keep every other writer out
// of the table (a table lock) until the DDL ends: a row written to it while
// f runs fails the rewrite with 55006. restore puts the old rows back (for
// a rollback of the DDL).
func (s *Store) RewriteRows(t TableID, f func(RowRewrite) []any) (restore func(), err error) {
	return s.e.rewriteRows(t, f)
}

// RekeyToRowIDs makes table t, whose rows are keyed by their primary key,
// one keyed by hidden row ids, for a DDL that drops its primary key: the
// rows stored keep their keys as opaque identities (in the history too),
// and Insert with a nil key then assigns fresh row ids that never equal
// one of them and sort after them all (rekey.go). Uniqueness of the old
// keys is no longer the store's to enforce. The caller must keep every
// other writer out of the table (a table lock) until the DDL ends. restore
// makes the table keyed by its primary key again (for a rollback of the
// DDL), after the rows written since were discarded. A table keyed by row
// ids already is left as it is.
func (s *Store) RekeyToRowIDs(t TableID) (restore func(), err error) { return s.e.rekeyToRowIDs(t) }

// NewSession returns a new anonymous session (one per connection).
func (s *Store) NewSession() *Session { return s.e.newSession("") }

// Session returns the logical session with this name, creating it on first
// use, so that several connections can share session guarantees
// (SET fickle.session).
func (s *Store) Session(name string) *Session { return s.e.newSession(name) }

// History returns a copy of the recorded history (empty unless
// Config.Record), with the commit order.
func (s *Store) History() *history.History { return s.e.history() }

// ReadHistory returns the history so far, with the commit order: the one
// kept in memory with Config.Record, else the one Config.Log reads back
// when it is a ReadableLog (empty when neither).
func (s *Store) ReadHistory() (*history.History, error) { return s.e.readHistory() }

// CheckpointCount is Checkpoint answering how many transactions ended in
// the history it closed, counted whether or not the history is recorded.
func (s *Store) CheckpointCount() (int, error) {
	_, n, err := s.e.checkpoint()
	return n, err
}

// Checkpoint folds the latest committed state into init and starts a new
// history (SELECT fickle_checkpoint(), fickle serve --load): every key keeps
// only its latest version, now init's; co restarts; sessions forget what
// they saw. It returns the history that ended. It fails with 55006 while a
// transaction that has read or written is in progress (one that has not,
// such as the caller's own, continues in the new history).
func (s *Store) Checkpoint() (*history.History, error) {
	h, _, err := s.e.checkpoint()
	return h, err
}

// Session is a sequence of transactions (session order). A session runs one
// transaction at a time.
type Session struct{ s *session }

// Name returns the session's name ("" for anonymous sessions).
func (s *Session) Name() string { return s.s.name }

// Begin starts a transaction. It fails with 25001 if the session already
// has a transaction in progress.
func (s *Session) Begin(opts TxnOptions) (*Txn, error) { return s.s.e.begin(s.s, opts) }

// BeginWait is Begin for a logical session shared by several connections
// (SET fickle.session): when another connection's transaction is in
// progress in the session it waits for it to end (or for ctx), so that the
// session's transactions stay a sequence, as session order requires.
func (s *Session) BeginWait(ctx context.Context, opts TxnOptions) (*Txn, error) {
	return s.s.e.beginWait(ctx, s.s, opts)
}

// AdvisoryLock takes a session-level advisory lock (pg_advisory_lock,
// pg_advisory_lock_shared; pg_try_* with WaitNoWait, answering false when
// the lock is taken). Session locks are re-entrant and held until unlocked
// as many times or until Close; they wait like any lock, with deadlock
// detection (40P01) and the context's deadline.
func (s *Session) AdvisoryLock(ctx context.Context, key AdvisoryKey, shared bool, wait WaitPolicy) (bool, error) {
	return s.s.e.sessionAdvisoryLock(ctx, s.s, key, shared, wait)
}

// AdvisoryUnlock releases one hold of a session-level advisory lock
// (pg_advisory_unlock); false when the session does not hold it.
func (s *Session) AdvisoryUnlock(key AdvisoryKey, shared bool) bool {
	return s.s.e.sessionAdvisoryUnlock(s.s, key, shared)
}

// AdvisoryUnlockAll releases every session-level advisory lock of the
// session (pg_advisory_unlock_all); transaction-level ones stay.
func (s *Session) AdvisoryUnlockAll() { s.s.e.sessionAdvisoryUnlockAll(s.s) }

// AdvisoryKey names an advisory lock: Key within a Space that the caller
// keeps apart from the others (PostgreSQL keys its advisory locks by
// database, and a bigint key apart from a pair of integers).
type AdvisoryKey struct {
	Space uint64
	Key   int64
}

// Close ends the session when its connection closes: it releases the
// session-level advisory locks and, for an anonymous session, forgets the
// session's state, which no later transaction reads (the history, when
// recorded, keeps the session's transactions). A transaction in progress
// must be ended first by the caller.
func (s *Session) Close() { s.s.e.closeSession(s.s) }

// Txn is a transaction handle. Its methods must not be called concurrently
// with each other (one connection drives it), except from inside a Visit
// callback of its own scan (a join's inner side). After Commit or Rollback
// every method fails with 25P01, and after a server abort (40001, 40P01)
// with that abort's error; Rollback then answers nil.
type Txn struct{ t *txn }

// ID returns the transaction's id in the history.
func (t *Txn) ID() history.TxnID { return t.t.id }

// XID returns the transaction's id as PostgreSQL's txid_current() and the
// system columns xmin and xmax show it.
func (t *Txn) XID() uint32 { return t.t.e.xidOf(t.t) }

// OwnVersion returns the system columns of the transaction's own version
// of key in table, which it inserted or updated: xmax is its own id when
// it locked the row before writing it (or since), 0 otherwise.
func (t *Txn) OwnVersion(table TableID, key []byte) RowVersion {
	return t.t.e.ownVersion(t.t, table, key)
}

// Level returns the transaction's isolation level.
func (t *Txn) Level() history.Level { return t.t.level }

// Ended reports whether the transaction has ended: committed, rolled back,
// or aborted by the server (40001, 40P01), which released its locks.
func (t *Txn) Ended() bool { return t.t.e.isEnded(t.t) }

// Statement starts a new event: the reads and writes that follow belong to
// it until the next call. Without a call, they belong to one unnamed event.
func (t *Txn) Statement(st history.Statement) { t.t.e.statement(t.t, st) }

// Get reads the version of one key that the transaction's level and
// strategy choose (its own last write if it wrote the key). ok is false
// when that version is a tombstone (the row is absent). The read is
// recorded with its writer.
func (t *Txn) Get(ctx context.Context, table TableID, key []byte, ro ReadOptions) (row []any, ok bool, err error) {
	return t.t.e.get(ctx, t.t, table, key, ro)
}

// Scan reads every key of the table within span, each at the version the
// engine chooses, and calls fn for every live row in key order. Every
// inspected key is recorded, with whether it was returned.
func (t *Txn) Scan(ctx context.Context, table TableID, span Span, ro ReadOptions, fn Visit) error {
	return t.t.e.scan(ctx, t.t, table, span, ro, fn)
}

// HeapInKeyOrder reports whether the table's versions all have places in
// its heap (tid.go) in the order of their keys, so that a Scan, which
// returns rows in key order, returns them in heap order too: true of a
// table whose rows were only inserted, in key order, or deleted. A write
// made after the call may change the answer.
func (t *Txn) HeapInKeyOrder(table TableID) bool { return t.t.e.heapInKeyOrder(table) }

// ScanIndex reads, through a secondary index, every key of which some
// version ever had an index key within span, each at the chosen version,
// and calls fn for every live row in index-key order. The row passed to fn
// may no longer have an index key in span (the chosen version is not the
// one indexed): the executor re-checks its predicate.
func (t *Txn) ScanIndex(ctx context.Context, idx IndexID, span Span, ro ReadOptions, fn Visit) error {
	return t.t.e.scanIndex(ctx, t.t, idx, span, ro, fn)
}

// Insert writes a new row. It takes the row's write lock (waiting for a
// pending writer of the same key or unique index key, as PostgreSQL does)
// and fails with 23505, wrapping a *UniqueConflict, when the key or a
// unique index key is taken on the latest committed state or by the
// transaction's own writes. A nil key on a HiddenRowID table assigns a row
// id; the key written is returned.
func (t *Txn) Insert(ctx context.Context, table TableID, key []byte, row []any) ([]byte, error) {
	return t.t.e.insert(ctx, t.t, table, key, row, NoIndex)
}

// InsertOnConflict is Insert for INSERT ... ON CONFLICT whose arbiter is
// unique index arbiter (NoIndex: the primary key): a conflict there is
// reported before a conflict on any other key, as PostgreSQL checks the
// arbiter indexes before it inserts, so that a row conflicting on the
// arbiter and another key is resolved by the ON CONFLICT clause.
func (t *Txn) InsertOnConflict(ctx context.Context, table TableID, key []byte, row []any, arbiter IndexID) ([]byte, error) {
	return t.t.e.insert(ctx, t.t, table, key, row, arbiter)
}

// Update writes a new version of an existing key, waiting for its write
// lock. It fails with 23505 on a unique index conflict, and under SI with
// 40001 when a concurrent transaction committed a newer version
// (first-committer-wins).
func (t *Txn) Update(ctx context.Context, table TableID, key []byte, row []any) error {
	return t.t.e.update(ctx, t.t, table, key, row)
}

// Move changes a row's primary key (UPDATE ... SET id = ...): it deletes
// the row at key and inserts row at newKey, as Delete and Insert do, and
// remembers that the row moved, so that once this transaction commits a
// lock request on the old key follows the row to its new one
// (LockedRow.Key), as PostgreSQL's update chains do.
func (t *Txn) Move(ctx context.Context, table TableID, key, newKey []byte, row []any) error {
	return t.t.e.move(ctx, t.t, table, key, newKey, row)
}

// CheckUnique checks a Deferred unique index for the row at key: when the
// transaction sees that row live, no other live row (on the latest
// committed state plus the transaction's own writes) may have its index
// key, else 23505 wrapping a UniqueConflict. It waits for the index key's
// lock as a write does.
func (t *Txn) CheckUnique(ctx context.Context, index IndexID, key []byte) error {
	return t.t.e.checkDeferredUnique(ctx, t.t, index, key)
}

// Delete writes a tombstone for the key, waiting for its write lock.
func (t *Txn) Delete(ctx context.Context, table TableID, key []byte) error {
	return t.t.e.delete(ctx, t.t, table, key)
}

// MoveOut deletes the row at key as part of moving it to another table (an
// UPDATE that changes a row's partition) and remembers that it moved. Once
// this transaction commits, a statement that locks the key after reading
// the row, or after waiting for this transaction, fails with 40001, as
// PostgreSQL's do for a row moved to another partition.
func (t *Txn) MoveOut(ctx context.Context, table TableID, key []byte) error {
	return t.t.e.moveOut(ctx, t.t, table, key)
}

// LockRow takes a row lock for the current statement and returns the row's
// newest version, on which the statement must work: SELECT ... FOR UPDATE
// returns it, UPDATE and DELETE compute the new row from it. The lock is
// held until the transaction ends; waits have deadlock detection (40P01)
// and the context's deadline, NOWAIT fails with 55P03, and SKIP LOCKED
// reports Skipped without reading.
//
// The version is the transaction's own last write, else the latest
// committed one, read once: when the statement already read that version
// of the key, nothing is read again and Changed is false; otherwise the
// read is recorded (in an event of its own when the statement's current
// event read another version of the key: one version of a key per event)
// and Changed tells the caller to re-evaluate its conditions on Row
// (PostgreSQL's EvalPlanQual). Where the level cannot explain reading the
// latest version after what the transaction read, LockRow fails with 40001;
// under Config.PostgresConcurrency REPEATABLE READ and SERIALIZABLE fail
// with 40001 when the row changed after their snapshot, as PostgreSQL's do.
// With Config.StaleWrites a write's lock (LockRequest.Write) re-reads
// nothing: the write applies to the version the statement read.
func (t *Txn) LockRow(ctx context.Context, table TableID, key []byte, req LockRequest) (LockedRow, error) {
	return t.t.e.lockRow(ctx, t.t, table, key, req)
}

// LockTable takes a table lock until the transaction ends (LOCK TABLE).
func (t *Txn) LockTable(ctx context.Context, table TableID, mode TableLock, wait WaitPolicy) error {
	return t.t.e.lockTable(ctx, t.t, table, mode, wait)
}

// LockObject takes a lock in a table lock mode on an object the store does
// not keep, named by the caller's id for it (a sequence's OID), until the
// transaction ends: nextval takes ROW EXCLUSIVE on its sequence and ALTER
// SEQUENCE SHARE ROW EXCLUSIVE, so that one waits for the other as in
// PostgreSQL.
func (t *Txn) LockObject(ctx context.Context, obj uint32, mode TableLock, wait WaitPolicy) error {
	return t.t.e.lockObject(ctx, t.t, obj, mode, wait)
}

// AdvisoryLock takes a transaction-level advisory lock
// (pg_advisory_xact_lock and its _shared and try variants), held until the
// transaction ends; with WaitNoWait it answers false when the lock is taken.
func (t *Txn) AdvisoryLock(ctx context.Context, key AdvisoryKey, shared bool, wait WaitPolicy) (bool, error) {
	return t.t.e.txnAdvisoryLock(ctx, t.t, key, shared, wait)
}

// WroteSince reports whether the transaction wrote the key of the table
// at or after mark (Txn.WriteMark): whether the version of the row it had
// then has been replaced (or deleted) by its own later writes, as a
// version a statement read earlier is no longer the row's newest.
func (t *Txn) WroteSince(table TableID, key []byte, mark WriteMark) bool {
	return t.t.e.wroteSince(t.t, table, key, mark)
}

// WriteMark returns the point after the transaction's writes so far: a
// read with ReadOptions.AsOf set to it does not see the writes made after.
func (t *Txn) WriteMark() WriteMark { return t.t.e.writeMark(t.t) }

// Savepoint marks the current point of the transaction's writes.
func (t *Txn) Savepoint() Savepoint { return t.t.e.savepoint(t.t) }

// NewHeap gives the table a fresh heap, as TRUNCATE gives PostgreSQL's
// table a new file: the versions written from now on are placed from
// (0,1) on. A rollback of the transaction, or to a savepoint taken before,
// brings the old heap back. The caller holds the table's ACCESS EXCLUSIVE
// lock.
func (t *Txn) NewHeap(table TableID) error { return t.t.e.newHeap(t.t, table) }

// Relayout writes the table's live rows into a fresh heap in the given
// order, as CLUSTER (by an index) and VACUUM FULL (by their places) write
// PostgreSQL's table anew: each row's newest version takes the next place.
// A rollback brings the old places back. The caller holds the table's
// ACCESS EXCLUSIVE lock; a transaction that wrote to the table is refused
// (PostgreSQL would copy its own replaced versions too).
func (t *Txn) Relayout(table TableID, order LayoutOrder) error {
	return t.t.e.relayout(t.t, table, order)
}

// LatestTid follows the update chain of the row version at tid in the
// table to the version a reader sees now (the newest committed one, or the
// transaction's own), as PostgreSQL's currtid functions do: it returns
// that version's place, tid itself when the chain ends in a version no
// one sees (a deleted row), and valid false when tid points past the
// table's heap.
func (t *Txn) LatestTid(table TableID, tid Tid) (latest Tid, valid bool, err error) {
	return t.t.e.latestTid(t.t, table, tid)
}

// RollbackTo undoes every write made after the savepoint (reads stay in the
// history: they happened). The savepoint stays valid, as in PostgreSQL.
func (t *Txn) RollbackTo(sp Savepoint) error { return t.t.e.rollbackTo(t.t, sp) }

// Release forgets the savepoint and every later one, keeping the writes.
func (t *Txn) Release(sp Savepoint) error { return t.t.e.release(t.t, sp) }

// Commit makes the writes visible and places the transaction in the commit
// order. It fails with 40001 when the level cannot place it (the
// transaction is then rolled back and recorded as server-aborted).
func (t *Txn) Commit(ctx context.Context) error { return t.t.e.commit(ctx, t.t) }

// Rollback discards the writes. The transaction stays in the history with
// its reads (client-aborted) and takes a place in the commit order. Rolling
// back an ended transaction is a no-op.
func (t *Txn) Rollback() error { return t.t.e.rollback(t.t) }
