package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// Queries (a view's) print as pg_get_viewdef prints them: one clause per
// line, indented as ruleutils indents them, column references qualified
// with their relation, output columns named with AS where the name is not
// the column's own. Pretty printing leaves out the parentheses that
// ruleutils' plain form puts around every operator and join. A query the
// deparser cannot analyze prints through pg_query's deparser instead.

// prettyIndent is PRETTYINDENT_STD: how much deeper a subquery prints.
const prettyIndent = 8

// deparseQuery prints a stored query (a view's, its columns named names)
// as pg_get_viewdef does.
func deparseQuery(s *Session, c *catalog, query *pg_query.Node, names []string, pretty bool) string {
	d := &deparser{b: &binder{s: s, cat: c}, sc: &scope{}, qualify: true}
	if out, err := d.query(query.GetSelectStmt(), names, 0, pretty); err == nil {
		return out
	}
	tree := &pg_query.ParseResult{Version: parseTreeVersion, Stmts: []*pg_query.RawStmt{{Stmt: query}}}
	out, err := pg_query.Deparse(tree)
	if err != nil {
		return "?"
	}
	return out
}

// query prints a SELECT (or set operation) whose clauses indent from
// column indent, its output columns named names where given.
func (d *deparser) query(st *pg_query.SelectStmt, names []string, indent int, pretty bool) (string, error) {
	if st == nil || len(st.LockingClause) > 0 || len(st.ValuesLists) > 0 {
		return "", errNotDeparsed
	}
	if d.aliases == nil {
		d.aliases = map[*scope]map[string]string{}
	}
	if st.WithClause != nil {
		return d.withQuery(st, names, indent, pretty)
	}
	return d.selectQuery(st, names, indent, pretty)
}

// selectQuery is query for a SELECT or set operation without its WITH
// clause, which withQuery printed.
func (d *deparser) selectQuery(st *pg_query.SelectStmt, names []string, indent int, pretty bool) (string, error) {
	pad := func(n int) string { return "\n" + strings.Repeat(" ", indent+n) }
	if st.Op != pg_query.SetOperation_SETOP_NONE {
		// get_setop_query: a view's columns name every branch's (names);
		// elsewhere each branch names its own, and those of a branch
		// after the first are not seen (no AS "?column?").
		l, err := d.query(st.Larg, names, indent, pretty)
		if err != nil {
			return "", err
		}
		right := *d
		right.namesHidden = true
		r, err := right.query(st.Rarg, names, indent, pretty)
		if err != nil {
			return "", err
		}
		op := strings.TrimPrefix(st.Op.String(), "SETOP_")
		if st.All {
			op += " ALL"
		}
		return l + pad(0)[:indent+1] + op + "\n" + strings.Repeat(" ", indent) + r, nil
	}
	items, sc, _, err := d.b.buildFrom(d.sc, st.FromClause, d.ctes)
	if err != nil {
		return "", err
	}
	sc.deparsed = true
	if usingNameShared(sc) {
		return "", errNotDeparsed
	}
	inner := &deparser{b: d.b, sc: sc, qualify: true, ctes: d.ctes, pretty: pretty, aliases: d.aliases,
		levels: append(slices.Clip(d.levels), d.nameItems(sc)), namesHidden: d.namesHidden}
	var b strings.Builder
	b.WriteString(" SELECT ")
	distinct, on := distinctKind(st)
	switch {
	case on:
		keys, err := inner.sortGroupKeys(st.DistinctClause, pretty)
		if err != nil {
			return "", err
		}
		b.WriteString("DISTINCT ON (" + keys + ") ")
	case distinct:
		b.WriteString("DISTINCT ")
	}
	targets, err := inner.targetList(st.TargetList, names, pretty)
	if err != nil {
		return "", err
	}
	b.WriteString(strings.Join(targets, ","+pad(4)))
	if len(st.FromClause) > 0 {
		b.WriteString(pad(3) + "FROM ")
		for i, f := range st.FromClause {
			if i > 0 {
				b.WriteString("," + pad(4))
			}
			s, err := inner.fromItem(f, items, indent, pretty, true)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
	}
	clause := func(n *pg_query.Node, keyword string, at int) error {
		if n == nil {
			return nil
		}
		e, err := inner.analyze(n)
		if err != nil {
			return err
		}
		b.WriteString(pad(at) + keyword + " " + inner.print(e, nil, pretty, false))
		return nil
	}
	if err := clause(st.WhereClause, "WHERE", 2); err != nil {
		return "", err
	}
	if len(st.GroupClause) > 0 {
		keys, err := inner.sortGroupKeys(st.GroupClause, pretty)
		if err != nil {
			return "", err
		}
		b.WriteString(pad(2) + "GROUP BY " + keys)
	}
	if err := clause(st.HavingClause, "HAVING", 1); err != nil {
		return "", err
	}
	if len(st.WindowClause) > 0 {
		w, err := inner.windowClause(st.WindowClause)
		if err != nil {
			return "", err
		}
		b.WriteString(pad(2) + w)
	}
	if len(st.SortClause) > 0 {
		keys, err := inner.orderKeys(st.SortClause, pretty)
		if err != nil {
			return "", err
		}
		b.WriteString(pad(2) + "ORDER BY " + keys)
	}
	if err := clause(st.LimitOffset, "OFFSET", 1); err != nil {
		return "", err
	}
	if st.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		// ruleutils prints the count parenthesized: FETCH FIRST (2) ROWS WITH TIES.
		e, err := inner.analyze(st.LimitCount)
		if err != nil {
			return "", err
		}
		b.WriteString(pad(1) + "FETCH FIRST (" + inner.print(e, nil, pretty, false) + ") ROWS WITH TIES")
	} else if err := clause(st.LimitCount, "LIMIT", 1); err != nil {
		return "", err
	}
	return b.String(), nil
}

// withQuery prints a query with a WITH clause as ruleutils'
// get_with_clause does: each query one level deeper inside its
// parentheses, then the query that reads them. A recursive query reads
// itself, under another name where the query reading it reads it too
// (r r_1), as set_rtable_names renames it.
func (d *deparser) withQuery(st *pg_query.SelectStmt, names []string, indent int, pretty bool) (string, error) {
	w := st.WithClause
	ctes, err := d.b.withClause(d.sc, w, d.ctes)
	if err != nil {
		return "", err
	}
	// The WITH queries are printed inside the query that reads them: its
	// FROM items' names are taken for them.
	_, mainFrom, _, err := d.b.buildFrom(d.sc, st.FromClause, ctes)
	if err != nil {
		return "", err
	}
	levels := append(slices.Clip(d.levels), d.itemNames(mainFrom))
	var b strings.Builder
	sep := " WITH "
	if w.Recursive {
		sep = " WITH RECURSIVE "
	}
	for i, n := range w.Ctes {
		cte := n.GetCommonTableExpr()
		body := cte.Ctequery.GetSelectStmt()
		if body == nil || cte.SearchClause != nil || cte.CycleClause != nil {
			return "", errNotDeparsed
		}
		b.WriteString(sep + types.QuoteIdent(cte.Ctename))
		if len(cte.Aliascolnames) > 0 {
			cols := strs(cte.Aliascolnames)
			for j, c := range cols {
				cols[j] = types.QuoteIdent(c)
			}
			b.WriteString("(" + strings.Join(cols, ", ") + ")")
		}
		b.WriteString(" AS ")
		switch cte.Ctematerialized {
		case pg_query.CTEMaterialize_CTEMaterializeAlways:
			b.WriteString("MATERIALIZED ")
		case pg_query.CTEMaterialize_CTEMaterializeNever:
			b.WriteString("NOT MATERIALIZED ")
		}
		// A WITH query reads the ones before it.
		before := map[string]*ctePlan{}
		for k, v := range d.ctes {
			before[k] = v
		}
		reads := w.Ctes[:i]
		if w.Recursive {
			reads = w.Ctes // a recursive WITH's queries read each other and themselves
		}
		for _, m := range reads {
			name := m.GetCommonTableExpr().Ctename
			before[name] = ctes[name]
		}
		inner := &deparser{b: d.b, sc: d.sc, qualify: true, ctes: before, aliases: d.aliases, levels: levels}
		q, err := inner.query(body, nil, indent+prettyIndent, pretty)
		if err != nil {
			return "", err
		}
		pad := "\n" + strings.Repeat(" ", indent+prettyIndent)
		b.WriteString("(" + pad + q + pad + ")")
		sep = ", "
	}
	outer := &deparser{b: d.b, sc: d.sc, qualify: true, ctes: ctes, aliases: d.aliases, levels: d.levels}
	q, err := outer.selectQuery(st, names, indent, pretty)
	if err != nil {
		return "", err
	}
	return b.String() + "\n" + strings.Repeat(" ", indent) + q, nil
}

// orderKeys prints the keys of an ORDER BY, with their directions and
// NULLS orders where not the default.
func (d *deparser) orderKeys(sortClause []*pg_query.Node, pretty bool) (string, error) {
	var keys []string
	for _, n := range sortClause {
		sb := n.GetSortBy()
		if sb.UseOp != nil {
			return "", errNotDeparsed
		}
		e, err := d.analyze(sb.Node)
		if err != nil {
			return "", err
		}
		key := d.sortGroupKey(e, pretty)
		desc := sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC
		if desc {
			key += " DESC"
		}
		switch {
		case sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_FIRST && !desc:
			key += " NULLS FIRST"
		case sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_LAST && desc:
			key += " NULLS LAST"
		}
		keys = append(keys, key)
	}
	return strings.Join(keys, ", "), nil
}

// sortGroupKeys prints the keys of a DISTINCT ON, GROUP BY or PARTITION
// BY list.
func (d *deparser) sortGroupKeys(nodes []*pg_query.Node, pretty bool) (string, error) {
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		e, err := d.analyze(n)
		if err != nil {
			return "", err
		}
		keys[i] = d.sortGroupKey(e, pretty)
	}
	return strings.Join(keys, ", "), nil
}

// sortGroupKey prints a key of DISTINCT ON, GROUP BY or ORDER BY as
// ruleutils' get_rule_sortgroupclause does: a column as it is, a
// function-like expression always in parentheses (they would misparse
// without), any other in parentheses when pretty (the plain form
// parenthesizes it itself).
func (d *deparser) sortGroupKey(e *dnode, pretty bool) string {
	out := d.print(e, nil, pretty, false)
	if e.kind != dColumn && e.kind != dConst && (pretty || e.kind == dFunc) {
		return "(" + out + ")"
	}
	return out
}

// targetList prints the select list: each expression, with AS and the
// output name unless the expression is a column of that name. names,
// when given, are the output columns' names (a view's, or those of the
// first branch of a set operation).
func (d *deparser) targetList(targets []*pg_query.Node, names []string, pretty bool) ([]string, error) {
	var out []string
	for _, t := range targets {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			rel := ""
			if len(cr.Fields) > 1 {
				rel = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
			}
			for _, c := range starCols(d.sc) {
				if !c.hidden && (rel == "" || c.rel == rel) {
					owner := c.rel
					if rel == "" {
						owner = mergedColumnRel(d.sc, c)
					}
					s := types.QuoteIdent(c.name)
					if owner != "" {
						s = types.QuoteIdent(d.alias(d.sc, owner)) + "." + s
					}
					if len(names) > len(out) && names[len(out)] != c.name {
						s += " AS " + types.QuoteIdent(names[len(out)])
					}
					out = append(out, s)
				}
			}
			continue
		}
		e, err := d.analyze(rt.Val)
		if err != nil {
			return nil, err
		}
		if e.literal {
			e = d.coerce(e, types.Text)
		}
		s, err := d.printTopLevel(e, pretty)
		if err != nil {
			return nil, err
		}
		name := rt.Name
		if len(names) > len(out) {
			name = names[len(out)]
		}
		if name == "" {
			name = figureColname(rt.Val)
		}
		if (e.kind != dColumn || e.column != name) && !(d.namesHidden && name == "?column?") {
			s += " AS " + types.QuoteIdent(name)
		}
		out = append(out, s)
	}
	return out, nil
}

// functionItem prints a built-in set-returning function in FROM as
// ruleutils does: LATERAL when it was written so or reads an earlier item,
// the call with its arguments coerced to the types the call resolved to,
// WITH ORDINALITY, and the alias with every output column's name. ROWS
// FROM, column definition lists, user functions and scalar functions are
// not printed.
func (d *deparser) functionItem(rf *pg_query.RangeFunction, pretty bool) (string, error) {
	if rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
		return "", errNotDeparsed
	}
	fn := rf.Functions[0].GetList()
	if fn == nil || len(fn.Items) == 0 || len(fn.Items) > 1 && len(fn.Items[1].GetList().GetItems()) > 0 {
		return "", errNotDeparsed
	}
	fc := fn.Items[0].GetFuncCall()
	if fc == nil {
		return "", errNotDeparsed
	}
	name := strings.ToLower(lastName(fc.Funcname))
	args := make([]*dnode, len(fc.Args))
	ts := make([]types.Type, len(fc.Args))
	for i, a := range fc.Args {
		e, err := d.analyze(a)
		if err != nil {
			return "", err
		}
		args[i], ts[i] = e, e.typ
	}
	// The arguments read the items before this one (and the enclosing
	// queries); one that reads an item of this level makes it LATERAL.
	lateral := rf.Lateral
	outer := d.sc.parent
	if outer == nil {
		outer = &scope{}
	}
	var params []types.Type
	op := name
	if set := d.b.lookupSetFunc(strs(fc.Funcname)); set != nil && len(fc.Funcname) == 1 {
		if set.record || set.schema != "pg_catalog" {
			return "", errNotDeparsed
		}
		if _, err := d.b.bindSetCall(outer, set, fc); err != nil {
			lateral = true
		}
		var err error
		if params, err = builtinSetParams(name, ts); err != nil {
			return "", err
		}
	} else if f, err := d.userFunc(fc, ts, true); err != nil || f == nil {
		return "", errNotDeparsed
	} else {
		for _, a := range fc.Args {
			if _, err := d.b.expr(outer, a); err != nil {
				lateral = true
			}
		}
		params, op, name = f.in, d.userFuncName(f), f.name
	}
	for i, e := range args {
		args[i] = d.coerce(e, params[i])
	}
	out := d.print(&dnode{kind: dFunc, op: op, args: args}, nil, pretty, false)
	if lateral {
		out = "LATERAL " + out
	}
	if rf.Ordinality {
		out += " WITH ORDINALITY"
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	return out + " " + types.QuoteIdent(d.alias(d.sc, alias)) + d.columnAliases(alias), nil
}

// builtinSetParams returns the parameter types of the built-in
// set-returning function name that PostgreSQL's overload resolution picks
// for arguments of types args: a polymorphic parameter takes its
// argument's type, which needs no coercion.
func builtinSetParams(name string, args []types.Type) ([]types.Type, error) {
	var sigs [][]types.Type
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace != oidPgCatalog || p.kind != 'f' || !p.retset || len(p.args) != len(args) {
			continue
		}
		sig := make([]types.Type, len(args))
		for i, a := range p.args {
			sig[i] = types.Type{Oid: types.Oid(a), Typmod: -1}
			if sig[i].IsPolymorphic() {
				sig[i] = args[i]
			}
		}
		sigs = append(sigs, sig)
	}
	if len(sigs) == 0 {
		return nil, errNotDeparsed
	}
	chosen, err := types.ChooseOverload(name, args, sigs)
	if err != nil {
		return nil, errNotDeparsed
	}
	return sigs[chosen], nil
}

// usingNameShared reports whether a JOIN ... USING column's name is also
// the name of a column of another item of the FROM list: ruleutils then
// renames those columns (x_1, with column aliases on their items) so that
// the merged column's name is unique, which this deparser does not.
func usingNameShared(sc *scope) bool {
	using := map[string]bool{}
	for _, c := range sc.cols {
		if c.merged {
			using[c.name] = true
		}
	}
	if len(using) == 0 {
		return false
	}
	seen := map[string]int{}
	for _, c := range sc.cols {
		if !c.merged && using[c.name] {
			if seen[c.name]++; seen[c.name] > 1 {
				return true
			}
		}
	}
	return false
}

// isValuesList reports whether st is a bare VALUES list.
func isValuesList(st *pg_query.SelectStmt) bool {
	return len(st.ValuesLists) > 0 && st.WithClause == nil && len(st.SortClause) == 0 && st.LimitCount == nil &&
		st.LimitOffset == nil && st.Op == pg_query.SetOperation_SETOP_NONE
}

// values prints a VALUES list as ruleutils' get_values_def does: each
// value coerced to its column's type, a row's values separated by bare
// commas.
func (d *deparser) values(st *pg_query.SelectStmt, plan *selectPlan, pretty bool) (string, error) {
	rows := make([]string, len(st.ValuesLists))
	for i, n := range st.ValuesLists {
		items := n.GetList().GetItems()
		if len(items) != len(plan.cols) {
			return "", errNotDeparsed
		}
		vals := make([]string, len(items))
		for j, item := range items {
			e, err := d.analyze(item)
			if err != nil {
				return "", err
			}
			if vals[j], err = d.printTopLevel(d.coerce(e, plan.cols[j].typ), pretty); err != nil {
				return "", err
			}
		}
		rows[i] = "(" + strings.Join(vals, ",") + ")"
	}
	return " VALUES " + strings.Join(rows, ", "), nil
}

// columnAliases is the parenthesized list of the names of the columns the
// FROM item named rel has in the deparser's scope.
func (d *deparser) columnAliases(rel string) string {
	var names []string
	for _, c := range d.sc.cols {
		if c.rel == rel && !c.hidden && !c.system {
			names = append(names, types.QuoteIdent(c.name))
		}
	}
	return "(" + strings.Join(names, ", ") + ")"
}

// fromItem prints one FROM item: a relation with its alias, a subquery,
// or a join tree (parenthesized in the plain form).
func (d *deparser) fromItem(n *pg_query.Node, items []*fromItem, indent int, pretty, top bool) (string, error) {
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		rv := v.RangeVar
		name := types.QuoteIdent(rv.Relname)
		if rv.Schemaname != "" && !d.b.s.relationOnPath(d.b.cat, rv.Schemaname, rv.Relname) {
			name = types.QuoteIdent(rv.Schemaname) + "." + name
		}
		ref := rv.Relname
		if rv.Alias != nil {
			ref = rv.Alias.Aliasname
		}
		if alias := d.alias(d.sc, ref); alias != rv.Relname || rv.Alias != nil {
			name += " " + types.QuoteIdent(alias)
		}
		if rv.Alias != nil && len(rv.Alias.Colnames) > 0 {
			name += d.columnAliases(ref)
		}
		return name, nil
	case *pg_query.Node_RangeFunction:
		return d.functionItem(v.RangeFunction, pretty)
	case *pg_query.Node_RangeSubselect:
		rs := v.RangeSubselect
		// A LATERAL subquery reads the items before it: this level's
		// scope is its outer one.
		outer, lateral := d.sc.parent, ""
		if rs.Lateral {
			outer, lateral = d.sc, "LATERAL "
		}
		inner := &deparser{b: d.b, sc: outer, qualify: true, ctes: d.ctes, aliases: d.aliases, levels: d.levels}
		if inner.sc == nil {
			inner.sc = &scope{}
		}
		st := rs.Subquery.GetSelectStmt()
		plan, err := d.b.selectStmt(inner.sc, st, d.ctes)
		if err != nil {
			return "", err
		}
		var q string
		if isValuesList(st) {
			q, err = inner.values(st, plan, pretty)
		} else {
			q, err = inner.query(st, nil, indent+prettyIndent, pretty)
		}
		if err != nil {
			return "", err
		}
		alias := rs.Alias.Aliasname
		out := lateral + "(" + q + ") " + types.QuoteIdent(d.alias(d.sc, alias))
		// The columns' names follow when the alias names any.
		if len(rs.Alias.Colnames) > 0 {
			out += d.columnAliases(alias)
		}
		return out, nil
	case *pg_query.Node_JoinExpr:
		j := v.JoinExpr
		if j.Alias != nil {
			return "", errNotDeparsed
		}
		using := strs(j.UsingClause)
		if j.IsNatural {
			var err error
			if using, err = d.naturalColumns(j); err != nil {
				return "", err
			}
		}
		l, err := d.fromItem(j.Larg, items, indent, pretty, false)
		if err != nil {
			return "", err
		}
		r, err := d.fromItem(j.Rarg, items, indent, pretty, false)
		if err != nil {
			return "", err
		}
		kind := map[pg_query.JoinType]string{pg_query.JoinType_JOIN_INNER: "JOIN", pg_query.JoinType_JOIN_LEFT: "LEFT JOIN",
			pg_query.JoinType_JOIN_RIGHT: "RIGHT JOIN", pg_query.JoinType_JOIN_FULL: "FULL JOIN"}[j.Jointype]
		s := l + "\n" + strings.Repeat(" ", indent+5) + kind + " " + r
		if len(using) > 0 {
			quoted := make([]string, len(using))
			for i, u := range using {
				quoted[i] = types.QuoteIdent(u)
			}
			s += " USING (" + strings.Join(quoted, ", ") + ")"
			if j.JoinUsingAlias != nil {
				s += " AS " + types.QuoteIdent(j.JoinUsingAlias.Aliasname)
			}
		} else if j.Quals != nil {
			e, err := d.analyze(j.Quals)
			if err != nil {
				return "", err
			}
			if pretty {
				s += " ON " + d.print(e, nil, pretty, false)
			} else {
				s += " ON (" + d.print(e, nil, pretty, false) + ")"
			}
		} else if j.Jointype == pg_query.JoinType_JOIN_INNER {
			s = l + "\n" + strings.Repeat(" ", indent+5) + "CROSS JOIN " + r
		} else {
			s += " ON TRUE"
		}
		if !pretty {
			s = "(" + s + ")"
		}
		return s, nil
	}
	return "", errNotDeparsed
}

// naturalColumns are the columns NATURAL JOIN j joins on: those of its
// left side, in their order, that its right side has too.
func (d *deparser) naturalColumns(j *pg_query.JoinExpr) ([]string, error) {
	left, right, err := d.sideColumns(j)
	return commonColumns(left, right), err
}

// sideColumns are the columns (itemColumns) of join j's left and right
// sides.
func (d *deparser) sideColumns(j *pg_query.JoinExpr) (left, right []string, err error) {
	if left, err = d.itemColumns(j.Larg); err != nil {
		return nil, nil, err
	}
	right, err = d.itemColumns(j.Rarg)
	return left, right, err
}

// commonColumns are the names of left that right has too, in left's order.
func commonColumns(left, right []string) []string {
	var out []string
	for _, name := range left {
		if slices.Contains(right, name) {
			out = append(out, name)
		}
	}
	return out
}

// itemColumns names the columns a FROM item of a join shows: a table's or
// view's, or a join's (its USING columns first, then those of its left
// side and of its right side it did not merge).
func (d *deparser) itemColumns(n *pg_query.Node) ([]string, error) {
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		rv := v.RangeVar
		if rv.Alias != nil && len(rv.Alias.Colnames) > 0 {
			return nil, errNotDeparsed
		}
		if t := d.b.s.lookupTable(d.b.cat, rv.Schemaname, rv.Relname); t != nil {
			var out []string
			for _, c := range t.cols {
				out = append(out, c.name)
			}
			return out, nil
		}
		if vw := d.b.s.lookupView(d.b.cat, rv.Schemaname, rv.Relname); vw != nil {
			return vw.colNames(), nil
		}
	case *pg_query.Node_JoinExpr:
		j := v.JoinExpr
		if j.Alias != nil {
			return nil, errNotDeparsed
		}
		left, right, err := d.sideColumns(j)
		if err != nil {
			return nil, err
		}
		using := strs(j.UsingClause)
		if j.IsNatural {
			using = commonColumns(left, right)
		}
		out := slices.Clone(using)
		for _, name := range append(left, right...) {
			if !slices.Contains(using, name) {
				out = append(out, name)
			}
		}
		return out, nil
	}
	return nil, errNotDeparsed
}

// relationOnPath reports whether an unqualified name finds the relation
// schema.name along the search path.
func (s *Session) relationOnPath(c *catalog, schema, name string) bool {
	want, ok := relationIn(c, []string{schema}, name)
	found, ok2 := relationIn(c, s.searchPath(), name)
	return ok && ok2 && want == found
}

// subquery prints a subquery of an expression, parenthesized, its clauses
// indent deeper than the expression.
func (d *deparser) subquery(st *pg_query.SelectStmt, indent int, pretty bool) (string, error) {
	inner := &deparser{b: d.b, sc: d.sc, qualify: true, ctes: d.ctes, aliases: d.aliases, levels: d.levels, namesHidden: true}
	q, err := inner.query(st, nil, indent, pretty)
	if err != nil {
		return "", err
	}
	return "(" + q + ")", nil
}

// columnName resolves a column reference the way the binder does and
// returns its text (qualified, the relation's name before it), its name
// and its compiled value.
func (d *deparser) columnName(cr *pg_query.ColumnRef) (string, string, *scalar, error) {
	e, err := d.b.expr(d.sc, &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: cr}})
	if err != nil {
		return "", "", nil, err
	}
	name := cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
	if d.domainValue && len(cr.Fields) == 1 && name == "value" {
		return "VALUE", name, e, nil
	}
	if !d.qualify {
		return types.QuoteIdent(name), name, e, nil
	}
	rel, level := "", (*scope)(nil)
	if len(cr.Fields) > 1 {
		rel = cr.Fields[len(cr.Fields)-2].GetString_().GetSval()
		level = relLevel(d.sc, rel)
	}
	if len(cr.Fields) == 2 && level == nil {
		// Through a JOIN ... USING alias: named as the merged column is.
		for cur := d.sc; cur != nil && level == nil; cur = cur.parent {
			for _, c := range cur.usingAliasSources(rel) {
				if c.name == name {
					rel, level = mergedColumnRel(cur, c), cur
				}
			}
		}
	}
	for cur := d.sc; cur != nil && rel == ""; cur = cur.parent {
		for _, c := range cur.cols {
			if c.name == name && !c.merged {
				rel, level = mergedColumnRel(cur, c), cur
				break
			}
		}
	}
	if rel == "" {
		return types.QuoteIdent(name), name, e, nil
	}
	return types.QuoteIdent(d.alias(level, rel)) + "." + types.QuoteIdent(name), name, e, nil
}

// nameItems gives the FROM items of sc, a query level being printed, the
// names ruleutils' set_rtable_names gives them: each keeps its name unless
// an earlier item of the level or an item of an enclosing level has it,
// and then takes the first free name_N.
func (d *deparser) nameItems(sc *scope) map[string]string {
	names := d.itemNames(sc)
	d.aliases[sc] = names
	return names
}

// itemNames is the names nameItems gives sc's items.
func (d *deparser) itemNames(sc *scope) map[string]string {
	used := map[string]bool{}
	for _, level := range d.levels {
		for _, alias := range level {
			used[alias] = true
		}
	}
	names := map[string]string{}
	for _, c := range sc.cols {
		if c.rel == "" || names[c.rel] != "" {
			continue
		}
		alias := c.rel
		for n := 1; used[alias]; n++ {
			alias = fmt.Sprintf("%s_%d", c.rel, n)
		}
		names[c.rel], used[alias] = alias, true
	}
	return names
}

// alias is the name the FROM item rel of query level sc is printed as.
func (d *deparser) alias(sc *scope, rel string) string {
	if a := d.aliases[sc][rel]; a != "" {
		return a
	}
	return rel
}

// relLevel is the query level, sc or an enclosing one, whose FROM items
// include one named rel.
func relLevel(sc *scope, rel string) *scope {
	for cur := sc; cur != nil; cur = cur.parent {
		for _, c := range cur.cols {
			if c.rel == rel {
				return cur
			}
		}
	}
	return nil
}

// mergedColumnRel is the relation ruleutils names for column c of sc. The
// left column of a JOIN ... USING pair whose common type is not its own is
// PostgreSQL's merged join column: the right side's column when the join is
// inner and that column has the common type, else a conversion, which
// ruleutils names by the join's column alone ("").
func mergedColumnRel(sc *scope, c scopeCol) string {
	if c.usingType.Oid == 0 {
		return c.rel
	}
	for _, m := range sc.cols {
		if m.merged && m.name == c.name && c.usingInner && m.typ.Oid == c.usingType.Oid {
			return m.rel
		}
	}
	return ""
}

// aggregate analyzes an aggregate call: count(*) and the aggregates of
// package types, their arguments coerced to the declared types.
func (d *deparser) aggregate(fc *pg_query.FuncCall, name string) (*dnode, error) {
	if fc.AggWithinGroup {
		return nil, errNotDeparsed
	}
	out := &dnode{kind: dFunc, op: name}
	var ts []types.Type
	for _, a := range fc.Args {
		e, err := d.analyze(a)
		if err != nil {
			return nil, err
		}
		out.args = append(out.args, e)
		ts = append(ts, resolvable(e.typ))
	}
	agg, err := types.ResolveAggregate(name, ts, fc.AggStar)
	if err != nil {
		return nil, err
	}
	for i, a := range out.args {
		if i < len(agg.Args) {
			out.args[i] = d.coerce(a, agg.Args[i])
		}
	}
	out.typ, out.star, out.distinct = agg.Result, fc.AggStar, fc.AggDistinct
	if len(fc.AggOrder) > 0 {
		if out.aggOrder, err = d.orderKeys(fc.AggOrder, d.pretty); err != nil {
			return nil, err
		}
	}
	if fc.AggFilter != nil {
		f, err := d.analyze(fc.AggFilter)
		if err != nil {
			return nil, err
		}
		out.filter = d.coerce(f, types.Bool)
	}
	return out, nil
}

// figureColname is the name PostgreSQL gives an output column its query
// does not name (FigureColname): a column's or function's name, a cast's
// type, or ?column?.
func figureColname(n *pg_query.Node) string {
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		if s := v.ColumnRef.Fields[len(v.ColumnRef.Fields)-1].GetString_(); s != nil {
			return s.Sval
		}
	case *pg_query.Node_FuncCall:
		return strings.ToLower(lastName(v.FuncCall.Funcname))
	case *pg_query.Node_TypeCast:
		if name := figureColname(v.TypeCast.Arg); name != "?column?" {
			return name
		}
		if names := strs(v.TypeCast.TypeName.Names); len(names) > 0 {
			return names[len(names)-1]
		}
	case *pg_query.Node_CoalesceExpr:
		return "coalesce"
	case *pg_query.Node_XmlExpr:
		if v.XmlExpr.Op != pg_query.XmlExprOp_IS_DOCUMENT {
			return strings.ToLower(strings.TrimPrefix(v.XmlExpr.Op.String(), "IS_"))
		}
	case *pg_query.Node_XmlSerialize:
		return "xmlserialize"
	case *pg_query.Node_CaseExpr:
		return "case"
	case *pg_query.Node_AArrayExpr:
		return "array"
	case *pg_query.Node_SubLink:
		if v.SubLink.SubLinkType == pg_query.SubLinkType_EXISTS_SUBLINK {
			return "exists"
		}
	}
	return "?column?"
}
