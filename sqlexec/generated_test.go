package sqlexec

import (
	"slices"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// generatedTestTable is a table (a, b, c, g) whose column g is generated
// by expr.
func generatedTestTable(t *testing.T, expr string) *tableDesc {
	t.Helper()
	tree, err := pg_query.Parse("SELECT " + expr)
	if err != nil {
		t.Fatal(err)
	}
	n := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	td := &tableDesc{name: "t"}
	for _, name := range []string{"a", "b", "c"} {
		td.cols = append(td.cols, &columnDesc{name: name})
	}
	td.cols = append(td.cols, &columnDesc{name: "g", generated: n})
	return td
}

func TestGeneratedColumnUses(t *testing.T) {
	for _, tc := range []struct {
		expr string
		uses []int
	}{
		{"a * 2", []int{0}},
		{"coalesce(b, c) + b", []int{1, 2}},
		{"t.c || 'x'", []int{2}},
		{"55", nil},
		{"lower(nosuch)", nil},
	} {
		td := generatedTestTable(t, tc.expr)
		if got := generatedColumnUses(td, td.cols[3]); !slices.Equal(got, tc.uses) {
			t.Errorf("%s: uses %v, want %v", tc.expr, got, tc.uses)
		}
	}
}

// TestWithGeneratedDependents checks which generated columns an UPDATE of
// some columns counts as set, for its UPDATE OF triggers.
func TestWithGeneratedDependents(t *testing.T) {
	for _, tc := range []struct {
		expr string
		set  []int
		want []int
	}{
		{"a * 2", []int{0}, []int{0, 3}},
		{"a * 2", []int{1, 2}, []int{1, 2}},
		{"b + c", []int{2}, []int{2, 3}},
		{"55", []int{0, 1, 2}, []int{0, 1, 2}},
		{"a * 2", []int{3}, []int{3}},
	} {
		td := generatedTestTable(t, tc.expr)
		set := slices.Clone(tc.set)
		if got := withGeneratedDependents(td, set); !slices.Equal(got, tc.want) {
			t.Errorf("%s, set %v: got %v, want %v", tc.expr, tc.set, got, tc.want)
		}
		if !slices.Equal(set, tc.set) {
			t.Errorf("%s: the set columns changed to %v", tc.expr, set)
		}
	}
}
