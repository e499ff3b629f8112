package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// TestExplainAnalyzeExecutesDMLThroughTheHistory checks that EXPLAIN
// ANALYZE of an INSERT, UPDATE and DELETE really writes, as in PostgreSQL,
// and that the history records the writes under the EXPLAIN statement,
// while a plain EXPLAIN writes nothing.
func TestExplainAnalyzeExecutesDMLThroughTheHistory(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1, Record: true})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "h"})
	ss := &scriptSession{s: s}
	mustRun(t, s, "CREATE TABLE acc (id int PRIMARY KEY, bal int)")
	mustRun(t, s, "EXPLAIN INSERT INTO acc VALUES (1, 10)")
	if got := runSQL(ss, "SELECT count(*) FROM acc", ""); got != "count:int8\n0\n" {
		t.Fatalf("plain EXPLAIN wrote: %q", got)
	}
	const insert = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) INSERT INTO acc VALUES (1, 10), (2, 20)"
	want := "QUERY PLAN:text\nInsert on acc (actual rows=0 loops=1)\n  ->  Values Scan on \"*VALUES*\" (actual rows=2 loops=1)\nEXPLAIN\n"
	if got := runSQL(ss, insert, ""); got != want {
		t.Fatalf("%s:\n%s\nwant\n%s", insert, got, want)
	}
	mustRun(t, s, "EXPLAIN ANALYZE UPDATE acc SET bal = bal + 1 WHERE id = 2")
	mustRun(t, s, "EXPLAIN ANALYZE DELETE FROM acc WHERE id = 1")
	if got := runSQL(ss, "SELECT id, bal FROM acc", ""); got != "id:int4 | bal:int4\n2 | 21\n" {
		t.Fatalf("rows after EXPLAIN ANALYZE of DML: %q", got)
	}
	writes := map[string]int{}
	for _, txn := range store.History().Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpWrite && int(op.Event) < len(txn.Statements) {
				writes[txn.Statements[op.Event].SQL]++
			}
		}
	}
	for sql, n := range map[string]int{insert: 2, "EXPLAIN ANALYZE UPDATE acc SET bal = bal + 1 WHERE id = 2": 1, "EXPLAIN ANALYZE DELETE FROM acc WHERE id = 1": 1} {
		if writes[sql] != n {
			t.Errorf("history records %d writes of %q, want %d (all: %v)", writes[sql], sql, n, writes)
		}
	}
}
