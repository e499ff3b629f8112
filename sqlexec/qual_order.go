package sqlexec

import (
	"cmp"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL's planner evaluates the conditions of one plan node in order
// of their estimated cost a row, cheapest first, keeping the written order
// among equal costs (createplan.c's order_qual_clauses), and row security's
// conditions before the query's own. Applications see the order where a
// condition fails or has effects: `WHERE 10 / x > 1 AND x <> 0` divides
// only rows where x <> 0, and a costly function runs only for rows the
// cheap comparisons let through. fickle evaluates each FROM item's
// conditions in that order.
//
// The cost follows cost_qual_eval's model, in units of one operator or
// built-in function call: every operator and function call counts its
// function's cost (a user function its declared COST, by default 100 for
// SQL and PL/pgSQL, 1 for C), a type cast of a non-constant one, column
// references, constants, parameters and AND/OR/NOT nothing, and a
// subexpression of constants nothing (the planner folds it).

// subqueryCost stands for a subquery's cost, which is a plan's: more than
// any expression's here.
const subqueryCost = 1e9

// orderConds sorts the conditions fickle evaluates together for a FROM
// item (own is its bit in scalar.refs; 0 for a list of conditions on no
// item) into PostgreSQL's order: row security's first, then those on the
// item alone (its scan's filter in PostgreSQL) before those joining it to
// others, each group by cost: exprCost of each condition's expression,
// computed here since a lone condition needs none.
func orderConds(cs []*conj, own uint64, costs exprCosts) {
	if len(cs) < 2 {
		return
	}
	for _, c := range cs {
		if c.src != nil {
			c.cost = exprCost(c.src, costs)
		}
	}
	group := func(c *conj) int {
		switch {
		case c.policy:
			return 0
		case own == 0 || c.e.refs&^own == 0:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(cs, func(a, b *conj) int {
		if d := cmp.Compare(group(a), group(b)); d != 0 {
			return d
		}
		return cmp.Compare(a.cost, b.cost)
	})
}

// exprCosts is what the binder learned of the costs of the expressions it
// compiled: calls holds the cost of the user function each call resolved
// to, refs that of the computed output of a flattened subquery each column
// reference reads (from_pullup.go), which PostgreSQL substitutes for it
// before it orders conditions, and outputs that of each computed output,
// by scopeCol.outID.
type exprCosts struct {
	calls   map[*pg_query.FuncCall]float64
	refs    map[*pg_query.ColumnRef]float64
	outputs map[int]float64
}

// exprCost estimates what evaluating n costs a row (see above).
func exprCost(n *pg_query.Node, costs exprCosts) float64 {
	if cr := n.GetColumnRef(); cr != nil {
		return costs.refs[cr]
	}
	if n == nil || constantExpr(n) {
		return 0
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst, *pg_query.Node_ParamRef:
		return 0
	case *pg_query.Node_SubLink:
		return subqueryCost
	case *pg_query.Node_FuncCall:
		own, ok := costs.calls[v.FuncCall]
		if !ok {
			own = 1
		}
		return own + childrenCost(n, costs)
	case *pg_query.Node_TypeCast:
		return 1 + exprCost(v.TypeCast.Arg, costs)
	case *pg_query.Node_MinMaxExpr, *pg_query.Node_SqlvalueFunction:
		return 1 + childrenCost(n, costs)
	case *pg_query.Node_AExpr:
		a := v.AExpr
		l, r := exprCost(a.Lexpr, costs), exprCost(a.Rexpr, costs)
		switch a.Kind {
		case pg_query.A_Expr_Kind_AEXPR_IN:
			// x IN (list) is x = ANY (array), which tries half the
			// elements on average; nine constants or more are hashed.
			elems := len(a.Rexpr.GetList().GetItems())
			if elems >= 9 && constantExpr(a.Rexpr) {
				return l + 2
			}
			return l + r + 0.5*float64(elems)
		case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
			return l + r + 0.5*float64(arrayLength(a.Rexpr))
		case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
			return 2*l + r + 2 // x >= a AND x <= b
		case pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
			return 4*l + 2*r + 4
		case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
			// The pattern is similar_to_escape(pattern), which the
			// planner folds for a constant pattern.
			if fc := a.Rexpr.GetFuncCall(); fc != nil && constantExpr(&pg_query.Node{Node: &pg_query.Node_List{List: &pg_query.List{Items: fc.Args}}}) {
				r = 0
			}
		}
		return l + r + 1
	}
	return childrenCost(n, costs)
}

// childrenCost sums the costs of n's direct subexpressions.
func childrenCost(n *pg_query.Node, costs exprCosts) float64 {
	total := 0.0
	walk(n, func(c *pg_query.Node) bool {
		if c == n {
			return true
		}
		total += exprCost(c, costs)
		return false
	})
	return total
}

// constantExpr reports whether n reads no column, subquery or function, so
// that the planner computes it once.
func constantExpr(n *pg_query.Node) bool {
	constant := true
	walk(n, func(c *pg_query.Node) bool {
		switch c.Node.(type) {
		case *pg_query.Node_ColumnRef, *pg_query.Node_SubLink, *pg_query.Node_FuncCall, *pg_query.Node_SqlvalueFunction:
			constant = false
		}
		return constant
	})
	return constant
}

// arrayLength is estimate_array_length: an array literal's or ARRAY[...]'s
// element count, else 10.
func arrayLength(n *pg_query.Node) int {
	if ae := n.GetAArrayExpr(); ae != nil {
		return len(ae.Elements)
	}
	if tc := n.GetTypeCast(); tc != nil {
		return arrayLength(tc.Arg)
	}
	if s := n.GetAConst().GetSval(); s != nil {
		if elems, ok := arrayLiteralLength(s.Sval); ok {
			return elems
		}
	}
	return 10
}

// arrayLiteralLength counts the elements of an array literal ('{1,2,3}',
// of every dimension); ok is false when s is not one.
func arrayLiteralLength(s string) (n int, ok bool) {
	if len(s) < 2 || s[0] != '{' {
		return 0, false
	}
	inElem, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\':
			i++
		case c == '"':
			if !quoted && !inElem {
				n++
				inElem = true
			}
			quoted = !quoted
		case quoted:
		case c == '{' || c == '}' || c == ',':
			inElem = false
		case c == ' ' || c == '\t' || c == '\n':
		case !inElem:
			n++
			inElem = true
		}
	}
	return n, true
}

// noteCallCost records the cost of the function a call resolved to, for
// exprCost.
func (b *binder) noteCallCost(fc *pg_query.FuncCall, cost float64) {
	if b.costs.calls == nil {
		b.costs.calls = map[*pg_query.FuncCall]float64{}
	}
	b.costs.calls[fc] = cost
}

// noteOutputCost records the cost of computing the flattened subquery
// output numbered id, whose expression is n.
func (b *binder) noteOutputCost(id int, n *pg_query.Node) {
	if b.costs.outputs == nil {
		b.costs.outputs = map[int]float64{}
	}
	b.costs.outputs[id] = exprCost(n, b.costs)
}

// noteRefCost records that column reference cr reads the flattened
// subquery output numbered id, whose cost it has.
func (b *binder) noteRefCost(cr *pg_query.ColumnRef, id int) {
	if b.costs.refs == nil {
		b.costs.refs = map[*pg_query.ColumnRef]float64{}
	}
	b.costs.refs[cr] = b.costs.outputs[id]
}
