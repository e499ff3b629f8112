package sqlexec

import (
	"context"
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// TestOneStatementReadsOneVersionPerKeyAtEveryLevel runs statements that
// read the same rows twice (a self-join, a correlated subquery on the same
// table, an UPDATE ... FROM the same table) after other sessions committed
// several versions of every row, across many adversarial seeds and every
// level. A statement reads one snapshot, so both reads of a row must agree
// (the self-join finds no row whose two sides differ) and the recorded
// history must pass the oracle: no split read, no violation.
func TestOneStatementReadsOneVersionPerKeyAtEveryLevel(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 20
	}
	statements := []string{ // any row one returns shows two versions of one key
		"SELECT a.k FROM kv a JOIN kv b ON a.k = b.k WHERE a.v <> b.v",
		"SELECT k FROM kv a WHERE a.v <> (SELECT b.v FROM kv b WHERE b.k = a.k)",
		"UPDATE kv SET v = kv.v + 100 FROM kv b WHERE kv.k = b.k AND kv.v <> b.v RETURNING kv.k",
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
				mustRun(t, setup, "INSERT INTO kv VALUES (1, 0), (2, 0), (3, 0)")
				for round := 1; round <= 3; round++ {
					w := eng.NewSession(SessionInfo{User: fmt.Sprintf("w%d", round)})
					mustRun(t, w, fmt.Sprintf("UPDATE kv SET v = %d", round))
				}
				reader := eng.NewSession(SessionInfo{User: "reader"})
				mustRun(t, reader, "BEGIN ISOLATION LEVEL "+level)
				res, err := execOne(reader, st)
				if err != nil {
					if level == "SERIALIZABLE" || level == "REPEATABLE READ" {
						mustRun(t, reader, "ROLLBACK")
						continue // 40001: the adversary's snapshot could not take the write
					}
					t.Fatalf("%s: %v", name, err)
				}
				if len(res.Rows) != 0 {
					t.Errorf("%s: one statement saw two versions of the rows %v", name, res.Rows)
				}
				if _, err := execOne(reader, "COMMIT"); err != nil && level == "READ COMMITTED" {
					t.Fatalf("%s: commit: %v", name, err)
				}
				h := store.History()
				if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
					t.Errorf("%s: the recorded history is %v: %v", name, r.Verdict, r.Explanation)
				}
			}
		}
	}
}

// TestSelfJoinAtReadCommittedRecordsEachKeyOnce pins that a statement's
// second read of a key is answered from its first and not recorded again:
// a self-join of a three-row table records three reads per side of the
// first inner scan only, not one more per outer row.
func TestSelfJoinAtReadCommittedRecordsEachKeyOnce(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: 7, Record: true})
	eng, err := NewEngine(Config{Store: store, Strategy: isolation.StrategyAdversarial, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "s"})
	mustRun(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v int NOT NULL)")
	mustRun(t, s, "INSERT INTO kv VALUES (1, 0), (2, 0), (3, 0)")
	const query = "SELECT a.k, b.k FROM kv a, kv b"
	res, err := execOne(s, query)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 9 {
		t.Fatalf("the cross join returned %d rows, want 9", len(res.Rows))
	}
	reads := map[history.KeyID]int{}
	h := store.History()
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpRead && int(op.Event) < len(txn.Statements) && txn.Statements[op.Event].SQL == query {
				reads[op.Key]++
			}
		}
	}
	if len(reads) != 3 {
		t.Fatalf("the statement read %d keys, want 3", len(reads))
	}
	for k, n := range reads {
		if n != 1 {
			t.Errorf("key %v recorded %d times in one statement, want once", h.Keys[k], n)
		}
	}
}

// sessionAfter opens a session on a fresh engine, closed when the test
// ends, and runs setup in it, failing the test on any error.
func sessionAfter(t *testing.T, setup ...string) *Session {
	t.Helper()
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "tester", Database: "fickle"})
	t.Cleanup(s.Close)
	for _, sql := range setup {
		if _, err := execOne(s, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	return s
}

// execOne runs one SQL statement and returns its result.
func execOne(s *Session, sql string) (*Result, error) {
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
