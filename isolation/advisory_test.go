package isolation

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

var k7 = AdvisoryKey{Key: 7}

func TestSessionAdvisoryLocksExcludeOtherSessionsUntilUnlocked(t *testing.T) {
	s := NewStore(Config{})
	a, b := s.NewSession(), s.NewSession()
	for range 2 { // re-entrant
		if ok, err := a.AdvisoryLock(bg, k7, false, WaitBlock); !ok || err != nil {
			t.Fatalf("lock: %v %v", ok, err)
		}
	}
	if ok, err := b.AdvisoryLock(bg, k7, true, WaitNoWait); ok || err != nil {
		t.Fatalf("try lock of a held key: %v %v, want false", ok, err)
	}
	tx := begin(t, a, history.ReadCommitted)
	if ok, err := tx.AdvisoryLock(bg, k7, false, WaitNoWait); !ok || err != nil {
		t.Fatalf("a session's transaction conflicts with its own session lock: %v %v", ok, err)
	}
	must(t, tx.Commit(bg))
	done := make(chan error, 1)
	go func() {
		_, err := b.AdvisoryLock(bg, k7, false, WaitBlock)
		done <- err
	}()
	waitUntilHolderBlocked(t, s, b)
	if !a.AdvisoryUnlock(k7, false) {
		t.Fatal("unlock of a held lock answered false")
	}
	select {
	case err := <-done:
		t.Fatalf("b got the lock while a still held it once: %v", err)
	default:
	}
	if !a.AdvisoryUnlock(k7, false) || a.AdvisoryUnlock(k7, false) {
		t.Fatal("unlock counts are off")
	}
	must(t, <-done)
	b.Close()
	if ok, _ := a.AdvisoryLock(bg, k7, false, WaitNoWait); !ok {
		t.Fatal("Close did not release b's lock")
	}
}

func TestTransactionAdvisoryLocksEndWithTheTransaction(t *testing.T) {
	s := NewStore(Config{})
	a, b := s.NewSession(), s.NewSession()
	ta := begin(t, a, history.ReadCommitted)
	if ok, _ := ta.AdvisoryLock(bg, AdvisoryKey{Key: 1}, true, WaitBlock); !ok {
		t.Fatal("shared lock refused")
	}
	tb := begin(t, b, history.ReadCommitted)
	if ok, _ := tb.AdvisoryLock(bg, AdvisoryKey{Key: 1}, true, WaitNoWait); !ok {
		t.Fatal("two shared locks conflict")
	}
	if ok, _ := tb.AdvisoryLock(bg, AdvisoryKey{Key: 1}, false, WaitNoWait); ok {
		t.Fatal("exclusive lock granted over another session's shared one")
	}
	must(t, ta.Rollback())
	if ok, _ := tb.AdvisoryLock(bg, AdvisoryKey{Key: 1}, false, WaitNoWait); !ok {
		t.Fatal("rollback did not release the transaction's lock")
	}
}

func TestKeySpacesKeepAdvisoryLocksApart(t *testing.T) {
	s := NewStore(Config{})
	a, b := s.NewSession(), s.NewSession()
	if ok, _ := a.AdvisoryLock(bg, AdvisoryKey{Space: 1, Key: 7}, false, WaitNoWait); !ok {
		t.Fatal("lock refused")
	}
	if ok, _ := b.AdvisoryLock(bg, AdvisoryKey{Space: 2, Key: 7}, false, WaitNoWait); !ok {
		t.Fatal("the same key in another space conflicts")
	}
	if ok, _ := b.AdvisoryLock(bg, AdvisoryKey{Space: 1, Key: 7}, false, WaitNoWait); ok {
		t.Fatal("the same key in the same space was granted twice")
	}
}

func TestUnlockAllReleasesSessionLocksNotTransactionLocks(t *testing.T) {
	s := NewStore(Config{})
	a, b := s.NewSession(), s.NewSession()
	for range 2 {
		if ok, _ := a.AdvisoryLock(bg, k7, false, WaitNoWait); !ok {
			t.Fatal("lock refused")
		}
	}
	ta := begin(t, a, history.ReadCommitted)
	if ok, _ := ta.AdvisoryLock(bg, AdvisoryKey{Key: 8}, false, WaitNoWait); !ok {
		t.Fatal("lock refused")
	}
	a.AdvisoryUnlockAll()
	if ok, _ := b.AdvisoryLock(bg, k7, false, WaitNoWait); !ok {
		t.Fatal("unlock all left the session lock held")
	}
	if ok, _ := b.AdvisoryLock(bg, AdvisoryKey{Key: 8}, false, WaitNoWait); ok {
		t.Fatal("unlock all released the transaction's lock")
	}
	if a.AdvisoryUnlock(k7, false) {
		t.Fatal("unlock after unlock all answered true")
	}
	must(t, ta.Commit(bg))
}

func TestDeadlockThroughASessionLockIsDetected(t *testing.T) {
	s := NewStore(Config{})
	a, b := s.NewSession(), s.NewSession()
	if ok, _ := a.AdvisoryLock(bg, AdvisoryKey{Key: 1}, false, WaitBlock); !ok {
		t.Fatal("lock refused")
	}
	tb := begin(t, b, history.ReadCommitted)
	if ok, _ := tb.AdvisoryLock(bg, AdvisoryKey{Key: 2}, false, WaitBlock); !ok {
		t.Fatal("lock refused")
	}
	ta := begin(t, a, history.ReadCommitted)
	done := make(chan error, 1)
	go func() {
		_, err := ta.AdvisoryLock(bg, AdvisoryKey{Key: 2}, false, WaitBlock)
		done <- err
	}()
	waitUntilBlocked(t, s, ta)
	_, err := tb.AdvisoryLock(bg, AdvisoryKey{Key: 1}, false, WaitBlock)
	wantCode(t, err, pgerror.DeadlockDetected)
	must(t, <-done) // b's abort released lock 2
}

// waitUntilHolderBlocked polls until the session's lock holder waits.
func waitUntilHolderBlocked(t *testing.T, s *Store, sess *Session) {
	t.Helper()
	for range 5000 {
		s.e.mu.Lock()
		h := sess.s.holder
		w := h != nil && h.waitingFor != nil
		s.e.mu.Unlock()
		if w {
			return
		}
		sleepMs()
	}
	t.Fatal("session never blocked")
}
