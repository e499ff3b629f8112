package sqlexec

import (
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// TestCursorOpenRecordsReadsAsTheCallingStatement checks that the query of
// a cursor a PL/pgSQL function opens reads through the caller's
// transaction, recorded as the calling statement's (named with the
// function and the cursor's query), and that a FETCH of the returned
// refcursor in SQL reads nothing more: the rows were read at OPEN.
func TestCursorOpenRecordsReadsAsTheCallingStatement(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1, Record: true})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "h"})
	mustRun(t, s, "CREATE TABLE acct (id int PRIMARY KEY, bal int)")
	mustRun(t, s, "INSERT INTO acct VALUES (1, 10), (2, 20)")
	mustRun(t, s, `CREATE FUNCTION rich(floor int) RETURNS refcursor LANGUAGE plpgsql AS $$
DECLARE c refcursor;
BEGIN OPEN c FOR SELECT id FROM acct WHERE bal >= floor; RETURN c; END $$`)
	mustRun(t, s, "BEGIN")
	const call = "SELECT rich(15)"
	mustRun(t, s, call)
	mustRun(t, s, `FETCH ALL FROM "<unnamed portal 1>"`)
	mustRun(t, s, "COMMIT")
	h := store.History()
	var reads []string
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpRead && int(op.Event) < len(txn.Statements) {
				reads = append(reads, txn.Statements[op.Event].SQL)
			}
		}
	}
	if len(reads) == 0 {
		t.Fatal("the cursor's query recorded no reads")
	}
	for _, sql := range reads {
		if !strings.HasPrefix(sql, call+" -- in function rich: SELECT id FROM acct") {
			t.Errorf("a read recorded as %q, want the call naming rich and the cursor's query", sql)
		}
	}
	if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
		t.Errorf("history: %v", r.Verdict)
	}
}
