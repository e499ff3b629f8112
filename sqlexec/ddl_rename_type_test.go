package sqlexec

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func TestTypeNameMatches(t *testing.T) {
	mood := &typeDesc{schema: "public", name: "mood", array: 1}
	for _, tc := range []struct {
		names []string
		want  bool
	}{
		{[]string{"mood"}, true},
		{[]string{"_mood"}, true},
		{[]string{"public", "mood"}, true},
		{[]string{"db", "public", "mood"}, true},
		{[]string{"other", "mood"}, false},
		{[]string{"moods"}, false},
		{[]string{"pg_catalog", "int4"}, false},
	} {
		var ns []*pg_query.Node
		for _, n := range tc.names {
			ns = append(ns, pg_query.MakeStrNode(n))
		}
		if got := typeNameMatches(&pg_query.TypeName{Names: ns}, mood); got != tc.want {
			t.Errorf("typeNameMatches(%v) = %v, want %v", tc.names, got, tc.want)
		}
	}
}

func TestRetargetedLeavesTreeAlone(t *testing.T) {
	tree, err := pg_query.Parse("SELECT 'a'::mood, 'b'::other.mood, '{a}'::public.mood[], 'x'::text")
	if err != nil {
		t.Fatal(err)
	}
	n := tree.Stmts[0].Stmt
	got, changed := retargeted(n, &typeDesc{schema: "public", name: "mood"}, "feeling")
	if !changed {
		t.Fatal("retargeted changed nothing")
	}
	out, err := pg_query.Deparse(&pg_query.ParseResult{Version: tree.Version, Stmts: []*pg_query.RawStmt{{Stmt: got}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT 'a'::feeling, 'b'::other.mood, '{a}'::public.feeling[], 'x'::text"
	if out != want {
		t.Errorf("retargeted: %s, want %s", out, want)
	}
	orig, _ := pg_query.Deparse(tree)
	if orig != "SELECT 'a'::mood, 'b'::other.mood, '{a}'::public.mood[], 'x'::text" {
		t.Errorf("the original tree changed: %s", orig)
	}
}
