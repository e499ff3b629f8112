package isolation

import (
	"bytes"
	"context"
	"slices"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Locking reads and writes work on the latest row, once. A statement that
// locks rows (SELECT ... FOR, UPDATE, DELETE, INSERT ... ON CONFLICT DO
// UPDATE, a foreign key check) first reads them like any read (ForLock for
// SELECT ... FOR), then locks each row it picked with LockRow, waiting for a
// pending writer, and works on the row's newest version: PostgreSQL's
// EvalPlanQual at READ COMMITTED. No SQL database loses an atomic
// SET v = v + 1 or returns a row a concurrent transaction replaced while it
// waited, so fickle does not either, at any level (DESIGN §4); the read that
// picked the rows stays an ordinary read, adversarial where the level
// allows. The re-read is a read event like any other, so the history shows
// it and the checker holds it to the level.

func (e *engine) lockRow(ctx context.Context, t *txn, id TableID, key []byte, req LockRequest) (LockedRow, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.lockable(ctx, t, id, req)
	if err != nil {
		return LockedRow{}, err
	}
	return e.lockKey(ctx, t, tb, string(key), req)
}

// lockKey locks key k of tb for t (e.mu held) and returns the row's newest
// version, following the row if it moved to another key. A row that moved
// to another table while t waited for it, or after t's statement read it,
// fails with 40001: PostgreSQL cannot follow a row into another partition.
func (e *engine) lockKey(ctx context.Context, t *txn, tb *table, k string, req LockRequest) (LockedRow, error) {
	r := resource{lockRow, uint32(tb.id), k}
	held := e.holds(t, r)
	var before *txn // the key's latest writer before any wait
	if ks := tb.keyState(k, false); ks != nil {
		before = ks.latest().w
	}
	if err := e.acquire(ctx, t, r, uint8(req.Mode), req.Wait); err != nil {
		if err == errSkipLocked {
			return LockedRow{Skipped: true}, nil
		}
		return LockedRow{}, err
	}
	ks := tb.keyState(k, true)
	read, _ := e.statementVersion(t, ks)
	got, err := e.lockedVersion(t, tb, ks, req)
	if err == nil && got.Live && (!req.Write || req.Conditional) {
		e.noteLock(t, tb, ks, r)
	}
	if err != nil || got.Live {
		return got, err
	}
	// A deleted row cannot be locked: PostgreSQL finds it gone and holds
	// nothing, so no one waits for this transaction on it.
	if !held {
		e.unlock(t, r)
	}
	latest := ks.latest().w
	next, moved := tb.moves[movedVersion{ks, latest}]
	if !moved || t.pendingWrite(ks) != nil {
		return got, nil
	}
	if next.elsewhere {
		if latest != before || read.ok && read.w != latest {
			return LockedRow{}, e.serverAbort(t, pgerror.New(pgerror.SerializationFailure,
				"tuple to be locked was already moved to another partition due to concurrent update"))
		}
		return got, nil
	}
	// The row moved to another key (an update of its primary key): follow
	// it, as PostgreSQL follows a row's update chain, and lock it there.
	if got, err = e.lockKey(ctx, t, tb, next.key, req); err != nil || got.Skipped {
		return got, err
	}
	if got.Key == nil {
		got.Key = []byte(next.key)
	}
	got.Changed = true
	return got, nil
}

// unlock drops t's hold on r at once (it is not held until t ends).
func (e *engine) unlock(t *txn, r resource) {
	e.releaseLock(t, r)
	if i := slices.Index(t.locks, r); i >= 0 {
		t.locks = slices.Delete(t.locks, i, i+1)
	}
}

// lockedVersion returns the version of ks that t, holding its row lock,
// works on (see Txn.LockRow), reading it when the statement has not.
func (e *engine) lockedVersion(t *txn, tb *table, ks *keyState, req LockRequest) (LockedRow, error) {
	if w := t.pendingWrite(ks); w != nil {
		return e.lockedRow(t, tb, seen{ks: ks, w: t, row: w.row, ok: !w.tomb}, req, false), nil
	}
	prev, read := e.statementVersion(t, ks)
	if read && (prev.w == ks.latest().w || req.Write && e.cfg.StaleWrites && !e.cfg.PostgresConcurrency) {
		return e.lockedRow(t, tb, prev, req, false), nil
	}
	opts := ReadOptions{Latest: true}
	if snap, ok := e.keyShareSnapshotVersion(t, ks, req); ok {
		// PostgreSQL locks the version the snapshot sees: a concurrent
		// update of other columns does not conflict with KEY SHARE.
		if read && prev.w == snap.w {
			return e.lockedRow(t, tb, prev, req, false), nil
		}
		opts = ReadOptions{}
	} else if err := e.firstUpdaterWins(t, tb, ks); err != nil {
		return LockedRow{}, err
	}
	if read && prev.event == t.event {
		e.recheckEvent(t, tb)
	}
	s, err := e.inspect(t, tb, ks, opts)
	if err != nil {
		return LockedRow{}, err
	}
	if s.ok {
		e.rec.markReturned(t, s.ref)
	}
	e.rec.flushReads(t, 0)
	return e.lockedRow(t, tb, s, req, true), nil
}

// keyShareSnapshotVersion returns the version of ks that t's snapshot sees
// when req is a KEY SHARE lock (LockRequest.KeyOf) that PostgreSQL takes on
// it without a serialization failure: t is a REPEATABLE READ or
// SERIALIZABLE transaction under Config.PostgresConcurrency, the row lives
// in its snapshot, and every version committed since kept its key columns.
func (e *engine) keyShareSnapshotVersion(t *txn, ks *keyState, req LockRequest) (version, bool) {
	if req.Mode != RowLockKeyShare || req.KeyOf == nil || !e.cfg.PostgresConcurrency || !t.windowed() {
		return version{}, false
	}
	vs := ks.versions()
	i := len(vs) - 1
	for i >= 0 && !e.snapshotSees(t, vs[i].w) {
		i--
	}
	if i < 0 || vs[i].tomb() {
		return version{}, false
	}
	key := req.KeyOf(vs[i].row)
	for _, v := range vs[i+1:] {
		if v.tomb() || !bytes.Equal(req.KeyOf(v.row), key) {
			return version{}, false
		}
	}
	return vs[i], true
}

// lockedRow is what LockRow returns for s, the version t locked with req.
func (e *engine) lockedRow(t *txn, tb *table, s seen, req LockRequest, changed bool) LockedRow {
	if !s.ok {
		return LockedRow{Changed: changed}
	}
	v := e.rowVersion(t, tb, s)
	if req.Write {
		v.Xmax = e.currentXID(t)
	}
	return LockedRow{Row: s.row, Live: true, Changed: changed, Version: v}
}

// lockable checks that t may lock a row of table id with req and takes the
// table lock the statement implies: ROW EXCLUSIVE for a write, ROW SHARE
// for SELECT ... FOR, as in PostgreSQL.
func (e *engine) lockable(ctx context.Context, t *txn, id TableID, req LockRequest) (*table, error) {
	if req.Mode < RowLockKeyShare || req.Mode > RowLockUpdate {
		return nil, pgerror.Newf(pgerror.InternalError, "invalid row lock mode %d", req.Mode)
	}
	if req.Write {
		return e.writable(ctx, t, id)
	}
	if err := e.live(t); err != nil {
		return nil, err
	}
	if t.readOnly {
		return nil, pgerror.Newf(pgerror.ReadOnlySqlTransaction, "cannot execute SELECT %s in a read-only transaction", req.Mode)
	}
	return e.readableIn(ctx, t, id, TableLockRowShare)
}

// String names the lock strength as SQL does (FOR UPDATE, FOR SHARE, ...).
func (m RowLock) String() string {
	switch m {
	case RowLockKeyShare:
		return "FOR KEY SHARE"
	case RowLockShare:
		return "FOR SHARE"
	case RowLockNoKeyUpdate:
		return "FOR NO KEY UPDATE"
	case RowLockUpdate:
		return "FOR UPDATE"
	}
	return "no lock"
}

// recheckEvent starts a new read event of t for an EvalPlanQual re-check:
// the statement read the row before the lock wait, the re-check reads it
// again later, at its latest version, and one read event holds one version
// of a key. The event repeats the statement's SQL; the statement's reads
// and writes that follow belong to it.
func (e *engine) recheckEvent(t *txn, tb *table) {
	st := t.stmt
	if t.stmts == 0 {
		st = history.Statement{Table: tb.spec.Name}
	}
	st.SQL = "EvalPlanQual re-check: " + st.SQL
	if t.stmts > 0 || t.nreads > 0 {
		t.event++
	}
	t.stmts++
	e.rec.statement(t, st)
}
