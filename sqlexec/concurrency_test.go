package sqlexec

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestConcurrentSessions runs sessions in parallel that create and drop
// their own tables, use sequences and write to a shared table while others
// change the catalog; run with -race. Every failure must be a SQLSTATE
// error of the statement, never an internal error.
func TestConcurrentSessions(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 7})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "setup"})
	mustRun(t, setup, "CREATE TABLE shared (k int PRIMARY KEY, v int); CREATE SEQUENCE ids")
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := eng.NewSession(SessionInfo{User: fmt.Sprint("w", w)})
			defer s.Close()
			for i := 0; i < 30; i++ {
				stmts := []string{
					fmt.Sprintf("CREATE TABLE IF NOT EXISTS own%d (a serial PRIMARY KEY, b text)", w),
					fmt.Sprintf("INSERT INTO own%d (b) VALUES ('x') RETURNING a", w),
					fmt.Sprintf("INSERT INTO shared VALUES (nextval('ids'), %d) ON CONFLICT (k) DO UPDATE SET v = shared.v + 1", w),
					"SELECT count(*) FROM shared s JOIN shared t ON s.k = t.k",
					fmt.Sprintf("UPDATE shared SET v = v + 1 WHERE k %% 4 = %d", w),
				}
				if i%10 == 9 {
					stmts = append(stmts, fmt.Sprintf("DROP TABLE own%d", w))
				}
				for _, sql := range stmts {
					if err := runOne(s, sql); err != nil && pgerror.GetCode(err) == pgerror.InternalError {
						t.Errorf("%s: %v", sql, err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
}

func runOne(s *Session, sql string) error {
	_, err := runResult(s, sql)
	return err
}

func mustRun(t *testing.T, s *Session, sql string) {
	t.Helper()
	sts, err := s.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		p, err := s.Prepare(st, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Execute(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLockingReadsReturnEachKeyOnce runs locking reads of every strength
// and wait policy against sessions that update and delete the same rows
// concurrently, at every level, with the adversary: a result never holds
// a primary key twice, whatever waited for whom (with -tags invariants the
// executor also asserts it for every read).
func TestLockingReadsReturnEachKeyOnce(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: 5})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	setup := eng.NewSession(SessionInfo{User: "setup"})
	mustRun(t, setup, "CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL); CREATE INDEX t_v ON t (v); INSERT INTO t SELECT g, g FROM generate_series(1, 20) g")
	reads := []string{
		"SELECT id, v FROM t WHERE v > 0 ORDER BY id FOR UPDATE",
		"SELECT id FROM t WHERE id IN (1, 2, 3, 4) FOR NO KEY UPDATE",
		"SELECT id FROM t WHERE v IN (1, 2, 3, 21, 22) FOR SHARE",
		"SELECT id FROM t ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED",
		"SELECT a.id FROM t a JOIN t b ON b.id = a.id FOR KEY SHARE OF a",
	}
	levels := []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := eng.NewSession(SessionInfo{User: fmt.Sprint("w", w)})
			defer s.Close()
			for i := range 40 {
				level := levels[(w+i)%len(levels)]
				_ = runOne(s, "BEGIN ISOLATION LEVEL "+level)
				if w%2 == 0 {
					_ = runOne(s, fmt.Sprintf("UPDATE t SET v = v + 1 WHERE id = %d", 1+(w+i)%20))
					if i%7 == 0 {
						_ = runOne(s, fmt.Sprintf("DELETE FROM t WHERE id = %d", 1+i%20))
						_ = runOne(s, fmt.Sprintf("INSERT INTO t VALUES (%d, %d) ON CONFLICT (id) DO UPDATE SET v = t.v + 1", 1+i%20, i))
					}
				} else {
					sql := reads[(w+i)%len(reads)]
					res, err := runResult(s, sql)
					if err == nil {
						seen := map[any]bool{}
						for _, r := range res.Rows {
							if seen[r[0]] {
								t.Errorf("%s at %s returned id %v twice: %v", sql, level, r[0], res.Rows)
							}
							seen[r[0]] = true
						}
					} else if c := pgerror.GetCode(err); c != pgerror.SerializationFailure && c != pgerror.DeadlockDetected {
						t.Errorf("%s at %s: %v", sql, level, err)
					}
				}
				_ = runOne(s, "COMMIT")
			}
		}()
	}
	wg.Wait()
}

func runResult(s *Session, sql string) (*Result, error) {
	sts, err := s.Parse(sql)
	if err != nil {
		return nil, err
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		return nil, err
	}
	return s.Execute(context.Background(), p, nil)
}
