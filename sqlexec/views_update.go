package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Automatically updatable views, as PostgreSQL's rewriter makes them: an
// INSERT, UPDATE or DELETE on a view that reads one table or view, with
// no aggregates, DISTINCT, set operations and the like, and that has no
// INSTEAD OF trigger for the command, is rewritten into the same command
// on the view's base relation. References to the view's columns become
// the view's expressions for them, the view's WHERE joins the statement's
// WHERE, and a view WITH CHECK OPTION adds its WHERE to the checks the
// rows written must pass (views_check.go). The rewritten statement is
// compiled like any other, so a base view is rewritten in turn.

// autoView is a view's query taken apart for the rewrite, its references
// to the base relation named by the statement's alias.
type autoView struct {
	v    *viewDesc
	base *pg_query.RangeVar
	// alias is the name the rewritten statement gives the base relation:
	// the statement's alias for the view, else the view's name.
	alias string
	// cols are the view's columns: the base column each one reads (""
	// when it is an expression) and its expression over alias.
	cols []autoViewCol
	// where is the view's WHERE over alias, nil for none.
	where *pg_query.Node
	// hidden are the names an unqualified reference inside a subquery
	// would resolve differently after the rewrite: base columns the view
	// does not show under their own name, and view columns that are not
	// the base column of that name.
	hidden map[string]bool
	// baseTable says the base relation is a table: a view column reading
	// a name of a system column reads the system column.
	baseTable bool
}

// noUpdatableColumns is why a view whose columns are all expressions
// takes no INSERT or UPDATE; it still takes DELETE.
const noUpdatableColumns = "Views that have no updatable columns are not automatically updatable."

type autoViewCol struct {
	base string
	expr *pg_query.Node
}

// notAutoUpdatable returns why the view query q cannot be written
// automatically, in PostgreSQL's words, "" when it can; base is its FROM
// relation then.
func notAutoUpdatable(q *pg_query.Node, userAgg func([]string) bool) (reason string, base *pg_query.RangeVar) {
	sel := q.GetSelectStmt()
	sorts := make([]*pg_query.Node, 0, len(sel.GetSortClause()))
	for _, s := range sel.GetSortClause() {
		sorts = append(sorts, s.GetSortBy().GetNode())
	}
	switch {
	case sel == nil:
		return "Views that do not select from a single table or view are not automatically updatable.", nil
	case len(sel.DistinctClause) > 0:
		return "Views containing DISTINCT are not automatically updatable.", nil
	case len(sel.GroupClause) > 0:
		return "Views containing GROUP BY are not automatically updatable.", nil
	case sel.HavingClause != nil:
		return "Views containing HAVING are not automatically updatable.", nil
	case sel.Op != pg_query.SetOperation_SETOP_NONE:
		return "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.", nil
	case sel.WithClause != nil:
		return "Views containing WITH are not automatically updatable.", nil
	case sel.LimitCount != nil || sel.LimitOffset != nil:
		return "Views containing LIMIT or OFFSET are not automatically updatable.", nil
	case containsAgg(userAgg, append(slices.Clone(sel.TargetList), sorts...)...):
		return "Views that return aggregate functions are not automatically updatable.", nil
	case containsWindowCall(sel.TargetList):
		return "Views that return window functions are not automatically updatable.", nil
	}
	if len(sel.FromClause) == 1 && sel.FromClause[0].GetRangeTableSample() != nil {
		return "Views containing TABLESAMPLE are not automatically updatable.", nil
	}
	if len(sel.FromClause) != 1 || sel.FromClause[0].GetRangeVar() == nil || len(sel.ValuesLists) > 0 {
		return "Views that do not select from a single table or view are not automatically updatable.", nil
	}
	return "", sel.FromClause[0].GetRangeVar()
}

// containsWindowCall reports whether a target list calls a window
// function outside any subquery.
func containsWindowCall(targets []*pg_query.Node) bool {
	found := false
	for _, t := range targets {
		walk(t, func(m *pg_query.Node) bool {
			if found || m.GetSubLink() != nil {
				return false
			}
			found = m.GetFuncCall().GetOver() != nil
			return !found
		})
	}
	return found
}

// maxViewDepth bounds the views a write is rewritten through, as a
// guard against views that read each other.
const maxViewDepth = 100

// autoViewOf takes v apart for a statement naming it alias, or fails
// with PostgreSQL's error for writing (verb: "insert into", "update",
// "delete from") a view that is not automatically updatable.
func (b *binder) autoViewOf(v *viewDesc, alias, verb string, loc int32) (*autoView, error) {
	if b.viewDepth++; b.viewDepth > maxViewDepth {
		return nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", v.name)
	}
	av, reason := b.autoViewParts(v, alias)
	if v.rowVersions {
		b.viewVersions = true // the rewritten statement reads the system columns the view names
	}
	if reason == "" || reason == noUpdatableColumns {
		// PostgreSQL applies the base table's policies for the view's
		// owner; the rewritten statement applies them for the role
		// running it.
		role := b.privRole
		if role == 0 {
			role = b.s.currentRole()
		}
		t := b.s.lookupTable(b.cat, av.base.Schemaname, av.base.Relname)
		if t != nil && t.rowSecurity && !v.securityInvoker && role != v.ownerRole() {
			return nil, pgerror.Unsupported("writing through a view to a table with row-level security by a role other than the view's owner")
		}
		av.baseTable = t != nil
	}
	if reason != "" && (reason != noUpdatableColumns || verb != "delete from") {
		hint := map[string]string{"insert into": "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
			"update":      "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
			"delete from": "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule."}[verb]
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot %s view \"%s\"", verb, v.name).WithDetail("%s", reason).WithHint("%s", hint)
	}
	return av, nil
}

// autoViewParts takes v apart for a statement naming it alias; reason
// says why it cannot be, in PostgreSQL's words, "" when it can. A view
func (b *binder) autoViewParts(v *viewDesc, alias string) (*autoView, string) {
	reason, base := notAutoUpdatable(v.query, b.userAggregateNamed)
	if reason == "" && b.containsSetCall(v.query.GetSelectStmt().TargetList...) {
		reason = "Views that return set-returning functions are not automatically updatable."
	}
	av := &autoView{v: v, alias: alias, hidden: map[string]bool{}}
	var baseCols []string
	if reason == "" {
		if t := b.s.lookupTable(b.cat, base.Schemaname, base.Relname); t != nil {
			for _, c := range t.cols {
				baseCols = append(baseCols, c.name)
			}
		} else if bv := b.s.lookupView(b.cat, base.Schemaname, base.Relname); bv != nil {
			baseCols = bv.colNames()
		} else {
			reason = "Views that do not select from a single table or view are not automatically updatable."
		}
	}
	if reason != "" {
		return nil, reason
	}
	sel := v.query.GetSelectStmt()
	viewAlias := base.Relname
	if base.Alias != nil {
		viewAlias = base.Alias.Aliasname
	}
	av.base = proto.Clone(base).(*pg_query.RangeVar)
	av.base.Alias = &pg_query.Alias{Aliasname: alias}
	requalify := func(n *pg_query.Node) *pg_query.Node {
		n = proto.Clone(n).(*pg_query.Node)
		requalifyRefs(n, viewAlias, alias, false, baseCols)
		return n
	}
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			for _, c := range baseCols {
				av.cols = append(av.cols, autoViewCol{base: c, expr: columnRef(alias, c)})
			}
			continue
		}
		col := autoViewCol{expr: requalify(rt.Val)}
		if cr := col.expr.GetColumnRef(); cr != nil && len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == alias {
			col.base = cr.Fields[1].GetString_().GetSval()
		}
		av.cols = append(av.cols, col)
	}
	if len(av.cols) != len(v.cols) {
		return nil, "Views that do not select from a single table or view are not automatically updatable."
	}
	if sel.WhereClause != nil {
		av.where = requalify(sel.WhereClause)
	}
	shown := map[string]bool{}
	for i, c := range av.cols {
		if c.base != v.cols[i].name {
			av.hidden[v.cols[i].name] = true
		}
		shown[c.base] = shown[c.base] || c.base == v.cols[i].name
	}
	for _, c := range baseCols {
		if !shown[c] {
			av.hidden[c] = true
		}
	}
	// A column reading a system column of the base table is no updatable
	// column.
	if !slices.ContainsFunc(av.cols, func(c autoViewCol) bool { return c.base != "" && slices.Contains(baseCols, c.base) }) {
		return av, noUpdatableColumns
	}
	return av, ""
}

// baseRole is the role a write through v checks v's base relation for:
// v's owner, or for a security_invoker view (0) the role running the
// statement, as PostgreSQL checks it even under another view.
func (v *viewDesc) baseRole() uint32 {
	if v.securityInvoker {
		return 0
	}
	return v.ownerRole()
}

// columnRef is the reference rel.col.
func columnRef(rel, col string) *pg_query.Node {
	return &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{
		{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: rel}}},
		{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: col}}}}}}}
}

// requalifyRefs renames the qualifier from of column references under n
// to to, and qualifies the unqualified ones outside subqueries (inside
// one when inner) with to. Outside subqueries, from alone, when it is not
// one of the relation's columns, is a whole-row reference and becomes to.
func requalifyRefs(n *pg_query.Node, from, to string, inner bool, cols []string) {
	walk(n, func(c *pg_query.Node) bool {
		if sl := c.GetSubLink(); sl != nil && !inner {
			if sl.Testexpr != nil {
				requalifyRefs(sl.Testexpr, from, to, false, cols)
			}
			requalifyRefs(sl.Subselect, from, to, true, cols)
			return false
		}
		cr := c.GetColumnRef()
		if cr == nil {
			return true
		}
		switch {
		case len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == from:
			cr.Fields[0] = &pg_query.Node{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: to}}}
		case len(cr.Fields) == 1 && !inner && cr.Fields[0].GetString_().GetSval() == from && !slices.Contains(cols, from):
			cr.Fields[0] = &pg_query.Node{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: to}}}
		case len(cr.Fields) == 1 && !inner && cr.Fields[0].GetString_() != nil:
			cr.Fields = append([]*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: to}}}}, cr.Fields...)
		}
		return false
	})
}

// colIndex is the position of the view column name, -1 for none.
func (av *autoView) colIndex(name string) int {
	for i, c := range av.v.cols {
		if c.name == name {
			return i
		}
	}
	return -1
}

// subst replaces, in place, the references under n to the view's columns
// by the view's expressions for them. A reference to a column the view
// does not have fails as PostgreSQL's does; an unqualified one inside a
// subquery that the rewrite could resolve differently is refused.
func (av *autoView) subst(n *pg_query.Node, inner bool) error {
	var err error
	walk(n, func(c *pg_query.Node) bool {
		if err != nil {
			return false
		}
		if sl := c.GetSubLink(); sl != nil && !inner {
			if sl.Testexpr != nil {
				err = av.subst(sl.Testexpr, false)
			}
			if err == nil {
				err = av.subst(sl.Subselect, true)
			}
			return false
		}
		if c.GetCurrentOfExpr() != nil {
			err = pgerror.Unsupported("WHERE CURRENT OF on an automatically updatable view")
			return false
		}
		cr := c.GetColumnRef()
		if cr == nil {
			return true
		}
		err = av.substRef(c, cr, inner)
		return false
	})
	return err
}

func (av *autoView) substRef(c *pg_query.Node, cr *pg_query.ColumnRef, inner bool) error {
	var name string
	switch {
	case len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == av.alias:
		if cr.Fields[1].GetAStar() != nil {
			return pgerror.Unsupported("a whole-row reference to a view being written")
		}
		name = cr.Fields[1].GetString_().GetSval()
		if av.colIndex(name) < 0 {
			return pgerror.Newf(pgerror.UndefinedColumn, "column %s.%s does not exist", av.alias, name).WithPosition(int(cr.Location) + 1)
		}
	case len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil:
		name = cr.Fields[0].GetString_().GetSval()
		if inner {
			if av.hidden[name] {
				return pgerror.Unsupported("an unqualified reference inside a subquery to a column an automatically updatable view renames or hides")
			}
			return nil
		}
		if av.colIndex(name) < 0 {
			if av.hidden[name] {
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", name).WithPosition(int(cr.Location) + 1)
			}
			if name == av.alias {
				return pgerror.Unsupported("a whole-row reference to a view being written")
			}
			return nil
		}
	default:
		return nil
	}
	c.Node = proto.Clone(av.cols[av.colIndex(name)].expr).(*pg_query.Node).Node
	return nil
}

// returning rewrites a RETURNING list: * and alias.* become the view's
// columns under their names, a plain column keeps its name.
func (av *autoView) returning(list []*pg_query.Node) ([]*pg_query.Node, error) {
	var out []*pg_query.Node
	for _, t := range list {
		rt := proto.Clone(t.GetResTarget()).(*pg_query.ResTarget)
		if cr := rt.GetVal().GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil &&
			(len(cr.Fields) == 1 || len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == av.alias) {
			for i, c := range av.v.cols {
				out = append(out, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{
					Name: c.name, Val: proto.Clone(av.cols[i].expr).(*pg_query.Node), Location: rt.Location}}})
			}
			continue
		}
		if cr := rt.GetVal().GetColumnRef(); cr != nil && rt.Name == "" {
			if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil {
				rt.Name = s.Sval
			}
		}
		if err := av.subst(rt.Val, false); err != nil {
			return nil, err
		}
		out = append(out, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: rt}})
	}
	return out, nil
}

// target maps the view column a statement writes to its base column,
// failing as PostgreSQL does for one that is an expression.
func (av *autoView) target(name, verb string, loc int32) (string, error) {
	i := av.colIndex(name)
	if i < 0 {
		return "", pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, av.v.name).WithPosition(int(loc) + 1)
	}
	if av.cols[i].base == "" {
		return "", pgerror.Newf(pgerror.FeatureNotSupported, "cannot %s column \"%s\" of view \"%s\"", verb, name, av.v.name).
			WithDetail("View columns that are not columns of their base relation are not updatable.").WithPosition(int(loc) + 1)
	}
	if av.baseTable && slices.Contains(systemColumnNames, av.cols[i].base) {
		return "", pgerror.Newf(pgerror.FeatureNotSupported, "cannot %s column \"%s\" of view \"%s\"", verb, name, av.v.name).
			WithDetail("View columns that refer to system columns are not updatable.")
	}
	return av.cols[i].base, nil
}

// and is the conjunction of the view's WHERE and the statement's.
func (av *autoView) and(where *pg_query.Node) *pg_query.Node {
	switch {
	case av.where == nil:
		return where
	case where == nil:
		return proto.Clone(av.where).(*pg_query.Node)
	}
	return &pg_query.Node{Node: &pg_query.Node_BoolExpr{BoolExpr: &pg_query.BoolExpr{Boolop: pg_query.BoolExprType_AND_EXPR,
		Args: []*pg_query.Node{proto.Clone(av.where).(*pg_query.Node), where}}}}
}

// hasInstead reports whether v has an INSTEAD OF trigger for event,
// enabled or not: as in PostgreSQL (view_has_instead_trigger), a view with
// one is written through its triggers, and a row none of them fires for
// (disabled, or not firing in the session's replication role) is counted
// as processed without a change.
func (v *viewDesc) hasInstead(event int) bool {
	for _, tr := range v.triggers {
		if tr.tgtype&tgInstead != 0 && tr.tgtype&event != 0 {
			return true
		}
	}
	return false
}

// targetName is the name a statement gives its target relation.
func targetName(rv *pg_query.RangeVar) string {
	if rv.Alias != nil {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}

// autoViewUpdate plans UPDATE through an automatically updatable view.
func (b *binder) autoViewUpdate(v *viewDesc, up *pg_query.UpdateStmt, as uint32) (*stmtPlan, error) {
	checks := b.takeViewChecks()
	av, err := b.autoViewOf(v, targetName(up.Relation), "update", up.Relation.Location)
	if err != nil {
		return nil, err
	}
	var set []string
	reads := []*pg_query.Node{up.WhereClause}
	for _, t := range up.TargetList {
		set = append(set, t.GetResTarget().GetName())
		reads = append(reads, t.GetResTarget().GetVal())
	}
	b.requireColumnsAs(as, v.oid, v.name, "view", 'w', v.namedColumns(set))
	if readsTargetRows(up.WhereClause, up.ReturningList, up.TargetList) {
		b.requireColumnsAs(as, v.oid, v.name, "view", 'r', v.columnsRead(targetName(up.Relation), append(reads, up.ReturningList...)))
	}
	out := &pg_query.UpdateStmt{Relation: av.base, FromClause: up.FromClause}
	for _, t := range up.TargetList {
		rt := proto.Clone(t.GetResTarget()).(*pg_query.ResTarget)
		if rt.Name, err = av.target(rt.Name, "update", rt.Location); err != nil {
			return nil, err
		}
		if err := av.subst(rt.Val, false); err != nil {
			return nil, err
		}
		out.TargetList = append(out.TargetList, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: rt}})
	}
	where := proto.Clone(up.WhereClause).(*pg_query.Node)
	if err := av.subst(where, false); err != nil {
		return nil, err
	}
	out.WhereClause = av.and(where)
	if out.ReturningList, err = av.returning(up.ReturningList); err != nil {
		return nil, err
	}
	if b.viewChecks, err = av.addChecks(checks); err != nil {
		return nil, err
	}
	b.writeAs = v.baseRole()
	return b.updatePlan(out)
}

// autoViewDelete plans DELETE through an automatically updatable view.
func (b *binder) autoViewDelete(v *viewDesc, del *pg_query.DeleteStmt, as uint32) (*stmtPlan, error) {
	av, err := b.autoViewOf(v, targetName(del.Relation), "delete from", del.Relation.Location)
	if err != nil {
		return nil, err
	}
	b.requirePrivilegeAs(as, v.oid, v.name, "view", 'd')
	if readsTargetRows(del.WhereClause, del.ReturningList, nil) {
		b.requireColumnsAs(as, v.oid, v.name, "view", 'r', v.columnsRead(targetName(del.Relation), append([]*pg_query.Node{del.WhereClause}, del.ReturningList...)))
	}
	where := proto.Clone(del.WhereClause).(*pg_query.Node)
	if err := av.subst(where, false); err != nil {
		return nil, err
	}
	out := &pg_query.DeleteStmt{Relation: av.base, UsingClause: del.UsingClause, WhereClause: av.and(where)}
	if out.ReturningList, err = av.returning(del.ReturningList); err != nil {
		return nil, err
	}
	b.writeAs = v.baseRole()
	return b.deletePlan(out)
}

// autoViewInsert plans INSERT through an automatically updatable view.
// viewDefaults gives out, the INSERT into the base that an INSERT into the
// view naming the columns given becomes, the view's column defaults
// (ALTER VIEW ... SET DEFAULT), which PostgreSQL uses in place of the
// base's: a DEFAULT item of a VALUES row for a column with one becomes its
// default, and each column with one that the INSERT leaves out is added,
// with its default in every row. Only VALUES rows (or DEFAULT VALUES) can
// take the added columns; for a query source they are refused (0A000).
func (av *autoView) viewDefaults(out *pg_query.InsertStmt, given []string) error {
	var missing []viewCol
	for _, c := range av.v.cols {
		if c.def != nil && !slices.Contains(given, c.name) {
			missing = append(missing, c)
		}
	}
	hasDefault := slices.ContainsFunc(given, func(name string) bool {
		return slices.ContainsFunc(av.v.cols, func(c viewCol) bool { return c.name == name && c.def != nil })
	})
	if len(missing) == 0 && !hasDefault {
		return nil
	}
	var sel *pg_query.SelectStmt
	switch {
	case out.SelectStmt == nil:
		sel = &pg_query.SelectStmt{ValuesLists: []*pg_query.Node{{Node: &pg_query.Node_List{List: &pg_query.List{}}}},
			Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}
	case out.SelectStmt.GetSelectStmt().GetValuesLists() != nil:
		sel = proto.Clone(out.SelectStmt.GetSelectStmt()).(*pg_query.SelectStmt)
	case len(missing) > 0:
		return pgerror.Unsupported("INSERT ... SELECT through an automatically updatable view with column defaults")
	default:
		return nil // a query's rows hold no DEFAULT items
	}
	for _, row := range sel.ValuesLists {
		items := row.GetList().Items
		for i, name := range given {
			j := slices.IndexFunc(av.v.cols, func(c viewCol) bool { return c.name == name })
			if i < len(items) && items[i].GetSetToDefault() != nil && j >= 0 && av.v.cols[j].def != nil {
				items[i] = proto.Clone(av.v.cols[j].def).(*pg_query.Node)
			}
		}
		for _, c := range missing {
			items = append(items, proto.Clone(c.def).(*pg_query.Node))
		}
		row.GetList().Items = items
	}
	for _, c := range missing {
		name, err := av.target(c.name, "insert into", -1)
		if err != nil {
			return err
		}
		out.Cols = append(out.Cols, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Name: name, Location: -1}}})
	}
	out.SelectStmt = &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}
	return nil
}

func (b *binder) autoViewInsert(v *viewDesc, ins *pg_query.InsertStmt, as uint32) (*stmtPlan, error) {
	checks := b.takeViewChecks()
	av, err := b.autoViewOf(v, targetName(ins.Relation), "insert into", ins.Relation.Location)
	if err != nil {
		return nil, err
	}
	inserted := &columnUse{}
	b.requireColumnsAs(as, v.oid, v.name, "view", 'a', inserted)
	if len(ins.ReturningList) > 0 {
		b.requireColumnsAs(as, v.oid, v.name, "view", 'r', v.columnsRead(targetName(ins.Relation), ins.ReturningList))
	}
	out := &pg_query.InsertStmt{Relation: av.base, SelectStmt: ins.SelectStmt, WithClause: ins.WithClause, Override: ins.Override}
	if ins.OnConflictClause != nil {
		if !b.ownsViewWrite(v, av, as) {
			// PostgreSQL checks UPDATE and SELECT on the view's and the base
			// relation's columns in ways fickle does not follow for ON
			// CONFLICT; an owner passes them all.
			return nil, pgerror.Unsupported("INSERT ... ON CONFLICT through a view by a role that does not own it and its base relation")
		}
		if out.OnConflictClause, err = av.onConflict(ins.OnConflictClause); err != nil {
			return nil, err
		}
	}
	cols := ins.Cols
	if len(cols) == 0 && ins.SelectStmt != nil {
		n := sourceWidth(ins.SelectStmt)
		if n < 0 || n > len(v.cols) {
			n = len(v.cols)
		}
		for _, c := range v.cols[:n] {
			cols = append(cols, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Name: c.name, Location: -1}}})
		}
	}
	var given []string
	assigned := map[string]string{} // base column -> the view column given for it
	for _, c := range cols {
		rt := proto.Clone(c.GetResTarget()).(*pg_query.ResTarget)
		given = append(given, rt.Name)
		viewCol := rt.Name
		if rt.Name, err = av.target(rt.Name, "insert into", rt.Location); err != nil {
			return nil, err
		}
		if prev, ok := assigned[rt.Name]; ok && prev != viewCol {
			// Two view columns of one base column (SELECT a, a AS aa).
			return nil, pgerror.Newf(pgerror.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name)
		}
		assigned[rt.Name] = viewCol
		out.Cols = append(out.Cols, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: rt}})
	}
	inserted.attnums = v.namedColumns(given).attnums
	if err := av.viewDefaults(out, given); err != nil {
		return nil, err
	}
	if out.ReturningList, err = av.returning(ins.ReturningList); err != nil {
		return nil, err
	}
	if b.viewChecks, err = av.addChecks(checks); err != nil {
		return nil, err
	}
	b.writeAs = v.baseRole()
	return b.insertPlan(out)
}

// ownsViewWrite reports whether role as (0: the current role) acts as
// owner of view v, and the role v writes its base relation as acts as
// owner of that relation when it is a table (a view under v checks its own
// when the rewritten statement reaches it).
func (b *binder) ownsViewWrite(v *viewDesc, av *autoView, as uint32) bool {
	owns := func(role, owner uint32) bool {
		if role == 0 {
			role = b.s.currentRole()
		}
		return b.s.isSuperuser(role) || b.s.memberOf(role)[owner]
	}
	if !owns(as, v.ownerRole()) {
		return false
	}
	t := b.s.lookupTable(b.cat, av.base.Schemaname, av.base.Relname)
	return t == nil || owns(v.baseRole(), relationOwner(b.cat, aclTable, t.oid))
}

// onConflict rewrites INSERT's ON CONFLICT clause for the base relation,
// as PostgreSQL's rewriter does: the inference columns and the columns
// SET assigns become the base columns, and the expressions read the base
// relation's and EXCLUDED's columns through the view's expressions for
// them. The view's WHERE does not restrict the row a conflict updates.
func (av *autoView) onConflict(oc *pg_query.OnConflictClause) (*pg_query.OnConflictClause, error) {
	out := proto.Clone(oc).(*pg_query.OnConflictClause)
	if in := out.Infer; in != nil {
		if in.Conname != "" {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", in.Conname, av.v.name)
		}
		for _, n := range in.IndexElems {
			ie := n.GetIndexElem()
			if ie.Expr != nil {
				return nil, pgerror.Unsupported("an expression in ON CONFLICT's inference through a view")
			}
			i := av.colIndex(ie.Name)
			if i < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
			if av.cols[i].base == "" {
				return nil, pgerror.Unsupported("an ON CONFLICT inference column a view computes")
			}
			ie.Name = av.cols[i].base
		}
		if in.WhereClause != nil {
			if err := av.subst(in.WhereClause, false); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range out.TargetList {
		rt := t.GetResTarget()
		name, err := av.target(rt.Name, "update", rt.Location)
		if err != nil {
			return nil, err
		}
		rt.Name = name
		if err := av.substConflictExpr(rt.Val); err != nil {
			return nil, err
		}
	}
	if out.WhereClause != nil {
		if err := av.substConflictExpr(out.WhereClause); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// substConflictExpr rewrites an expression of ON CONFLICT DO UPDATE: an
// unqualified name of a view column is ambiguous between the view and
// EXCLUDED (42702, as in PostgreSQL), EXCLUDED's columns become the view's
// expressions over EXCLUDED, and the view's columns its expressions.
func (av *autoView) substConflictExpr(n *pg_query.Node) error {
	var err error
	walk(n, func(c *pg_query.Node) bool {
		if err != nil {
			return false
		}
		if c.GetSubLink() != nil {
			if readsExcluded(c) {
				err = pgerror.Unsupported("EXCLUDED in a subquery of ON CONFLICT through a view")
			}
			return false
		}
		cr := c.GetColumnRef()
		if cr == nil {
			return true
		}
		switch {
		case len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil && av.colIndex(cr.Fields[0].GetString_().Sval) >= 0:
			err = pgerror.Newf(pgerror.AmbiguousColumn, "column reference \"%s\" is ambiguous", cr.Fields[0].GetString_().Sval).WithPosition(int(cr.Location) + 1)
		case len(cr.Fields) == 2 && cr.Fields[0].GetString_().GetSval() == "excluded":
			name := cr.Fields[1].GetString_()
			if name == nil {
				err = pgerror.Unsupported("a whole-row reference to EXCLUDED through a view")
				break
			}
			i := av.colIndex(name.Sval)
			if i < 0 {
				err = pgerror.Newf(pgerror.UndefinedColumn, "column excluded.%s does not exist", name.Sval).WithPosition(int(cr.Location) + 1)
				break
			}
			expr := proto.Clone(av.cols[i].expr).(*pg_query.Node)
			requalifyRefs(expr, av.alias, "excluded", false, nil)
			c.Node = expr.Node
		}
		return false
	})
	if err != nil {
		return err
	}
	return av.subst(n, false)
}

// readsExcluded reports whether a column reference under n is qualified by
// excluded.
func readsExcluded(n *pg_query.Node) bool {
	found := false
	walk(n, func(c *pg_query.Node) bool {
		if cr := c.GetColumnRef(); cr != nil && len(cr.Fields) > 1 && cr.Fields[0].GetString_().GetSval() == "excluded" {
			found = true
		}
		return !found
	})
	return found
}

// namedColumns is the use of the view's columns names, for the INSERT
// or UPDATE privilege a statement through the view needs on them.
func (v *viewDesc) namedColumns(names []string) *columnUse {
	u := &columnUse{}
	for i, c := range v.cols {
		if slices.Contains(names, c.name) {
			u.attnums = append(u.attnums, int16(i+1))
		}
	}
	return u
}

// columnsRead is the use of the view's columns that the expressions of a
// statement writing through it under the name rel may read, for its
// SELECT privilege, needed only when it reads one: every column a
// reference names, whatever relation it qualifies (a column of another
// of the same name counts too), and all of them for a whole-row reference
// or a star.
func (v *viewDesc) columnsRead(rel string, nodes []*pg_query.Node) *columnUse {
	u := trackedColumns(nil, len(v.cols))
	u.ifUsed = true
	for _, n := range nodes {
		if n == nil {
			continue
		}
		walk(n, func(m *pg_query.Node) bool {
			cr := m.GetColumnRef()
			if cr == nil || len(cr.Fields) == 0 {
				return true
			}
			last := cr.Fields[len(cr.Fields)-1]
			name := last.GetString_().GetSval()
			whole := last.GetAStar() != nil || len(cr.Fields) == 1 && name == rel
			for i, c := range v.cols {
				if whole || c.name == name {
					u.used[i] = true
				}
			}
			return true
		})
	}
	return u
}
