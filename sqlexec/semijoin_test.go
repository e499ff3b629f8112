package sqlexec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// TestCorrelatedSubqueryRunsOnceOnlyWhenHashable pins which correlated
// EXISTS and IN subqueries become a hashed semi-join, by the plan EXPLAIN
// ANALYZE reports: a hashed subquery is an InitPlan that runs once for the
// 50 outer rows; a subquery with a volatile call, one whose correlation
// is a primary key lookup, or one correlated through an expression stays
// a SubPlan run per row.
func TestCorrelatedSubqueryRunsOnceOnlyWhenHashable(t *testing.T) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "s"})
	mustRun(t, s, "CREATE TABLE so (id int PRIMARY KEY, a int)")
	mustRun(t, s, "CREATE TABLE si (id int PRIMARY KEY, a int, v int)")
	mustRun(t, s, "INSERT INTO so SELECT g, g % 7 FROM generate_series(1, 50) g")
	mustRun(t, s, "INSERT INTO si SELECT g, g % 5, g FROM generate_series(1, 40) g")
	cases := []struct {
		where  string
		hashed bool
	}{
		{"EXISTS (SELECT 1 FROM si WHERE si.a = so.a)", true},
		{"NOT EXISTS (SELECT 1 FROM si WHERE si.a = so.a AND si.v > 3)", true},
		{"so.id IN (SELECT v FROM si WHERE si.a = so.a)", true},
		{"so.id NOT IN (SELECT v FROM si WHERE so.a = si.a)", true},
		{"EXISTS (SELECT 1 FROM si WHERE si.a = so.a AND random() < 2)", false},
		{"EXISTS (SELECT 1 FROM si WHERE si.id = so.id)", false},
		{"EXISTS (SELECT 1 FROM si WHERE si.a = so.a + 1)", false},
		{"EXISTS (SELECT count(*) FROM si WHERE si.a = so.a)", false},
	}
	for _, c := range cases {
		t.Run(c.where, func(t *testing.T) {
			res, err := execOne(s, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM so WHERE "+c.where)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for _, r := range res.Rows {
				plan = append(plan, fmt.Sprint(r[0]))
			}
			text := strings.Join(plan, "\n")
			perRow := strings.Contains(text, "loops=50")
			if strings.Contains(text, "InitPlan") == perRow || c.hashed == perRow {
				t.Errorf("hashed = %v, want %v:\n%s", !perRow, c.hashed, text)
			}
		})
	}
}

// TestHashedSemiJoinHistoryPassesTheChecker runs hashed EXISTS and IN
// subqueries after other sessions committed several versions of every
// inner row, under the adversarial strategy at every level. The hashed
// subquery is one scan of the inner table, which records one read of
// each inner key per statement (as the per-row run did: a statement's
// later reads of a key are answered from its first), one choice of
// version per key that every level allows; the recorded history must
// pass the oracle.
func TestHashedSemiJoinHistoryPassesTheChecker(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	statements := []string{
		"SELECT o.k FROM ko o WHERE EXISTS (SELECT 1 FROM kv WHERE kv.v = o.v) AND NOT EXISTS (SELECT 1 FROM kv WHERE kv.v = o.w)",
		"SELECT o.k FROM ko o WHERE o.k IN (SELECT k FROM kv WHERE kv.v = o.v) AND o.k NOT IN (SELECT k FROM kv WHERE kv.v = o.w)",
	}
	for _, level := range []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"} {
		for _, st := range statements {
			for seed := range seeds {
				name := fmt.Sprintf("%s/%s/seed %d", level, st, seed)
				store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: uint64(seed), Record: true})
				eng, err := NewEngine(Config{Store: store, Strategy: isolation.StrategyAdversarial, Record: true})
				if err != nil {
					t.Fatal(err)
				}
				setup := eng.NewSession(SessionInfo{User: "setup"})
				mustRun(t, setup, "CREATE TABLE kv (k int PRIMARY KEY, v int NOT NULL)")
				mustRun(t, setup, "CREATE TABLE ko (k int PRIMARY KEY, v int NOT NULL, w int NOT NULL)")
				mustRun(t, setup, "INSERT INTO kv VALUES (1, 0), (2, 0), (3, 0)")
				mustRun(t, setup, "INSERT INTO ko SELECT k, r, r + 1 FROM generate_series(1, 3) k, generate_series(0, 3) r ON CONFLICT DO NOTHING")
				for round := 1; round <= 3; round++ {
					w := eng.NewSession(SessionInfo{User: fmt.Sprintf("w%d", round)})
					mustRun(t, w, fmt.Sprintf("UPDATE kv SET v = %d", round))
				}
				reader := eng.NewSession(SessionInfo{User: "reader"})
				mustRun(t, reader, "BEGIN ISOLATION LEVEL "+level)
				if _, err := execOne(reader, st); err != nil {
					mustRun(t, reader, "ROLLBACK")
					continue // 40001 at the snapshot levels
				}
				if _, err := execOne(reader, "COMMIT"); err != nil && level == "READ COMMITTED" {
					t.Fatalf("%s: commit: %v", name, err)
				}
				h := store.History()
				if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
					t.Errorf("%s: the recorded history is %v: %v", name, r.Verdict, r.Explanation)
				}
				checkOneReadPerKey(t, h, st)
			}
		}
	}
}

// checkOneReadPerKey fails when the statement query recorded a read of a
// key more than once.
func checkOneReadPerKey(t *testing.T, h *history.History, query string) {
	t.Helper()
	reads := map[history.KeyID]int{}
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpRead && int(op.Event) < len(txn.Statements) && txn.Statements[op.Event].SQL == query {
				reads[op.Key]++
			}
		}
	}
	for k, n := range reads {
		if n != 1 {
			t.Errorf("key %v recorded %d times in one statement, want once", h.Keys[k], n)
		}
	}
}
