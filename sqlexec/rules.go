package sqlexec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Rules (CREATE RULE): PostgreSQL's rewrite rules for INSERT, UPDATE and
// DELETE on tables and views. A rule lives with its relation (tableDesc
// and viewDesc keep them in name order); rules_rewrite.go turns a
// statement on a relation with rules into the original statement and the
// rules' actions, run in PostgreSQL's order. ON SELECT rules exist only
// as CREATE VIEW makes them, so CREATE RULE ... ON SELECT is refused.

// viewRuleName is the name of the ON SELECT rule every view has, which
// pg_rewrite lists and no statement may drop or rename.
const viewRuleName = "_RETURN"

// ruleDesc is one rule: the event it rewrites, DO INSTEAD or DO ALSO,
// its WHERE condition and its actions (none for NOTHING), NEW and OLD
// standing for the rows the event writes.
type ruleDesc struct {
	oid     uint32
	name    string
	event   pg_query.CmdType
	instead bool
	where   *pg_query.Node
	actions []*pg_query.Node
	// deps are the OIDs of the other tables and views the rule names: a
	// DROP of one fails unless CASCADE drops the rule too.
	deps []uint32
}

// returning is the index of the action with a RETURNING list, -1 for none.
func (r *ruleDesc) returning() int {
	for i, a := range r.actions {
		if len(returningList(a)) > 0 {
			return i
		}
	}
	return -1
}

// returningList is a DML statement's RETURNING list.
func returningList(n *pg_query.Node) []*pg_query.Node {
	switch v := n.Node.(type) {
	case *pg_query.Node_InsertStmt:
		return v.InsertStmt.ReturningList
	case *pg_query.Node_UpdateStmt:
		return v.UpdateStmt.ReturningList
	case *pg_query.Node_DeleteStmt:
		return v.DeleteStmt.ReturningList
	}
	return nil
}

// actionCommand is the command type of a rule action.
func actionCommand(n *pg_query.Node) pg_query.CmdType {
	switch n.Node.(type) {
	case *pg_query.Node_InsertStmt:
		return pg_query.CmdType_CMD_INSERT
	case *pg_query.Node_UpdateStmt:
		return pg_query.CmdType_CMD_UPDATE
	case *pg_query.Node_DeleteStmt:
		return pg_query.CmdType_CMD_DELETE
	case *pg_query.Node_NotifyStmt:
		return pg_query.CmdType_CMD_UTILITY
	}
	return pg_query.CmdType_CMD_UNKNOWN
}

// eventName is a rule event as PostgreSQL spells it.
func eventName(e pg_query.CmdType) string {
	return strings.TrimPrefix(e.String(), "CMD_")
}

// ruleRelation resolves the table or view a rule statement names; for a
// view it returns viewTable and the view.
func (d *ddl) ruleRelation(rv *pg_query.RangeVar) (*tableDesc, *viewDesc) {
	if t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname); t != nil {
		return t, nil
	}
	if v := d.s.lookupView(d.cat, rv.Schemaname, rv.Relname); v != nil {
		return viewTable(v), v
	}
	return nil, nil
}

// createRule runs CREATE [OR REPLACE] RULE: it checks the rule as
// PostgreSQL does (NEW and OLD where the event has them, RETURNING only
// in one unconditional INSTEAD action whose list matches the relation's
// columns) and compiles its actions once, so that a rule that names a
// missing table or column fails now.
func (d *ddl) createRule(rs *pg_query.RuleStmt, full string) error {
	t, view := d.ruleRelation(rs.Relation)
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rs.Relation))
	}
	if t.foreign != nil {
		return pgerror.Newf(pgerror.WrongObjectType, "relation \"%s\" cannot have rules", t.name).
			WithDetail("This operation is not supported for foreign tables.")
	}
	if owner, noun := hostOwner(d.cat, t, view); !d.s.actsAsOwner(owner) {
		return d.s.requireOwner(owner, noun, t.name)
	}
	if view == nil && t.matview != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "rules on materialized views are not supported")
	}
	if rs.Event == pg_query.CmdType_CMD_SELECT {
		return pgerror.Unsupported("CREATE RULE ... ON SELECT")
	}
	if rs.Rulename == viewRuleName {
		return pgerror.Newf(pgerror.InvalidObjectDefinition, "non-view rule for \"%s\" must not be named \"%s\"", t.name, viewRuleName)
	}
	r := &ruleDesc{name: rs.Rulename, event: rs.Event, instead: rs.Instead}
	if rs.WhereClause != nil {
		r.where = proto.Clone(rs.WhereClause).(*pg_query.Node)
	}
	for _, a := range rs.Actions {
		switch actionCommand(a) {
		case pg_query.CmdType_CMD_UNKNOWN:
			return pgerror.Unsupported("rule actions other than INSERT, UPDATE, DELETE, NOTIFY and NOTHING")
		case pg_query.CmdType_CMD_UTILITY:
			if r.where != nil {
				return pgerror.New(pgerror.InvalidObjectDefinition, "rules with WHERE conditions can only have SELECT, INSERT, UPDATE, or DELETE actions")
			}
		}
		r.actions = append(r.actions, proto.Clone(a).(*pg_query.Node))
	}
	b := d.binder(full)
	if err := checkRuleRefs(r, b.pos); err != nil {
		return err
	}
	if view == nil && ruleReadsNewGenerated(t, r) {
		return pgerror.Unsupported("rules that read NEW's generated columns")
	}
	for _, a := range r.actions {
		if err := checkRuleWithRefs(a); err != nil {
			return err
		}
	}
	if err := checkRuleReturning(r); err != nil {
		return err
	}
	for _, a := range r.actions {
		if sel := a.GetInsertStmt().GetSelectStmt().GetSelectStmt(); sel != nil && namesNewOrOld(a) && combinesRows(sel, d.binder("").userAggregateNamed) {
			return pgerror.Unsupported("rule actions whose query aggregates, groups, removes duplicates, limits or combines rows of NEW or OLD")
		}
		if readsOwnTarget(a) {
			return pgerror.Unsupported("rule actions that read the relation they write")
		}
	}
	if _, err := b.ruleSteps(t, r, nil); err != nil {
		return err
	}
	r.deps = d.ruleDeps(t, r)
	if view == nil {
		if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
	}
	rules, err := putNamed(d.cat, t.rules, r, rs.Replace, "rule", t.name)
	if err != nil {
		return err
	}
	d.setRules(t, view, rules)
	return nil
}

// checkRuleRefs refuses OLD in an ON INSERT rule, NEW in an ON DELETE rule
// and either in an INSERT action's RETURNING list, as PostgreSQL does; pos
// turns a location in the statement into an error position.
func checkRuleRefs(r *ruleDesc, pos func(int32) int) error {
	var err error
	check := func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil || len(cr.Fields) < 2 || err != nil {
			return err == nil
		}
		switch cr.Fields[0].GetString_().GetSval() {
		case "old":
			if r.event == pg_query.CmdType_CMD_INSERT {
				err = pgerror.New(pgerror.InvalidObjectDefinition, "ON INSERT rule cannot use OLD")
			}
		case "new":
			if r.event == pg_query.CmdType_CMD_DELETE {
				err = pgerror.New(pgerror.InvalidObjectDefinition, "ON DELETE rule cannot use NEW")
			}
		}
		return err == nil
	}
	walk(r.where, check)
	for _, a := range r.actions {
		walk(a, check)
	}
	if err != nil {
		return err
	}
	for _, a := range r.actions {
		if ins := a.GetInsertStmt(); ins != nil {
			for _, n := range ins.ReturningList {
				walk(n, func(m *pg_query.Node) bool {
					cr := m.GetColumnRef()
					if cr == nil || len(cr.Fields) < 2 || err != nil {
						return err == nil
					}
					if rel := cr.Fields[0].GetString_().GetSval(); rel == "new" || rel == "old" {
						// An INSERT's RETURNING sees only the row it inserts.
						err = pgerror.Newf(pgerror.UndefinedTable, "invalid reference to FROM-clause entry for table \"%s\"", rel).
							WithHint("There is an entry for table \"%s\", but it cannot be referenced from this part of the query.", rel).
							WithPosition(pos(cr.Location))
					}
					return err == nil
				})
			}
		}
	}
	return err
}

// checkRuleWithRefs refuses OLD or NEW inside a WITH query of a rule
// action (the action's own, or that of an INSERT's SELECT), which
// PostgreSQL does not implement.
func checkRuleWithRefs(a *pg_query.Node) error {
	withs := []*pg_query.WithClause{withOf(a), a.GetInsertStmt().GetSelectStmt().GetSelectStmt().GetWithClause()}
	for _, rel := range []string{"old", "new"} {
		for _, w := range withs {
			for _, c := range w.GetCtes() {
				found := false
				walk(c.GetCommonTableExpr().GetCtequery(), func(m *pg_query.Node) bool {
					if cr := m.GetColumnRef(); cr != nil && len(cr.Fields) > 1 && cr.Fields[0].GetString_().GetSval() == rel {
						found = true
					}
					return !found
				})
				if found {
					return pgerror.Newf(pgerror.FeatureNotSupported, "cannot refer to %s within WITH query", strings.ToUpper(rel))
				}
			}
		}
	}
	return nil
}

// readsOwnTarget reports whether a rule action names the relation it
// writes again (in FROM, USING or a subquery): run once per NEW or OLD
// row, each run would see the rows the runs before it wrote, where
// PostgreSQL's one query sees none of them.
func readsOwnTarget(a *pg_query.Node) bool {
	target := modifiedTable(a)
	found := false
	walk(a, func(m *pg_query.Node) bool {
		if rv := m.GetRangeVar(); rv != nil && rv.Relname == target.Relname && rv.Schemaname == target.Schemaname {
			found = true
		}
		return !found
	})
	return found
}

// namesNewOrOld reports whether n references NEW or OLD.
func namesNewOrOld(n *pg_query.Node) bool {
	found := false
	walk(n, func(m *pg_query.Node) bool {
		if cr := m.GetColumnRef(); cr != nil && len(cr.Fields) > 1 {
			rel := cr.Fields[0].GetString_().GetSval()
			found = found || rel == "new" || rel == "old"
		}
		return !found
	})
	return found
}

// combinesRows reports whether a query computes its rows from several
// rows of its FROM list together: the rewrite runs an action once per
// NEW or OLD row, where PostgreSQL joins them all into one query, so such
// an action would answer differently.
func combinesRows(sel *pg_query.SelectStmt, userAgg func([]string) bool) bool {
	if sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.GroupClause) > 0 || sel.HavingClause != nil ||
		len(sel.DistinctClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil || len(sel.WindowClause) > 0 {
		return true
	}
	window := false
	for _, t := range sel.TargetList {
		walk(t, func(m *pg_query.Node) bool {
			if m.GetSubLink() != nil {
				return false
			}
			window = window || m.GetFuncCall().GetOver() != nil
			return !window
		})
	}
	return window || containsAgg(userAgg, sel.TargetList...)
}

// checkRuleReturning allows a RETURNING list only in one action of an
// unconditional INSTEAD rule.
func checkRuleReturning(r *ruleDesc) error {
	seen := false
	for _, a := range r.actions {
		if len(returningList(a)) == 0 {
			continue
		}
		switch {
		case !r.instead:
			return pgerror.New(pgerror.FeatureNotSupported, "RETURNING lists are not supported in non-INSTEAD rules")
		case r.where != nil:
			return pgerror.New(pgerror.FeatureNotSupported, "RETURNING lists are not supported in conditional rules")
		case seen:
			return pgerror.New(pgerror.FeatureNotSupported, "cannot have multiple RETURNING lists in a rule")
		}
		seen = true
	}
	return nil
}

// setRules replaces the rules of a table, or of view when it is not nil.
func (d *ddl) setRules(t *tableDesc, view *viewDesc, rules []*ruleDesc) {
	if view != nil {
		nv := *view
		nv.rules = rules
		d.cat.schemas[view.schema].views[view.name] = &nv
		return
	}
	nt := t.clone()
	nt.rules = rules
	d.cat.putTable(nt)
}

// dropRule runs DROP RULE [IF EXISTS] name ON relation.
func (d *ddl) dropRule(ds *pg_query.DropStmt) error {
	for _, o := range ds.Objects {
		parts := strs(o.GetList().GetItems())
		name, rel := parts[len(parts)-1], &pg_query.RangeVar{Relname: parts[len(parts)-2]}
		if len(parts) == 3 {
			rel.Schemaname = parts[0]
		}
		t, view := d.ruleRelation(rel)
		if t == nil {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", rel.Relname)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rel))
		}
		i := slices.IndexFunc(t.rules, func(r *ruleDesc) bool { return r.name == name })
		if owner, _ := hostOwner(d.cat, t, view); (i >= 0 || view != nil && name == viewRuleName) && !d.s.actsAsOwner(owner) {
			return d.s.requireOwner(owner, "relation", t.name)
		}
		if view != nil && name == viewRuleName {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop rule %s on view %s because view %s requires it", name, t.name, t.name).
				WithHint("You can drop view %s instead.", t.name)
		}
		if i < 0 {
			if ds.MissingOk {
				d.notice(pgerror.SuccessfulCompletion, "rule \"%s\" for relation \"%s\" does not exist, skipping", name, t.name)
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "rule \"%s\" for relation \"%s\" does not exist", name, t.name)
		}
		if view == nil {
			if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
		}
		d.cat.dropComments(t.rules[i].oid)
		d.setRules(t, view, slices.Delete(slices.Clone(t.rules), i, i+1))
	}
	return nil
}

// renameRule runs ALTER RULE name ON relation RENAME TO new.
func (d *ddl) renameRule(rs *pg_query.RenameStmt) error {
	t, view := d.ruleRelation(rs.Relation)
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rs.Relation))
	}
	if owner, noun := hostOwner(d.cat, t, view); !d.s.actsAsOwner(owner) {
		return d.s.requireOwner(owner, noun, t.name)
	}
	i := slices.IndexFunc(t.rules, func(r *ruleDesc) bool { return r.name == rs.Subname })
	selectRule := view != nil && rs.Subname == viewRuleName
	if i < 0 && !selectRule {
		return pgerror.Newf(pgerror.UndefinedObject, "rule \"%s\" for relation \"%s\" does not exist", rs.Subname, t.name)
	}
	if slices.ContainsFunc(t.rules, func(r *ruleDesc) bool { return r.name == rs.Newname }) || view != nil && rs.Newname == viewRuleName {
		return pgerror.Newf(pgerror.DuplicateObject, "rule \"%s\" for relation \"%s\" already exists", rs.Newname, t.name)
	}
	if selectRule {
		return pgerror.New(pgerror.InvalidObjectDefinition, "renaming an ON SELECT rule is not allowed")
	}
	if view == nil {
		if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
	}
	rules := slices.Clone(t.rules)
	nr := *rules[i]
	nr.name = rs.Newname
	rules[i] = &nr
	slices.SortFunc(rules, func(a, b *ruleDesc) int { return strings.Compare(a.name, b.name) })
	d.setRules(t, view, rules)
	return nil
}

// ruleDeps lists the tables and views other than t that r's condition
// and actions name.
func (d *ddl) ruleDeps(t *tableDesc, r *ruleDesc) []uint32 {
	var deps []uint32
	visit := func(n *pg_query.Node) bool {
		if rv := n.GetRangeVar(); rv != nil {
			if dep, _ := d.ruleRelation(rv); dep != nil && dep.oid != t.oid && !slices.Contains(deps, dep.oid) {
				deps = append(deps, dep.oid)
			}
		}
		return true
	}
	walk(r.where, visit)
	for _, a := range r.actions {
		visit(&pg_query.Node{Node: &pg_query.Node_RangeVar{RangeVar: modifiedTable(a)}})
		walk(a, visit)
	}
	return deps
}

// dependentRules finds the rules, on relations not being dropped, that
// name one that is: without cascade that is PostgreSQL's error, with it
// the returned function drops them once the relations are gone.
func (d *ddl) dependentRules(kind string, dropping map[uint32]bool, cascade bool) (func(), error) {
	type dependent struct {
		rel  uint32
		rule *ruleDesc
		text string
	}
	var found []dependent
	for _, t := range ruleRelations(d.cat) {
		if dropping[t.oid] {
			continue
		}
		what := "table"
		if d.cat.tables[t.oid] == nil {
			what = "view"
		}
		for _, r := range t.rules {
			for _, dep := range r.deps {
				if dropping[dep] {
					_, depName, _ := relationByOid(d.cat, int64(dep))
					found = append(found, dependent{t.oid, r, fmt.Sprintf("rule %s on %s %s depends on %s %s", r.name, what, t.name, kind, depName)})
					break
				}
			}
		}
	}
	if len(found) == 0 {
		return func() {}, nil
	}
	slices.SortFunc(found, func(a, b dependent) int { return cmp.Compare(a.rule.oid, b.rule.oid) })
	var lines []string
	for _, f := range found {
		lines = append(lines, f.text)
	}
	if !cascade {
		_, depName, _ := relationByOid(d.cat, int64(found[0].rule.deps[0]))
		for _, dep := range found[0].rule.deps {
			if dropping[dep] {
				_, depName, _ = relationByOid(d.cat, int64(dep))
				break
			}
		}
		return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", kind, depName).
			WithDetail("%s", strings.Join(lines, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	if len(found) == 1 {
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to %s", strings.SplitN(lines[0], " depends on ", 2)[0])
	} else {
		var cascades []string
		for _, l := range lines {
			cascades = append(cascades, "drop cascades to "+strings.SplitN(l, " depends on ", 2)[0])
		}
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to %d other objects", len(found))
		d.notices[len(d.notices)-1].Detail = strings.Join(cascades, "\n")
	}
	return func() {
		for _, f := range found {
			for _, t := range ruleRelations(d.cat) {
				if t.oid != f.rel {
					continue
				}
				var view *viewDesc
				if d.cat.tables[t.oid] == nil {
					view = viewByOid(d.cat, t.oid)
				}
				d.setRules(t, view, slices.DeleteFunc(slices.Clone(t.rules), func(r *ruleDesc) bool { return r.name == f.rule.name }))
			}
		}
	}, nil
}

func (r *ruleDesc) objName() string { return r.name }
func (r *ruleDesc) objOID() *uint32 { return &r.oid }
