package sqlexec

import (
	"fmt"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The plan that EXPLAIN prints. The planner builds, next to the closures
// that execute a statement, a tree of planNodes that records the operators
// it chose: how each FROM item is read (chooseAccess), which items are
// joined from memory through a hash table (planJoins), aggregation,
// DISTINCT, sorting, LIMIT, set operations and subqueries. Each operator
// describes itself (planOp.describe); the formats (explain_format.go) only
// lay the descriptions out. EXPLAIN ANALYZE counts rows per node through
// execCtx.stats, which the executor fills only when it is set.

// planNode is one node of a statement's plan.
type planNode struct {
	op       planOp
	children []*planNode
	// subplans are the subqueries evaluated by the node's expressions.
	subplans []subPlan
	// rows, cost and width are fickle's estimates: rows output, total cost
	// in PostgreSQL's units (a sequential page read costs 1), bytes a row.
	rows, startup, cost float64
	width               int
}

// subPlan is a subquery run by an expression: once per statement
// (uncorrelated, PostgreSQL's InitPlan) or once per row (SubPlan).
type subPlan struct {
	plan       *planNode
	correlated bool
}

// planOp is an operator of the plan.
type planOp interface {
	// describe returns the node's name and properties as EXPLAIN shows
	// them.
	describe(v explainView) opDesc
}

// explainView is what a description depends on besides the operator:
// VERBOSE qualifies relation names.
type explainView struct {
	verbose bool
}

// opDesc is an operator's description: its node type ("Seq Scan"), the
// relation it reads, the index it uses, and labelled properties ("Filter",
// "Sort Key").
type opDesc struct {
	nodeType string
	// joinType is Inner, Left, Semi... for joins (printed after the node
	// type in text, "Nested Loop Left Join").
	joinType string
	// strategy is how an aggregate or set operation groups rows (Plain,
	// Sorted, Hashed).
	strategy string
	// relation is the table, function, CTE or subquery alias the node
	// reads; schema is set under VERBOSE; alias differs from relation when
	// the query renamed it.
	relation, schema, alias string
	// relationKey names the relation property in the structured formats.
	relationKey string
	index       string
	props       []planProp
}

// planProp is one labelled property; a list property prints its items
// separated by commas in text and as a list in the structured formats.
type planProp struct {
	key   string
	value string
	list  []string
}

// estimate sets n's estimates from its children and rows.
func (n *planNode) estimate(rows float64, width int, ownCost float64) *planNode {
	var start, total float64
	for _, c := range n.children {
		total += c.cost
		start += c.startup
	}
	n.rows = max(1, rows)
	n.width = width
	n.startup = start
	n.cost = total + ownCost + 0.01*n.rows
	return n
}

// newNode makes a node of op over children, with estimates. A child
// that has no plan (nil) is left out rather than failing the query.
func newNode(op planOp, rows float64, width int, ownCost float64, children ...*planNode) *planNode {
	n := &planNode{op: op}
	for _, c := range children {
		if c != nil {
			n.children = append(n.children, c)
		}
	}
	return n.estimate(rows, width, ownCost)
}

// widthOf is the estimated byte width of a row of the given types.
func widthOf(ts []types.Type) int {
	w := 0
	for _, t := range ts {
		if s := t.Size(); s > 0 {
			w += s
		} else {
			w += 32
		}
	}
	return w
}

func colTypes(cols []outCol) []types.Type {
	ts := make([]types.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.typ
	}
	return ts
}

// exprText prints an expression as EXPLAIN shows conditions: in
// parentheses unless it is a single name or constant.
func exprText(n *pg_query.Node) string {
	if n == nil {
		return ""
	}
	s := predicateText(n)
	switch n.Node.(type) {
	case *pg_query.Node_ColumnRef, *pg_query.Node_AConst, *pg_query.Node_FuncCall, *pg_query.Node_TypeCast:
		return s
	}
	return "(" + s + ")"
}

// condsText prints conjuncts joined by AND, as one condition.
func condsText(cs []*conj) string {
	var parts []string
	for _, c := range cs {
		if c.src != nil {
			parts = append(parts, exprText(c.src))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// condProp is the property key: text of cs, or nothing when cs is empty.
func condProp(key string, cs []*conj) []planProp {
	if len(cs) == 0 {
		return nil
	}
	return []planProp{{key: key, value: condsText(cs)}}
}

// selectivity is the fraction of rows fickle assumes a condition keeps
// (PostgreSQL's default for an operator it has no statistics for).
const selectivity = 0.33

func filtered(rows float64, conds int) float64 {
	for range conds {
		rows *= selectivity
	}
	return rows
}

// seqRows is the number of rows fickle assumes a table holds: it keeps no
// statistics, and reading the table to count would be a read of the
// history.
const seqRows = 1000

func formatCount(f float64) string { return fmt.Sprintf("%.0f", f) }

// rangeFunctionName is the name of the (first) function a FROM item calls,
// as a Function Scan names it.
func rangeFunctionName(rf *pg_query.RangeFunction) string {
	for _, f := range rf.Functions {
		for _, it := range f.GetList().GetItems() {
			if fc := it.GetFuncCall(); fc != nil {
				return lastName(fc.Funcname)
			}
		}
	}
	return ""
}

// claimSubplans attaches the subqueries compiled since b.subplans had
// length from to n, the node of the level whose expressions run them.
func (b *binder) claimSubplans(from int, n *planNode) {
	if n == nil || from >= len(b.subplans) {
		return
	}
	n.subplans = append(n.subplans, b.subplans[from:]...)
	b.subplans = b.subplans[:from]
}

// modifyPlan gives an INSERT, UPDATE or DELETE its plan, a ModifyTable
// node over child (the rows it writes), and counts its runs under EXPLAIN
// ANALYZE with the rows it returns.
func (b *binder) modifyPlan(op *modifyOp, child *planNode, p *stmtPlan) *stmtPlan {
	var children []*planNode
	if child != nil {
		children = append(children, child)
	}
	node := newNode(op, 0, widthOf(colTypes(p.cols)), 0, children...)
	if child != nil {
		node.rows = child.rows
	}
	p.node = node
	run := p.exec
	p.exec = func(x *execCtx) (*Result, error) {
		if x.stats == nil {
			return run(x)
		}
		start := time.Now()
		res, err := run(x)
		if res != nil {
			x.stats.loop(node, len(res.Rows), time.Since(start))
		}
		return res, err
	}
	return p
}

// plan is the plan of the rows an UPDATE or DELETE reads.
func (m *modifyTarget) plan() *planNode {
	return fromTree(m.items, m.pre)
}

// action is ON CONFLICT's action as EXPLAIN names it, "" without one.
func (cp *conflictPlan) action() string {
	switch {
	case cp == nil:
		return ""
	case cp.update:
		return "update"
	}
	return "nothing"
}
