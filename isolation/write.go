package isolation

import (
	"bytes"
	"context"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// writable checks that t may write table id now and takes the table's
// implicit ROW EXCLUSIVE lock.
func (e *engine) writable(ctx context.Context, t *txn, id TableID) (*table, error) {
	if err := e.live(t); err != nil {
		return nil, err
	}
	if err := e.doomed(t); err != nil {
		return nil, err
	}
	if t.readOnly {
		return nil, pgerror.New(pgerror.ReadOnlySqlTransaction, "cannot execute this statement in a read-only transaction")
	}
	tb, err := e.table(id)
	if err != nil {
		return nil, err
	}
	if err := e.tableLock(ctx, t, tb, TableLockRowExclusive, WaitBlock); err != nil {
		return nil, err
	}
	if tb.dropped {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", tb.spec.Name)
	}
	return tb, nil
}

func (e *engine) insert(ctx context.Context, t *txn, id TableID, key []byte, row []any, arbiter IndexID) ([]byte, error) {
	return e.insertFrom(ctx, t, id, key, row, arbiter, nil)
}

// insertFrom inserts row; from, when not nil, is the place of the version
// the row moves from (Txn.Move), which its new version updates.
func (e *engine) insertFrom(ctx context.Context, t *txn, id TableID, key []byte, row []any, arbiter IndexID, from *Tid) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.writable(ctx, t, id)
	if err != nil {
		return nil, err
	}
	// A key no one has seen is t's to create, its row lock held without a
	// lock table entry (createdKey); any other key's lock is taken as an
	// update's. A fresh row id is such a key unless a read made it.
	var ks *keyState
	if key == nil {
		if !tb.spec.HiddenRowID {
			return nil, pgerror.Newf(pgerror.InternalError, "insert into %q without a primary key", tb.spec.Name)
		}
		key = tb.nextRowID()
		ks = tb.createdKey(string(key), t)
	} else if k := string(key); tb.keyState(k, false) == nil && e.locks[resource{lockRow, uint32(tb.id), k}] == nil {
		ks = tb.createdKey(k, t)
	}
	created := ks != nil // a key just created holds init's tombstone alone
	if !created {
		k := string(key)
		if err := e.acquire(ctx, t, resource{lockRow, uint32(tb.id), k}, uint8(RowLockUpdate), WaitBlock); err != nil {
			return nil, err
		}
		ks = tb.keyState(k, true)
	}
	if arbiter != NoIndex {
		if ix := tb.uniqueIndex(arbiter); ix != nil {
			// The row at the primary key being inserted counts: a live
			// one is a conflict on the arbiter too.
			if err := e.uniqueKeyFree(ctx, t, ix, nil, row); err != nil {
				return nil, err
			}
		} else if ix := tb.exclusionIndex(arbiter); ix != nil {
			if err := e.exclusionFree(ctx, t, ix, nil, row); err != nil {
				return nil, err
			}
		}
	}
	if !created && e.isLive(t, tb, ks) {
		return nil, pgerror.Wrapf(&UniqueConflict{Table: tb.id, Index: NoIndex, Key: key}, pgerror.UniqueViolation,
			"duplicate key value violates unique constraint \"%s_pkey\"", tb.spec.Name).
			WithDetail("Key %s already exists.", tb.formatKey(key)).WithConstraint(tb.spec.Name, tb.spec.Name+"_pkey")
	}
	if err := e.checkWrite(t, tb, ks); err != nil {
		return nil, err
	}
	if err := e.ssiWrite(t, tb, ks, row); err != nil {
		return nil, err
	}
	if err := e.checkUnique(ctx, t, tb, ks, row); err != nil {
		return nil, err
	}
	e.putWrite(t, tb, ks, row, false, created, from)
	return key, nil
}

func (e *engine) update(ctx context.Context, t *txn, id TableID, key []byte, row []any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.writable(ctx, t, id)
	if err != nil {
		return err
	}
	k := string(key)
	if err := e.acquire(ctx, t, resource{lockRow, uint32(tb.id), k}, uint8(RowLockNoKeyUpdate), WaitBlock); err != nil {
		return err
	}
	ks := tb.keyState(k, true)
	if err := e.checkUpdate(t, tb, ks, row); err != nil {
		return err
	}
	if err := e.checkUnique(ctx, t, tb, ks, row); err != nil {
		return err
	}
	e.putWrite(t, tb, ks, row, false, false, nil)
	return nil
}

func (e *engine) delete(ctx context.Context, t *txn, id TableID, key []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.writable(ctx, t, id)
	if err != nil {
		return err
	}
	k := string(key)
	if err := e.acquire(ctx, t, resource{lockRow, uint32(tb.id), k}, uint8(RowLockUpdate), WaitBlock); err != nil {
		return err
	}
	ks := tb.keyState(k, true)
	if err := e.checkUpdate(t, tb, ks, nil); err != nil {
		return err
	}
	if err := e.lockOldIndexKeys(ctx, t, tb, ks); err != nil {
		return err
	}
	e.putWrite(t, tb, ks, nil, true, false, nil)
	return nil
}

// move is Txn.Move: a delete and an insert that remember the row moved.
func (e *engine) move(ctx context.Context, t *txn, id TableID, key, newKey []byte, row []any) error {
	if err := e.delete(ctx, t, id, key); err != nil {
		return err
	}
	e.mu.Lock()
	var from *Tid
	if w := e.ownWrite(t, id, key); w != nil {
		from = &w.tid
	}
	e.mu.Unlock()
	if _, err := e.insertFrom(ctx, t, id, newKey, row, NoIndex, from); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if w := e.ownWrite(t, id, key); w != nil {
		w.moved = &moveTarget{key: string(newKey)}
	}
	return nil
}

// moveOut is Txn.MoveOut: a delete that remembers the row left the table.
func (e *engine) moveOut(ctx context.Context, t *txn, id TableID, key []byte) error {
	if err := e.delete(ctx, t, id, key); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if w := e.ownWrite(t, id, key); w != nil {
		w.moved = &moveTarget{elsewhere: true}
	}
	return nil
}

// ownWrite returns t's pending write to key of table id, nil if there is
// none or t has ended (e.mu held).
func (e *engine) ownWrite(t *txn, id TableID, key []byte) *write {
	if t.txnLive == nil {
		return nil
	}
	tb, err := e.table(id)
	if err != nil {
		return nil
	}
	ks := tb.keyState(string(key), false)
	if ks == nil {
		return nil
	}
	return t.pendingWrite(ks)
}

// checkUpdate runs the checks of a write of row (nil: DELETE) over an
// existing row: first-committer-wins for SI, and under
// Config.PostgresConcurrency PostgreSQL's first-updater-wins and SSI.
func (e *engine) checkUpdate(t *txn, tb *table, ks *keyState, row []any) error {
	if err := e.checkWrite(t, tb, ks); err != nil {
		return err
	}
	if err := e.firstUpdaterWins(t, tb, ks); err != nil {
		return err
	}
	return e.ssiWrite(t, tb, ks, row)
}

// firstUpdaterWins is PostgreSQL's rule for REPEATABLE READ and
// SERIALIZABLE under Config.PostgresConcurrency: updating, deleting or
// locking a row whose latest version the transaction's snapshot does not
// see fails with 40001 (the row lock was taken first, so its writer has
// ended). Other levels, and the axiomatic profile, pass.
func (e *engine) firstUpdaterWins(t *txn, tb *table, ks *keyState) error {
	if !e.cfg.PostgresConcurrency || !t.windowed() || t.pendingWrite(ks) != nil {
		return nil
	}
	latest := ks.latest()
	if e.snapshotSees(t, latest.w) {
		return nil
	}
	what := "update"
	if _, moved := tb.moves[movedVersion{ks, latest.w}]; latest.tomb() && !moved {
		what = "delete" // a row whose key changed moved, as an update
	}
	return e.serverAbort(t, pgerror.Newf(pgerror.SerializationFailure,
		"could not serialize access due to concurrent %s", what).
		WithDetail("A row of %q was changed by a transaction that committed after this transaction's snapshot.", tb.spec.Name))
}

// snapshotSees reports whether committed w is in t's PostgreSQL snapshot:
// at or before t.snap (the statement's snapshot under READ COMMITTED, the
// first statement's for the windowed levels) when there is one, else
// inside a windowed transaction's window; READ COMMITTED without a
// snapshot sees every commit.
func (e *engine) snapshotSees(t *txn, w *txn) bool {
	switch {
	case w == e.init || w == t:
		return true
	case t.snap != nil:
		return !t.snap.before(w.pos)
	case t.windowed():
		return below(w.pos, t.rd.hi)
	}
	return true
}

// isLive reports whether ks has a live row for t (see current).
func (e *engine) isLive(t *txn, tb *table, ks *keyState) bool {
	_, live := e.current(t, tb, ks)
	return live
}

// current returns the row of ks that constraints are checked against: t's
// own last write, else the latest committed version. ok is false for a
// tombstone.
func (e *engine) current(t *txn, tb *table, ks *keyState) ([]any, bool) {
	if w := t.pendingWrite(ks); w != nil {
		return w.row, !w.tomb
	}
	v := ks.latest()
	return v.row, !v.tomb()
}

// replacedVersion is the version of ks that t's first own write to it
// replaces, as t saw it: the version its current statement read, else the
// latest committed one (an insert writes only where no live row is).
func (e *engine) replacedVersion(t *txn, ks *keyState) ([]any, bool) {
	if m := &t.rd.stmt; m.stmt == t.stmtEvent {
		if s, ok := m.get(ks); ok {
			return s.row, s.ok
		}
	}
	v := ks.latest()
	return v.row, !v.tomb()
}

// checkUnique enforces the unique indexes for row written at ks: it locks
// the row's index keys and its current version's (so that a concurrent
// writer of the same index key waits for this transaction, as in
// PostgreSQL), then looks for another live row with the same index key on
// the latest committed state plus t's own writes.
func (e *engine) checkUnique(ctx context.Context, t *txn, tb *table, ks *keyState, row []any) error {
	if err := e.lockOldIndexKeys(ctx, t, tb, ks); err != nil {
		return err
	}
	for _, ix := range tb.indexes {
		if ix.spec.Unique && !ix.spec.Deferred {
			if err := e.uniqueKeyFree(ctx, t, ix, ks, row); err != nil {
				return err
			}
		}
		if ix.spec.Excludes != nil && !ix.spec.Deferred {
			if err := e.exclusionFree(ctx, t, ix, ks, row); err != nil {
				return err
			}
		}
	}
	return nil
}

// uniqueIndex is tb's immediately checked unique index id, nil when id is
// not one.
func (tb *table) uniqueIndex(id IndexID) *index {
	for _, ix := range tb.indexes {
		if ix.id == id && ix.spec.Unique && !ix.spec.Deferred {
			return ix
		}
	}
	return nil
}

// uniqueKeyFree locks row's key in unique index ix and fails with 23505
// when another live row than self (nil: any live row) has it.
func (e *engine) uniqueKeyFree(ctx context.Context, t *txn, ix *index, self *keyState, row []any) error {
	tb := ix.table
	ik, null := ix.indexKey(&t.keyBufs[0], row)
	if null {
		return nil
	}
	if err := e.acquire(ctx, t, resource{lockIndexKey, uint32(ix.id), string(ik)}, uint8(RowLockUpdate), WaitBlock); err != nil {
		return err
	}
	ent, ok := ix.entry(string(ik))
	if !ok {
		return nil
	}
	for _, other := range ent.list() {
		if other == self || !ent.has(other) {
			continue
		}
		cur, live := e.current(t, tb, other)
		if !live {
			continue
		}
		if ok2, null2 := ix.indexKey(&t.keyBufs[1], cur); !null2 && bytes.Equal(ok2, ik) {
			return pgerror.Wrapf(&UniqueConflict{Table: tb.id, Index: ix.id, Key: []byte(other.key)}, pgerror.UniqueViolation,
				"duplicate key value violates unique constraint %q", ix.spec.Name).
				WithConstraint(tb.spec.Name, ix.spec.Name)
		}
	}
	return nil
}

// checkDeferredUnique is Txn.CheckUnique.
func (e *engine) checkDeferredUnique(ctx context.Context, t *txn, id IndexID, key []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.live(t); err != nil {
		return err
	}
	if int(id) >= len(e.indexes) || e.indexes[id] == nil || e.indexes[id].dropped || e.indexes[id].table.dropped {
		return nil // dropped since the write
	}
	ix := e.indexes[id]
	ks := ix.table.keyState(string(key), false)
	if ks == nil {
		return nil
	}
	row, live := e.current(t, ix.table, ks)
	if !live {
		return nil
	}
	if ix.spec.Excludes != nil {
		return e.exclusionFree(ctx, t, ix, ks, row)
	}
	return e.uniqueKeyFree(ctx, t, ix, ks, row)
}

// lockOldIndexKeys locks the unique index keys of ks's current version, so
// that an INSERT of one of them waits until t ends.
func (e *engine) lockOldIndexKeys(ctx context.Context, t *txn, tb *table, ks *keyState) error {
	for _, ix := range tb.indexes {
		if !ix.spec.Unique || ix.spec.Deferred {
			continue
		}
		cur, live := e.current(t, tb, ks)
		if !live {
			return nil
		}
		ik, null := ix.indexKey(&t.keyBufs[0], cur)
		if null {
			continue
		}
		if err := e.acquire(ctx, t, resource{lockIndexKey, uint32(ix.id), string(ik)}, uint8(RowLockUpdate), WaitBlock); err != nil {
			return err
		}
	}
	return nil
}

// newWrite allocates a write of t from its slab, which grows with the
// writes t made, from 4 to 256: a bulk load's writes cost an allocation per
// 256.
func (t *txn) newWrite() *write {
	if len(t.writeSlab) == 0 {
		t.writeSlab = make([]write, min(max(int(t.writeSeq), 4), 256))
	}
	w := &t.writeSlab[0]
	t.writeSlab = t.writeSlab[1:]
	return w
}

// putWrite makes row (or a tombstone) t's last write to ks. A key t has
// just created (created) has no earlier write of t and no version but
// init's tombstone, so its write replaces nothing: a bulk load skips the
// look-up of the statement's memo for every row. from, when not nil, is
// the place of the version a moved row leaves (Txn.Move).
func (e *engine) putWrite(t *txn, tb *table, ks *keyState, row []any, tomb, created bool, from *Tid) {
	switch {
	case tomb:
		row = nil // the version it becomes is a tombstone by its nil row
	case row == nil:
		row = noColumns
	}
	op := e.rec.write(t, tb, ks, tomb)
	t.writeSeq++
	w := t.newWrite()
	*w = write{row: row, tomb: tomb, ks: ks, tb: tb, seq: t.writeSeq}
	prev := t.setPendingWrite(ks, w)
	w.before = prev
	w.tid = tb.placeVersion(ks, prev, row, tomb, created, from)
	e.noteWrite(t, w)
	t.undo.push(undoEntry{ks: ks, prev: prev, op: op})
	if prev == nil && !created {
		w.baseRow, w.baseLive = e.replacedVersion(t, ks)
		e.noteReplace(t, tb, ks)
	}
	if !tomb {
		for _, ix := range tb.indexes {
			ix.add(row, ks)
		}
	}
}
