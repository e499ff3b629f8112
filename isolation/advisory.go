package isolation

import (
	"context"
	"encoding/binary"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Advisory locks (pg_advisory_lock and friends) are entries of the lock
// table keyed by an AdvisoryKey. Transaction-level ones are held by the
// transaction until it ends. Session-level ones are held by the session's
// holder, a transaction-shaped placeholder that never commits, counted per
// key (PostgreSQL's locks are re-entrant) and released by unlock or when
// the session closes. A session's own locks never conflict with each other.

// advisoryMode maps shared/exclusive onto row lock modes with the right
// conflicts: shared ones coexist, an exclusive one excludes both.
func advisoryMode(shared bool) uint8 {
	if shared {
		return uint8(RowLockShare)
	}
	return uint8(RowLockUpdate)
}

func advisoryResource(key AdvisoryKey) resource {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 16), key.Space)
	return resource{kind: lockAdvisory, key: string(binary.BigEndian.AppendUint64(b, uint64(key.Key)))}
}

// advisoryHold identifies a session-level advisory lock in its counts.
type advisoryHold struct {
	key    AdvisoryKey
	shared bool
}

func (e *engine) txnAdvisoryLock(ctx context.Context, t *txn, key AdvisoryKey, shared bool, wait WaitPolicy) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.live(t); err != nil {
		return false, err
	}
	return e.advisoryAcquire(ctx, t, key, shared, wait)
}

func (e *engine) advisoryAcquire(ctx context.Context, t *txn, key AdvisoryKey, shared bool, wait WaitPolicy) (bool, error) {
	if wait == WaitSkipLocked {
		wait = WaitNoWait
	}
	err := e.acquire(ctx, t, advisoryResource(key), advisoryMode(shared), wait)
	if pgerror.GetCode(err) == pgerror.LockNotAvailable && wait == WaitNoWait {
		return false, nil // pg_try_advisory_lock answers false
	}
	return err == nil, err
}

// holder returns the session's placeholder for session-level locks.
func (s *session) holderTxn() *txn {
	if s.holder == nil {
		s.holder = &txn{txnLive: &txnLive{}, e: s.e, sess: s, sessionHolder: true}
	}
	return s.holder
}

func (e *engine) sessionAdvisoryLock(ctx context.Context, s *session, key AdvisoryKey, shared bool, wait WaitPolicy) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := s.holderTxn()
	ok, err := e.advisoryAcquire(ctx, h, key, shared, wait)
	if ok {
		if s.advisory == nil {
			s.advisory = make(map[advisoryHold]int)
		}
		s.advisory[advisoryHold{key, shared}]++
	}
	return ok, err
}

func (e *engine) sessionAdvisoryUnlock(s *session, key AdvisoryKey, shared bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := advisoryHold{key, shared}
	if s.advisory[k] == 0 {
		return false // PostgreSQL warns and answers false
	}
	s.advisory[k]--
	if s.advisory[k] > 0 || s.advisory[advisoryHold{key, !shared}] > 0 {
		return true // still held by another lock of the session on the key
	}
	delete(s.advisory, k)
	r := advisoryResource(key)
	e.releaseLock(s.holder, r)
	for i, x := range s.holder.locks {
		if x == r {
			s.holder.locks = append(s.holder.locks[:i], s.holder.locks[i+1:]...)
			break
		}
	}
	return true
}

// sessionAdvisoryUnlockAll releases every session-level advisory lock of
// s (pg_advisory_unlock_all).
func (e *engine) sessionAdvisoryUnlockAll(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.holder != nil {
		e.releaseLocks(s.holder)
	}
	s.advisory = nil
}

// closeSession is Session.Close.
func (e *engine) closeSession(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.holder != nil {
		e.releaseLocks(s.holder)
	}
	s.advisory, s.holder = nil, nil
	if s.name != "" || s.cur != nil {
		return // a logical session lives on in its other connections
	}
	// Nothing reads an anonymous session's state once its connection is
	// gone: drop it, so that connecting and disconnecting costs nothing
	// that stays.
	s.stmtMemo, s.vc, s.lastPos = statementReads{}, nil, nil
	delete(e.open, s)
}
