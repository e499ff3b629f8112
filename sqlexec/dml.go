package sqlexec

import (
	"encoding/binary"
	"errors"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// targetTable resolves the table a DML statement writes.
func (b *binder) targetTable(rv *pg_query.RangeVar) (*tableDesc, error) {
	if virtualTableFor(rv.Schemaname, rv.Relname, nil) != nil {
		// PostgreSQL lets a superuser write its catalogs, which fickle
		// computes from its own: it refuses rather than deny.
		if b.s.isSuperuser(b.s.currentRole()) {
			return nil, b.errAt(pgerror.Unsupported("writing to the system catalogs"), rv.Location)
		}
		return nil, b.errAt(pgerror.Newf(pgerror.InsufficientPrivilege, "cannot change system table \"%s\"", rv.Relname), rv.Location)
	}
	t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
	if t == nil {
		if b.s.lookupView(b.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, b.errAt(pgerror.Unsupported("writing to views"), rv.Location)
		}
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv)), rv.Location)
	}
	if t.matview != nil {
		return nil, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "cannot change materialized view \"%s\"", t.name), rv.Location)
	}
	b.useTable(t, isolation.TableLockRowExclusive)
	if err := b.cat.foreignReadError(t); err != nil {
		b.perms = append(b.perms, permCheck{planErr: err})
	}
	return t, nil
}

// returning compiles a RETURNING list over sc.
func (b *binder) returning(sc *scope, list []*pg_query.Node) ([]*scalar, []outCol, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	was := sc.noAgg
	sc.noAgg = "RETURNING"
	defer func() { sc.noAgg = was }()
	outs, cols, _, err := b.targetList(sc, list, unknownOutputs{})
	return outs, cols, err
}

func project(x *execCtx, outs []*scalar) ([]any, error) {
	row := make([]any, len(outs))
	for i, o := range outs {
		v, err := o.eval(x)
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	return row, nil
}

// insertDefaults marks the columns of t that an INSERT may fill with their
// defaults: those it does not name, those a VALUES row gives DEFAULT, the
// identity columns under OVERRIDING USER VALUE, and every column for
// DEFAULT VALUES.
func insertDefaults(t *tableDesc, target []int, ins *pg_query.InsertStmt, overrideUser bool) []bool {
	out := make([]bool, len(t.cols))
	for i, c := range t.cols {
		out[i] = ins.SelectStmt == nil || overrideUser && c.identity != 0
	}
	named := make([]bool, len(t.cols))
	for _, c := range target {
		named[c] = true
	}
	for i := range out {
		out[i] = out[i] || !named[i]
	}
	for _, row := range ins.SelectStmt.GetSelectStmt().GetValuesLists() {
		for j, item := range row.GetList().GetItems() {
			if item.GetSetToDefault() != nil && j < len(target) {
				out[target[j]] = true
			}
		}
	}
	return out
}

// setsDefault reports whether sets give column col its default.
func setsDefault(sets []setTarget, col int) bool {
	return slices.ContainsFunc(sets, func(s setTarget) bool { return s.col == col && s.e == nil })
}

// insertSource produces the rows an INSERT writes: values for the target
// columns, in target-column order, with isDefault marking DEFAULT entries.
type insertSource func(x *execCtx, emit func(vals []any, isDefault []bool) error) error

func (b *binder) insertPlan(ins *pg_query.InsertStmt) (*stmtPlan, error) {
	checks := b.takeViewChecks()
	as := b.takeWriteAs()
	ins = b.expandValuesStars(ins)
	if p, ok, err := b.rewritten(ins.Relation, pg_query.CmdType_CMD_INSERT, &pg_query.Node{Node: &pg_query.Node_InsertStmt{InsertStmt: ins}}); ok {
		if err == nil {
			err = refuseViewChecks(checks)
		}
		return p, err
	}
	if v := b.viewTarget(ins.Relation); v != nil {
		if err := b.checkViewAccess(v); err != nil {
			return nil, err
		}
		if !v.hasInstead(tgInsert) {
			b.viewChecks = checks
			return b.autoViewInsert(v, ins, as)
		}
		if err := refuseViewChecks(checks); err != nil {
			return nil, err
		}
		return b.viewInsertPlan(v, ins, as)
	}
	ctes, err := b.topWithClause(ins.WithClause)
	if err != nil {
		return nil, err
	}
	t, err := b.targetTable(ins.Relation)
	if err != nil {
		return nil, err
	}
	inserted := &columnUse{}
	b.requireColumnsAs(as, t.oid, t.name, "table", 'a', inserted)
	// RETURNING, ON CONFLICT's arbiter and DO UPDATE need SELECT on the
	// columns they read, and only then, as in PostgreSQL.
	selected := trackedColumns(t, len(t.cols))
	selected.ifUsed = true
	b.requireColumnsAs(as, t.oid, t.name, "table", 'r', selected)
	updated := &columnUse{}
	if oc := ins.OnConflictClause; oc != nil && oc.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE {
		b.requireColumnsAs(as, t.oid, t.name, "table", 'w', updated)
	}
	target, assigns, err := b.insertTargets(t, ins)
	if err != nil {
		return nil, err
	}
	for _, c := range target {
		if !slices.Contains(inserted.attnums, t.cols[c].attnum) {
			inserted.attnums = append(inserted.attnums, t.cols[c].attnum)
		}
	}
	selected.markArbiter(t, ins.OnConflictClause)
	src, srcNode, err := b.insertSourceFor(t, target, assigns, ins.Cols, ins.SelectStmt, ctes)
	if err != nil {
		return nil, err
	}
	if err := refuseGeneratedInsert(t, target, ins.SelectStmt); err != nil {
		return nil, err
	}
	if ins.Override != pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE && ins.SelectStmt != nil {
		for i, c := range target {
			if t.cols[c].identity == 'a' && ins.Override != pg_query.OverridingKind_OVERRIDING_USER_VALUE && !valuesAllDefault(ins.SelectStmt, i) {
				return nil, pgerror.Newf(pgerror.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", t.cols[c].name).
					WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", t.cols[c].name).
					WithHint("Use OVERRIDING SYSTEM VALUE to override.")
			}
		}
	}
	overrideUser := ins.Override == pg_query.OverridingKind_OVERRIDING_USER_VALUE
	w, err := b.writerFor(t, ins.OnConflictClause != nil && ins.OnConflictClause.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE)
	if err != nil {
		return nil, err
	}
	sc := insertScope(t, ins, ctes)
	selected.track(sc.cols)
	versions := b.readsRowVersions()
	rsc := withInsertedSystemCols(sc, t, versions)
	selected.track(rsc.cols)
	var versionRead bool // RETURNING reads xmin or xmax
	watched := watchVersionReads(rsc.cols, len(t.cols)+1, &versionRead)
	outs, cols, err := b.returning(rsc, ins.ReturningList)
	if err != nil {
		return nil, err
	}
	watched()
	oc, err := b.onConflict(t, sc, ins.OnConflictClause)
	if err != nil {
		return nil, err
	}
	if oc != nil && oc.update {
		b.atStart(b.cat.checkTargetReplicaIdentity(t, true, true, true))
	}
	if oc != nil {
		updated.attnums = setAttnums(t, oc.sets)
	}
	mayDefault := insertDefaults(t, target, ins, overrideUser)
	w.requireDefaults(func(c int) bool { return mayDefault[c] || oc != nil && setsDefault(oc.sets, c) })
	for i := range b.params {
		if b.params[i].Oid == 0 {
			b.params[i] = types.Text
		}
	}
	trg, err := b.triggersFor(t, tgInsert, nil)
	if err != nil {
		return nil, err
	}
	// ON CONFLICT DO UPDATE fires the UPDATE triggers too: the statement
	// ones around the INSERT's, the row ones for each row it updates.
	var updTrg *triggerSet
	if oc != nil && oc.update {
		var setCols []int
		for _, st := range oc.sets {
			setCols = append(setCols, st.col)
		}
		if updTrg, err = b.triggersFor(t, tgUpdate, setCols); err != nil {
			return nil, err
		}
		oc.rowTrg = rowPart(updTrg)
	}
	if oc != nil && (trg != nil && trg.transitions || updTrg != nil && updTrg.transitions) {
		return nil, pgerror.Unsupported("INSERT ... ON CONFLICT into a table with transition tables")
	}
	router, pcheck, err := b.insertRouting(t, oc)
	if err != nil {
		return nil, err
	}
	// ON CONFLICT with a conflict target reads the arbiter's columns, so
	// the SELECT policies apply as for RETURNING.
	reads := len(ins.ReturningList) > 0 || ins.OnConflictClause.GetInfer() != nil
	policies, err := b.rowSecurityCheckFor(t, polInsert, reads)
	if err != nil {
		return nil, err
	}
	if err := b.conflictRowSecurity(oc, reads); err != nil {
		return nil, err
	}
	vchecks, err := b.viewChecksFor(t, targetName(ins.Relation), checks)
	if err != nil {
		return nil, err
	}
	return b.modifyPlan(&modifyOp{command: "Insert", t: t, alias: ins.Relation.Alias.GetAliasname(), conflict: oc.action()}, srcNode, &stmtPlan{cols: cols, writes: "INSERT", table: t.qualifiedName(), exec: func(x *execCtx) (*Result, error) {
		var n int64
		var rows [][]any
		given := make([]bool, len(t.cols))
		trg, err := trg.start(x)
		if err != nil {
			return nil, err
		}
		upd, err := updTrg.start(x)
		if err != nil {
			return nil, err
		}
		if oc != nil && oc.update {
			// The rows the operations it triggers write (a BEFORE INSERT
			// trigger's statement) are ones DO UPDATE may not update.
			if x.caches == nil {
				x.caches = &stmtCaches{}
			}
			x.memoSet(conflictGuard{oc}, x.s.startModify())
			defer x.s.endModify()
		}
		leafEvents := &rowQueue{}
		// With ON CONFLICT DO UPDATE the AFTER ROW events of the rows
		// inserted and updated fire in the order the rows were written.
		insRows := rowPart(trg.set())
		after := func(row []any) {
			if oc != nil && oc.update {
				leafEvents.add(insRows, nil, row)
			} else {
				trg.after(nil, row)
			}
		}
		// emit counts and returns row (in t's column order), written to
		// the table with OID oid as the version v.
		emit := func(row []any, oid uint32, v isolation.RowVersion) error {
			n++
			if outs != nil {
				x.row = append(row[:len(row):len(row)], int64(oid))
				if versions {
					x.row = withRowVersion(x.row, v)
				}
				p, err := project(x, outs)
				if err != nil {
					return err
				}
				rows = append(rows, p)
			}
			return nil
		}
		// updated is emit for the row ON CONFLICT DO UPDATE made, which the
		// check options of the views written through hold too.
		var updated func(row []any, oid uint32, v isolation.RowVersion) error
		if oc != nil {
			updated = func(row []any, oid uint32, v isolation.RowVersion) error {
				if err := checkViewRow(x, t, vchecks, row); err != nil {
					return err
				}
				return emit(row, oid, v)
			}
		}
		var skip func(int) bool // OVERRIDING USER VALUE: identity columns take their defaults
		if overrideUser {
			skip = func(c int) bool { return t.cols[c].identity != 0 }
		}
		err = src(x, func(vals []any, isDefault []bool) error {
			if n%1024 == 0 {
				if err := x.checkCancel(); err != nil {
					return err
				}
			}
			row := make([]any, len(t.cols))
			for i := range given {
				given[i] = false
			}
			if err := placeInserted(x, row, given, target, vals, isDefault, assigns, skip); err != nil {
				return err
			}
			if err := w.fillDefaults(x, row, given); err != nil {
				return err
			}
			row, err := trg.before(x, nil, row)
			if err != nil || row == nil {
				return err
			}
			if err := w.computeGenerated(x, row); err != nil {
				return err
			}
			if router == nil {
				if err := policies.check(x, row); err != nil {
					return err
				}
				if err := w.validate(x, row, nil); err != nil {
					return err
				}
			}
			if err := pcheck.check(x, t, row); err != nil {
				return err
			}
			oid, id := t.oid, t.id // of the table the row goes to
			var key []byte         // its key there
			var leafT *tableDesc   // the partition a routed row went to
			switch {
			case router != nil && oc != nil:
				leaf, lrow, err := router.route(x, row)
				if err != nil {
					return err
				}
				if err := policies.check(x, row); err != nil {
					return err
				}
				if err := leaf.w.validate(x, lrow, nil); err != nil {
					return err
				}
				done, k, err := oc.tryIn(x, w, leaf, row, lrow, leafEvents, func(r []any, v isolation.RowVersion) error { return updated(r, leaf.t.oid, v) })
				if err != nil || done {
					return err
				}
				oid, id, key, leafT = leaf.t.oid, leaf.t.id, k, leaf.t
			case router != nil:
				if row, leafT, key, err = router.insert(x, row, policies, leafEvents); err != nil || row == nil {
					return err
				}
				oid, id = leafT.oid, leafT.id
			case oc != nil:
				done, k, err := oc.try(x, w, row, leafEvents, func(r []any, v isolation.RowVersion) error { return updated(r, t.oid, v) })
				if err != nil || done {
					return err
				}
				key = k
			default:
				if key, err = w.insertRow(x, row); err != nil {
					return err
				}
			}
			if err := checkViewRow(x, t, vchecks, row); err != nil {
				return err
			}
			after(row)
			var v isolation.RowVersion
			if versions && key != nil {
				v = x.txn.OwnVersion(id, key)
			}
			if versions && oc != nil {
				// ON CONFLICT inserts under a store savepoint of its own,
				// which PostgreSQL's speculative insertion is not.
				v.Xmin = x.txn.XID()
			}
			if versionRead && leafT != nil && routedVersionsUnreadable(t, nil, leafT) {
				return versionsUnreadableError()
			}
			return emit(row, oid, v)
		})
		if err == nil {
			err = leafEvents.fire(x)
		}
		if err == nil {
			err = upd.afterStatement(x)
		}
		if err == nil {
			err = trg.afterStatement(x)
		}
		if err != nil {
			return nil, err
		}
		return &Result{Rows: rows, Tag: rowsTag("INSERT 0", n)}, nil
	}}), nil
}

// insertTargets resolves an INSERT's target columns (all of t's without a
// column list, cut to the number of values given) and their subscripts
// (nil entries for whole columns); DEFAULT VALUES has none.
func (b *binder) insertTargets(t *tableDesc, ins *pg_query.InsertStmt) ([]int, []*arrayAssign, error) {
	var target []int
	var assigns []*arrayAssign // per target: its subscripts, or nil
	if len(ins.Cols) == 0 {
		for i := range t.cols {
			target = append(target, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range ins.Cols {
			rt := c.GetResTarget()
			i := t.colIndex(rt.Name)
			if i < 0 {
				return nil, nil, b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, t.name), rt.Location)
			}
			var a *arrayAssign
			if len(rt.Indirection) > 0 {
				var err error
				if a, err = b.bindArrayAssign(nil, t.cols[i], rt.Indirection, rt.Location); err != nil {
					return nil, nil, err
				}
			}
			if seen[i] && a == nil {
				return nil, nil, b.errAt(pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" specified more than once", rt.Name), rt.Location)
			}
			seen[i] = a == nil
			target = append(target, i)
			assigns = append(assigns, a)
		}
	}
	if ins.SelectStmt == nil {
		target = nil // DEFAULT VALUES
	} else if len(ins.Cols) == 0 {
		// Without a column list, fewer values than columns fill the
		// leading columns.
		if n := sourceWidth(ins.SelectStmt); n >= 0 && n < len(target) {
			target = target[:n]
		}
	}
	return target, assigns, nil
}

// insertSourceFor compiles VALUES (coerced straight to the column types, so
// that $n takes the column's type), DEFAULT VALUES or a query; ctes are the
// statement's WITH queries.
func (b *binder) insertSourceFor(t *tableDesc, target []int, assigns []*arrayAssign, cols []*pg_query.Node, sel *pg_query.Node, ctes map[string]*ctePlan) (insertSource, *planNode, error) {
	if sel == nil {
		return func(x *execCtx, emit func([]any, []bool) error) error { return emit(nil, nil) }, newNode(&resultOp{}, 1, 0, 0), nil
	}
	st := sel.GetSelectStmt()
	if st != nil && len(st.ValuesLists) > 0 && len(st.SortClause) == 0 && st.LimitCount == nil && st.LimitOffset == nil && st.WithClause == nil {
		var rows [][]*scalar
		var defs [][]bool
		// The values read the statement's WITH queries; aggregates and
		// window functions are PostgreSQL's errors there, and so are
		// set-returning functions but in a single row, which PostgreSQL
		// compiles as a select list: each row of their expansion is
		// inserted (a ProjectSet below the insert).
		valuesScope := &scope{ctes: ctes, noAgg: "VALUES"}
		if len(st.ValuesLists) == 1 && b.containsSetCall(st.ValuesLists[0].GetList().GetItems()...) {
			valuesScope.srf = &srfScope{}
		}
		for _, l := range st.ValuesLists[1:] {
			if items := l.GetList().GetItems(); len(items) != len(st.ValuesLists[0].GetList().GetItems()) {
				return nil, nil, b.errAt(pgerror.New(pgerror.SyntaxError, "VALUES lists must all be the same length"), exprLocation(items[0]))
			}
		}
		for _, l := range st.ValuesLists {
			items := l.GetList().GetItems()
			if len(items) > len(target) {
				return nil, nil, b.errAt(pgerror.New(pgerror.SyntaxError, "INSERT has more expressions than target columns"), exprLocation(items[len(target)]))
			}
			if len(items) < len(target) {
				loc := int32(-1)
				if len(items) < len(cols) {
					loc = cols[len(items)].GetResTarget().GetLocation()
				}
				return nil, nil, b.errAt(pgerror.New(pgerror.SyntaxError, "INSERT has more target columns than expressions"), loc)
			}
			row := make([]*scalar, len(items))
			def := make([]bool, len(items))
			for i, it := range items {
				if it.GetSetToDefault() != nil {
					if assigns != nil && assigns[i] != nil {
						return nil, nil, b.defaultTargetError(assigns[i].steps != nil && assigns[i].steps[0].field >= 0, assigns[i].loc)
					}
					def[i] = true
					continue
				}
				e, err := b.expr(valuesScope, it)
				if err != nil {
					return nil, nil, err
				}
				if assigns != nil && assigns[i] != nil {
					if row[i], err = b.coerceAssignValue(assigns[i], e); err != nil {
						return nil, nil, err
					}
					continue
				}
				col := t.cols[target[i]]
				ce, err := b.coerceToColumn(e, col, it)
				if err != nil {
					return nil, nil, b.assignError(err, col, e, it)
				}
				row[i] = ce
			}
			rows = append(rows, row)
			defs = append(defs, def)
		}
		node := newNode(valuesOp{}, float64(len(rows)), 0, 0)
		if len(rows) == 1 {
			node = newNode(&resultOp{}, 1, 0, 0)
		}
		eval := func(x *execCtx, row []*scalar) ([]any, error) {
			vals := make([]any, len(row))
			for i, e := range row {
				if e == nil {
					continue
				}
				v, err := e.eval(x)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			return vals, nil
		}
		if srf := valuesScope.srf; srf != nil && len(srf.calls) > 0 {
			row := rows[0]
			var again []*scalar // the volatile values ProjectSet computes once more when the calls end
			for i, it := range st.ValuesLists[0].GetList().GetItems() {
				if row[i] != nil && row[i].volatile && !b.containsSetCall(it) {
					again = append(again, row[i])
				}
			}
			return func(x *execCtx, emit func([]any, []bool) error) error {
				x.stats.loop(node, 1, 0)
				return srf.expand(x, func() error {
					vals, err := eval(x, row)
					if err != nil {
						return err
					}
					return emit(vals, defs[0])
				}, func() error {
					for _, e := range again {
						if _, err := e.eval(x); err != nil {
							return err
						}
					}
					return nil
				})
			}, node, nil
		}
		return func(x *execCtx, emit func([]any, []bool) error) error {
			x.stats.loop(node, len(rows), 0)
			for r, row := range rows {
				vals, err := eval(x, row)
				if err != nil {
					return err
				}
				if err := emit(vals, defs[r]); err != nil {
					return err
				}
			}
			return nil
		}, node, nil
	}
	want := make([]types.Type, len(target))
	domains := make([]uint32, len(target))
	for i, c := range target {
		want[i], domains[i] = t.cols[c].typ, t.cols[c].domain
		if assigns != nil && assigns[i] != nil {
			want[i], domains[i] = assigns[i].valType, 0
		}
	}
	b.unknownOutputs = unknownOutputs{want: want, domains: domains}
	p, err := b.selectNode(nil, sel, ctes)
	if err != nil {
		return nil, nil, err
	}
	if len(p.cols) > len(target) {
		return nil, nil, pgerror.New(pgerror.SyntaxError, "INSERT has more expressions than target columns")
	}
	convs := make([]types.CastFunc, len(p.cols))
	for i, c := range p.cols {
		col := t.cols[target[i]]
		from := c.typ
		if from.Oid == types.OidUnknown {
			from = types.Text
		}
		if from == want[i] {
			continue
		}
		f, err := types.LookupCast(from, want[i], types.CastAssignment)
		if err != nil {
			if assigns != nil && assigns[i] != nil {
				return nil, nil, b.assignMismatch(assigns[i], from)
			}
			return nil, nil, pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" is of type %s but expression is of type %s", col.name, b.columnTypeName(col), from).
				WithHint("You will need to rewrite or cast the expression.")
		}
		convs[i] = f
	}
	ncols := len(p.cols)
	return func(x *execCtx, emit func([]any, []bool) error) error {
		rows, err := p.run(x)
		if err != nil {
			return err
		}
		isDefault := make([]bool, len(target))
		for i := ncols; i < len(target); i++ {
			isDefault[i] = true
		}
		for _, r := range rows {
			vals := make([]any, len(target))
			for i := 0; i < ncols; i++ {
				v := r[i]
				if v != nil && convs[i] != nil {
					if v, err = convs[i](v); err != nil {
						return err
					}
				}
				vals[i] = v
			}
			if err := emit(vals, isDefault); err != nil {
				return err
			}
		}
		return nil
	}, p.node, nil
}

// assignError rewrites a failed assignment coercion as PostgreSQL words it.
func (b *binder) assignError(err error, col *columnDesc, e *scalar, n *pg_query.Node) error {
	return b.coercionError(err, col, e, n, "expression")
}

// columnTypeName is the type of column col as PostgreSQL's messages name
// it: its domain (or array of a domain), or its type.
func (b *binder) columnTypeName(col *columnDesc) string {
	if col.domain != 0 {
		if name, ok := (catalogNames{s: b.s, cat: b.catalogNow()}).typeName(col.domain, typmodNone); ok {
			return name
		}
	}
	return col.typ.String()
}

// coercionError rewrites a failed coercion of expression e (node n) to
// col's type, which what names ("expression", "default expression").
func (b *binder) coercionError(err error, col *columnDesc, e *scalar, n *pg_query.Node, what string) error {
	var pe *pgerror.Error
	if !errors.As(err, &pe) || e == nil {
		return err
	}
	if pe.Code == pgerror.CannotCoerce || pe.Code == pgerror.DatatypeMismatch {
		return b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" is of type %s but %s is of type %s", col.name, b.columnTypeName(col), what, e.typ).
			WithHint("You will need to rewrite or cast the expression."), exprLocation(n))
	}
	if pe.Position == 0 && (e.lit != nil || unresolved(e)) && slices.Contains(inputErrors, pe.Code) {
		// A constant its type's input function refuses is placed, as
		// PostgreSQL's parser places it (a length or precision check on
		// the value, done later, is not).
		return b.errAt(pe, exprLocation(n))
	}
	return err
}

// inputErrors are the SQLSTATEs of types' input functions refusing a text.
var inputErrors = []pgerror.Code{pgerror.InvalidTextRepresentation, pgerror.InvalidDatetimeFormat, pgerror.DatetimeFieldOverflow, pgerror.SyntaxError}

// conflictPlan is a compiled ON CONFLICT clause.
type conflictPlan struct {
	update  bool
	t       *tableDesc
	sets    []setTarget // evaluated over [existing row | excluded row]
	where   *scalar
	outsFor func(row []any) []any
	// arbiter, when set, limits the clause to conflicts on that constraint
	// (nil index means the primary key).
	arbiter     bool
	arbiterIdx  *indexDesc
	arbiterPKey bool
	// deferrableArbiter says an arbiter is a deferrable unique constraint,
	// which fails the first row inserted, as in PostgreSQL.
	deferrableArbiter bool
	// rowTrg are the target's UPDATE row triggers, which DO UPDATE fires
	// for the row it updates (nil for none).
	rowTrg *triggerSet
	// existingPolicies and updatePolicies are DO UPDATE's row-level
	// security checks of the conflicting row and of the row it becomes
	// (conflictRowSecurity), nil where the table has none.
	existingPolicies, updatePolicies *rowSecurityCheck
}

type setTarget struct {
	col    int
	e      *scalar      // nil: DEFAULT
	assign *arrayAssign // col[...] = e, or nil
}

// value is the column's new value: the SET expression, or for a
// subscripted target the column's value so far (cur) with it assigned.
func (s setTarget) value(x *execCtx, cur any) (any, error) {
	v, err := s.e.eval(x)
	if err != nil || s.assign == nil {
		return v, err
	}
	return s.assign.apply(x, cur, v)
}

func (b *binder) onConflict(t *tableDesc, sc *scope, oc *pg_query.OnConflictClause) (*conflictPlan, error) {
	if oc == nil {
		return nil, nil
	}
	cp := &conflictPlan{t: t, update: oc.Action == pg_query.OnConflictAction_ONCONFLICT_UPDATE}
	if oc.Infer != nil {
		if oc.Infer.Conname != "" {
			cp.arbiter = true
			if oc.Infer.Conname == t.pkName {
				cp.arbiterPKey = true
			} else {
				for _, ix := range t.indexes {
					if ix.name == oc.Infer.Conname && (ix.unique && ix.onColumnsOnly() || ix.exclusion) {
						cp.arbiterIdx = ix
					}
				}
				if cp.arbiterIdx == nil {
					return nil, pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", oc.Infer.Conname, t.name)
				}
				cp.deferrableArbiter = cp.arbiterIdx.deferrable
				if cp.arbiterIdx.exclusion && cp.update {
					return nil, pgerror.New(pgerror.WrongObjectType, "ON CONFLICT DO UPDATE not supported with exclusion constraints")
				}
			}
		} else if len(oc.Infer.IndexElems) > 0 {
			pk, ix, err := b.inferArbiter(t, oc.Infer)
			if err != nil {
				return nil, err
			}
			cp.arbiter, cp.arbiterPKey, cp.arbiterIdx = true, pk, ix
			if ix != nil {
				cp.deferrableArbiter = ix.deferrable
			}
		}
	} else if cp.update {
		return nil, pgerror.New(pgerror.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
			WithHint("For example, ON CONFLICT (column_name).")
	} else {
		cp.deferrableArbiter = slices.ContainsFunc(t.indexes, func(ix *indexDesc) bool { return ix.deferrable })
	}
	if !cp.update {
		return cp, nil
	}
	// The scope holds the existing row (the target's name) then EXCLUDED,
	// whose columns need SELECT on the target's as the target's do.
	usc := &scope{cols: append([]scopeCol(nil), sc.cols...), ctes: sc.ctes}
	n := len(t.cols)
	for i, c := range t.cols {
		usc.cols = append(usc.cols, scopeCol{rel: "excluded", name: c.name, typ: c.typ, slot: n + i, item: 1, read: sc.cols[i].read})
	}
	sets, err := b.setTargets(t, usc, oc.TargetList)
	if err != nil {
		return nil, err
	}
	cp.sets = sets
	if oc.WhereClause != nil {
		w, err := b.cond(usc, oc.WhereClause, "WHERE")
		if err != nil {
			return nil, err
		}
		cp.where = w
	}
	return cp, nil
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	m := map[int]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

// unknownSetColumn is the error of a SET entry naming no column of t:
// PostgreSQL finds a system column, which it refuses to assign.
func (b *binder) unknownSetColumn(t *tableDesc, rt *pg_query.ResTarget) error {
	if slices.Contains(systemColumnNames, rt.Name) {
		return b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "cannot assign to system column \"%s\"", rt.Name), rt.Location)
	}
	return b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, t.name), rt.Location)
}

// setTargetFor compiles one SET entry of UPDATE or ON CONFLICT DO UPDATE.
func (b *binder) setTargetFor(t *tableDesc, sc *scope, rt *pg_query.ResTarget) ([]setTarget, error) {
	c := t.colIndex(rt.Name)
	if c < 0 {
		return nil, b.unknownSetColumn(t, rt)
	}
	col := t.cols[c]
	if len(rt.Indirection) > 0 && jsonbSubscripts(col.typ, rt.Indirection) {
		st, err := b.jsonbAssignment(t, sc, c, rt)
		return []setTarget{st}, err
	}
	orig := (*scalar)(nil)
	if rt.Val.GetSetToDefault() != nil {
		if len(rt.Indirection) > 0 {
			return nil, b.defaultTargetError(rt.Indirection[0].GetString_() != nil, rt.Location)
		}
		return []setTarget{{col: c}}, nil
	}
	if col.generated != nil {
		return nil, pgerror.Newf(pgerror.GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", col.name).
			WithDetail("Column \"%s\" is a generated column.", col.name)
	}
	if col.identity == 'a' {
		return nil, pgerror.Newf(pgerror.GeneratedAlways, "column \"%s\" can only be updated to DEFAULT", col.name).
			WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", col.name)
	}
	e, err := b.expr(sc, rt.Val)
	if err != nil {
		return nil, err
	}
	if len(rt.Indirection) > 0 {
		a, err := b.bindArrayAssign(sc, col, rt.Indirection, rt.Location)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerceAssignValue(a, e); err != nil {
			return nil, err
		}
		return []setTarget{{col: c, e: e, assign: a}}, nil
	}
	orig = e
	if e, err = b.coerceToColumn(e, col, rt.Val); err != nil {
		return nil, b.assignError(err, col, orig, rt.Val)
	}
	return []setTarget{{col: c, e: e}}, nil
}

// touchedKey names the row under store key key of table t in touched.
func touchedKey(t *tableDesc, key []byte) string {
	return string(binary.BigEndian.AppendUint32(nil, t.oid)) + string(key)
}

// touched returns the rows (touchedKey) the statement inserted or updated
// through cp, which DO UPDATE may not update again (21000).
func (cp *conflictPlan) touched(x *execCtx) map[string]bool {
	if x.actionConflicts != nil {
		m := x.actionConflicts[cp]
		if m == nil {
			m = map[string]bool{}
			x.actionConflicts[cp] = m
		}
		return m
	}
	if x.caches == nil {
		x.caches = &stmtCaches{}
	}
	v, _ := x.memoGet(cp)
	m, _ := v.(map[string]bool)
	if m == nil {
		m = map[string]bool{}
		x.memoSet(cp, m)
	}
	return m
}

// conflictGuard keys, in the statement's memo, the modifyGuard of an
// INSERT ... ON CONFLICT DO UPDATE.
type conflictGuard struct{ cp *conflictPlan }

// triggeredChange reports whether an operation the statement triggered
// (a statement of a trigger or function it ran) has inserted or updated
// the row under key of table since the statement began: PostgreSQL finds
// the row's version written by a later command than the statement's and
// refuses to update it (21000), as it does a row the statement wrote.
func (cp *conflictPlan) triggeredChange(x *execCtx, table isolation.TableID, key []byte) bool {
	g, ok := x.memoGet(conflictGuard{cp})
	return ok && g.(modifyGuard).changed(x.s, table, key)
}

// try inserts row unless it conflicts; on a conflict it does nothing or
// updates the existing row, firing the UPDATE row triggers (the AFTER ones
// queued on q). done reports that the conflict was handled (emit was
// called for an updated row, unless a BEFORE UPDATE trigger skipped it);
// key is the store key of the row inserted when there was no conflict.
func (cp *conflictPlan) try(x *execCtx, w *writer, row []any, q *rowQueue, emit func([]any, isolation.RowVersion) error) (bool, []byte, error) {
	return cp.tryIn(x, w, nil, row, row, q, emit)
}

// tryIn is try for row (in the target's column order) written to leaf as
// lrow (in its order) when the target is partitioned; leaf is nil and lrow
// is row otherwise. The existing row is locked and updated in the leaf; the
// SET list and WHERE clause see it and EXCLUDED in the target's order, and
// emit gets the new row in that order, and its system columns.
func (cp *conflictPlan) tryIn(x *execCtx, w *writer, leaf *partRoute, row, lrow []any, q *rowQueue, emit func([]any, isolation.RowVersion) error) (bool, []byte, error) {
	lw := w
	if leaf != nil {
		lw = leaf.w
		// PostgreSQL checks a partition's replica identity for DO
		// UPDATE when it first routes a row there.
		if c, _ := x.s.catalog(); cp.update {
			if err := c.checkReplicaIdentity(leaf.t, true); err != nil {
				return false, nil, err
			}
		}
	}
	if cp.deferrableArbiter {
		return false, nil, pgerror.New(pgerror.ObjectNotInPrerequisiteState, "ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters").
			WithConstraint(lw.t.name, "")
	}
	if err := lw.t.checkIndexRows(lrow); err != nil {
		return false, nil, err
	}
	arbiterIdx := cp.arbiterIdx
	if leaf != nil {
		arbiterIdx = leaf.arbiterIdx
	}
	arbiter := isolation.NoIndex
	switch {
	case arbiterIdx != nil:
		arbiter = arbiterIdx.id
	case cp.arbiterPKey && lw.t.hidden && lw.t.pkIndex != nil:
		arbiter = lw.t.pkIndex.id
	}
	sp := x.txn.Savepoint()
	key, err := x.txn.InsertOnConflict(x.ctx, lw.t.id, lw.t.pkKey(lrow), lrow, arbiter)
	if err == nil {
		_ = x.txn.Release(sp)
		x.s.queueUniqueChecks(lw.t, key, lrow)
		x.s.noteWrite(lw.t.id, key)
		cp.touched(x)[touchedKey(lw.t, key)] = true
		return false, key, nil
	}
	var uc *isolation.UniqueConflict
	var ec *isolation.ExclusionConflict
	if errors.As(err, &ec) {
		// DO UPDATE never arbitrates on an exclusion constraint
		// (onConflict): the conflict skips the row when the constraint
		// is the arbiter or every constraint is.
		if cp.update || cp.arbiter && (arbiterIdx == nil || ec.Index != arbiterIdx.id) {
			return false, nil, lw.uniqueError(err, lrow)
		}
		if err := x.txn.RollbackTo(sp); err != nil {
			return false, nil, err
		}
		_ = x.txn.Release(sp)
		return true, nil, x.txn.CheckConflictVisible(lw.t.id, ec.Key)
	}
	if !errors.As(err, &uc) {
		return false, nil, err
	}
	if cp.arbiter && !(cp.arbiterPKey && uc.Index == isolation.NoIndex && !lw.t.hidden ||
		arbiterIdx != nil && uc.Index == arbiterIdx.id ||
		cp.arbiterPKey && lw.t.hidden && lw.t.pkIndex != nil && uc.Index == lw.t.pkIndex.id) {
		return false, nil, lw.uniqueError(err, lrow)
	}
	if err := x.txn.RollbackTo(sp); err != nil {
		return false, nil, err
	}
	_ = x.txn.Release(sp)
	if !cp.update {
		return true, nil, x.txn.CheckConflictVisible(lw.t.id, uc.Key)
	}
	if cp.touched(x)[touchedKey(lw.t, uc.Key)] || cp.triggeredChange(x, lw.t.id, uc.Key) {
		return false, nil, pgerror.New(pgerror.CardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
			WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
	}
	locked, err := x.txn.LockRow(x.ctx, lw.t.id, uc.Key, isolation.LockRequest{Mode: isolation.RowLockUpdate, Write: true, Conditional: true})
	if err != nil {
		return false, nil, err
	}
	if !locked.Live || locked.Key != nil {
		return false, nil, pgerror.New(pgerror.SerializationFailure, "could not serialize access due to concurrent delete")
	}
	existing := locked.Row
	if leaf != nil {
		existing = leaf.toRoot(existing)
	}
	both := make([]any, 0, 2*len(row))
	both = append(append(both, existing...), row...)
	saved := x.row
	x.row = both
	defer func() { x.row = saved }()
	if cp.where != nil {
		v, err := cp.where.eval(x)
		if err != nil {
			return false, nil, err
		}
		if v != true {
			return true, nil, nil
		}
	}
	if err := cp.existingPolicies.check(x, existing); err != nil {
		return false, nil, err
	}
	nr := append([]any(nil), existing...)
	for _, s := range cp.sets {
		if s.e == nil {
			nr[s.col] = nil
			if d := w.defaults[s.col]; d != nil {
				v, err := d.eval(x)
				if err != nil {
					return false, nil, err
				}
				nr[s.col] = v
			}
			continue
		}
		v, err := s.value(x, nr[s.col])
		if err != nil {
			return false, nil, err
		}
		nr[s.col] = v
	}
	if cp.rowTrg != nil {
		lw.clearGenerated(nr)
		if nr, err = rowBefore(x, cp.rowTrg, existing, nr); err != nil || nr == nil {
			return true, nil, err
		}
	}
	lnr, lexisting := nr, existing
	if leaf != nil {
		lnr, lexisting = leaf.fromRoot(nr), locked.Row
		if ok, err := leaf.check.holds(x, lnr); err != nil || !ok {
			if err == nil {
				err = pgerror.New(pgerror.FeatureNotSupported, "invalid ON UPDATE specification").
					WithDetail("The result tuple would appear in a different partition than the original tuple.")
			}
			return false, nil, err
		}
	}
	if err := cp.updatePolicies.check(x, nr); err != nil {
		return false, nil, err
	}
	if err := lw.validate(x, lnr, lexisting); err != nil {
		return false, nil, err
	}
	if leaf != nil && lw.generated != nil {
		nr = leaf.toRoot(lnr) // with the generated columns validate computed
	}
	if err := lw.updateRow(x, uc.Key, lexisting, lnr); err != nil {
		return false, nil, err
	}
	q.add(cp.rowTrg, lexisting, lnr)
	cp.touched(x)[touchedKey(lw.t, uc.Key)] = true
	if !lw.t.hidden {
		cp.touched(x)[touchedKey(lw.t, lw.t.pkKey(lnr))] = true
	}
	x.row = saved
	return true, nil, emit(nr, x.txn.OwnVersion(lw.t.id, uc.Key))
}

// sourceWidth returns the number of columns of an INSERT source when it can
// be read off the syntax (VALUES lists, a select list without *), else -1.
func sourceWidth(n *pg_query.Node) int {
	st := n.GetSelectStmt()
	if st == nil {
		return -1
	}
	if len(st.ValuesLists) > 0 {
		return len(st.ValuesLists[0].GetList().GetItems())
	}
	if st.Op != pg_query.SetOperation_SETOP_NONE {
		if st.Larg != nil {
			return sourceWidth(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: st.Larg}})
		}
		return -1
	}
	for _, t := range st.TargetList {
		if cr := t.GetResTarget().GetVal().GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			return -1
		}
		if ind := t.GetResTarget().GetVal().GetAIndirection(); ind != nil && len(ind.Indirection) > 0 &&
			ind.Indirection[len(ind.Indirection)-1].GetAStar() != nil {
			return -1 // (value).*
		}
	}
	return len(st.TargetList)
}

// withInsertedSystemCols is sc, an INSERT's scope, with the system
// columns for RETURNING: tableoid, the OID of the table (the partition)
// each row went to, one slot past t's columns, then with versions xmin,
// xmax and ctid.
func withInsertedSystemCols(sc *scope, t *tableDesc, versions bool) *scope {
	rsc := *sc
	rel := t.name
	if len(sc.cols) > 0 {
		rel = sc.cols[0].rel
	}
	rsc.cols = append(slices.Clip(sc.cols), scopeCol{rel: rel, name: "tableoid", typ: types.OidType, slot: len(t.cols), hidden: true, system: true})
	if versions {
		for i, c := range rowVersionCols(t, rel) {
			c.slot = len(t.cols) + 1 + i
			rsc.cols = append(rsc.cols, c)
		}
	}
	return &rsc
}

// insertScope is the scope of an INSERT's RETURNING and ON CONFLICT: the
// target under its alias, if it has one, and the statement's CTEs.
func insertScope(t *tableDesc, ins *pg_query.InsertStmt, ctes map[string]*ctePlan) *scope {
	name := t.name
	if ins.Relation.Alias != nil {
		name = ins.Relation.Alias.Aliasname
	}
	sc := tableScope(t, name)
	sc.ctes = ctes
	return sc
}
