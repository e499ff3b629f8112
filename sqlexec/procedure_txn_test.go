package sqlexec

import (
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// TestProcedureCommitRecordsTransactions checks that COMMIT and ROLLBACK
// inside a procedure end the CALL's transaction in the history: each
// part of the CALL is a transaction of its own, with its outcome, its
// operations named after the CALL, and the whole history consistent.
func TestProcedureCommitRecordsTransactions(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1, Record: true})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "h"})
	mustRun(t, s, "CREATE TABLE steps (id int PRIMARY KEY)")
	mustRun(t, s, `CREATE PROCEDURE three_parts() LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO steps VALUES (1);
  COMMIT;
  INSERT INTO steps VALUES (2);
  ROLLBACK;
  INSERT INTO steps VALUES (3);
END $$`)
	const call = "CALL three_parts()"
	mustRun(t, s, call)
	h := store.History()
	var outcomes []history.Outcome
	for _, txn := range h.Txns {
		named := false
		for _, op := range txn.Ops {
			if op.Kind == history.OpWrite && int(op.Event) < len(txn.Statements) && strings.HasPrefix(txn.Statements[op.Event].SQL, call) {
				named = true
			}
		}
		if named {
			outcomes = append(outcomes, txn.Outcome)
		}
	}
	want := []history.Outcome{history.Committed, history.ClientAborted, history.Committed}
	if len(outcomes) != len(want) {
		t.Fatalf("the CALL wrote in %d transactions (%v), want %d", len(outcomes), outcomes, len(want))
	}
	for i := range want {
		if outcomes[i] != want[i] {
			t.Errorf("part %d of the CALL ended %v, want %v", i+1, outcomes[i], want[i])
		}
	}
	if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
		t.Errorf("history after the CALL: %v", r.Verdict)
	}
}
