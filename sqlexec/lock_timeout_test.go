package sqlexec

import (
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestLockTimeoutEndsALockWait pins lock_timeout: a statement that waits
// longer than it for a row lock, a table lock or an advisory lock another
// transaction holds fails with PostgreSQL's 55P03 "canceling statement due
// to lock timeout" (ActiveRecord's LockWaitTimeout), and one that gets its
// lock in time, or a session without the setting, is not cut short.
func TestLockTimeoutEndsALockWait(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	a, b := eng.NewSession(SessionInfo{User: "a"}), eng.NewSession(SessionInfo{User: "b"})
	mustRun(t, a, "CREATE TABLE lt (id int PRIMARY KEY, n int)")
	mustRun(t, a, "INSERT INTO lt VALUES (1, 0)")
	if err := a.Begin(TxnOptions{}, true); err != nil {
		t.Fatal(err)
	}
	mustRun(t, a, "SELECT n FROM lt WHERE id = 1 FOR UPDATE")
	mustRun(t, a, "SELECT pg_advisory_xact_lock(7)")
	mustRun(t, b, "SET lock_timeout = 50")
	for _, sql := range []string{
		"SELECT n FROM lt WHERE id = 1 FOR UPDATE",
		"UPDATE lt SET n = 1 WHERE id = 1",
		"LOCK TABLE lt IN ACCESS EXCLUSIVE MODE",
		"SELECT pg_advisory_xact_lock(7)",
	} {
		if err := b.Begin(TxnOptions{}, true); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err := execOne(b, sql)
		if pgerror.GetCode(err) != pgerror.LockNotAvailable || err.Error() != "canceling statement due to lock timeout" {
			t.Errorf("%s: err = %v, want 55P03 canceling statement due to lock timeout", sql, err)
		}
		if waited := time.Since(start); waited < 50*time.Millisecond {
			t.Errorf("%s: failed after %v, before lock_timeout", sql, waited)
		}
		_ = b.Rollback()
	}
	// A wait shorter than lock_timeout ends with the lock.
	mustRun(t, b, "SET lock_timeout = '10s'")
	if err := b.Begin(TxnOptions{}, true); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := execOne(b, "SELECT n FROM lt WHERE id = 1 FOR UPDATE")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("a wait within lock_timeout failed: %v", err)
	}
	_ = b.Rollback()
}
