package sqlexec

import (
	"fmt"
	"slices"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// subLink compiles EXISTS, scalar, IN/ANY and ALL subqueries.
func (b *binder) subLink(sc *scope, sl *pg_query.SubLink) (*scalar, error) {
	var saved uint64
	if sc != nil {
		saved, sc.pending = sc.pending, 0
	}
	var ctes map[string]*ctePlan
	if sc != nil {
		ctes = sc.ctes
	}
	sub := sl.Subselect
	if st := sub.GetSelectStmt(); sl.SubLinkType == pg_query.SubLinkType_EXISTS_SUBLINK && st != nil &&
		st.LimitCount == nil && st.LimitOffset == nil && len(st.LockingClause) == 0 {
		// EXISTS needs one row: LIMIT 1 never changes whether there is one,
		// and lets the scan stop early.
		c := shallowCopy(st).(*pg_query.SelectStmt) // a deep copy costs the square of the nesting
		c.LimitCount = pg_query.MakeAConstIntNode(1, -1)
		c.LimitOption = pg_query.LimitOption_LIMIT_OPTION_COUNT
		sub = &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: c}}
	}
	volatile := b.pgVolatileCalls
	p, refs, rows, err := b.subquery(sc, sub, ctes, saved)
	if err != nil {
		return nil, err
	}
	if b.stableSubLinks == nil {
		b.stableSubLinks = map[*pg_query.SubLink]bool{}
	}
	b.stableSubLinks[sl] = b.pgVolatileCalls == volatile
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		if st := sl.Subselect.GetSelectStmt(); st != nil && b.existsDropsSelectList(st) {
			p.skipUnread(make([]bool, len(p.cols)))
		}
		if refs != 0 {
			if h := b.semiJoin(sc, sl, ctes, p, nil, refs); h != nil {
				return h, nil
			}
		}
		return &scalar{typ: types.Bool, slot: -1, refs: refs, name: "exists", eval: func(x *execCtx) (any, error) {
			rs, err := rows(x)
			if err != nil {
				return nil, err
			}
			return len(rs) > 0, nil
		}}, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(p.cols) != 1 {
			return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "subquery must return only one column"), sl.Location)
		}
		name := p.cols[0].Name
		if name == "?column?" {
			name = "?column?"
		}
		coll := outputCollation(p.cols[0].typ, storedCollation(p.cols[0].coll))
		return &scalar{typ: p.cols[0].typ, slot: -1, refs: refs, name: name, coll: coll, eval: func(x *execCtx) (any, error) {
			rs, err := rows(x)
			if err != nil {
				return nil, err
			}
			switch len(rs) {
			case 0:
				return nil, nil
			case 1:
				return rs[0][0], nil
			}
			return nil, pgerror.New(pgerror.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}}, nil
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		return b.arraySubLink(sl, p, refs, rows)
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		op := "="
		if len(sl.OperName) > 0 {
			op = opName(sl.OperName)
		}
		if sl.Testexpr.GetRowExpr() != nil {
			return b.rowSubLink(sc, sl, op, p, refs, rows)
		}
		if len(p.cols) != 1 {
			return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "subquery has too many columns"), sl.Location)
		}
		test, err := b.expr(sc, sl.Testexpr)
		if err != nil {
			return nil, err
		}
		// The operator compares the test value with a column value held in
		// a holder that the loop fills.
		var cur any
		holder := &scalar{typ: p.cols[0].typ, slot: -1, eval: func(*execCtx) (any, error) { return cur, nil }}
		names := []string{op}
		if len(sl.OperName) > 0 {
			names = strs(sl.OperName)
		}
		cmp, err := b.extensionBinary(names, test, holder, sl.Location)
		userOp := cmp != nil // an extension's or user's operator, which hashing would not apply
		if cmp == nil && err == nil {
			cmp, err = b.builtinBinary(op, test, holder, sl.Location)
		}
		if err != nil {
			return nil, err
		}
		if cmp.typ.Oid != types.OidBool {
			return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "row comparison operator must yield type boolean, not type %s", cmp.typ), sl.Location)
		}
		all := sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK
		undetermined, err := b.subLinkCollations([]*scalar{test}, p, sl.Location)
		if err != nil {
			return nil, err
		}
		// A subquery is uncorrelated only when it references no enclosing
		// level: refs names this level's items alone, and one that reads a
		// row two levels up (v.x in "f1 = ANY (SELECT ... WHERE u = v.x)"
		// inside a subquery over v) has none of them but changes with v.
		if !all && op == "=" && !userOp && len(undetermined) == 0 {
			if !p.correlated && !unresolved(test) && keyCompatible(p.cols[0].typ, test.typ) {
				return b.inHashed(p, test, rows), nil
			}
			if refs != 0 {
				if h := b.semiJoin(sc, sl, ctes, p, test, refs); h != nil {
					return h, nil
				}
			}
		}
		rows = collationCheckedRows(rows, undetermined, p.correlated)
		return &scalar{typ: types.Bool, slot: -1, refs: refs | test.refs, name: "?column?", eval: func(x *execCtx) (any, error) {
			rs, err := rows(x)
			if err != nil {
				return nil, err
			}
			return quantified(x, cmp, all, len(rs), func(i int) { cur = rs[i][0] })
		}}, nil
	}
	return nil, b.errAt(pgerror.Unsupported("this kind of subquery"), sl.Location)
}

// rowSubLink compiles (a, b) op ANY / ALL (subquery): each of the
// subquery's rows is compared with the row constructor as a row
// comparison (= the AND of the fields' =, < lexicographic, NULL when a
// field decides nothing), and the answers combine as for one column.
func (b *binder) rowSubLink(sc *scope, sl *pg_query.SubLink, op string, p *selectPlan, refs uint64, rows func(*execCtx) ([][]any, error)) (*scalar, error) {
	test, err := b.expr(sc, sl.Testexpr)
	if err != nil {
		return nil, err
	}
	switch {
	case len(p.cols) > len(test.row):
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "subquery has too many columns"), sl.Location)
	case len(p.cols) < len(test.row):
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "subquery has too few columns"), sl.Location)
	}
	// The comparison reads the subquery's current row from holders that
	// the loop fills.
	var cur []any
	fields := make([]*scalar, len(p.cols))
	for i, c := range p.cols {
		fields[i] = &scalar{typ: c.typ, slot: -1, eval: func(*execCtx) (any, error) { return cur[i], nil }}
	}
	cmp, err := b.rowComparison(op, test, &scalar{slot: -1, row: fields}, sl.Location)
	if err != nil {
		return nil, err
	}
	undetermined, err := b.subLinkCollations(test.row, p, sl.Location)
	if err != nil {
		return nil, err
	}
	all := sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK
	rows = collationCheckedRows(rows, undetermined, p.correlated)
	return &scalar{typ: types.Bool, slot: -1, refs: refs | test.refs, name: "?column?", eval: func(x *execCtx) (any, error) {
		rs, err := rows(x)
		if err != nil {
			return nil, err
		}
		return quantified(x, cmp, all, len(rs), func(i int) { cur = rs[i] })
	}}, nil
}

// collationCheckedRows returns rows checking, on what it returns, the
// columns whose comparison has no collation (checkSubLinkCollations);
// rows itself when there are none.
func collationCheckedRows(rows func(*execCtx) ([][]any, error), undetermined []int, correlated bool) func(*execCtx) ([][]any, error) {
	if len(undetermined) == 0 {
		return rows
	}
	return func(x *execCtx) ([][]any, error) {
		rs, err := rows(x)
		if err == nil {
			err = checkSubLinkCollations(rs, undetermined, correlated)
		}
		return rs, err
	}
}

// subquery compiles the query sub of a subquery expression in scope sc,
// whose pending references were saved (and cleared) by the caller: it
// returns the plan, the outer items it references, and its rows for the
// current row of x.
func (b *binder) subquery(sc *scope, sub *pg_query.Node, ctes map[string]*ctePlan, saved uint64) (*selectPlan, uint64, func(*execCtx) ([][]any, error), error) {
	p, err := b.selectNode(sc, sub, ctes)
	var refs uint64
	if sc != nil {
		refs = sc.pending
		sc.pending = saved | refs
	}
	if err != nil {
		return nil, 0, nil, err
	}
	if refs != 0 {
		p.correlated = true
	}
	if p.node != nil {
		b.subplans = append(b.subplans, subPlan{plan: p.node, correlated: p.correlated})
	}
	return p, refs, func(x *execCtx) ([][]any, error) { return p.rowsCached(x.child()) }, nil
}

// topWithClause compiles the WITH clause of an INSERT, UPDATE or DELETE
// (nil for none), whose queries the statement's FROM items, subqueries and
// source read.
func (b *binder) topWithClause(w *pg_query.WithClause) (map[string]*ctePlan, error) {
	outer := b.outerCTEs
	b.outerCTEs = nil
	if w == nil {
		return outer, nil
	}
	return b.withClause(nil, w, outer)
}

// withClause compiles non-recursive WITH queries.
func (b *binder) withClause(parent *scope, w *pg_query.WithClause, outer map[string]*ctePlan) (map[string]*ctePlan, error) {
	ctes := map[string]*ctePlan{}
	for k, v := range outer {
		ctes[k] = v
	}
	queries := make([]*pg_query.CommonTableExpr, len(w.Ctes))
	for i, n := range w.Ctes {
		queries[i] = n.GetCommonTableExpr()
	}
	if w.Recursive {
		var err error
		if queries, err = recursiveWithOrder(w); err != nil {
			return nil, err
		}
	}
	for _, c := range queries {
		if c.SearchClause != nil || c.CycleClause != nil {
			var err error
			if c, err = b.searchCycleCTE(w, c); err != nil {
				return nil, err
			}
		}
		if modifiedTable(c.Ctequery) != nil {
			cte, err := b.dataModifyingCTE(w, c, ctes)
			if err != nil {
				return nil, err
			}
			ctes[c.Ctename] = cte
			continue
		}
		if c.Ctequery.GetSelectStmt() == nil {
			return nil, b.errAt(pgerror.Unsupported("this statement in WITH"), c.Location)
		}
		var p *selectPlan
		recursive := false
		volatile := b.pgVolatileCalls
		reads := len(b.worktableReads)
		outer, err := b.notingOuterRefs(parent, func() error {
			var err error
			if st := c.Ctequery.GetSelectStmt(); w.Recursive && st.Op == pg_query.SetOperation_SETOP_UNION && readsItself(c) {
				recursive = true
				p, err = b.recursiveCTE(parent, c, st, ctes)
			} else {
				p, err = b.selectNode(parent, c.Ctequery, ctes)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if names := strs(c.Aliascolnames); len(names) > 0 {
			if len(names) > len(p.cols) {
				return nil, b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", c.Ctename, len(p.cols), len(names)), c.Location)
			}
			// Renamed in place: the plan's own run reads what its
			// readers leave unread (skipUnread).
			cols := append([]outCol(nil), p.cols...)
			for i, nm := range names {
				cols[i].Name = nm
			}
			p.cols = cols
		}
		worktables := slices.Clone(b.worktableReads[reads:])
		if outer || len(worktables) > 0 {
			p.correlated = true
		}
		ctes[c.Ctename] = &ctePlan{name: c.Ctename, plan: p, outerRefs: outer, parent: parent, worktables: worktables,
			inlinable: !recursive && c.Ctematerialized != pg_query.CTEMaterialize_CTEMaterializeAlways && b.pgVolatileCalls == volatile}
	}
	return ctes, nil
}

// valuesPlan compiles a VALUES list: each column takes the common type of
// its entries.
func (b *binder) valuesPlan(parent *scope, lists []*pg_query.Node, ctes map[string]*ctePlan) (*selectPlan, error) {
	// The entries are a query level of their own: a column they name is
	// an outer query's (correlation), never a column of parent's own row.
	// Their subqueries read the WITH queries in scope. Aggregates, window
	// functions and set-returning functions are PostgreSQL's errors there.
	sc := &scope{parent: parent, ctes: ctes, noAgg: "VALUES"}
	var rows [][]*scalar
	for _, l := range lists {
		items := l.GetList().GetItems()
		if len(rows) > 0 && len(items) != len(rows[0]) {
			return nil, pgerror.New(pgerror.SyntaxError, "VALUES lists must all be the same length")
		}
		row := make([]*scalar, len(items))
		for i, it := range items {
			e, err := b.expr(sc, it)
			if err != nil {
				return nil, err
			}
			row[i] = e
		}
		rows = append(rows, row)
	}
	cols := make([]outCol, len(rows[0]))
	for c := range cols {
		col := make([]*scalar, len(rows))
		var merged collState
		for r := range rows {
			col[r] = rows[r][c]
			if err := merged.merge(col[r].coll); err != nil {
				return nil, b.errAt(err, exprLocation(lists[r].GetList().GetItems()[c]))
			}
		}
		t, err := b.unify("VALUES", col)
		if err != nil {
			return nil, err
		}
		for r := range rows {
			rows[r][c] = col[r]
		}
		coll, err := commonCollation(merged, t, true)
		if err != nil {
			return nil, err
		}
		cols[c] = outCol{Name: fmt.Sprintf("column%d", c+1), typ: t, coll: coll}
	}
	node := newNode(valuesOp{}, float64(len(rows)), widthOf(colTypes(cols)), 0)
	return &selectPlan{cols: cols, correlated: b.refsOuter(sc), node: node, run: func(x *execCtx) ([][]any, error) {
		defer x.stats.loop(node, len(rows), 0)
		out := make([][]any, len(rows))
		for r, row := range rows {
			o := make([]any, len(row))
			for c, e := range row {
				v, err := e.eval(x)
				if err != nil {
					return nil, err
				}
				o[c] = v
			}
			out[r] = o
		}
		return out, nil
	}}, nil
}

// finishOutput applies ORDER BY, LIMIT and OFFSET of a VALUES or set
// operation to its output: sort keys may name output columns or give
// their ordinals.
func (b *binder) finishOutput(parent *scope, p *selectPlan, st *pg_query.SelectStmt) (*selectPlan, error) {
	if len(st.SortClause) == 0 && st.LimitCount == nil && st.LimitOffset == nil {
		return p, nil
	}
	sc := &scope{parent: parent}
	outs := make([]*scalar, len(p.cols))
	for i, c := range p.cols {
		sc.cols = append(sc.cols, scopeCol{name: c.Name, typ: c.typ, slot: i, coll: storedCollation(c.coll)})
		slot := i
		outs[i] = &scalar{typ: c.typ, slot: i, coll: c.coll, eval: func(x *execCtx) (any, error) { return x.row[slot], nil }}
	}
	keys, outs, err := b.orderBy(sc, st.SortClause, outs, p.cols, make([]*pg_query.Node, len(p.cols)))
	if err != nil {
		return nil, err
	}
	if len(outs) > len(p.cols) {
		return nil, pgerror.Unsupported("ORDER BY expressions over a VALUES list or set operation (use output columns)")
	}
	limit, offset, ties, err := b.limitOffset(sc, st)
	if err != nil {
		return nil, err
	}
	inner := p.run
	ln := levelNodes{top: p.node}
	width := widthOf(colTypes(p.cols))
	if len(keys) > 0 {
		ln.sort = newNode(&sortOp{keys: sortKeyTexts(keys)}, p.node.rows, width, sortCost(p.node.rows), ln.top)
		ln.sort.startup = ln.sort.cost
		ln.top = ln.sort
	}
	if limit != nil || offset != nil {
		ln.limit = newNode(limitOp{}, ln.top.rows, width, 0, ln.top)
		ln.top = ln.limit
	}
	return &selectPlan{cols: p.cols, correlated: p.correlated || b.refsOuter(sc), node: ln.top, run: func(x *execCtx) ([][]any, error) {
		if x.stats != nil {
			defer ln.loops(x.stats, time.Now())
		}
		rows, err := inner(x)
		if err != nil {
			return nil, err
		}
		lim, off, err := evalLimit(x, limit, offset)
		if err != nil {
			return nil, err
		}
		x.stats.addRows(ln.sort, len(rows))
		rows, err = trimOutput(rows, keys, false, len(p.cols), outs, lim, off, limit != nil, ties, true)
		x.stats.addRows(ln.limit, len(rows))
		return rows, err
	}}, nil
}

// intoOf returns the INTO clause of any SELECT of a set operation tree.
func intoOf(st *pg_query.SelectStmt) *pg_query.IntoClause {
	if st == nil {
		return nil
	}
	if st.IntoClause != nil {
		return st.IntoClause
	}
	if into := intoOf(st.Larg); into != nil {
		return into
	}
	return intoOf(st.Rarg)
}

// branchOutputType is the type a set operation's branch outputs in column
// c, and whether it is a parameter still untyped (unknown, for the set
// operation to type); a parameter the branch left untyped may have been
// typed since by a later branch.
func (b *binder) branchOutputType(c outCol) (types.Type, bool) {
	if c.param == 0 {
		return c.typ, false
	}
	if t := b.paramType(c.param); t.Oid != 0 {
		b.typeBranchParam(c, t)
		return t, false
	}
	return types.Unknown, true
}

// typeBranchParam gives the parameter a set operation's branch outputs
// untyped in column c type t, as PostgreSQL's set operation coerces that
// output to the column's type; nothing converts its value.
func (b *binder) typeBranchParam(c outCol, t types.Type) {
	b.setParamType(c.param, t)
	if c.paramOcc != nil {
		c.paramOcc.typ, c.paramOcc.param = b.paramType(c.param), 0
	}
}

// setOp compiles UNION, INTERSECT and EXCEPT, with or without ALL.
func (b *binder) setOp(parent *scope, st *pg_query.SelectStmt, ctes map[string]*ctePlan) (*selectPlan, error) {
	b.unknownOutputs = unknownOutputs{keep: true}
	l, err := b.selectStmt(parent, st.Larg, ctes)
	if err != nil {
		return nil, err
	}
	if into := intoOf(st.Rarg); into != nil {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "INTO is only allowed on first SELECT of UNION/INTERSECT/EXCEPT"), into.Rel.Location)
	}
	b.unknownOutputs = unknownOutputs{keep: true}
	r, err := b.selectStmt(parent, st.Rarg, ctes)
	if err != nil {
		return nil, err
	}
	name := map[pg_query.SetOperation]string{pg_query.SetOperation_SETOP_UNION: "UNION", pg_query.SetOperation_SETOP_INTERSECT: "INTERSECT", pg_query.SetOperation_SETOP_EXCEPT: "EXCEPT"}[st.Op]
	if len(l.cols) != len(r.cols) {
		return nil, pgerror.Newf(pgerror.SyntaxError, "each %s query must have the same number of columns", name)
	}
	cols := make([]outCol, len(l.cols))
	lconv := make([]types.CastFunc, len(cols))
	rconv := make([]types.CastFunc, len(cols))
	for i := range cols {
		// A branch's string literals, NULLs and untyped parameters take
		// the other branch's type, text when both are unknown
		// (PostgreSQL's select_common_type).
		lt, lparam := b.branchOutputType(l.cols[i])
		rt, rparam := b.branchOutputType(r.cols[i])
		switch {
		case lt.Oid == types.OidUnknown && rt.Oid == types.OidUnknown:
			lt, rt = types.Text, types.Text
		case lt.Oid == types.OidUnknown:
			lt = types.Unknown
		case rt.Oid == types.OidUnknown:
			rt = types.Unknown
		}
		t := lt
		if lt.Oid == types.OidUnknown {
			t = rt
		} else if rt.Oid != types.OidUnknown {
			if t, err = types.CommonType(name, lt, rt); err != nil {
				return nil, err
			}
		}
		if !st.All {
			if err := types.EqualityOperatorError(t); err != nil {
				return nil, err
			}
		}
		coll, err := setOpCollation(l.cols[i].coll, r.cols[i].coll, t, st.All && st.Op == pg_query.SetOperation_SETOP_UNION)
		if err != nil {
			return nil, err
		}
		cols[i] = outCol{Name: l.cols[i].Name, typ: t, coll: coll}
		// An untyped parameter's value arrives as t: nothing converts it.
		if lparam {
			b.typeBranchParam(l.cols[i], t)
		}
		if rparam {
			b.typeBranchParam(r.cols[i], t)
		}
		if lt != t && !lparam {
			if lconv[i], err = types.LookupCast(lt, t, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		if rt != t && !rparam {
			if rconv[i], err = types.LookupCast(rt, t, types.CastImplicit); err != nil {
				return nil, err
			}
		}
	}
	if !st.All || st.Op != pg_query.SetOperation_SETOP_UNION {
		// Only UNION ALL appends: the others group their rows.
		keys := make([]types.Type, len(cols))
		for i, c := range cols {
			keys[i] = c.typ
		}
		if err := types.GroupingImplementationError(name, keys, true); err != nil {
			return nil, err
		}
	}
	all := st.All
	op := st.Op
	p := &selectPlan{cols: cols, correlated: l.correlated || r.correlated}
	sn := setOpPlan(op, all, l.node, r.node, cols)
	p.node = sn.top
	convert := func(rows [][]any, conv []types.CastFunc) ([][]any, error) {
		for _, row := range rows {
			for i, f := range conv {
				if f != nil && row[i] != nil {
					v, err := f(row[i])
					if err != nil {
						return nil, err
					}
					row[i] = v
				}
			}
		}
		return rows, nil
	}
	key := func(row []any) string {
		var buf []byte
		for i, c := range cols {
			buf = types.AppendKey(buf, c.typ, row[i])
		}
		return string(buf)
	}
	p.run = func(x *execCtx) ([][]any, error) {
		if x.stats != nil {
			defer sn.loops(x.stats, time.Now())
		}
		lr, err := l.run(x)
		if err != nil {
			return nil, err
		}
		rr, err := r.run(x)
		if err != nil {
			return nil, err
		}
		if lr, err = convert(copyRows(lr), lconv); err != nil {
			return nil, err
		}
		if rr, err = convert(copyRows(rr), rconv); err != nil {
			return nil, err
		}
		var out [][]any
		sn.inputs(x.stats, len(lr)+len(rr))
		switch op {
		case pg_query.SetOperation_SETOP_UNION:
			out = append(lr, rr...)
			if !all {
				out = dedupe(out, key)
			}
		case pg_query.SetOperation_SETOP_INTERSECT, pg_query.SetOperation_SETOP_EXCEPT:
			counts := map[string]int{}
			for _, row := range rr {
				counts[key(row)]++
			}
			if !all {
				lr = dedupe(lr, key)
			}
			for _, row := range lr {
				k := key(row)
				in := counts[k] > 0
				if (op == pg_query.SetOperation_SETOP_INTERSECT) == in {
					out = append(out, row)
				}
				if all && in {
					counts[k]--
				}
			}
		}
		sn.outputs(x.stats, len(out))
		return out, nil
	}
	return b.finishOutput(parent, p, st)
}

func copyRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = append([]any(nil), r...)
	}
	return out
}

func dedupe(rows [][]any, key func([]any) string) [][]any {
	seen := map[string]bool{}
	var out [][]any
	for _, r := range rows {
		k := key(r)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// inHashed compiles x IN (uncorrelated subquery) with a hash set of the
// subquery's values, built once per statement.
func (b *binder) inHashed(p *selectPlan, test *scalar, rows func(*execCtx) ([][]any, error)) *scalar {
	typ := p.cols[0].typ
	type set struct {
		keys    map[string]bool
		hasNull bool
		empty   bool
	}
	var self *scalar
	self = &scalar{typ: types.Bool, slot: -1, refs: test.refs, name: "?column?", eval: func(x *execCtx) (any, error) {
		v, _ := x.memoGet(self)
		cache, _ := v.(*set)
		if cache == nil {
			rs, err := rows(x)
			if err != nil {
				return nil, err
			}
			cache = &set{keys: map[string]bool{}, empty: len(rs) == 0}
			for _, r := range rs {
				if r[0] == nil {
					cache.hasNull = true
					continue
				}
				cache.keys[string(types.AppendKey(nil, typ, r[0]))] = true
			}
			x.memoSet(self, cache)
		}
		if cache.empty {
			return false, nil
		}
		v, err := test.eval(x)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil
		}
		if cache.keys[string(types.AppendKey(nil, typ, v))] {
			return true, nil
		}
		if cache.hasNull {
			return nil, nil
		}
		return false, nil
	}}
	return self
}

// recursiveRowLimit bounds the rows a recursive WITH query may produce: a
// query that does not terminate fails with 54000 instead of exhausting
// memory.
const recursiveRowLimit = 1_000_000

// recursiveCTE compiles WITH RECURSIVE name AS (base UNION [ALL] step):
// the step runs on the rows the previous round produced until it produces
// none (UNION drops rows already produced).
func (b *binder) recursiveCTE(parent *scope, c *pg_query.CommonTableExpr, st *pg_query.SelectStmt, ctes map[string]*ctePlan) (*selectPlan, error) {
	if len(st.SortClause) > 0 || st.LimitCount != nil || st.LimitOffset != nil {
		return nil, pgerror.Unsupported("ORDER BY or LIMIT in a recursive query")
	}
	if len(st.LockingClause) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented")
	}
	if err := checkRecursion(c, st, b.userAggregateNamed); err != nil {
		return nil, err
	}
	if st.WithClause != nil {
		// WITH queries of the UNION itself, which both terms read; they
		// cannot read the recursive query (checkRecursion).
		var err error
		if ctes, err = b.withClause(parent, st.WithClause, ctes); err != nil {
			return nil, err
		}
	}
	base, err := b.selectStmt(parent, st.Larg, ctes)
	if err != nil {
		return nil, err
	}
	cols := append([]outCol(nil), base.cols...)
	for i := range cols {
		if cols[i].typ.Oid == types.OidUnknown {
			cols[i].typ = types.Text
		}
	}
	for i, n := range strs(c.Aliascolnames) {
		if i < len(cols) {
			cols[i].Name = n
		}
	}
	self := &ctePlan{name: c.Ctename}
	self.worktables = []*ctePlan{self}
	self.plan = &selectPlan{cols: cols, correlated: true, run: func(x *execCtx) ([][]any, error) {
		v, _ := x.memoGet(self)
		rows, _ := v.([][]any)
		return rows, nil
	}, node: newNode(&worktableOp{name: c.Ctename}, 10, widthOf(colTypes(cols)), 0)}
	inner := map[string]*ctePlan{}
	for k, v := range ctes {
		inner[k] = v
	}
	inner[c.Ctename] = self
	reads := len(b.worktableReads)
	step, err := b.selectStmt(parent, st.Rarg, inner)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(b.worktableReads[reads:], func(w *ctePlan) bool { return w != self }) {
		// It reads an enclosing recursive query's round as well: fickle
		// runs it to its end in every round, where PostgreSQL reads only
		// the rows its reader asks for.
		return nil, pgerror.Unsupported("a recursive WITH query whose recursive term reads an enclosing recursive query")
	}
	b.worktableReads = b.worktableReads[:reads] // its own rounds are its own

	if len(step.cols) != len(cols) {
		return nil, pgerror.Newf(pgerror.SyntaxError, "each UNION query must have the same number of columns")
	}
	if err := recursiveCollations(c.Ctename, cols, step.cols, st.All); err != nil {
		return nil, err
	}
	convs := make([]types.CastFunc, len(cols))
	for i, sc := range step.cols {
		from := sc.typ
		if from.Oid == types.OidUnknown {
			from = types.Text
		}
		if same, records := sameRecordFields(from, cols[i].typ); same {
			continue
		} else if records {
			return nil, pgerror.Unsupported("a recursive query whose terms give anonymous records of different shapes")
		}
		if from.Oid == cols[i].typ.Oid && cols[i].typ.Typmod >= 0 && from.Typmod != cols[i].typ.Typmod {
			// The terms' common type drops the typmod they disagree on,
			// and so differs from the non-recursive term's.
			overall := types.Type{Oid: from.Oid, Typmod: -1}
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", c.Ctename, i+1, cols[i].typ, overall).
				WithHint("Cast the output of the non-recursive term to the correct type.")
		}
		if from != cols[i].typ {
			f, err := types.LookupCast(from, cols[i].typ, types.CastImplicit)
			if err != nil {
				return nil, pgerror.Newf(pgerror.DatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", c.Ctename, i+1, cols[i].typ, from).
					WithHint("Cast the output of the non-recursive term to the correct type.")
			}
			convs[i] = f
		}
	}
	all := st.All
	if !all {
		// generate_recursion_path: a recursive UNION deduplicates by
		// hashing only.
		for _, c := range cols {
			if !types.HasHashClass(c.typ) {
				return nil, pgerror.New(pgerror.FeatureNotSupported, "could not implement recursive UNION").
					WithDetail("All column datatypes must be hashable.")
			}
		}
	}
	key := func(r []any) string {
		var buf []byte
		for i, c := range cols {
			buf = types.AppendKey(buf, c.typ, r[i])
		}
		return string(buf)
	}
	node := newNode(recursiveUnionOp{}, base.node.rows+10*step.node.rows, widthOf(colTypes(cols)), 0, base.node, step.node)
	p := &selectPlan{cols: cols, correlated: base.correlated || step.correlated, node: node}
	p.lazy = func() *lazyRows {
		seen := map[string]bool{}
		var work [][]any // the last round's new rows, which the next round reads
		addNew := func(r *lazyRows, rs [][]any) {
			work = nil
			for _, row := range rs {
				if !all {
					k := key(row)
					if seen[k] {
						continue
					}
					seen[k] = true
				}
				work = append(work, row)
			}
			r.rows = append(r.rows, work...)
			r.done = len(work) == 0
		}
		started := false
		return &lazyRows{next: func(x *execCtx, r *lazyRows) error {
			if !started {
				started = true
				rows, err := base.run(x)
				if err != nil {
					return err
				}
				addNew(r, copyRows(rows))
				return nil
			}
			if err := x.checkCancel(); err != nil {
				return err
			}
			if len(r.rows) > recursiveRowLimit {
				return pgerror.Newf(pgerror.ProgramLimitExceeded, "recursive query \"%s\" produced more than %d rows", c.Ctename, recursiveRowLimit)
			}
			saved, hadSaved := x.memoGet(self)
			x.memoSet(self, work)
			next, err := step.run(x)
			if hadSaved {
				x.memoSet(self, saved)
			} else {
				x.memoDelete(self)
			}
			if err != nil {
				return err
			}
			next = copyRows(next)
			for _, row := range next {
				for i, f := range convs {
					if f != nil && row[i] != nil {
						if row[i], err = f(row[i]); err != nil {
							return err
						}
					}
				}
			}
			addNew(r, next)
			return nil
		}}
	}
	p.run = func(x *execCtx) ([][]any, error) { return p.lazy().all(x) }
	return p, nil
}

// existsDropsSelectList reports whether PostgreSQL's planner drops the
// select list of st, an EXISTS subquery, before running it
// (simplify_EXISTS_query): only whether a row comes back matters, so its
// outputs are not computed, nor fail, unless the query aggregates, uses
// windows, grouping sets, HAVING, OFFSET, a LIMIT, a locking clause, a set
// operation or a data-modifying WITH query.
func (b *binder) existsDropsSelectList(st *pg_query.SelectStmt) bool {
	if st.Op != pg_query.SetOperation_SETOP_NONE || st.HavingClause != nil || st.LimitCount != nil || st.LimitOffset != nil ||
		len(st.LockingClause) > 0 || len(st.WindowClause) > 0 || hasGroupingSets(st.GroupClause) {
		return false
	}
	if w := st.WithClause; w != nil {
		for _, c := range w.Ctes {
			if modifiedTable(c.GetCommonTableExpr().Ctequery) != nil {
				return false
			}
		}
	}
	sorts := make([]*pg_query.Node, 0, len(st.SortClause))
	for _, n := range st.SortClause {
		sorts = append(sorts, n.GetSortBy().Node)
	}
	nodes := append(slices.Clone(st.TargetList), sorts...)
	if containsAgg(b.userAggregateNamed, nodes...) {
		return false
	}
	window := false
	for _, n := range nodes {
		walk(n, func(c *pg_query.Node) bool {
			if c.GetSubLink() != nil || window {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over != nil {
				window = true
			}
			return !window
		})
	}
	return !window
}

// sameRecordFields reports, for a and b both anonymous records or both
// arrays of them (records), whether they are alike: PostgreSQL types them
// the same (record, record[]), and fickle's shapes agree when their fields
// have the same types or one of them is unknown (an operator's result).
func sameRecordFields(a, b types.Type) (same, records bool) {
	if a.Oid != b.Oid || a.Oid != types.OidRecord && a.Oid != types.OidRecordArray {
		return false, false
	}
	if ae, ok := a.Elem(); ok {
		a = ae
	}
	if be, ok := b.Elem(); ok {
		b = be
	}
	af, aok := a.Fields()
	bf, bok := b.Fields()
	if !aok || !bok {
		return true, true
	}
	return slices.EqualFunc(af, bf, func(x, y types.Field) bool { return x.Type == y.Type }), true
}
