package sqlexec

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// errorText is err as "ERROR <SQLSTATE>: message".
func errorText(err error) string {
	var pe *pgerror.Error
	if errors.As(err, &pe) {
		return "ERROR " + string(pe.Code) + ": " + pe.Message
	}
	return "ERROR: " + err.Error()
}

// TestMergeWaitsAndRechecks runs a MERGE in session b that waits for
// session a's uncommitted change of the row it matches (or of the key it
// would insert), then a commits. The outcomes are PostgreSQL 15's (its
// isolation tests merge-update, merge-delete, merge-insert-update and
// merge-match-recheck, checked with two psql sessions), in the axiomatic
// profile and in --profile postgres: under READ COMMITTED a concurrently
// updated row is re-checked on its new version, the WHEN clauses
// evaluated again from the first; a row deleted or no longer joining
// makes the source row take the NOT MATCHED actions; a key inserted
// concurrently fails the INSERT with 23505; under REPEATABLE READ a
// concurrent update or delete fails with 40001 (whose message says
// "update" for a delete too: the isolation engine words it so for UPDATE
// and DELETE as well, where PostgreSQL says "concurrent delete").
func TestMergeWaitsAndRechecks(t *testing.T) {
	const merge = `MERGE INTO target t USING (SELECT 1 AS key, 'merge' AS val) s ON s.key = t.key
		WHEN MATCHED AND t.status = 's1' THEN UPDATE SET val = t.val || ' s1 by merge'
		WHEN MATCHED AND t.status = 's2' THEN UPDATE SET val = t.val || ' s2 by merge'
		WHEN MATCHED AND t.status = 's3' THEN DELETE
		WHEN MATCHED THEN DO NOTHING
		WHEN NOT MATCHED THEN INSERT VALUES (s.key, s.val, 'new')`
	for _, c := range []mergeCase{
		{"updated row re-evaluated", "INSERT INTO target VALUES (1, 'setup', 's1')", "READ COMMITTED",
			"UPDATE target SET val = 'a', status = 's2' WHERE key = 1", "MERGE 1 [[1 a s2 by merge s2]]"},
		{"updated row now deleted", "INSERT INTO target VALUES (1, 'setup', 's1')", "READ COMMITTED",
			"UPDATE target SET status = 's3' WHERE key = 1", "MERGE 1 []"},
		{"updated row now doing nothing", "INSERT INTO target VALUES (1, 'setup', 's1')", "READ COMMITTED",
			"UPDATE target SET status = 's4' WHERE key = 1", "MERGE 0 [[1 setup s4]]"},
		{"deleted row inserted again", "INSERT INTO target VALUES (1, 'setup', 's1')", "READ COMMITTED",
			"DELETE FROM target WHERE key = 1", "MERGE 1 [[1 merge new]]"},
		{"row moved out of the join", "INSERT INTO target VALUES (1, 'setup', 's1')", "READ COMMITTED",
			"UPDATE target SET key = 2 WHERE key = 1", "MERGE 1 [[1 merge new] [2 setup s1]]"},
		{"key inserted concurrently", "", "READ COMMITTED",
			"INSERT INTO target VALUES (1, 'a', 's1')", `ERROR 23505: duplicate key value violates unique constraint "target_pkey"`},
		{"repeatable read update", "INSERT INTO target VALUES (1, 'setup', 's1')", "REPEATABLE READ",
			"UPDATE target SET status = 's2' WHERE key = 1", "ERROR 40001: could not serialize access due to concurrent update"},
		{"repeatable read delete", "INSERT INTO target VALUES (1, 'setup', 's1')", "REPEATABLE READ",
			"DELETE FROM target WHERE key = 1", "ERROR 40001: could not serialize access due to concurrent"},
	} {
		for _, profile := range []struct {
			name string
			cfg  isolation.Config
		}{
			{"axiomatic", isolation.Config{Strategy: isolation.StrategyLatest}},
			{"postgres", isolation.Config{Strategy: isolation.StrategyLatest, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}},
		} {
			t.Run(c.name+"/"+profile.name, func(t *testing.T) { c.run(t, profile.cfg, merge) })
		}
	}
}

// mergeCase is one case of TestMergeWaitsAndRechecks: the target's row
// before, the isolation level of the MERGE, the change the other session
// holds uncommitted while the MERGE runs, and what the MERGE answers (its
// tag and the table after it, or its error).
type mergeCase struct {
	name, setup, level, change, want string
}

// run runs the case against merge in a store configured as cfg.
func (c mergeCase) run(t *testing.T, cfg isolation.Config, merge string) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	a, b := eng.NewSession(SessionInfo{User: "a"}), eng.NewSession(SessionInfo{User: "b"})
	mustRun(t, a, "CREATE TABLE target (key int PRIMARY KEY, val text, status text)")
	if c.setup != "" {
		mustRun(t, a, c.setup)
	}
	mustRun(t, a, "BEGIN")
	mustRun(t, a, c.change)
	mustRun(t, b, "BEGIN ISOLATION LEVEL "+c.level)
	mustRun(t, b, "SELECT 1") // the snapshot, before a commits
	got := make(chan string, 1)
	go func() {
		res, err := runResult(b, merge)
		if err != nil {
			got <- errorText(err)
			return
		}
		rows, err := query(t, b, "SELECT * FROM target ORDER BY key")
		if err == nil {
			err = runOne(b, "COMMIT")
		}
		if err != nil {
			got <- errorText(err)
			return
		}
		got <- res.Tag + " " + fmt.Sprint(rows)
	}()
	time.Sleep(50 * time.Millisecond) // b waits for a's row lock
	mustRun(t, a, "COMMIT")
	if out := <-got; !strings.HasPrefix(out, c.want) {
		t.Fatalf("got %s, want %s", out, c.want)
	}
}

// TestConcurrentMergesLoseNoUpdate runs MERGE upserts of a few keys from
// several sessions at once, at every level, with the adversary picking
// the versions the target reads see: each MERGE that succeeds adds one to
// its key's count, whether it inserted the row or updated it, so no
// update is lost (a race of two inserts of one key fails one of them with
// 23505, a conflict at REPEATABLE READ or SERIALIZABLE with 40001, and
// the client retries, as a PostgreSQL client would).
func TestConcurrentMergesLoseNoUpdate(t *testing.T) {
	for _, level := range []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"} {
		t.Run(level, func(t *testing.T) {
			store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: 11})
			eng, err := NewEngine(Config{Store: store})
			if err != nil {
				t.Fatal(err)
			}
			setup := eng.NewSession(SessionInfo{User: "setup"})
			mustRun(t, setup, "CREATE TABLE counts (k int PRIMARY KEY, n int)")
			const workers, merges = 4, 60
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					s := eng.NewSession(SessionInfo{User: fmt.Sprint("w", w)})
					defer s.Close()
					for i := 0; i < merges; i++ {
						sql := fmt.Sprintf(`MERGE INTO counts c USING (SELECT %d AS k) s ON c.k = s.k
							WHEN MATCHED THEN UPDATE SET n = c.n + 1
							WHEN NOT MATCHED THEN INSERT VALUES (s.k, 1)`, (w+i)%2)
						for {
							err := runOne(s, "BEGIN ISOLATION LEVEL "+level)
							if err == nil {
								err = runOne(s, "SELECT count(*) FROM counts")
							}
							if err == nil {
								err = runOne(s, sql)
							}
							if err == nil {
								err = runOne(s, "COMMIT")
							} else {
								_ = runOne(s, "ROLLBACK")
							}
							if err == nil {
								break
							}
							if c := pgerror.GetCode(err); c != pgerror.UniqueViolation && c != pgerror.SerializationFailure && c != pgerror.DeadlockDetected {
								t.Errorf("%s: %v", sql, err)
								return
							}
						}
					}
				}(w)
			}
			wg.Wait()
			rows, err := query(t, setup, "SELECT sum(n)::int FROM counts")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(rows); got != fmt.Sprint([][]any{{int32(workers * merges)}}) {
				t.Fatalf("sum of the counts is %s, want %d", got, workers*merges)
			}
		})
	}
}
