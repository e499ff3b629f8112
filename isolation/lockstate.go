package isolation

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// Store.Locks lists the lock table as PostgreSQL's pg_locks shows its own:
// the table, object and advisory locks each session and transaction holds
// or waits for, every transaction's hold on its own transaction id, and a
// wait for a row or a unique key as a wait for the id of the transaction
// holding it (PostgreSQL keeps row locks in the rows, and a backend that
// finds a row locked waits for the locker's transaction to end).

// LockTarget says what a Lock is on.
type LockTarget uint8

// Lock targets.
const (
	// LockOnTable is a table lock (Lock.Table).
	LockOnTable LockTarget = iota + 1
	// LockOnObject is a lock on an object the store does not keep, named
	// by the caller's id for it (Lock.Object, Txn.LockObject).
	LockOnObject
	// LockOnAdvisory is an advisory lock (Lock.Advisory).
	LockOnAdvisory
	// LockOnXID is a transaction id (Lock.XID): a transaction holds its
	// own exclusively, and a transaction waiting for a row or unique key
	// another holds waits for its id in share mode.
	LockOnXID
)

// Lock is one hold of a lock, or one wait for it, in one mode.
type Lock struct {
	On       LockTarget
	Table    TableID
	Object   uint32
	Advisory AdvisoryKey
	XID      uint32
	// Mode is a table or object lock's mode.
	Mode TableLock
	// Exclusive says an advisory or transaction id lock is exclusive
	// rather than shared.
	Exclusive bool
	// Session holds the lock, or waits for it; Txn is its transaction,
	// 0 for a session-level advisory lock.
	Session history.SessionID
	Txn     history.TxnID
	Granted bool
	// WaitSeq numbers a waiter's wait, as WaitRecorder learned it.
	WaitSeq uint64
	// BlockedBy lists the sessions a waiter waits for: those holding the
	// lock in a conflicting mode, and those queued before it for a
	// conflicting mode, whom it lets go first.
	BlockedBy []history.SessionID
}

// WaitRecorder learns when a session's transaction (or the session, for
// a session-level advisory lock) begins to wait for a lock, and the number
// Store.Locks gives that wait: the store keeps no clock, so the caller
// notes when. It is called with the store's mutex held and must return
// quickly without calling back into the store.
type WaitRecorder interface {
	WaitStarted(seq uint64)
}

// RecordWaits makes r learn of the session's lock waits.
func (s *Session) RecordWaits(r WaitRecorder) {
	s.s.e.mu.Lock()
	defer s.s.e.mu.Unlock()
	s.s.waitRecorder = r
}

// ID returns the session's id, as Store.Locks names it.
func (s *Session) ID() history.SessionID { return s.s.id }

// Locks returns the locks held and waited for now, session by session
// (in the order the sessions began), each transaction's in the order it
// took them, its waits last.
func (s *Store) Locks() []Lock { return s.e.lockState() }

func (e *engine) lockState() []Lock {
	e.mu.Lock()
	defer e.mu.Unlock()
	var owners []*txn
	for t := range e.active {
		owners = append(owners, t)
	}
	for s := range e.open {
		if s.holder != nil {
			owners = append(owners, s.holder)
		}
	}
	slices.SortFunc(owners, func(a, b *txn) int {
		if c := cmp.Compare(a.sess.id, b.sess.id); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id) // the session's holder (id 0) first
	})
	var out []Lock
	for _, t := range owners {
		if t.txnLive == nil {
			continue
		}
		own := Lock{Session: t.sess.id, Granted: true}
		if !t.sessionHolder {
			own.Txn = t.id
			for _, xid := range append([]uint32{t.xid}, t.subXIDs...) {
				if xid != 0 {
					l := own
					l.On, l.XID, l.Exclusive = LockOnXID, xid, true
					out = append(out, l)
				}
			}
		}
		for _, r := range t.locks {
			ent := e.locks[r]
			if ent == nil {
				continue
			}
			for _, h := range ent.holders {
				if h.t != t {
					continue
				}
				for mode := uint8(0); mode < 16; mode++ {
					if h.modes&(1<<mode) != 0 {
						out = e.appendLock(out, own, r, mode)
					}
				}
			}
		}
		if t.waiting {
			out = e.appendWait(out, own, t)
		}
	}
	return out
}

// appendLock appends l, made a hold of r in mode, unless r is a row or a
// unique key, whose locks pg_locks does not show.
func (e *engine) appendLock(out []Lock, l Lock, r resource, mode uint8) []Lock {
	switch r.kind {
	case lockTable:
		l.On, l.Table, l.Mode = LockOnTable, TableID(r.obj), TableLock(mode)
	case lockObject:
		l.On, l.Object, l.Mode = LockOnObject, r.obj, TableLock(mode)
	case lockAdvisory:
		l.On, l.Exclusive = LockOnAdvisory, mode == advisoryMode(false)
		l.Advisory = AdvisoryKey{Space: binary.BigEndian.Uint64([]byte(r.key[:8])), Key: int64(binary.BigEndian.Uint64([]byte(r.key[8:])))}
	default:
		return out
	}
	return append(out, l)
}

// appendWait appends t's wait, made from l: for its lock's entry in the
// lock table, or, for a row or a unique key, for the id of a transaction
// holding it in a conflicting mode.
func (e *engine) appendWait(out []Lock, l Lock, t *txn) []Lock {
	r := t.waitOn
	ent := e.locks[r]
	if ent == nil {
		return out
	}
	var mode uint8
	queued := false
	for _, w := range ent.waiters {
		if w.t == t {
			mode, queued = w.mode, true
			break
		}
	}
	if !queued {
		return out
	}
	l.Granted, l.WaitSeq = false, t.waitSeq
	var holder *txn
	for _, h := range ent.holders {
		if h.t != t && !sameBackend(r, h.t, t) && conflicts(r.kind, mode, h.modes) {
			l.BlockedBy = appendSession(l.BlockedBy, h.t.sess.id)
			if holder == nil || h.t == t.waitingFor {
				holder = h.t
			}
		}
	}
	for _, w := range ent.waiters {
		if w.t == t {
			break
		}
		if !sameBackend(r, w.t, t) && conflicts(r.kind, mode, 1<<w.mode) {
			l.BlockedBy = appendSession(l.BlockedBy, w.t.sess.id)
		}
	}
	if r.kind == lockRow || r.kind == lockIndexKey {
		if holder == nil {
			return out // it waits behind another waiter, not for a transaction
		}
		l.On, l.XID = LockOnXID, e.xid(holder)
		return append(out, l)
	}
	return e.appendLock(out, l, r, mode)
}

func appendSession(ids []history.SessionID, id history.SessionID) []history.SessionID {
	if slices.Contains(ids, id) {
		return ids
	}
	return append(ids, id)
}
