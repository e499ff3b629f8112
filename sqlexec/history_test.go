package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// TestHistoryNamesStatements checks that the store's history attributes
// reads and writes to the SQL statement, table and WHERE clause that made
// them, and that a predicate read records the rows it filtered out.
func TestHistoryNamesStatements(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1, Record: true})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "h"})
	mustRun(t, s, "CREATE TABLE acc (id int PRIMARY KEY, bal int)")
	mustRun(t, s, "INSERT INTO acc VALUES (1, 10), (2, 20)")
	mustRun(t, s, "UPDATE acc SET bal = bal + 1 WHERE bal > 15")
	h := store.History()
	var found bool
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if int(op.Event) >= len(txn.Statements) {
				continue
			}
			st := txn.Statements[op.Event]
			if st.SQL == "UPDATE acc SET bal = bal + 1 WHERE bal > 15" {
				found = true
				if st.Table != "acc" || st.Predicate != "bal > 15" {
					t.Errorf("statement recorded as %+v", st)
				}
			}
		}
	}
	if !found {
		t.Fatalf("no operation of the UPDATE in the history: %+v", h.Txns)
	}
	var filtered bool
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpRead && op.Flags&history.FlagReturned == 0 && op.Flags&history.FlagTombstone == 0 {
				filtered = true
			}
		}
	}
	if !filtered {
		t.Error("the UPDATE's scan did not record the row its WHERE clause filtered out")
	}
}

// TestKeyEqualityReadsOneKey checks that "key = literal" on text, varchar and
// integer primary keys is a point read: the statement inspects one key, not
// the whole table (untyped string literals included).
func TestKeyEqualityReadsOneKey(t *testing.T) {
	for _, c := range []struct{ ddl, insert, query string }{
		{"CREATE TABLE k (id text PRIMARY KEY, v int)", "INSERT INTO k VALUES ('a', 1), ('b', 2), ('c', 3)", "SELECT v FROM k WHERE id = 'b'"},
		{"CREATE TABLE k (id varchar(5) PRIMARY KEY, v int)", "INSERT INTO k VALUES ('a', 1), ('b', 2), ('c', 3)", "SELECT v FROM k WHERE id = 'b'"},
		{"CREATE TABLE k (id int PRIMARY KEY, v int)", "INSERT INTO k VALUES (1, 1), (2, 2), (3, 3)", "SELECT v FROM k WHERE id = 2"},
	} {
		store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Record: true})
		eng, err := NewEngine(Config{Store: store})
		if err != nil {
			t.Fatal(err)
		}
		s := eng.NewSession(SessionInfo{User: "h"})
		mustRun(t, s, c.ddl)
		mustRun(t, s, c.insert)
		mustRun(t, s, c.query)
		reads := 0
		for _, txn := range store.History().Txns {
			for _, op := range txn.Ops {
				if op.Kind == history.OpRead && int(op.Event) < len(txn.Statements) && txn.Statements[op.Event].SQL == c.query {
					reads++
				}
			}
		}
		if reads != 1 {
			t.Errorf("%s after %s: inspected %d keys, want 1", c.query, c.ddl, reads)
		}
	}
}
