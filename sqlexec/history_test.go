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
