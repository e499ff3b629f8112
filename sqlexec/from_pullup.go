package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// PostgreSQL flattens a simple subquery or view in FROM into the query
// that reads it (prepjointree.c's pull_up_subqueries): the subquery's
// relations become the reader's, its conditions join the reader's, and
// its outputs are its expressions over those relations. The planner then
// orders all the conditions of a relation together, by cost, and looks a
// view's rows up through its tables' indexes. fickle does so for the
// subqueries is_simple_subquery accepts (no aggregates, grouping, window
// functions, DISTINCT, ORDER BY, LIMIT/OFFSET, set operations, FOR
// UPDATE, WITH; not LATERAL, not a security_barrier view, no volatile or
// set-returning select list). Where PostgreSQL would need a placeholder
// (a computed output on the nullable side of an outer join), fickle does
// not flatten, nor a subquery of several FROM items there, as fickle's
// items join in a row; nor where it is unsure (pulledOutputs). Every other
// subquery is planned on its own, as before.
//
// The subquery's FROM items become items of the reader's level, after
// those compiled so far, their columns taking slots in the level's row but
// no names there; the subquery's outputs are columns of the reader's scope
// under the subquery's name: a plain column reads its slot, a computed
// one is its expression, evaluated where it is read (pulledRef). Its join
// and WHERE conditions are compiled in the subquery's own scope and placed
// before the reader's conditions, as PostgreSQL distributes a subquery's
// quals before its parent's.

// pullUpSource is a flattenable FROM item's query: the subquery's, or the
// view's stored one (view set), with the alias and name it has in FROM and
// the scope its names resolve in.
type pullUpSource struct {
	q     *pg_query.SelectStmt
	view  *viewDesc
	alias *pg_query.Alias
	name  string
	names *scope
}

// pullUpSourceOf returns the query of n, a FROM item of scope sc, when n is
// a subquery or view that is_simple_subquery would let PostgreSQL flatten.
func (b *binder) pullUpSourceOf(sc *scope, n *pg_query.Node) (*pullUpSource, bool) {
	var src *pullUpSource
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeSubselect:
		rs := v.RangeSubselect
		if rs.Lateral || rs.Alias == nil {
			return nil, false
		}
		src = &pullUpSource{q: rs.Subquery.GetSelectStmt(), alias: rs.Alias, name: rs.Alias.Aliasname,
			names: &scope{parent: sc.parent, ctes: sc.ctes}}
	case *pg_query.Node_RangeVar:
		// As fromLeaf resolves the name: a WITH query, transition table,
		// system relation or table comes before a view.
		rv := v.RangeVar
		if rv == b.modifying || rv.Schemaname == "" && (ctesName(sc, rv.Relname) || b.s.transitionTable(rv.Relname) != nil) ||
			virtualTableFor(rv.Schemaname, rv.Relname, b.s.searchPath()) != nil || b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, false
		}
		view := b.s.lookupView(b.cat, rv.Schemaname, rv.Relname)
		if view == nil || slices.Contains(b.expanding, view) {
			return nil, false
		}
		if barrier, _ := parsePGBool(viewOption(view.options, "security_barrier")); barrier == "on" {
			return nil, false
		}
		src = &pullUpSource{q: view.query.GetSelectStmt(), view: view, alias: rv.Alias, name: rv.Relname, names: &scope{}}
		if rv.Alias != nil {
			src.name = rv.Alias.Aliasname
		}
	default:
		return nil, false
	}
	if !simpleQuery(src.q) || readsWithQuery(src.q, src.names) {
		return nil, false
	}
	return src, true
}

// ctesName reports whether name is a WITH query sc or an enclosing scope
// defines.
func ctesName(sc *scope, name string) bool {
	for cur := sc; cur != nil; cur = cur.parent {
		if cur.ctes[name] != nil {
			return true
		}
	}
	return false
}

// readsWithQuery reports whether q names a relation as a WITH query of
// names may be called: such a query counts its readers as it is compiled
// (ctePlan.noteReference), which a flattening given up would leave
// counted, so fickle does not flatten it.
func readsWithQuery(q *pg_query.SelectStmt, names *scope) bool {
	found := false
	walk(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: q}}, func(n *pg_query.Node) bool {
		if rv := n.GetRangeVar(); rv != nil && rv.Schemaname == "" && ctesName(names, rv.Relname) {
			found = true
		}
		return !found
	})
	return found
}

// simpleQuery reports whether q is a plain SELECT: none of the clauses
// that keep PostgreSQL from flattening a subquery (its select list is
// looked at as it compiles, pulledOutputs).
func simpleQuery(q *pg_query.SelectStmt) bool {
	if q == nil || q.Op != pg_query.SetOperation_SETOP_NONE && q.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED ||
		len(q.ValuesLists) > 0 || q.WithClause != nil || q.IntoClause != nil || len(q.DistinctClause) > 0 ||
		len(q.GroupClause) > 0 || q.GroupDistinct || q.HavingClause != nil || len(q.WindowClause) > 0 ||
		len(q.SortClause) > 0 || q.LimitCount != nil || q.LimitOffset != nil || len(q.LockingClause) > 0 ||
		len(q.FromClause) == 0 || len(q.TargetList) == 0 {
		return false
	}
	for _, t := range q.TargetList {
		if rt := t.GetResTarget(); rt == nil || len(rt.Indirection) > 0 {
			return false
		}
	}
	return true
}

// pullUp flattens FROM item n of sc's level when it is a simple subquery or
// view (pullUpSourceOf): its FROM items join items, its conditions conds,
// and its outputs sc's columns. left says n is on the nullable side of an
// outer join. ok is false when n is not flattened, the binder then as it
// was; an error is the one compiling n unflattened reports.
func (b *binder) pullUp(sc *scope, items *[]*fromItem, conds *[]pendingCond, n *pg_query.Node, left bool) (ok bool, err error) {
	src, ok := b.pullUpSourceOf(sc, n)
	if !ok {
		return false, nil
	}
	mark := b.mark(sc)
	var viewUse *columnUse
	if v := src.view; v != nil {
		// As fromLeaf and viewItem check the view and compile its query.
		viewUse = trackedColumns(nil, len(v.cols))
		b.requireColumnsAs(b.privRole, v.oid, v.name, "view", 'r', viewUse)
		if err := b.checkViewAccess(v); err != nil {
			return true, err
		}
		defer b.enterView(v)()
	}
	inner, isc, pending, err := b.buildFromAt(src.names.parent, src.q.FromClause, src.names.ctes, sc.base+len(sc.cols), sc.itemBase+len(*items))
	if err != nil {
		return true, err
	}
	outs := b.pulledOutputs(isc, src, !left && !b.pullUpPlainOnly)
	if outs == nil || left && len(inner) != 1 {
		b.restore(mark)
		return false, nil
	}
	// The subquery's join conditions, then its WHERE, as PostgreSQL
	// distributes a jointree's quals: a FromExpr's children's first.
	var own []pendingCond
	for _, pc := range pending {
		if pc.compiled != nil { // a flattened subquery's, in its FROM
			own = append(own, pc)
			continue
		}
		isc.noAgg = "JOIN conditions"
		for _, w := range conjuncts(pc.node) {
			c, err := b.conjunct(isc, w, pc.clause)
			if err != nil {
				return true, err
			}
			own = append(own, pendingCond{compiled: c, on: pc.on})
		}
	}
	isc.noAgg = "WHERE"
	for _, w := range conjuncts(src.q.WhereClause) {
		c, err := b.conjunct(isc, w, "WHERE")
		if err != nil {
			return true, err
		}
		// Under an outer join the conjunct decides which rows of the
		// nullable side there are, as an ON condition does; a volatile
		// one of no column runs for each row of the subquery's join,
		// where PostgreSQL's jointree keeps it, not for each of the
		// reader's.
		pc := pendingCond{compiled: c}
		if left || c.e.refs == 0 && c.e.volatile {
			pc.on = inner[len(inner)-1]
		}
		own = append(own, pc)
	}
	isc.noAgg = ""
	for i := range outs {
		outs[i].rel, outs[i].nullable = src.name, outs[i].nullable || left
		if v := src.view; v != nil {
			outs[i].name, outs[i].read = v.cols[i].name, &viewUse.used[i]
			if v.cols[i].domain != 0 {
				outs[i].knownType, outs[i].knownDomain = true, v.cols[i].domain
			}
		}
	}
	if err := applyColAliases(outs, src.alias); err != nil {
		return true, err
	}
	if err := checkFromNames(sc, &fromItem{name: src.name}, outs); err != nil {
		return true, err
	}
	for i, it := range inner {
		it.pulled = true
		if i == 0 {
			it.pulledAs = src.name
		}
	}
	if left {
		inner[0].left = true
	}
	*items = append(*items, inner...)
	for _, c := range isc.cols {
		// No name reaches it, nor makes it a table of the scope
		// (tableInScope).
		c.rel, c.hidden, c.merged, c.system, c.read, c.usingAliases = "", true, true, false, nil, nil
		c.nullable = c.nullable || left
		if sc.starOrder != nil {
			sc.starOrder = append(sc.starOrder, len(sc.cols))
		}
		sc.cols = append(sc.cols, c)
	}
	presence := sc.base + len(sc.cols) + len(outs)
	for _, c := range outs {
		if left {
			// The one item's LEFT JOIN marker, after the outputs.
			c.nullMark, c.hasNullMark = presence, true
		}
		if sc.starOrder != nil {
			sc.starOrder = append(sc.starOrder, len(sc.cols))
		}
		sc.cols = append(sc.cols, c)
	}
	if left {
		inner[0].presence, inner[0].hasPresence = presence, true
		if sc.starOrder != nil {
			sc.starOrder = append(sc.starOrder, len(sc.cols))
		}
		sc.cols = append(sc.cols, scopeCol{item: sc.itemBase + len(*items) - 1, slot: presence, hidden: true, merged: true, typ: types.Bool})
	}
	sc.rels = append(sc.rels, src.name)
	sc.pending |= isc.pending
	*conds = append(*conds, own...)
	return true, nil
}

// pulledOutputs compiles the select list of a flattenable subquery in its
// FROM scope isc: the columns its outputs read, each under its output
// name, or for an output it computes, the expression (computed says
// whether it may: not on the nullable side of an outer join, where
// PostgreSQL wraps such an expression in a placeholder, nor inside a
// parenthesized join). It returns nil when an output is neither a
// distinct plain column of isc's items nor an expression fickle may
// substitute (one of volatile, set-returning, aggregate, window or
// subquery calls, parameters, untyped literals, or a USING column of a
// common type), on an error, or when a view's list no longer has its
// columns.
func (b *binder) pulledOutputs(isc *scope, src *pullUpSource, computed bool) []scopeCol {
	var outs []scopeCol
	add := func(c scopeCol, name string, typ types.Type, coll string) bool {
		if slices.ContainsFunc(outs, func(o scopeCol) bool { return o.expr == nil && o.slot == c.slot }) {
			return false
		}
		outs = append(outs, scopeCol{name: name, typ: typ, coll: coll, slot: c.slot, item: c.item, nullable: c.nullable})
		return true
	}
	nullable := slices.ContainsFunc(isc.cols, func(c scopeCol) bool { return c.nullable })
	for _, t := range src.q.TargetList {
		rt := t.GetResTarget()
		if cr := starRef(rt.Val); cr != nil {
			all, err := b.starColumns(isc, cr)
			if err != nil {
				return nil
			}
			for _, c := range all {
				if c.usingType.Oid != 0 || c.relOID != 0 {
					return nil
				}
				c.markRead()
				if !add(c, c.name, c.typ, storedCollation(outputCollation(c.typ, c.coll))) {
					return nil
				}
			}
			continue
		}
		plain := rt.Val.GetColumnRef() != nil
		if !plain && (!computed || b.containsSetCall(rt.Val) || containsWindow(rt.Val) || b.containsLocalAgg(rt.Val) ||
			containsSubLink(rt.Val) || containsParam(rt.Val)) {
			return nil
		}
		volatile := b.pgVolatileCalls
		e, err := b.expr(isc, rt.Val)
		if err != nil {
			return nil
		}
		name := rt.Name
		if name == "" {
			name = e.name
		}
		if e.slot >= 0 && e.usingOf == nil {
			at := slices.IndexFunc(isc.cols, func(c scopeCol) bool { return c.slot == e.slot })
			if at < 0 || !add(isc.cols[at], name, e.typ, storedCollation(e.coll)) {
				return nil
			}
			continue
		}
		if !computed || b.pgVolatileCalls != volatile || e.lit != nil || e.null || unresolved(e) || e.refs == 0 && e.volatile {
			return nil
		}
		if name == "" {
			name = "?column?"
		}
		b.pulledOutIDs++
		b.noteOutputCost(b.pulledOutIDs, rt.Val)
		outs = append(outs, scopeCol{name: name, typ: e.typ, coll: storedCollation(e.coll), slot: -1, expr: e, outID: b.pulledOutIDs, nullable: nullable})
	}
	if src.view != nil && len(outs) != len(src.view.cols) {
		return nil
	}
	return outs
}

// containsParam reports whether n holds a parameter ($n), whose type the
// first expression compiled that reads it may decide: compiled where a
// flattening then given up would leave it so.
func containsParam(n *pg_query.Node) bool {
	found := false
	walk(n, func(c *pg_query.Node) bool {
		found = found || c.GetParamRef() != nil
		return !found
	})
	return found
}

// pulledRef is a reference, depth levels out of sc, from scope cur, to c,
// a computed output of a flattened subquery: its expression, evaluated on
// the row of the level it was flattened into; above that level's GROUP
// BY, the group's value.
func (b *binder) pulledRef(cur *scope, c scopeCol, depth int, name string, loc int32) (*scalar, error) {
	inner := c.expr
	e := &scalar{typ: inner.typ, slot: -1, name: name, volatile: inner.volatile, outID: c.outID,
		coll: outputCollation(c.typ, c.coll)}
	e.domain, e.plain = b.columnDomain(c)
	if depth == 0 {
		e.refs, e.eval = inner.refs, inner.eval
		return e, nil
	}
	cur.pending |= inner.refs
	if cur.agg != nil {
		slot, err := b.outerGroupSlot(cur.agg, c, loc)
		if err != nil {
			// Inside an aggregate call that may turn out to belong to
			// that level, where the column is no error (as resolveCol).
			if !b.deferUngrouped(err) && !b.deferUngroupedOf(cur.agg, err) {
				return nil, err
			}
			e.eval = func(*execCtx) (any, error) { return nil, err }
			return e, nil
		}
		e.eval = func(x *execCtx) (any, error) { return x.outer[len(x.outer)-depth][slot], nil }
		return e, nil
	}
	e.eval = func(x *execCtx) (any, error) {
		at := *x
		at.row, at.outer = x.outer[len(x.outer)-depth], x.outer[:len(x.outer)-depth:len(x.outer)-depth]
		at.items, at.marks, at.epq, at.win, at.srf = nil, nil, nil, nil, nil
		return inner.eval(&at)
	}
	return e, nil
}
