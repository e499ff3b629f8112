package sqlexec

import (
	"context"
	"testing"
)

// TestPreparedQueryKeepsItsText pins that PREPARE's statement is the text
// after the AS that ends PREPARE's head, at its place in the query string,
// so that its errors point where PostgreSQL's do.
func TestPreparedQueryKeepsItsText(t *testing.T) {
	for _, tc := range []struct{ full, want string }{
		{"PREPARE p AS SELECT 1", "SELECT 1"},
		{"PREPARE p (numeric(10, 2), int) AS SELECT $1 AS x", "SELECT $1 AS x"},
		{`PREPARE "as" AS SELECT 'as' AS "AS"`, `SELECT 'as' AS "AS"`},
		{"PREPARE p(int)AS\n  INSERT INTO t VALUES ($1)", "INSERT INTO t VALUES ($1)"},
		{"SELECT 1; PREPARE q AS SELECT 2; SELECT 3", "SELECT 2"},
	} {
		sts, err := parseStatements(tc.full)
		if err != nil {
			t.Fatalf("%s: %v", tc.full, err)
		}
		var st *Statement
		for _, s := range sts {
			if s.node.GetPrepareStmt() != nil {
				st = s
			}
		}
		inner := preparedQuery(st, st.node.GetPrepareStmt())
		if inner.sql != tc.want || inner.full != tc.full || tc.full[inner.offset:inner.offset+len(inner.sql)] != tc.want {
			t.Errorf("%q: got %q at %d, want %q", tc.full, inner.sql, inner.offset, tc.want)
		}
	}
}

// TestPlanPathIsTheEffectiveSearchPath pins what makes a prepared
// statement plan again: the schemas the search path finds, not the
// setting's text (a schema that does not exist changes nothing until it
// is created).
func TestPlanPathIsTheEffectiveSearchPath(t *testing.T) {
	s := contextSession(t)
	run := func(sql string) {
		t.Helper()
		sts, err := s.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sts {
			p, err := s.Prepare(st, nil)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			if _, err := s.Execute(context.Background(), p, nil); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	run("CREATE SCHEMA a; CREATE SCHEMA b")
	steps := []struct {
		sql     string
		changes bool
	}{
		{"SET search_path = a", true},
		{"SET search_path = a, nosuch", false},
		{"SET search_path = 'a'", false},
		{"SET search_path = b, a", true},
		{"SET search_path = b, a, pg_catalog", true},
		{"SET search_path = b, a", true},
		{"SET search_path = b, a, nosuch", false},
		{"CREATE SCHEMA nosuch", true},
		{"CREATE TEMP TABLE tt (x int)", true},
		{"RESET search_path", true},
	}
	prev := s.planPath()
	for _, st := range steps {
		run(st.sql)
		got := s.planPath()
		if (got != prev) != st.changes {
			t.Errorf("%s: path %q after %q, changed = %v, want %v", st.sql, got, prev, got != prev, st.changes)
		}
		prev = got
	}
}
