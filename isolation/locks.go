package isolation

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The lock table holds the physical locks that real databases take whatever
// the isolation level: row locks (writes and SELECT ... FOR ...), unique
// index key locks (a second INSERT of a key waits for the pending inserter),
// table locks (LOCK TABLE, and the implicit ones of reads and writes) and
// advisory locks. Locks are logical entries in the engine's state, never Go
// mutexes: a waiting transaction joins the entry's queue, records one
// transaction that blocks it (a holder, or an earlier waiter it must let go
// first) as its edge in the wait-for graph, releases the engine's mutex and
// blocks on the entry's wake channel, which any release closes; then it
// retries. Every edge is real when added, so a deadlock is always closed by
// the last edge added, and checking for a cycle when an edge is added finds
// every deadlock (40P01).

type lockKind uint8

const (
	lockRow lockKind = iota
	lockTable
	lockIndexKey
	lockAdvisory
	// lockObject is a lock in a table mode on an object the store does
	// not keep (a sequence), named by the caller's id for it.
	lockObject
)

type resource struct {
	kind lockKind
	obj  uint32 // table or index id
	key  string
}

// holder is one transaction's hold on a resource: the set of modes it holds
// (PostgreSQL's table modes are not totally ordered by conflicts, so a
// transaction may hold several).
type holder struct {
	t     *txn
	modes uint16
}

type lockEntry struct {
	holders []holder
	// firstHolder backs holders while one transaction holds the entry,
	// as one does most (a row lock), so that it needs no slice of its own.
	firstHolder [1]holder
	// waiters wait for the entry in arrival order. A waiter is granted
	// only when no earlier waiter that conflicts with it still waits, so
	// that waiters are served first come, first served, as PostgreSQL's
	// lock queues are (and a run does not depend on which goroutine the
	// scheduler wakes first). When a holder or a waiter lets go, only the
	// waiters that may now go are woken (wakeWaiters): waking all of them
	// to find the one would put every waiter of a hot row through the
	// scheduler and the engine's mutex at every release.
	waiters []waiter
}

// waiter is a transaction waiting for a lock entry in a mode, and the
// observer of its wait (nil when none).
type waiter struct {
	t    *txn
	mode uint8
	obs  WaitObserver
}

// Row lock modes are RowLock values; index key locks use rowLockUpdate.
// Table lock modes are TableLock values.

// rowConflicts[a] is the set of row lock modes that conflict with a.
var rowConflicts = [...]uint16{
	RowLockKeyShare:    1 << RowLockUpdate,
	RowLockShare:       1<<RowLockNoKeyUpdate | 1<<RowLockUpdate,
	RowLockNoKeyUpdate: 1<<RowLockShare | 1<<RowLockNoKeyUpdate | 1<<RowLockUpdate,
	RowLockUpdate:      1<<RowLockKeyShare | 1<<RowLockShare | 1<<RowLockNoKeyUpdate | 1<<RowLockUpdate,
}

// tableConflicts is PostgreSQL's table-level lock conflict table.
var tableConflicts = [...]uint16{
	TableLockAccessShare:          1 << TableLockAccessExclusive,
	TableLockRowShare:             1<<TableLockExclusive | 1<<TableLockAccessExclusive,
	TableLockRowExclusive:         1<<TableLockShare | 1<<TableLockShareRowExclusive | 1<<TableLockExclusive | 1<<TableLockAccessExclusive,
	TableLockShareUpdateExclusive: 1<<TableLockShareUpdateExclusive | 1<<TableLockShare | 1<<TableLockShareRowExclusive | 1<<TableLockExclusive | 1<<TableLockAccessExclusive,
	TableLockShare:                1<<TableLockRowExclusive | 1<<TableLockShareUpdateExclusive | 1<<TableLockShareRowExclusive | 1<<TableLockExclusive | 1<<TableLockAccessExclusive,
	TableLockShareRowExclusive:    1<<TableLockRowExclusive | 1<<TableLockShareUpdateExclusive | 1<<TableLockShare | 1<<TableLockShareRowExclusive | 1<<TableLockExclusive | 1<<TableLockAccessExclusive,
	TableLockExclusive:            0x1FF &^ (1 | 1<<TableLockAccessShare),
	TableLockAccessExclusive:      0x1FF &^ 1,
}

// conflicts reports whether mode a conflicts with any of the held modes.
func conflicts(kind lockKind, a uint8, held uint16) bool {
	if kind == lockTable || kind == lockObject {
		return tableConflicts[a]&held != 0
	}
	return rowConflicts[a]&held != 0
}

// errSkipLocked tells a scan to skip a row locked by another transaction.
var errSkipLocked = errors.New("isolation: row skipped (SKIP LOCKED)")

// acquire takes lock mode on r for t. It is called with e.mu held and may
// release and retake it while waiting: callers re-read any state they need
// after it returns.
func (e *engine) acquire(ctx context.Context, t *txn, r resource, mode uint8, wait WaitPolicy) error {
	queued := false
	defer func() {
		if queued {
			if t.txnLive != nil { // a deadlock may have ended t
				t.waiting = false
			}
			e.dequeue(t, r)
		}
	}()
	for {
		if err := e.live(t); err != nil {
			return err
		}
		ent := e.lockEntry(r)
		if ent == nil {
			ent = e.newLockEntry()
			e.locks[r] = ent
		}
		blocker, mine := ent.blocker(r, t, mode, queued)
		if blocker == nil {
			if mine >= 0 {
				ent.holders[mine].modes |= 1 << mode
				return nil
			}
			ent.holders = append(ent.holders, holder{t: t, modes: 1 << mode})
			t.addLock(r)
			return nil
		}
		switch wait {
		case WaitNoWait:
			return pgerror.Newf(pgerror.LockNotAvailable, "could not obtain lock on %s", e.describe(r))
		case WaitSkipLocked:
			return errSkipLocked
		}
		if e.closesCycle(t, blocker) {
			err := pgerror.New(pgerror.DeadlockDetected, "deadlock detected").
				WithDetail("Process waits for a lock on %s held by another transaction that waits for this one.", e.describe(r))
			if t.sessionHolder {
				return err // no transaction to abort: the session's lock request fails
			}
			return e.serverAbort(t, err)
		}
		obs := waitObserverOf(ctx)
		if !queued {
			if (r.kind == lockRow || r.kind == lockIndexKey) && !t.sessionHolder {
				// A PostgreSQL backend has its transaction id before it
				// waits for a row's or a key's transaction (pg_locks).
				e.currentXID(t)
			}
			ent.waiters = append(ent.waiters, waiter{t: t, mode: mode, obs: obs})
			queued = true
			if f := lockWaitOf(ctx); f != nil {
				// The whole wait, from now until the lock is granted,
				// runs under the context the caller derives
				// (lock_timeout).
				var cancel context.CancelFunc
				ctx, cancel = f(ctx)
				defer cancel()
			}
			e.waits++
			t.waitOn, t.waiting, t.waitSeq = r, true, e.waits
			if rec := t.sess.waitRecorder; rec != nil {
				rec.WaitStarted(e.waits)
			}
		}
		t.waitingFor = blocker
		if t.wake == nil {
			t.wake = make(chan struct{}, 1)
		}
		if obs != nil {
			obs.Waiting()
		}
		e.mu.Unlock()
		var cerr error
		select {
		case <-t.wake:
		case <-ctx.Done():
			cerr = ctxError(ctx)
		}
		e.mu.Lock()
		t.waitingFor = nil
		if cerr != nil {
			return cerr
		}
	}
}

// blocker returns a transaction that t's request for mode on r waits
// for, nil when it may be granted, and the index of t's own hold in
// ent.holders (-1 if none). A queued request also waits for an earlier
// waiter it conflicts with (first come, first served); a new one only for
// holders, as a PostgreSQL backend that finds a row unlocked takes it.
func (ent *lockEntry) blocker(r resource, t *txn, mode uint8, queued bool) (blocker *txn, mine int) {
	mine = -1
	for i, h := range ent.holders {
		if h.t == t {
			mine = i
			continue
		}
		if blocker == nil && !sameBackend(r, h.t, t) && conflicts(r.kind, mode, h.modes) {
			blocker = h.t
		}
	}
	if blocker == nil && queued {
		for _, w := range ent.waiters {
			if w.t == t {
				break
			}
			if !sameBackend(r, w.t, t) && conflicts(r.kind, mode, 1<<w.mode) {
				return w.t, mine
			}
		}
	}
	return blocker, mine
}

// sameBackend reports whether a and b are one backend's session and
// transaction, whose advisory locks never conflict.
func sameBackend(r resource, a, b *txn) bool {
	return r.kind == lockAdvisory && a.sess == b.sess
}

// dequeue removes t from r's waiters, waking the others: one that waited
// behind t may go now.
func (e *engine) dequeue(t *txn, r resource) {
	ent := e.locks[r]
	if ent == nil {
		return
	}
	for i, w := range ent.waiters {
		if w.t == t {
			ent.waiters = append(ent.waiters[:i], ent.waiters[i+1:]...)
			break
		}
	}
	e.wakeWaiters(r, ent)
}

// closesCycle reports whether t waiting for blocker closes a cycle in the
// wait-for graph. A session's advisory locks are held by its session
// holder, which waits for whatever the session's transaction waits for.
func (e *engine) closesCycle(t, blocker *txn) bool {
	// An ended transaction waits for nothing; a waiter whose blocker ended
	// keeps its stale edge only until it wakes and retries.
	for b, steps := blocker, 0; b != nil && b.txnLive != nil && steps <= 2*(len(e.active)+len(e.open)); steps++ {
		if b == t || t.sessionHolder && b.sess == t.sess || b.sessionHolder && t.sess == b.sess {
			return true
		}
		next := b.waitingFor
		if next == nil && b.sessionHolder && b.sess.cur != nil {
			next = b.sess.cur.waitingFor
		}
		b = next
	}
	return false
}

// lockEntry returns r's entry in the lock table, nil if none. A row lock
// that a key's creator holds implicitly (keyState.creator) gets its entry
// here, the first time anyone else looks for it, so that every path that
// finds a lock's holders (waits, deadlocks, pending writers) finds it.
func (e *engine) lockEntry(r resource) *lockEntry {
	if ent := e.locks[r]; ent != nil || r.kind != lockRow {
		return ent
	}
	if int(r.obj) >= len(e.tables) || e.tables[r.obj] == nil {
		return nil
	}
	ks := e.tables[r.obj].keyState(r.key, false)
	if ks == nil || ks.creator == nil || ks.creatorLocked {
		return nil
	}
	c := ks.creator
	ks.creatorLocked = true
	if c.state != txnActive {
		// Ended, or ending (its own unindexing looks for holders after it
		// released its locks): its lock went with it.
		return nil
	}
	ent := e.newLockEntry()
	ent.holders = append(ent.holders, holder{t: c, modes: 1 << uint8(RowLockUpdate)})
	e.locks[r] = ent
	c.addLock(r)
	return ent
}

// holds reports whether t holds r in some mode.
func (e *engine) holds(t *txn, r resource) bool {
	if ent := e.lockEntry(r); ent != nil {
		for _, h := range ent.holders {
			if h.t == t {
				return true
			}
		}
	}
	return false
}

// releaseLocks drops every lock t holds and wakes their waiters. A
// transaction's list, when short, goes to its session for the next one.
func (e *engine) releaseLocks(t *txn) {
	for _, r := range t.locks {
		e.releaseLock(t, r)
	}
	if !t.sessionHolder && t.sess != nil && cap(t.locks) <= maxSpareLocks {
		clear(t.locks)
		t.sess.spareLocks = t.locks[:0]
	}
	t.locks = nil
}

// maxSpareLocks is the longest lock list a session keeps for its next
// transaction: a transaction's table, row and index-key locks.
const maxSpareLocks = 64

// addLock lists r among the locks t holds, starting from its session's
// spare list (releaseLocks) so that a transaction's locks seldom grow a
// slice of their own.
func (t *txn) addLock(r resource) {
	if t.locks == nil && !t.sessionHolder && t.sess != nil {
		t.locks, t.sess.spareLocks = t.sess.spareLocks, nil
	}
	t.locks = append(t.locks, r)
}

// releaseLock drops t's hold on r (not from t.locks) and wakes r's waiters.
func (e *engine) releaseLock(t *txn, r resource) {
	ent := e.locks[r]
	if ent == nil {
		return
	}
	for i, h := range ent.holders {
		if h.t == t {
			ent.holders[i] = ent.holders[len(ent.holders)-1]
			ent.holders = ent.holders[:len(ent.holders)-1]
			break
		}
	}
	e.wakeWaiters(r, ent)
}

// wakeWaiters wakes the waiters of r that may be granted now, and points
// every other waiter at what it waits for now, so that deadlock detection
// (closesCycle) follows live edges. A waiter whose new edge closes a cycle
// is woken too: it finds the deadlock when it retries, as a waiter finds
// one when it starts to wait. It forgets the entry once no one holds or
// waits for it.
func (e *engine) wakeWaiters(r resource, ent *lockEntry) {
	for _, w := range ent.waiters {
		blocker, _ := ent.blocker(r, w.t, w.mode, true)
		moved := blocker != w.t.waitingFor
		w.t.waitingFor = blocker
		if blocker != nil && !(moved && e.closesCycle(w.t, blocker)) {
			continue
		}
		w.t.signalWake()
		if w.obs != nil {
			w.obs.Woken()
		}
	}
	if len(ent.holders) == 0 && len(ent.waiters) == 0 {
		delete(e.locks, r)
		if len(e.spareEntries) < maxSpareEntries {
			*ent = lockEntry{}
			e.spareEntries = append(e.spareEntries, ent)
		}
	}
}

// signalWake lets t's lock wait retry; a wake-up it has not consumed yet
// covers this one.
func (t *txn) signalWake() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// maxSpareEntries is how many forgotten lock entries the engine keeps for
// reuse: about as many as its transactions hold at once in a busy OLTP
// run, not the peak of a bulk update.
const maxSpareEntries = 256

// newLockEntry returns an empty lock entry, a spare one when there is one,
// so that taking a lock nobody holds seldom allocates.
func (e *engine) newLockEntry() *lockEntry {
	var ent *lockEntry
	if n := len(e.spareEntries); n > 0 {
		ent = e.spareEntries[n-1]
		e.spareEntries[n-1] = nil
		e.spareEntries = e.spareEntries[:n-1]
	} else {
		ent = &lockEntry{}
	}
	ent.holders = ent.firstHolder[:0:1]
	return ent
}

// ctxError turns a context's end into the error the client sees: the
// context's cause when it is a SQLSTATE error (the executor sets 55P03 for
// lock_timeout), else 57014.
func ctxError(ctx context.Context) error {
	var pe *pgerror.Error
	if errors.As(context.Cause(ctx), &pe) {
		return pe
	}
	return pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
}

// describe names a locked resource in PostgreSQL's words, for errors only.
func (e *engine) describe(r resource) string {
	switch r.kind {
	case lockAdvisory:
		return fmt.Sprintf("advisory lock [%d]", int64(binary.BigEndian.Uint64([]byte(r.key))))
	case lockObject:
		return fmt.Sprintf("relation %d", r.obj)
	case lockIndexKey:
		if int(r.obj) < len(e.indexes) && e.indexes[r.obj] != nil {
			return fmt.Sprintf("a key of index %q", e.indexes[r.obj].spec.Name)
		}
		return "a key of a dropped index"
	}
	name := "a dropped relation"
	if int(r.obj) < len(e.tables) && e.tables[r.obj] != nil {
		name = fmt.Sprintf("relation %q", e.tables[r.obj].spec.Name)
	}
	if r.kind == lockRow {
		return "row in " + name
	}
	return name
}
