package sqlexec

import (
	"fmt"
	"testing"
	"time"

	"github.com/fickle-db/fickle/isolation"
)

// TestALockingReadThatWaitedReturnsTheNewVersionOnce: a SELECT ... FOR
// UPDATE that waits for another transaction's lock on a row, which that
// transaction then updates and commits, returns the row once, at its new
// version (PostgreSQL's EvalPlanQual), for a primary-key lookup, a key list
// and a scan; when the new version no longer matches the WHERE clause, the
// row is not returned at all.
func TestALockingReadThatWaitedReturnsTheNewVersionOnce(t *testing.T) {
	for _, c := range []struct{ name, query, want string }{
		{"key", "SELECT n FROM c WHERE id = 1 FOR UPDATE", "[[1]]"},
		{"key list", "SELECT n FROM c WHERE id IN (1, 2) ORDER BY id FOR UPDATE", "[[1] [5]]"},
		{"scan", "SELECT n FROM c WHERE n < 10 ORDER BY id FOR UPDATE", "[[1] [5]]"},
		{"no longer matching", "SELECT n FROM c WHERE n = 0 FOR UPDATE", "[]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: 3})
			eng, err := NewEngine(Config{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			a, b := eng.NewSession(SessionInfo{User: "a"}), eng.NewSession(SessionInfo{User: "b"})
			mustRun(t, a, "CREATE TABLE c (id int PRIMARY KEY, n int)")
			mustRun(t, a, "INSERT INTO c VALUES (1, 0), (2, 5)")
			mustRun(t, a, "SELECT fickle_checkpoint()")
			if err := a.Begin(TxnOptions{}, true); err != nil {
				t.Fatal(err)
			}
			mustRun(t, a, "SELECT n FROM c WHERE id = 1 FOR UPDATE")
			got := make(chan string, 1)
			go func() {
				if err := b.Begin(TxnOptions{}, true); err != nil {
					got <- err.Error()
					return
				}
				rows, err := query(t, b, c.query)
				if err != nil {
					got <- err.Error()
					return
				}
				_ = b.Commit()
				got <- fmt.Sprint(rows)
			}()
			time.Sleep(50 * time.Millisecond) // b waits for a's lock
			mustRun(t, a, "UPDATE c SET n = 1 WHERE id = 1")
			if err := a.Commit(); err != nil {
				t.Fatal(err)
			}
			if rows := <-got; rows != c.want {
				t.Fatalf("%s returned %s, want %s", c.query, rows, c.want)
			}
		})
	}
}
