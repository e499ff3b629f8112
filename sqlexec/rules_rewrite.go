package sqlexec

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Rewriting a statement by its target's rules, in PostgreSQL's order:
//
//  1. Without an unconditional INSTEAD rule the original statement runs,
//     restricted to the rows for which no conditional INSTEAD rule's
//     condition holds. For INSERT it runs first, for UPDATE and DELETE
//     last, so that the rules' actions still see the rows it changes.
//  2. Every rule, in name order, runs its actions in order, each as a
//     statement of its own: the event's rows (rules_events.go) are
//     computed again, and for each row where the rule's condition holds
//     the action runs with NEW and OLD bound to it.
//  3. The command tag is the original statement's when it ran; otherwise
//     that of the last INSTEAD action of the statement's own command
//     (zero rows without one), and RETURNING evaluates over the rows the
//     INSTEAD rule's RETURNING list gives.
//
// An action that writes to a relation with rules is rewritten in turn;
// a rule that reaches its own relation and event again is the error
// PostgreSQL reports. The actions run as the relation's owner, through
// the same transaction and history as the statement.

// ruleEvent is a relation and an event whose rules are being applied.
type ruleEvent struct {
	rel   uint32
	event pg_query.CmdType
}

// ruleStep is one compiled rule action.
type ruleStep struct {
	rule *ruleDesc
	// cond is SELECT of the rule's WHERE condition, nil without one.
	cond *stmtPlan
	plan *stmtPlan
	kind pg_query.CmdType
	// returns marks the action whose RETURNING list stands for the
	// relation's rows.
	returns bool
	// rowFree marks an action that, with the rule's condition, uses
	// neither NEW nor OLD; once marks one that runs once whatever rows
	// the statement matches (rowFree, for UPDATE or DELETE: see once).
	rowFree, once bool
	text          string
	where         string
}

// rulesFor returns t's rules for event, in name order, that fire in a
// session whose replication role is replica or not (fickle's rules fire on
// origin, pg_rewrite.ev_enabled 'O').
func (t *tableDesc) rulesFor(event pg_query.CmdType, replica bool) []*ruleDesc {
	var out []*ruleDesc
	for _, r := range t.rules {
		if r.event == event && firesIn('O', replica) {
			out = append(out, r)
		}
	}
	return out
}

// ruleBinder returns a binder for the condition and actions of t's rules:
// NEW.col and OLD.col are the parameters col and len(t.cols)+col.
func (b *binder) ruleBinder(t *tableDesc, stack []ruleEvent) *binder {
	n := len(t.cols)
	typs := make([]types.Type, 2*n)
	for i, c := range t.cols {
		typs[i], typs[n+i] = c.typ, c.typ
	}
	owner := t.owner
	if owner == 0 {
		owner = oidBootstrapSuperuser
	}
	return &binder{s: b.s, cat: b.cat, params: typs, privRole: owner, rewriting: stack,
		vars: func(_ *binder, fields []string, _ int32) (*scalar, bool) {
			if len(fields) != 2 || fields[0] != "new" && fields[0] != "old" {
				return nil, false
			}
			i := t.colIndex(fields[1])
			if i < 0 {
				return nil, false
			}
			k := i
			if fields[0] == "old" {
				k += n
			}
			return &scalar{typ: t.cols[i].typ, slot: -1, name: fields[1], eval: func(x *execCtx) (any, error) { return x.params[k], nil }}, true
		}}
}

// ruleCond compiles a rule's WHERE condition on t as a SELECT of it, and
// returns its text; nil and "" without one.
func (b *binder) ruleCond(t *tableDesc, event pg_query.CmdType, where *pg_query.Node, stack []ruleEvent) (*stmtPlan, string, error) {
	if where == nil {
		return nil, "", nil
	}
	sel := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
		TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(proto.Clone(where).(*pg_query.Node), 0)},
		Op:         pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}}}
	cb := b.ruleBinder(t, stack)
	cb.vars = condVars(t, event, cb.vars)
	cond, err := cb.statement(&Statement{node: sel})
	if err != nil {
		return nil, "", ambiguousRuleColumn(t, event, err)
	}
	if typ := cond.cols[0].typ; typ.Oid != types.OidBool {
		return nil, "", pgerror.Newf(pgerror.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", typ)
	}
	cond.locks, cond.perms = cb.locks, cb.perms
	return cond, "SELECT " + deparseExpr(where), nil
}

// condVars extends the names a rule's condition resolves with vars: as in
// PostgreSQL, an unqualified column of t is NEW's in an ON INSERT rule's
// condition and OLD's in an ON DELETE rule's (the actions see neither).
func condVars(t *tableDesc, event pg_query.CmdType, vars func(*binder, []string, int32) (*scalar, bool)) func(*binder, []string, int32) (*scalar, bool) {
	row := map[pg_query.CmdType]string{pg_query.CmdType_CMD_INSERT: "new", pg_query.CmdType_CMD_DELETE: "old"}[event]
	return func(b *binder, fields []string, loc int32) (*scalar, bool) {
		if len(fields) == 1 && row != "" {
			fields = []string{row, fields[0]}
		}
		return vars(b, fields, loc)
	}
}

// ambiguousRuleColumn turns the unknown column an ON UPDATE rule's
// condition names without NEW or OLD into PostgreSQL's error when t has
// it: both rows have the column.
func ambiguousRuleColumn(t *tableDesc, event pg_query.CmdType, err error) error {
	pe, ok := err.(*pgerror.Error)
	if !ok || event != pg_query.CmdType_CMD_UPDATE || pe.Code != pgerror.UndefinedColumn {
		return err
	}
	for _, c := range t.cols {
		if pe.Message == fmt.Sprintf("column \"%s\" does not exist", c.name) {
			amb := pgerror.Newf(pgerror.AmbiguousColumn, "column reference \"%s\" is ambiguous", c.name)
			amb.Position = pe.Position
			return amb
		}
	}
	return err
}

// ruleSteps compiles r's condition and actions on t.
func (b *binder) ruleSteps(t *tableDesc, r *ruleDesc, stack []ruleEvent) ([]ruleStep, error) {
	cond, where, err := b.ruleCond(t, r.event, r.where, stack)
	if err != nil {
		return nil, err
	}
	var steps []ruleStep
	condFree := r.where == nil || !mentionsRuleRow(r.where, r.event != pg_query.CmdType_CMD_UPDATE)
	for _, a := range r.actions {
		ab := b.ruleBinder(t, stack)
		p, err := ab.statement(&Statement{node: expandRuleStars(proto.Clone(a).(*pg_query.Node), t)})
		if err != nil {
			return nil, err
		}
		p.locks, p.perms = ab.locks, ab.perms
		st := ruleStep{rule: r, cond: cond, plan: p, kind: actionCommand(a), returns: len(returningList(a)) > 0, text: deparseStatement(a), where: where,
			rowFree: condFree && !mentionsRuleRow(a, false)}
		if st.returns {
			if err := checkRuleResult(t, p.cols); err != nil {
				return nil, err
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// mentionsRuleRow reports whether n names the rule's NEW or OLD row: a
// column reference starting with new or old or, with bare set (the
// condition of an ON INSERT or ON DELETE rule), an unqualified column.
func mentionsRuleRow(n *pg_query.Node, bare bool) bool {
	found := false
	walk(n, func(m *pg_query.Node) bool {
		if cr := m.GetColumnRef(); cr != nil && len(cr.Fields) > 0 {
			first := cr.Fields[0].GetString_().GetSval()
			found = found || first == "new" || first == "old" || bare && len(cr.Fields) == 1
		}
		return !found
	})
	return found
}

// onceSteps decides how the row-free actions of steps run for an UPDATE or
// DELETE of t (named rv) with FROM or USING items extra and condition
// where. PostgreSQL joins such an action to the statement's FROM items
// without the target unless the statement's WHERE reads the target: with
// neither FROM items nor a WHERE it runs once, and with a WHERE naming
// the target's columns once per matching row, as the other actions do.
// The other forms are refused.
func onceSteps(steps []ruleStep, t *tableDesc, rv *pg_query.RangeVar, extra []*pg_query.Node, where *pg_query.Node) error {
	if !slices.ContainsFunc(steps, func(st ruleStep) bool { return st.rowFree }) {
		return nil
	}
	if len(extra) == 0 && where == nil {
		for i := range steps {
			steps[i].once = steps[i].rowFree
		}
		return nil
	}
	if len(extra) == 0 && namesTargetColumn(where, t, rv) {
		return nil
	}
	return pgerror.Unsupported("a rule action using neither NEW nor OLD, on UPDATE or DELETE with FROM, USING or a WHERE clause not naming the target's columns")
}

// namesTargetColumn reports whether where, outside its subqueries, names
// a column of t (named rv).
func namesTargetColumn(where *pg_query.Node, t *tableDesc, rv *pg_query.RangeVar) bool {
	name := rv.Relname
	if rv.Alias != nil {
		name = rv.Alias.Aliasname
	}
	found := false
	var visit func(m *pg_query.Node) bool
	visit = func(m *pg_query.Node) bool {
		if sl := m.GetSubLink(); sl != nil {
			walk(sl.Testexpr, visit)
			return false
		}
		if cr := m.GetColumnRef(); cr != nil {
			f := cr.Fields
			switch {
			case len(f) == 1:
				found = found || t.colIndex(f[0].GetString_().GetSval()) >= 0
			case len(f) >= 2:
				found = found || f[len(f)-2].GetString_().GetSval() == name
			}
		}
		return !found
	}
	walk(where, visit)
	return found
}

// checkRuleResult checks an INSTEAD rule's RETURNING list against the
// relation's columns, as PostgreSQL does.
func checkRuleResult(t *tableDesc, cols []outCol) error {
	for i, c := range cols {
		if i >= len(t.cols) {
			return pgerror.New(pgerror.InvalidObjectDefinition, "RETURNING list has too many entries")
		}
		if c.typ.Oid != t.cols[i].typ.Oid {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "RETURNING list's entry %d has different type from column \"%s\"", i+1, t.cols[i].name).
				WithDetail("RETURNING list's entry has type %s, but column has type %s.", c.typ, t.cols[i].typ)
		}
	}
	if len(cols) < len(t.cols) {
		return pgerror.New(pgerror.InvalidObjectDefinition, "RETURNING list has too few entries")
	}
	return nil
}

// expandRuleStars writes NEW.* and OLD.* in select lists, VALUES rows,
// ROW constructors and RETURNING lists of a rule action as the relation's
// columns.
func expandRuleStars(n *pg_query.Node, t *tableDesc) *pg_query.Node {
	star := func(m *pg_query.Node) string {
		cr := m.GetColumnRef()
		if cr == nil || len(cr.Fields) != 2 || cr.Fields[1].GetAStar() == nil {
			return ""
		}
		if rel := cr.Fields[0].GetString_().GetSval(); rel == "new" || rel == "old" {
			return rel
		}
		return ""
	}
	ref := func(rel, col string) *pg_query.Node {
		return pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(rel), pg_query.MakeStrNode(col)}, -1)
	}
	items := func(list []*pg_query.Node) []*pg_query.Node {
		var out []*pg_query.Node
		for _, it := range list {
			rel := star(it)
			if rt := it.GetResTarget(); rt != nil && rt.Val != nil {
				rel = star(rt.Val)
			}
			if rel == "" {
				out = append(out, it)
				continue
			}
			for _, c := range t.cols {
				if it.GetResTarget() != nil {
					out = append(out, pg_query.MakeResTargetNodeWithVal(ref(rel, c.name), -1))
				} else {
					out = append(out, ref(rel, c.name))
				}
			}
		}
		return out
	}
	walk(n, func(m *pg_query.Node) bool {
		switch v := m.Node.(type) {
		case *pg_query.Node_SelectStmt:
			v.SelectStmt.TargetList = items(v.SelectStmt.TargetList)
			for _, row := range v.SelectStmt.ValuesLists {
				if l := row.GetList(); l != nil {
					l.Items = items(l.Items)
				}
			}
		case *pg_query.Node_RowExpr:
			v.RowExpr.Args = items(v.RowExpr.Args)
		case *pg_query.Node_InsertStmt:
			v.InsertStmt.ReturningList = items(v.InsertStmt.ReturningList)
		case *pg_query.Node_UpdateStmt:
			v.UpdateStmt.ReturningList = items(v.UpdateStmt.ReturningList)
		case *pg_query.Node_DeleteStmt:
			v.DeleteStmt.ReturningList = items(v.DeleteStmt.ReturningList)
		}
		return true
	})
	return n
}

// ruleTarget is the table or view (as viewTable) a DML statement writes,
// nil when it names neither.
func (b *binder) ruleTarget(rv *pg_query.RangeVar) *tableDesc {
	if t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); t != nil {
		return t
	}
	if v := b.viewTarget(rv); v != nil {
		return viewTable(v)
	}
	return nil
}

// rewritten plans a DML statement whose target has rules for its event;
// ok is false when it has none, or when the statement is the original
// that a rewrite keeps (plainTarget).
func (b *binder) rewritten(rv *pg_query.RangeVar, event pg_query.CmdType, stmt *pg_query.Node) (p *stmtPlan, ok bool, err error) {
	t := b.ruleTarget(rv)
	if t == nil || len(t.rules) == 0 {
		return nil, false, nil
	}
	if ins := stmt.GetInsertStmt(); ins != nil && ins.OnConflictClause != nil &&
		len(t.rulesFor(pg_query.CmdType_CMD_INSERT, b.s.replica()))+len(t.rulesFor(pg_query.CmdType_CMD_UPDATE, b.s.replica())) > 0 {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules")
	}
	rules := t.rulesFor(event, b.s.replica())
	if len(rules) == 0 {
		return nil, false, nil
	}
	if b.plainTarget == t.oid {
		b.plainTarget = 0
		return nil, false, nil
	}
	key := ruleEvent{rel: t.oid, event: event}
	if slices.Contains(b.rewriting, key) {
		return nil, true, pgerror.Newf(pgerror.InvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", t.name)
	}
	p, err = b.rulesPlan(t, rules, append(slices.Clone(b.rewriting), key), rv, stmt)
	return p, true, err
}

// rulesPlan plans stmt on t rewritten by rules (all for the event of the
// stack's last entry).
func (b *binder) rulesPlan(t *tableDesc, rules []*ruleDesc, stack []ruleEvent, rv *pg_query.RangeVar, stmt *pg_query.Node) (*stmtPlan, error) {
	event := stack[len(stack)-1].event
	if !slices.ContainsFunc(rules, func(r *ruleDesc) bool { return r.instead && r.where == nil }) &&
		slices.ContainsFunc(rules, func(r *ruleDesc) bool { return r.instead }) {
		if err := b.conditionalRulesOnly(rv, event); err != nil {
			return nil, err
		}
	}
	var ev eventRows
	var ins *insertRows
	var returning, extra []*pg_query.Node
	var where *pg_query.Node
	var err error
	switch s := stmt.Node.(type) {
	case *pg_query.Node_InsertStmt:
		if ins, err = b.insertSourceRows(t, s.InsertStmt); err == nil {
			ev = ins.events
		}
		returning = s.InsertStmt.ReturningList
	case *pg_query.Node_UpdateStmt:
		ev, err = b.modifyEvents(t, rv, s.UpdateStmt.FromClause, s.UpdateStmt.WhereClause, s.UpdateStmt.TargetList)
		returning, extra, where = s.UpdateStmt.ReturningList, s.UpdateStmt.FromClause, s.UpdateStmt.WhereClause
	case *pg_query.Node_DeleteStmt:
		ev, err = b.modifyEvents(t, rv, s.DeleteStmt.UsingClause, s.DeleteStmt.WhereClause, nil)
		returning, extra, where = s.DeleteStmt.ReturningList, s.DeleteStmt.UsingClause, s.DeleteStmt.WhereClause
	}
	if err != nil {
		return nil, err
	}
	var steps []ruleStep
	instead := false
	var qualified []*ruleDesc
	returners := 0
	for _, r := range rules {
		st, err := b.ruleSteps(t, r, stack)
		if err != nil {
			return nil, err
		}
		steps = append(steps, st...)
		if r.returning() >= 0 {
			returners++
		}
		switch {
		case r.instead && r.where == nil:
			instead = true
		case r.instead:
			qualified = append(qualified, r)
		}
	}
	if event != pg_query.CmdType_CMD_INSERT {
		if err := onceSteps(steps, t, rv, extra, where); err != nil {
			return nil, err
		}
	}
	if returners > 1 && len(returning) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot have RETURNING lists in multiple rules")
	}
	var orig *originalRun
	if !instead {
		if orig, err = b.originalRun(t, rv, stmt, ins, qualified, stack); err != nil {
			return nil, err
		}
	}
	// PostgreSQL counts the queries a rule makes, not its utility actions
	// (NOTIFY), which do not take the WITH clause.
	queries := btoi(orig != nil)
	for _, st := range steps {
		queries += btoi(st.kind != pg_query.CmdType_CMD_UTILITY)
	}
	if with := withOf(stmt); with != nil && queries > 1 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "WITH cannot be used in a query that is rewritten by rules into multiple queries")
	}
	retStep, tagStep := -1, -1
	for i, st := range steps {
		if st.rule.instead && st.kind == event {
			tagStep = i
		}
		if st.returns {
			retStep = i
		}
	}
	var outs []*scalar
	var cols []outCol
	width := len(t.cols)
	if (instead || len(qualified) > 0) && len(returning) > 0 && retStep < 0 {
		cmd := eventName(event)
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot perform %s RETURNING on relation \"%s\"", cmd, t.name).
			WithHint("You need an unconditional ON %s DO INSTEAD rule with a RETURNING clause.", cmd)
	}
	if orig != nil {
		cols = orig.plan.cols
	} else if len(returning) > 0 {
		sc := tableScope(t, t.name)
		if rv.Alias != nil {
			sc = tableScope(t, rv.Alias.Aliasname)
		}
		if outs, cols, err = b.returning(sc, returning); err != nil {
			return nil, err
		}
		width = len(sc.cols)
	}
	if with := withOf(stmt); with != nil && with == b.topWith {
		if err := b.rulesBesideDataModifyingWith(rules); err != nil {
			return nil, err
		}
	}
	b.defaultParamsToText()
	return &stmtPlan{cols: cols, writes: eventName(event), table: t.qualifiedName(), exec: func(x *execCtx) (*Result, error) {
		var res *Result
		if orig != nil && event == pg_query.CmdType_CMD_INSERT {
			if res, err = orig.run(x); err != nil {
				return nil, err
			}
		}
		var n int64
		var rows [][]any
		for i, st := range steps {
			count, out, err := st.run(x, t, ev)
			if err != nil {
				return nil, err
			}
			if i == tagStep {
				n = count
			}
			if i == retStep && outs != nil {
				for _, r := range out {
					x.row = make([]any, width)
					copy(x.row, r)
					if err := appendReturning(x, outs, &rows); err != nil {
						return nil, err
					}
				}
			}
		}
		if orig != nil && event != pg_query.CmdType_CMD_INSERT {
			if res, err = orig.run(x); err != nil {
				return nil, err
			}
		}
		if res != nil {
			return res, nil
		}
		return &Result{Rows: rows, Tag: commandTag(event, n)}, nil
	}}, nil
}

// conditionalRulesOnly fails with 55000 when rv is a view without an
// INSTEAD OF trigger for event: its rules for event are all conditional
// DO INSTEAD ones, and PostgreSQL then does not update the view
// automatically for the rows they leave.
func (b *binder) conditionalRulesOnly(rv *pg_query.RangeVar, event pg_query.CmdType) error {
	v := b.viewTarget(rv)
	bit := map[pg_query.CmdType]int{pg_query.CmdType_CMD_INSERT: tgInsert, pg_query.CmdType_CMD_UPDATE: tgUpdate,
		pg_query.CmdType_CMD_DELETE: tgDelete}[event]
	if v == nil || v.hasInstead(bit) {
		return nil
	}
	verb := map[pg_query.CmdType]string{pg_query.CmdType_CMD_INSERT: "insert into", pg_query.CmdType_CMD_UPDATE: "update",
		pg_query.CmdType_CMD_DELETE: "delete from"}[event]
	hint := map[pg_query.CmdType]string{pg_query.CmdType_CMD_INSERT: "inserting into", pg_query.CmdType_CMD_UPDATE: "updating",
		pg_query.CmdType_CMD_DELETE: "deleting from"}[event]
	return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot %s view \"%s\"", verb, v.name).
		WithDetail("Views with conditional DO INSTEAD rules are not automatically updatable.").
		WithHint("To enable %s the view, provide an INSTEAD OF %s trigger or an unconditional ON %s DO INSTEAD rule.", hint, eventName(event), eventName(event))
}

// withOf is a DML statement's WITH clause.
func withOf(n *pg_query.Node) *pg_query.WithClause {
	switch v := n.Node.(type) {
	case *pg_query.Node_InsertStmt:
		return v.InsertStmt.WithClause
	case *pg_query.Node_UpdateStmt:
		return v.UpdateStmt.WithClause
	case *pg_query.Node_DeleteStmt:
		return v.DeleteStmt.WithClause
	}
	return nil
}

// commandTag is the tag of a DML command that touched n rows.
func commandTag(event pg_query.CmdType, n int64) string {
	if event == pg_query.CmdType_CMD_INSERT {
		return fmt.Sprintf("INSERT 0 %d", n)
	}
	return fmt.Sprintf("%s %d", eventName(event), n)
}

// stepCtx is the context of one statement a rewrite runs: the caller's
// transaction and parameters, seeing the writes of the steps before it.
func stepCtx(x *execCtx) *execCtx {
	cx := &execCtx{ctx: x.ctx, s: x.s, txn: x.txn, params: x.params, env: x.env, caches: &stmtCaches{}}
	cx.beginRoutineStatement(x)
	return cx
}

// run runs one rule action: once for every event row where the rule's
// condition holds, or once if the action runs once. It returns the rows
// the action touched and the rows its RETURNING list gave.
func (st *ruleStep) run(x *execCtx, t *tableDesc, ev eventRows) (int64, [][]any, error) {
	var events [][]any
	if st.once {
		events = [][]any{make([]any, 2*len(t.cols))}
	} else if err := ev(stepCtx(x), func(r []any) error { events = append(events, r); return nil }); err != nil {
		return 0, nil, err
	}
	s := x.s
	s.routineNames = append(s.routineNames, "rule "+st.rule.name+" on "+t.name)
	defer func() { s.routineNames = s.routineNames[:len(s.routineNames)-1] }()
	var n int64
	var out [][]any
	conflicts := map[*conflictPlan]map[string]bool{}
	for _, vals := range events {
		if st.cond != nil {
			res, err := s.runRoutineStatement(x, st.cond, vals, st.where)
			if err != nil {
				return 0, nil, err
			}
			if len(res.Rows) != 1 || res.Rows[0][0] != true {
				continue
			}
		}
		res, err := s.runRoutineStatementSharing(x, st.plan, vals, st.text, conflicts)
		if err != nil {
			return 0, nil, err
		}
		n += rowCount(res)
		out = append(out, res.Rows...)
	}
	return n, out, nil
}
