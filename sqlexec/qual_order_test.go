package sqlexec

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// TestExprCostFollowsThePlannersModel pins the costs conditions are
// ordered by: one a call or operator, nothing for columns, constants,
// AND/OR/NOT and what the planner folds, half an IN list's or array's
// elements, and a subquery last.
func TestExprCostFollowsThePlannersModel(t *testing.T) {
	cases := []struct {
		cond string
		want float64
	}{
		{"x <> 0", 1},
		{"10 / x > 1", 2},
		{"s::int > 0", 2},
		{"1 + 2 > x", 1},
		{"'5'::int < x", 1},
		{"lower(s) = 'a'", 2},
		{"now() > t", 2},
		{"x IS NULL", 0},
		{"NOT (x > 1) OR x < -1", 2},
		{"coalesce(x, 0) > 1", 1},
		{"x BETWEEN 1 AND 2", 2},
		{"x IN (1, 2, 3)", 1.5},
		{"x IN (1, 2, 3, 4, 5, 6, 7, 8, 9)", 2},
		{"x = ANY ('{1,2,\"3,4\"}')", 1.5},
		{"x = ANY (ARRAY[1, 2])", 1},
		{"x = ANY (a)", 5},
		{"s SIMILAR TO 'a%'", 1},
		{"s SIMILAR TO t", 2},
		{"x > (SELECT 1)", subqueryCost + 1},
	}
	for _, c := range cases {
		tree, err := pg_query.Parse("SELECT 1 FROM t WHERE " + c.cond)
		if err != nil {
			t.Fatalf("%s: %v", c.cond, err)
		}
		where := tree.Stmts[0].Stmt.GetSelectStmt().WhereClause
		if got := exprCost(where, exprCosts{}); got != c.want {
			t.Errorf("exprCost(%s) = %v, want %v", c.cond, got, c.want)
		}
	}
}

// TestOrderCondsPutsPolicyThenOwnThenJoinConditions pins the groups and
// that equal costs keep the written order.
func TestOrderCondsPutsPolicyThenOwnThenJoinConditions(t *testing.T) {
	own, other := itemBit(1), itemBit(0)
	join := &conj{e: &scalar{refs: own | other}, cost: 0}
	cheap := &conj{e: &scalar{refs: own}, cost: 1}
	dear := &conj{e: &scalar{refs: own}, cost: 100}
	cheap2 := &conj{e: &scalar{refs: own}, cost: 1}
	policy := &conj{e: &scalar{refs: own}, cost: 100, policy: true}
	cs := []*conj{join, dear, cheap, policy, cheap2}
	orderConds(cs, own, exprCosts{})
	want := []*conj{policy, cheap, cheap2, dear, join}
	for i := range want {
		if cs[i] != want[i] {
			t.Fatalf("place %d: got cost %v policy %v", i, cs[i].cost, cs[i].policy)
		}
	}
}
