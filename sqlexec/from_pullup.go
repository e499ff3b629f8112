package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL flattens a simple subquery or view in FROM into the query
// that reads it (prepjointree.c's pull_up_subqueries): the subquery's
// relations become the reader's, its WHERE joins the reader's conditions
// on them, and its outputs are its expressions over those relations. The
// planner then orders all the conditions of a relation together, by cost,
// and looks a view's rows up through the table's indexes. fickle does so
// for the simple subqueries whose flattening it reproduces exactly: those
// is_simple_subquery accepts (no aggregates, grouping, window functions,
// DISTINCT, ORDER BY, LIMIT/OFFSET, set operations, FOR UPDATE, WITH; not
// LATERAL, not a security_barrier view) whose FROM is one table, or one
// such subquery or view in turn, and whose select list names distinct
// columns of it. Every other subquery is planned on its own, as before.
//
// A pulled-up table is an item of the reader's level like any other,
// named as in the subquery (EXPLAIN shows it so), whose columns take
// slots in the level's row but no name there; the subquery's outputs are
// columns of the reader's scope under the subquery's alias that read those
// slots. Its WHERE conjuncts are compiled in the subquery's own scope and
// placed on the table's item before the reader's conditions, as
// PostgreSQL distributes the subquery's quals before its parent's.

// pullUpShape is what flattening a FROM item gives, as far as names go:
// the relation name and output columns the reader sees.
type pullUpShape struct {
	rel  string
	cols []string
}

// pullUpSource is a flattenable FROM item's query: the subquery's, or the
// view's stored one (view set), and the scope its names resolve in.
type pullUpSource struct {
	q     *pg_query.SelectStmt
	view  *viewDesc
	alias *pg_query.Alias
	name  string
	names *scope
}

// pullUpTable returns the table FROM item n reads when n names one in the
// scope names, as fromLeaf resolves it: not a WITH query, transition
// table, system relation, view or sequence.
func (b *binder) pullUpTable(names *scope, n *pg_query.Node) *tableDesc {
	rv := n.GetRangeVar()
	if rv == nil || rv == b.modifying {
		return nil
	}
	if rv.Schemaname == "" {
		for cur := names; cur != nil; cur = cur.parent {
			if cur.ctes[rv.Relname] != nil {
				return nil
			}
		}
		if b.s.transitionTable(rv.Relname) != nil {
			return nil
		}
	}
	if virtualTableFor(rv.Schemaname, rv.Relname, b.s.searchPath()) != nil {
		return nil
	}
	return b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
}

// pullUpSourceOf returns the query of n, a FROM item, when n is a subquery
// or view that is_simple_subquery would let PostgreSQL flatten.
func (b *binder) pullUpSourceOf(names *scope, n *pg_query.Node) (*pullUpSource, bool) {
	var src *pullUpSource
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeSubselect:
		rs := v.RangeSubselect
		if rs.Lateral || rs.Alias == nil {
			return nil, false
		}
		src = &pullUpSource{q: rs.Subquery.GetSelectStmt(), alias: rs.Alias, name: rs.Alias.Aliasname,
			names: &scope{parent: names.parent, ctes: names.ctes}}
	case *pg_query.Node_RangeVar:
		rv := v.RangeVar
		if rv == b.modifying || b.pullUpTable(names, n) != nil {
			return nil, false
		}
		if rv.Schemaname == "" {
			for cur := names; cur != nil; cur = cur.parent {
				if cur.ctes[rv.Relname] != nil {
					return nil, false
				}
			}
			if b.s.transitionTable(rv.Relname) != nil {
				return nil, false
			}
		}
		if virtualTableFor(rv.Schemaname, rv.Relname, b.s.searchPath()) != nil {
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
	if !simpleQuery(src.q) {
		return nil, false
	}
	return src, true
}

// simpleQuery reports whether q is a plain SELECT of one FROM item whose
// select list holds column references only: none of the clauses that
// keep PostgreSQL from flattening a subquery, and nothing computed.
func simpleQuery(q *pg_query.SelectStmt) bool {
	if q == nil || q.Op != pg_query.SetOperation_SETOP_NONE && q.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED ||
		len(q.ValuesLists) > 0 || q.WithClause != nil || q.IntoClause != nil || len(q.DistinctClause) > 0 ||
		len(q.GroupClause) > 0 || q.GroupDistinct || q.HavingClause != nil || len(q.WindowClause) > 0 ||
		len(q.SortClause) > 0 || q.LimitCount != nil || q.LimitOffset != nil || len(q.LockingClause) > 0 ||
		len(q.FromClause) != 1 || len(q.TargetList) == 0 {
		return false
	}
	for _, t := range q.TargetList {
		rt := t.GetResTarget()
		if rt == nil || len(rt.Indirection) > 0 || rt.Val.GetColumnRef() == nil {
			return false
		}
	}
	return true
}

// pullUpShapeOf returns the names FROM item n brings when fickle flattens
// it (a table counts, as the bottom of a flattened subquery); ok is false
// when it does not: n is neither, or a select list names a column it
// does not find, finds twice, or names twice (two outputs of one column
// would be one grouping column, which PostgreSQL's parser does not take
// them for).
func (b *binder) pullUpShapeOf(names *scope, n *pg_query.Node, depth int) (pullUpShape, bool) {
	if t := b.pullUpTable(names, n); t != nil {
		rv := n.GetRangeVar()
		shape := pullUpShape{rel: rv.Relname}
		for _, c := range t.cols {
			shape.cols = append(shape.cols, c.name)
		}
		if rv.Alias != nil {
			shape.rel = rv.Alias.Aliasname
			if !renameShape(shape.cols, rv.Alias) {
				return pullUpShape{}, false
			}
		}
		return shape, true
	}
	src, ok := b.pullUpSourceOf(names, n)
	if !ok || depth > 16 {
		return pullUpShape{}, false
	}
	inner, ok := b.pullUpShapeOf(src.names, src.q.FromClause[0], depth+1)
	if !ok {
		return pullUpShape{}, false
	}
	shape := pullUpShape{rel: src.name}
	used := make([]bool, len(inner.cols))
	take := func(i int, name string) bool {
		if used[i] {
			return false
		}
		used[i] = true
		shape.cols = append(shape.cols, name)
		return true
	}
	for _, t := range src.q.TargetList {
		rt := t.GetResTarget()
		fields := rt.Val.GetColumnRef().Fields
		rel := ""
		if len(fields) == 2 {
			rel = fields[0].GetString_().GetSval()
			if fields[0].GetString_() == nil || rel != inner.rel {
				return pullUpShape{}, false
			}
		} else if len(fields) != 1 {
			return pullUpShape{}, false
		}
		last := fields[len(fields)-1]
		if last.GetAStar() != nil {
			for i, c := range inner.cols {
				if !take(i, c) {
					return pullUpShape{}, false
				}
			}
			continue
		}
		name := last.GetString_().GetSval()
		if last.GetString_() == nil {
			return pullUpShape{}, false
		}
		at := -1
		for i, c := range inner.cols {
			if c == name {
				if at >= 0 {
					return pullUpShape{}, false
				}
				at = i
			}
		}
		out := rt.Name
		if out == "" {
			out = name
		}
		if at < 0 || !take(at, out) {
			return pullUpShape{}, false
		}
	}
	if src.view != nil {
		if len(src.view.cols) != len(shape.cols) {
			return pullUpShape{}, false
		}
		for i, c := range src.view.cols {
			shape.cols[i] = c.name
		}
	}
	if !renameShape(shape.cols, src.alias) {
		return pullUpShape{}, false
	}
	return shape, true
}

// renameShape applies an alias's column names to cols; false when it has
// more than cols (an error the unflattened path reports).
func renameShape(cols []string, a *pg_query.Alias) bool {
	if a == nil {
		return true
	}
	names := strs(a.Colnames)
	if len(names) > len(cols) {
		return false
	}
	copy(cols, names)
	return true
}

// pulledUp is a flattened FROM item as the query reading it sees it: its
// name, its output columns (reading the slots of the table's columns),
// and the index of the table's item.
type pulledUp struct {
	rel  string
	cols []scopeCol
	item int
}

// pullUp compiles FROM item n, one pullUpShapeOf accepts, into the items
// of sc's level: the table at its bottom becomes an item whose columns
// have slots in sc's row but no names, and the WHERE conjuncts of the
// subqueries and views above it become conditions in conds, innermost
// first. names is the scope n's names resolve in; left says the item is
// on the nullable side of an outer join.
func (b *binder) pullUp(sc *scope, items *[]*fromItem, conds *[]pendingCond, names *scope, n *pg_query.Node, left bool) (*pulledUp, error) {
	if b.pullUpTable(names, n) != nil {
		it, tcols, err := b.fromLeaf(names, n)
		if err != nil {
			return nil, err
		}
		it.left, it.off, it.width = left, len(sc.cols), len(tcols)
		idx := len(*items)
		for i := range tcols {
			c := &tcols[i]
			c.item, c.slot, c.nullable = idx, it.off+i, c.nullable || left
			internal := *c
			// No name reaches it, nor makes it a table of the scope
			// (tableInScope).
			internal.rel, internal.hidden, internal.merged, internal.system, internal.read = "", true, true, false, nil
			if sc.starOrder != nil {
				sc.starOrder = append(sc.starOrder, len(sc.cols))
			}
			sc.cols = append(sc.cols, internal)
		}
		*items = append(*items, it)
		if it.policyCmds != nil && it.width > 0 {
			c, err := b.rowSecurityConj(it, tcols)
			if err != nil {
				return nil, err
			}
			if c != nil {
				it.on = append(it.on, c)
			}
		}
		return &pulledUp{rel: it.name, cols: tcols, item: idx}, nil
	}
	src, _ := b.pullUpSourceOf(names, n)
	var viewUse *columnUse
	if v := src.view; v != nil {
		viewUse = trackedColumns(nil, len(v.cols))
		b.requireColumnsAs(b.privRole, v.oid, v.name, "view", 'r', viewUse)
		if err := b.checkViewAccess(v); err != nil {
			return nil, err
		}
		saved := b.privRole
		b.privRole = v.ownerRole()
		if v.securityInvoker {
			b.privRole = 0
		}
		b.useView(v)
		b.expanding = append(b.expanding, v)
		defer func() {
			b.expanding = b.expanding[:len(b.expanding)-1]
			b.privRole = saved
		}()
	}
	inner, err := b.pullUp(sc, items, conds, src.names, src.q.FromClause[0], left)
	if err != nil {
		return nil, err
	}
	isc := &scope{parent: src.names.parent, ctes: src.names.ctes, cols: inner.cols, rels: []string{inner.rel}, noAgg: "WHERE"}
	for _, w := range conjuncts(src.q.WhereClause) {
		c, err := b.conjunct(isc, w, "WHERE")
		if err != nil {
			return nil, err
		}
		// Under an outer join the conjunct decides which rows of the
		// nullable side there are, as the ON condition does; a volatile
		// one of no column runs for each of the table's rows, where
		// PostgreSQL's jointree keeps it, not for each row of the join.
		pc := pendingCond{compiled: c}
		if left || c.e.refs == 0 && c.e.volatile {
			pc.on = (*items)[inner.item]
		}
		*conds = append(*conds, pc)
	}
	sc.pending |= isc.pending
	var outs []scopeCol
	for _, t := range src.q.TargetList {
		rt := t.GetResTarget()
		if cr := starRef(rt.Val); cr != nil {
			all, err := b.starColumns(isc, cr)
			if err != nil {
				return nil, err
			}
			for _, c := range all {
				c.markRead()
				outs = append(outs, scopeCol{rel: src.name, name: c.name, typ: c.typ, coll: storedCollation(outputCollation(c.typ, c.coll)), slot: c.slot})
			}
			continue
		}
		e, err := b.expr(isc, rt.Val)
		if err != nil {
			return nil, err
		}
		name := rt.Name
		if name == "" {
			name = e.name
		}
		outs = append(outs, scopeCol{rel: src.name, name: name, typ: e.typ, coll: storedCollation(e.coll), slot: e.slot})
	}
	for i := range outs {
		outs[i].item, outs[i].nullable = inner.item, left
		if v := src.view; v != nil {
			outs[i].name = v.cols[i].name
			outs[i].read = &viewUse.used[i]
			if v.cols[i].domain != 0 {
				outs[i].knownType, outs[i].knownDomain = true, v.cols[i].domain
			}
		}
	}
	if err := applyColAliases(outs, src.alias); err != nil {
		return nil, err
	}
	return &pulledUp{rel: src.name, cols: outs, item: inner.item}, nil
}

// addPulledUp flattens FROM item n of sc's level (pullUp) and gives the
// level its outputs under the item's name.
func (b *binder) addPulledUp(sc *scope, items *[]*fromItem, conds *[]pendingCond, n *pg_query.Node, left bool) error {
	p, err := b.pullUp(sc, items, conds, sc, n, left)
	if err != nil {
		return err
	}
	if err := checkFromNames(sc, &fromItem{name: p.rel}, p.cols); err != nil {
		return err
	}
	for _, c := range p.cols {
		if sc.starOrder != nil {
			sc.starOrder = append(sc.starOrder, len(sc.cols))
		}
		sc.cols = append(sc.cols, c)
	}
	sc.rels = append(sc.rels, p.rel)
	(*items)[p.item].pulledAs = p.rel
	return nil
}
