package sqlexec

import (
	"slices"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func TestValidOperatorNameFollowsPgOperatorC(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"<<<", true},
		{"@#@", true},
		{"!=-", true},  // '-' last, but '!' is not an SQL operator character
		{"?-", true},   // likewise '?'
		{"+-", false},  // would lex as + and -
		{"<=-", false}, // likewise
		{"!=", false},  // the parser reads it as <>
		{"-", true},
		{"a+", false},
		{"/*", false},
		{"<--", false},
		{"", false},
		{string(make([]byte, 64)), false},
	} {
		if got := validOperatorName(c.name); got != c.ok {
			t.Errorf("validOperatorName(%q) = %v, want %v", c.name, got, c.ok)
		}
	}
}

func TestStoredOperatorNameSurvivesDeparseAndParse(t *testing.T) {
	path := []string{"pg_catalog", "public", "My Schema"}
	name, ok := storedOperatorName(path, "<<<")
	if !ok {
		t.Fatal("storedOperatorName refused a short path")
	}
	r, err := pg_query.Parse("SELECT 1 + 2")
	if err != nil {
		t.Fatal(err)
	}
	e := r.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	e.GetAExpr().Name = name
	text := deparseExpr(e)
	back, err := pg_query.Parse("SELECT " + text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	names := strs(back.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetAExpr().Name)
	got, ok := storedOperatorPath(names)
	if !ok || !slices.Equal(got, path) || names[1] != "<<<" {
		t.Errorf("%s parsed back as %q (path %q, %v)", text, names, got, ok)
	}
	if _, ok := storedOperatorPath([]string{"public", "<<<"}); ok {
		t.Error("a schema written in OPERATOR(schema.op) read as a stored path")
	}
	if _, ok := storedOperatorName([]string{"pg_catalog", string(make([]byte, 60))}, "+"); ok {
		t.Error("a path longer than an identifier was stored")
	}
}
