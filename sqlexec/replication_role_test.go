package sqlexec

import (
	"context"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestPreparedPlanFollowsReplicationRole: a statement prepared once (as a
// driver's named statement is) and executed in both replication roles
// checks its foreign key and fires its origin trigger in origin only, as
// PostgreSQL's plan cache, reset by a change of session_replication_role,
// does.
func TestPreparedPlanFollowsReplicationRole(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "postgres"})
	defer s.Close()
	mustRun(t, s, `CREATE TABLE p (id int PRIMARY KEY);
		CREATE TABLE c (id int PRIMARY KEY, p int REFERENCES p);
		CREATE TABLE log (n int);
		CREATE FUNCTION logf() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO log VALUES (NEW.id); RETURN NEW; END $$;
		CREATE TRIGGER c_log BEFORE INSERT ON c FOR EACH ROW EXECUTE FUNCTION logf()`)
	sts, err := s.Parse("INSERT INTO c VALUES ($1, 99)")
	if err != nil {
		t.Fatal(err)
	}
	ins, err := s.Prepare(sts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		role string
		code pgerror.Code
	}{
		{"origin", pgerror.ForeignKeyViolation},
		{"replica", ""},
		{"local", pgerror.ForeignKeyViolation},
		{"replica", ""},
	} {
		mustRun(t, s, "SET session_replication_role = "+tc.role)
		_, err := s.Execute(context.Background(), ins, []any{int64(i)})
		if got := pgerror.GetCode(err); got != tc.code {
			t.Fatalf("%s: got %q (%v), want %q", tc.role, got, err, tc.code)
		}
	}
	res, err := runResult(s, "SELECT count(*) FROM c")
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Rows[0][0]; n != int64(2) {
		t.Fatalf("rows in c: %v, want 2", n)
	}
	res, err = runResult(s, "SELECT count(*) FROM log")
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Rows[0][0]; n != int64(0) {
		t.Fatalf("rows the origin trigger logged: %v, want 0 (its inserts failed or ran in replica)", n)
	}
}
