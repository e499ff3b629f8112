package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// A correlated EXISTS or IN (subquery) whose only correlation is a set of
// equalities between columns of its own tables and columns of enclosing
// queries is a semi-join: its subquery, with those equalities taken out,
// is uncorrelated, so it runs once per statement and its rows are hashed
// by the correlation key, instead of running once per outer row. A
// subquery that calls a volatile function keeps the per-row run its
// semantics need, and one whose correlation picks its rows through a
// primary key or an index keeps its per-row lookups, which read a few keys
// where the hash would scan the whole table (PostgreSQL's nested loop over
// an index scan).
//
// The reads are those of one run of the uncorrelated subquery: one scan
// of each inner table with the subquery's other conditions, through the
// same isolation paths as any statement's scan (a statement's reads at
// READ COMMITTED, the snapshot's at the snapshot levels).

// semiJoinPair is one correlation equality: inner is the subquery's side
// (a column of the decorrelated subquery's output), outer the enclosing
// query's side, compiled in its scope.
type semiJoinPair struct {
	inner *pg_query.Node
	outer *scalar
}

// semiJoinGroup is what the hashed subquery holds for one correlation
// key: for IN, the hash keys of its values and whether one is NULL.
type semiJoinGroup struct {
	vals    map[string]bool
	hasNull bool
}

// semiJoin compiles the EXISTS or (when test is not nil) test IN
// subquery of sl, whose per-row plan is perRow, as a hashed semi-join, or
// returns nil when its shape does not allow one (the caller then runs it
// per row).
func (b *binder) semiJoin(sc *scope, sl *pg_query.SubLink, ctes map[string]*ctePlan, perRow *selectPlan, test *scalar, refs uint64) *scalar {
	st := sl.Subselect.GetSelectStmt()
	if sc == nil || st == nil || !semiJoinShape(st) || b.userOperatorNamed("=") {
		return nil
	}
	var target *pg_query.Node
	if test != nil {
		if len(st.TargetList) != 1 || unresolved(test) || test.row != nil {
			return nil
		}
		target = st.TargetList[0].GetResTarget().GetVal()
	}
	var pairs []semiJoinPair
	var rest []*pg_query.Node
	for _, c := range conjuncts(st.WhereClause) {
		if containsSubLink(c) {
			return nil
		}
		l, r, ok := columnEquality(c)
		if !ok {
			rest = append(rest, c)
			continue
		}
		lOuter, ok1 := b.outerColumn(sc, st.FromClause, l, ctes)
		rOuter, ok2 := b.outerColumn(sc, st.FromClause, r, ctes)
		switch {
		case !ok1 || !ok2 || lOuter && rOuter:
			return nil
		case lOuter:
			l, r = r, l
		case !rOuter:
			rest = append(rest, c)
			continue
		}
		o, err := b.expr(sc, r)
		if err != nil || o.volatile {
			return nil
		}
		pairs = append(pairs, semiJoinPair{inner: l, outer: o})
	}
	if len(pairs) == 0 {
		return nil
	}
	p := b.decorrelated(sc, st, target, pairs, rest, ctes)
	if p == nil || indexLookups(perRow.node) > indexLookups(p.node) {
		return nil
	}
	off := 0
	if test != nil {
		off = 1
		if !keyCompatible(p.cols[0].typ, test.typ) {
			return nil
		}
	}
	keyTypes := make([]types.Type, len(pairs))
	for i, pr := range pairs {
		keyTypes[i] = p.cols[off+i].typ
		if !keyCompatible(keyTypes[i], pr.outer.typ) {
			return nil
		}
	}
	// EXPLAIN shows the subquery as it runs: once, as an InitPlan.
	for i := range b.subplans {
		if b.subplans[i].plan == perRow.node {
			b.subplans[i] = subPlan{plan: p.node}
		}
	}
	return b.semiJoinScalar(p, pairs, keyTypes, test, refs)
}

// semiJoinShape reports whether a subquery is a plain filtered scan of
// tables: no grouping, aggregates, set-returning or window calls, limit,
// locking or subqueries in FROM, whose row count per correlation key the
// hash could not reproduce.
func semiJoinShape(st *pg_query.SelectStmt) bool {
	if st.Op != pg_query.SetOperation_SETOP_NONE || st.WithClause != nil || len(st.ValuesLists) > 0 ||
		len(st.GroupClause) > 0 || st.HavingClause != nil || len(st.WindowClause) > 0 ||
		st.LimitCount != nil || st.LimitOffset != nil || len(st.LockingClause) > 0 || st.IntoClause != nil ||
		len(st.FromClause) == 0 || st.WhereClause == nil {
		return false
	}
	for _, f := range st.FromClause {
		if f.GetRangeVar() == nil {
			return false
		}
	}
	for _, t := range st.TargetList {
		v := t.GetResTarget().GetVal()
		if !plainExpr(v) {
			return false
		}
	}
	return true
}

// columnEquality splits c = "l = r" where both sides are column
// references.
func columnEquality(c *pg_query.Node) (l, r *pg_query.Node, ok bool) {
	a := c.GetAExpr()
	if a == nil || a.Kind != pg_query.A_Expr_Kind_AEXPR_OP || opName(a.Name) != "=" ||
		a.Lexpr.GetColumnRef() == nil || a.Rexpr.GetColumnRef() == nil {
		return nil, nil, false
	}
	return a.Lexpr, a.Rexpr, true
}

// outerColumn reports whether the column reference col, written in a
// subquery over from, names a column of an enclosing query: it compiles
// SELECT col FROM from and sees whether that is correlated. ok is false
// when it does not compile.
func (b *binder) outerColumn(sc *scope, from []*pg_query.Node, col *pg_query.Node, ctes map[string]*ctePlan) (outer, ok bool) {
	probe := &pg_query.SelectStmt{FromClause: from, TargetList: []*pg_query.Node{
		{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: col}}}}}
	p, correlated := b.compileAside(sc, probe, ctes)
	return correlated, p != nil
}

// decorrelated compiles the subquery st without its correlation
// equalities, its output the IN target (if any) then the inner side of
// each pair; nil when it is still correlated or calls a volatile
// function.
func (b *binder) decorrelated(sc *scope, st *pg_query.SelectStmt, target *pg_query.Node, pairs []semiJoinPair, rest []*pg_query.Node, ctes map[string]*ctePlan) *selectPlan {
	q := &pg_query.SelectStmt{FromClause: st.FromClause}
	out := func(n *pg_query.Node) {
		q.TargetList = append(q.TargetList, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: n}}})
	}
	if target != nil {
		out(target)
	}
	for _, pr := range pairs {
		out(pr.inner)
	}
	switch len(rest) {
	case 0:
	case 1:
		q.WhereClause = rest[0]
	default:
		q.WhereClause = pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, rest, -1)
	}
	volatile := b.volatileCalls
	p, correlated := b.compileAside(sc, q, ctes)
	if p == nil || correlated || b.volatileCalls != volatile {
		return nil
	}
	return p
}

// compileAside compiles q as a subquery in sc without leaving a trace in
// the statement's plan (its correlation marks, subplans, constant checks):
// it returns the plan, or nil if q does not compile, and whether q
// references an enclosing query.
func (b *binder) compileAside(sc *scope, q *pg_query.SelectStmt, ctes map[string]*ctePlan) (*selectPlan, bool) {
	var saved []uint64
	for cur := sc; cur != nil; cur = cur.parent {
		saved = append(saved, cur.pending)
		cur.pending = 0
	}
	nSub, nChecks := len(b.subplans), len(b.constChecks)
	var p *selectPlan
	var err error
	b.aside(func() { p, err = b.selectStmt(sc, q, ctes) })
	correlated := err == nil && p.correlated
	i := 0
	for cur := sc; cur != nil; cur = cur.parent {
		correlated = correlated || cur.pending != 0
		cur.pending = saved[i]
		i++
	}
	b.subplans, b.constChecks = b.subplans[:nSub], b.constChecks[:nChecks]
	if err != nil {
		return nil, false
	}
	return p, correlated
}

// semiJoinScalar is the hashed EXISTS or test IN: the decorrelated
// subquery p runs once per statement, its rows grouped by the hash key of
// their correlation columns; each outer row looks its key up.
func (b *binder) semiJoinScalar(p *selectPlan, pairs []semiJoinPair, keyTypes []types.Type, test *scalar, refs uint64) *scalar {
	off := 0
	name := "exists"
	if test != nil {
		off, name = 1, "?column?"
		refs |= test.refs
	}
	var self *scalar
	build := func(x *execCtx) (map[string]*semiJoinGroup, error) {
		kept, _ := x.memoGet(self)
		if groups, ok := kept.(map[string]*semiJoinGroup); ok {
			return groups, nil
		}
		rows, err := p.rowsCached(x.child())
		if err != nil {
			return nil, err
		}
		groups := map[string]*semiJoinGroup{}
	rows:
		for n, r := range rows {
			if n%1024 == 0 {
				if err := x.checkCancel(); err != nil {
					return nil, err
				}
			}
			var key []byte
			for i, t := range keyTypes {
				if r[off+i] == nil {
					continue rows // NULL = anything is never true
				}
				key = types.AppendKey(key, t, r[off+i])
			}
			g := groups[string(key)]
			if g == nil {
				g = &semiJoinGroup{}
				groups[string(key)] = g
			}
			if test == nil {
				continue
			}
			if r[0] == nil {
				g.hasNull = true
				continue
			}
			if g.vals == nil {
				g.vals = map[string]bool{}
			}
			g.vals[string(types.AppendKey(nil, p.cols[0].typ, r[0]))] = true
		}
		x.memoSet(self, groups)
		return groups, nil
	}
	self = &scalar{typ: types.Bool, slot: -1, refs: refs, name: name, eval: func(x *execCtx) (any, error) {
		groups, err := build(x)
		if err != nil {
			return nil, err
		}
		var key []byte
		for i, pr := range pairs {
			v, err := pr.outer.eval(x)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return false, nil
			}
			key = types.AppendKey(key, keyTypes[i], v)
		}
		g := groups[string(key)]
		if g == nil {
			return false, nil
		}
		if test == nil {
			return true, nil
		}
		v, err := test.eval(x)
		switch {
		case err != nil || v == nil:
			return nil, err
		case g.vals[string(types.AppendKey(nil, p.cols[0].typ, v))]:
			return true, nil
		case g.hasNull:
			return nil, nil
		}
		return false, nil
	}}
	return self
}

// indexLookups counts the table reads of a plan that go through a primary
// key or an index instead of a scan.
func indexLookups(n *planNode) int {
	if n == nil {
		return 0
	}
	count := 0
	if s, ok := n.op.(*scanOp); ok && s.it.table != nil && s.it.access.kind != accessScan {
		count++
	}
	for _, c := range n.children {
		count += indexLookups(c)
	}
	return count
}
