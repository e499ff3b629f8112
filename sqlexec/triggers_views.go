package sqlexec

import (
	"fmt"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Triggers on views: INSTEAD OF row triggers carry out INSERT, UPDATE and
// DELETE through a view (the view's columns are NEW and OLD, and the rows
// a trigger returns are the ones counted in the command tag and
// returned by RETURNING), and BEFORE / AFTER statement triggers fire
// around such a statement. A view's triggers live in its viewDesc; the
// trigger machinery of tables sees the view as viewTable, a table
// descriptor of its columns that is never stored.

// viewTable is v in the shape of a table descriptor: its OID, names,
// columns (with their defaults), triggers and rules.
func viewTable(v *viewDesc) *tableDesc {
	t := &tableDesc{oid: v.oid, owner: v.owner, schema: v.schema, name: v.name, triggers: v.triggers, rules: v.rules}
	for i, c := range v.cols {
		t.cols = append(t.cols, &columnDesc{name: c.name, typ: c.typ, def: c.def, attnum: int16(i + 1)})
	}
	return t
}

// oidIs reports whether v is the view with the OID; false for nil.
func (v *viewDesc) oidIs(oid uint32) bool {
	return v != nil && v.oid == oid
}

// triggerRelations are the catalog's tables and the views that have
// triggers, in OID order.
func (c *catalog) triggerRelations() []*tableDesc {
	out := sortedTables(c)
	for _, v := range sortedViews(c) {
		if len(v.triggers) > 0 {
			out = append(out, viewTable(v))
		}
	}
	return out
}

// triggerRelation resolves the table or view CREATE TRIGGER names and
// checks the trigger's kind against it as PostgreSQL does: tables have no
// INSTEAD OF triggers, views no row-level BEFORE or AFTER ones, and an
// INSTEAD OF trigger is a row trigger without WHEN or a column list. For a
// view it returns viewTable and the view.
func (d *ddl) triggerRelation(ct *pg_query.CreateTrigStmt) (*tableDesc, *viewDesc, error) {
	rv := ct.Relation
	instead := ct.Timing&tgInstead != 0
	t := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	var v *viewDesc
	switch {
	case t != nil && t.matview != nil:
		return nil, nil, pgerror.Newf(pgerror.WrongObjectType, "relation \"%s\" cannot have triggers", t.name).
			WithDetail("This operation is not supported for materialized views.")
	case t != nil && t.foreign != nil:
		if err := foreignTriggerError(t, nil, ct); err != nil {
			return nil, nil, err
		}
	case t != nil && instead:
		return nil, nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a table", t.name).
			WithDetail("Tables cannot have INSTEAD OF triggers.")
	case t == nil:
		if v = d.s.lookupView(d.cat, rv.Schemaname, rv.Relname); v == nil {
			return nil, nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
		}
		if len(ct.TransitionRels) > 0 {
			return nil, nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a view", v.name).
				WithDetail("Triggers on views cannot have transition tables.")
		}
		if !instead && ct.Row {
			return nil, nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a view", v.name).
				WithDetail("Views cannot have row-level BEFORE or AFTER triggers.")
		}
		if ct.Events&tgTruncate != 0 {
			return nil, nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is a view", v.name).
				WithDetail("Views cannot have TRUNCATE triggers.")
		}
		t = viewTable(v)
	}
	if instead {
		switch {
		case !ct.Row:
			return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "INSTEAD OF triggers must be FOR EACH ROW")
		case ct.WhenClause != nil:
			return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "INSTEAD OF triggers cannot have WHEN conditions")
		case len(ct.Columns) > 0:
			return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "INSTEAD OF triggers cannot have column lists")
		}
	}
	return t, v, nil
}

// viewTarget returns the view a DML statement writes, nil when its target
// is not a view.
func (b *binder) viewTarget(rv *pg_query.RangeVar) *viewDesc {
	return b.s.lookupView(b.cat, rv.Schemaname, rv.Relname)
}

// insteadTriggers plans the triggers of event on the view vt; a view
// without an INSTEAD OF trigger for the event cannot be written. Those that
// do not fire (disabled, or not in the session's replication role) are
// left out: with none left, each row is counted and nothing written.
func (b *binder) insteadTriggers(vt *tableDesc, event int, loc int32) (*triggerSet, error) {
	ts, err := b.triggersFor(vt, event, nil)
	if err != nil {
		return nil, err
	}
	if ts == nil || !slices.ContainsFunc(vt.triggers, func(tr *triggerDesc) bool { return tr.tgtype&tgInstead != 0 && tr.tgtype&event != 0 }) {
		return nil, b.errAt(pgerror.Unsupported("writing to views without an INSTEAD OF trigger"), loc)
	}
	return ts, nil
}

// instead fires the INSTEAD OF triggers for one row written through a
// view, in name order, each given the row the previous one returned. It
// returns the row the statement reports (for DELETE the old row), nil
// when a trigger returned NULL: the row was not processed.
func (ts *triggerRun) instead(x *execCtx, old, new []any) ([]any, error) {
	row := new
	for _, f := range ts.insteadRow {
		out, err := ts.fire(x, f, "INSTEAD OF", "ROW", old, row)
		if err != nil || out == nil {
			return nil, err
		}
		if ts.event != tgDelete {
			row = out
		}
	}
	if ts.event == tgDelete {
		return old, nil
	}
	return row, nil
}

// viewInsertPlan plans INSERT into a view with an INSTEAD OF INSERT
// trigger: each row the source produces (columns not given take the
// view's column defaults, else NULL) is handed to the trigger as NEW.
func (b *binder) viewInsertPlan(v *viewDesc, ins *pg_query.InsertStmt, as uint32) (*stmtPlan, error) {
	vt := viewTable(v)
	trg, err := b.insteadTriggers(vt, tgInsert, ins.Relation.Location)
	if err != nil {
		return nil, err
	}
	if ins.OnConflictClause != nil {
		return nil, pgerror.Unsupported("INSERT ... ON CONFLICT into a view")
	}
	var ctes map[string]*ctePlan
	if ins.WithClause != nil {
		if ctes, err = b.withClause(nil, ins.WithClause, nil); err != nil {
			return nil, err
		}
	}
	b.requirePrivilegeAs(as, v.oid, v.name, "view", 'a')
	if len(ins.ReturningList) > 0 {
		b.requirePrivilegeAs(as, v.oid, v.name, "view", 'r')
	}
	target, assigns, err := b.insertTargets(vt, ins)
	if err != nil {
		return nil, err
	}
	src, srcNode, err := b.insertSourceFor(vt, target, assigns, ins.Cols, ins.SelectStmt, ctes)
	if err != nil {
		return nil, err
	}
	sc := insertScope(vt, ins, ctes)
	outs, cols, err := b.returning(sc, ins.ReturningList)
	if err != nil {
		return nil, err
	}
	w, err := b.writerFor(vt, false)
	if err != nil {
		return nil, err
	}
	w.requireDefaults(nil)
	b.defaultParamsToText()
	return b.modifyPlan(&modifyOp{command: "Insert", t: vt, alias: ins.Relation.Alias.GetAliasname()}, srcNode, &stmtPlan{cols: cols, writes: "INSERT", table: vt.qualifiedName(), exec: func(x *execCtx) (*Result, error) {
		run, err := trg.start(x)
		if err != nil {
			return nil, err
		}
		var n int64
		var rows [][]any
		err = src(x, func(vals []any, isDefault []bool) error {
			row, given := make([]any, len(vt.cols)), make([]bool, len(vt.cols))
			if err := placeInserted(x, row, given, target, vals, isDefault, assigns, nil); err != nil {
				return err
			}
			if err := w.fillDefaults(x, row, given); err != nil {
				return err
			}
			out, err := run.instead(x, nil, row)
			if err != nil || out == nil {
				return err
			}
			n++
			x.row = out
			return appendReturning(x, outs, &rows)
		})
		if err == nil {
			err = run.afterStatement(x)
		}
		if err != nil {
			return nil, err
		}
		return &Result{Rows: rows, Tag: fmt.Sprintf("INSERT 0 %d", n)}, nil
	}}), nil
}

// viewModifyPlan plans UPDATE (sets non-nil) or DELETE of a view with an
// INSTEAD OF trigger for the event: the view's rows that match, joined
// with the FROM / USING items, are handed to the trigger as OLD (and NEW,
// OLD with the SET clauses applied).
func (b *binder) viewModifyPlan(v *viewDesc, as uint32, rv *pg_query.RangeVar, event int, extra []*pg_query.Node, where *pg_query.Node,
	setList, returning []*pg_query.Node) (*stmtPlan, error) {
	vt := viewTable(v)
	trg, err := b.insteadTriggers(vt, event, rv.Location)
	if err != nil {
		return nil, err
	}
	m, err := b.matchTarget(rv, extra, where)
	if err != nil {
		return nil, err
	}
	sc := m.sc
	priv, command, writes := byte('d'), "Delete", "DELETE"
	var sets []setTarget
	if event == tgUpdate {
		priv, command, writes = 'w', "Update", "UPDATE"
		if sets, err = b.setTargets(vt, sc, setList); err != nil {
			return nil, err
		}
	}
	b.requirePrivilegeAs(as, v.oid, v.name, "view", priv)
	if readsTargetRows(where, returning, setList) {
		b.requirePrivilegeAs(as, v.oid, v.name, "view", 'r')
	}
	outs, cols, err := b.returning(sc, returning)
	if err != nil {
		return nil, err
	}
	b.defaultParamsToText()
	return b.modifyPlan(&modifyOp{command: command, t: vt, alias: rv.Alias.GetAliasname()}, fromTree(m.items, m.pre), &stmtPlan{cols: cols, writes: writes, table: vt.qualifiedName(), predicate: predicateText(where), exec: func(x *execCtx) (*Result, error) {
		run, err := trg.start(x)
		if err != nil {
			return nil, err
		}
		matched, err := m.collect(x)
		if err != nil {
			return nil, err
		}
		var rows [][]any
		n := 0
		for _, full := range matched {
			x.row = full
			old := append([]any(nil), full[:len(vt.cols)]...)
			var new []any
			if sets != nil {
				new = append([]any(nil), old...)
				for _, s := range sets {
					if s.e == nil {
						new[s.col] = nil
						continue
					}
					if new[s.col], err = s.value(x, new[s.col]); err != nil {
						return nil, err
					}
				}
			}
			out, err := run.instead(x, old, new)
			if err != nil {
				return nil, err
			}
			if out == nil {
				continue
			}
			n++
			x.row = full
			copy(x.row, out)
			if err := appendReturning(x, outs, &rows); err != nil {
				return nil, err
			}
		}
		if err := run.afterStatement(x); err != nil {
			return nil, err
		}
		return &Result{Rows: rows, Tag: fmt.Sprintf("%s %d", writes, n)}, nil
	}}), nil
}

// appendReturning evaluates RETURNING (outs, nil without one) on x.row
// and appends the result to rows.
func appendReturning(x *execCtx, outs []*scalar, rows *[][]any) error {
	if outs == nil {
		return nil
	}
	p, err := project(x, outs)
	if err != nil {
		return err
	}
	*rows = append(*rows, p)
	return nil
}

// defaultParamsToText gives the parameters whose type nothing decided the
// type text, as PostgreSQL does.
func (b *binder) defaultParamsToText() {
	for i := range b.params {
		if b.params[i].Oid == 0 {
			b.params[i] = types.Text
		}
	}
}
