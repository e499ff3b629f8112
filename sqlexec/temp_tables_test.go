package sqlexec

import (
	"strings"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestSessionEndDropsItsTemporaryObjects: when a session closes, its
// temporary tables and sequences leave the catalog, the store keeps no
// table for them, and the next session reuses the schema's number.
func TestSessionEndDropsItsTemporaryObjects(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	a := &scriptSession{s: eng.NewSession(SessionInfo{User: "a"})}
	if out := runSQL(a, "CREATE TEMP TABLE scratch (id serial PRIMARY KEY); CREATE TEMP SEQUENCE tseq; INSERT INTO scratch DEFAULT VALUES", ""); strings.Contains(out, "ERROR") {
		t.Fatal(out)
	}
	a.s.Close()
	b := &scriptSession{s: eng.NewSession(SessionInfo{User: "b"})}
	defer b.s.Close()
	const relations = "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname LIKE 'pg_temp%' ORDER BY 1"
	if out := runSQL(b, relations, ""); out != "relname:name\n" {
		t.Fatalf("the closed session's temporary relations remain:\n%s", out)
	}
	if out := runSQL(b, "CREATE TEMP TABLE mine (x int); "+relations+"; SELECT pg_my_temp_schema()::regnamespace", ""); !strings.Contains(out, "pg_temp_1") || !strings.Contains(out, "mine") {
		t.Fatalf("the next session's temporary schema:\n%s", out)
	}
}
