package isolation

import (
	"context"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Exclusion constraints (IndexSpec.Excludes) are enforced as PostgreSQL's
// check_exclusion_or_unique_constraint does (execIndexing.c): a row being
// written is compared with every other row version a dirty snapshot sees
// under its index key — the latest committed version of each key, the
// transaction's own writes, and other transactions' pending writes. A
// conflict with a row that no live transaction is changing is 23P01. A
// conflict with a pending write, or with a committed row whose deleter or
// updater is still live, waits for that transaction to end and then checks
// again from the start: if it committed, its row stands and conflicts (or
// its delete removed the conflict); if it rolled back, its write is gone.
// The wait is a request for the row's lock in a mode every writer's lock
// conflicts with, given back as soon as it is granted, so that two
// transactions that each wait for the other's row are a deadlock (40P01)
// the lock table detects, as PostgreSQL's transaction-lock waits are.

// ExclusionConflict is the cause wrapped by a 23P01 error of Insert, Update
// or CheckUnique: the exclusion index and the existing row the new one
// conflicts with, which the executor formats.
type ExclusionConflict struct {
	Table TableID
	Index IndexID
	// Key is the primary key of the existing row, Row the row.
	Key []byte
	Row []any
}

// Error describes the conflict.
func (c *ExclusionConflict) Error() string { return "exclusion conflict" }

// exclusionFree enforces exclusion index ix for row, written (or about to
// be) at self, nil for a row not yet anywhere: it fails with 23P01 wrapping
// an ExclusionConflict when another row conflicts, after waiting for the
// live transactions whose writes decide it.
func (e *engine) exclusionFree(ctx context.Context, t *txn, ix *index, self *keyState, row []any) error {
	tb := ix.table
	ik, null := ix.indexKey(&t.keyBufs[0], row)
	if null {
		return nil
	}
	key := string(ik)
	for {
		wait, err := e.exclusionConflict(t, ix, key, self, row)
		if err != nil || wait == nil {
			return err
		}
		if err := e.waitForWriter(ctx, t, tb, wait); err != nil {
			return err
		}
		if ix.dropped || tb.dropped {
			return nil
		}
	}
}

// exclusionConflict looks once for a row under index key key that
// conflicts with row: the 23P01 error for a settled one, else the key of
// the first whose pending writer must be waited for, else nothing.
func (e *engine) exclusionConflict(t *txn, ix *index, key string, self *keyState, row []any) (*keyState, error) {
	tb := ix.table
	ent, ok := ix.entry(key)
	if !ok {
		return nil, nil
	}
	conflicts := func(other []any) bool {
		ok, null := ix.indexKey(&t.keyBufs[1], other)
		return !null && string(ok) == key && ix.spec.Excludes(row, other)
	}
	for _, other := range ent.list() {
		if other == self || !ent.has(other) {
			continue
		}
		if w := t.pendingWrite(other); w != nil {
			if !w.tomb && conflicts(w.row) {
				return nil, e.exclusionError(ix, other, w.row)
			}
			continue
		}
		writer := e.otherWriter(t, tb, other)
		if v := other.latest(); !v.tomb() && conflicts(v.row) {
			if writer != nil {
				return other, nil
			}
			return nil, e.exclusionError(ix, other, v.row)
		}
		if writer != nil {
			if w := writer.pendingWrite(other); w != nil && !w.tomb && conflicts(w.row) {
				return other, nil
			}
		}
	}
	return nil, nil
}

// otherWriter returns the live transaction other than t with a pending
// write to ks, nil if none: the holders of its row lock are the candidates
// (every write holds it until its transaction ends).
func (e *engine) otherWriter(t *txn, tb *table, ks *keyState) *txn {
	ent := e.lockEntry(resource{lockRow, uint32(tb.id), ks.key})
	if ent == nil {
		return nil
	}
	for _, h := range ent.holders {
		if h.t != t && h.t.txnLive != nil && h.t.pendingWrite(ks) != nil {
			return h.t
		}
	}
	return nil
}

// waitForWriter waits until the transaction writing ks ends: it asks for
// the row's lock in SHARE mode, which every writer's lock conflicts with,
// and gives back what it got, keeping whatever t held before.
func (e *engine) waitForWriter(ctx context.Context, t *txn, tb *table, ks *keyState) error {
	r := resource{lockRow, uint32(tb.id), ks.key}
	var before uint16
	if ent := e.lockEntry(r); ent != nil {
		for _, h := range ent.holders {
			if h.t == t {
				before = h.modes
			}
		}
	}
	if err := e.acquire(ctx, t, r, uint8(RowLockShare), WaitBlock); err != nil {
		return err
	}
	ent := e.locks[r]
	if before == 0 {
		if n := len(t.locks); n > 0 && t.locks[n-1] == r {
			t.locks = t.locks[:n-1]
		}
		e.releaseLock(t, r)
		return nil
	}
	for i := range ent.holders {
		if ent.holders[i].t == t {
			ent.holders[i].modes = before
		}
	}
	e.wakeWaiters(r, ent)
	return nil
}

// exclusionError is the 23P01 of a conflict with the row at ks.
func (e *engine) exclusionError(ix *index, ks *keyState, row []any) error {
	tb := ix.table
	return pgerror.Wrapf(&ExclusionConflict{Table: tb.id, Index: ix.id, Key: []byte(ks.key), Row: row}, pgerror.ExclusionViolation,
		"conflicting key value violates exclusion constraint %q", ix.spec.Name).
		WithConstraint(tb.spec.Name, ix.spec.Name)
}

// exclusionIndex is tb's immediately checked exclusion index id, nil when
// id is not one.
func (tb *table) exclusionIndex(id IndexID) *index {
	for _, ix := range tb.indexes {
		if ix.id == id && ix.spec.Excludes != nil && !ix.spec.Deferred {
			return ix
		}
	}
	return nil
}
