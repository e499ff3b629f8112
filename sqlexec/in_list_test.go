package sqlexec

import (
	"context"
	"strconv"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/isolation"
)

// TestInListPredicateTextIsTheDeparsers: the history's predicate of an IN
// list, printed in Go, is the text the parser's deparser gives.
func TestInListPredicateTextIsTheDeparsers(t *testing.T) {
	for _, where := range []string{"x IN (1, 2, 3)", "y NOT IN (4, -5)", "x IN ($1, 2)", "x + 1 IN (1)", "t.x IN (1, 2 + 3)"} {
		tree, err := pg_query.Parse("SELECT 1 FROM t WHERE " + where)
		if err != nil {
			t.Fatal(err)
		}
		w := tree.Stmts[0].Stmt.GetSelectStmt().WhereClause
		var b strings.Builder
		if !simpleExprText(&b, w) {
			t.Fatalf("%s: not printed in Go", where)
		}
		if d := deparseExpr(w); b.String() != d {
			t.Fatalf("printed %q, the deparser gives %q", b.String(), d)
		}
	}
}

// BenchmarkLongINList parses, plans and runs a 100,000-item IN list over a
// table (issue 12: 4.4 s, PostgreSQL 0.09 s), with the history recorded.
func BenchmarkLongINList(b *testing.B) {
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1}), Record: true})
	if err != nil {
		b.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "bench"})
	defer s.Close()
	run := func(sql string) {
		sts, err := s.Parse(sql)
		if err != nil {
			b.Fatal(err)
		}
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Execute(context.Background(), p, nil); err != nil {
			b.Fatal(err)
		}
	}
	run("CREATE TABLE t (x int)")
	run("INSERT INTO t SELECT generate_series(1, 1000)")
	var q strings.Builder
	q.WriteString("SELECT count(*) FROM t WHERE x IN (0")
	for i := 1; i < 100000; i++ {
		q.WriteString("," + strconv.Itoa(i))
	}
	q.WriteString(")")
	for i := 0; b.Loop(); i++ {
		run(q.String() + strings.Repeat(" ", i)) // a new text each time: no parse cache
	}
}
