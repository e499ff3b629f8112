package sqlexec

import (
	"slices"
	"strconv"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// modifyTarget is the compiled row source of UPDATE and DELETE: the target
// table as item 0, then the FROM / USING items.
type modifyTarget struct {
	t     *tableDesc
	items []*fromItem
	pre   []*conj
	sc    *scope
	width int
	// currentOf is the cursor of WHERE CURRENT OF (current_of.go), and
	// currentOfVar, in PL/pgSQL, the variable of that name whose value
	// names it.
	currentOf    string
	currentOfVar *scalar
	// reads are the target's columns the statement reads, for its SELECT
	// privilege.
	reads *columnUse
	// deferred are the slots of the outputs of subquery and WITH query
	// items that only SET, RETURNING or a later level read: their errors
	// are raised once a row matched, as PostgreSQL computes them only for
	// the rows its conditions let through (fromItem.deferErrors).
	deferred []int
}

// match is one target row an UPDATE or DELETE acts on, with the whole
// joined row it matched in.
type match struct {
	key  []byte
	row  []any
	full []any
	// member and phys are the row's table among the target's members and
	// the row as that table stores it (inherit.go).
	member int
	phys   []any
}

func (b *binder) modifyTarget(rv *pg_query.RangeVar, extra []*pg_query.Node, where *pg_query.Node, ctes map[string]*ctePlan) (*modifyTarget, error) {
	t, err := b.targetTable(rv)
	if err != nil {
		return nil, err
	}
	cursor := currentOfName(where)
	if cursor != "" {
		if len(extra) > 0 {
			return nil, pgerror.Unsupported("WHERE CURRENT OF with FROM or USING")
		}
		where = nil
	}
	from := append([]*pg_query.Node{{Node: &pg_query.Node_RangeVar{RangeVar: rv}}}, extra...)
	mark := len(b.perms)
	b.modifying = rv
	items, sc, pending, err := b.buildFrom(nil, from, ctes)
	b.modifying = nil
	reads := b.dropPrivilegeSince(mark, t.oid) // the target is read only as readsTargetRows says
	if err != nil {
		return nil, err
	}
	m := &modifyTarget{t: t, items: items, sc: sc, width: len(sc.cols), currentOf: cursor, reads: reads}
	if cursor != "" && b.vars != nil {
		if v, ok := b.vars(b, []string{cursor}, -1); ok {
			m.currentOfVar = v
		}
	}
	if err := b.placeConds(sc, items, pending, where, &m.pre); err != nil {
		return nil, err
	}
	for _, it := range items {
		it.noteConditionReads()
	}
	chooseAccesses(items)
	planJoins(items)
	return m, nil
}

// collect runs the target's join and returns each target row once (the
// first joined row it matched), in scan order.
func (m *modifyTarget) collect(x *execCtx) ([]match, error) {
	x.row = make([]any, m.width)
	x.items = nil
	ok, err := allHold(x, m.pre, false)
	if err == nil && ok {
		ok, err = allHold(x, m.pre, true)
	}
	if err != nil || !ok {
		return nil, err
	}
	start := time.Now()
	var krs []keyedRow
	switch {
	case m.currentOf != "":
		krs, err = m.currentTarget(x)
	default:
		krs, err = fetchTable(x, m.items[0], true)
	}
	if err != nil {
		return nil, err
	}
	var out []match
	if x.stats != nil {
		defer func() { x.stats.loop(m.items[0].plan.scan, len(out), time.Since(start)) }()
	}
	for _, kr := range krs {
		mt, ok, err := m.joinRow(x, kr.key, kr.row)
		if err != nil {
			return nil, err
		}
		mt.member, mt.phys = kr.member, kr.phys
		if ok {
			out = append(out, mt)
		}
	}
	return out, nil
}

// joinRow completes a target row that passed the target's own conditions
// (fetchTable checked the immediate ones) with its deferred conditions and
// the first joined row of the FROM / USING items; ok is false when the row
// does not match.
func (m *modifyTarget) joinRow(x *execCtx, key []byte, row []any) (match, bool, error) {
	first := m.items[0]
	copy(x.row[first.off:first.off+first.width], row)
	ok, err := allHold(x, first.on, true)
	if err != nil || !ok {
		return match{}, false, err
	}
	// The target's own columns, without xmin and xmax.
	row = row[:len(first.table.cols):len(first.table.cols)]
	if len(m.items) == 1 { // no FROM or USING items: the row is the match
		return match{key: key, row: row, full: append([]any(nil), x.row...)}, true, nil
	}
	var mt match
	found := false
	err = runItems(x, m.items, 1, func() error {
		if err := deferredError(x.row, m.deferred); err != nil {
			return err
		}
		mt, found = match{key: key, row: row, full: append([]any(nil), x.row...)}, true
		return errLimitReached
	})
	if err != nil && err != errLimitReached {
		return match{}, false, err
	}
	return mt, found, nil
}

// lockForWrite takes the row lock of a matched target row before it is
// written and gets the row's newest version from the store (Txn.LockRow):
// an UPDATE or DELETE computes on it, at every level, so no SQL
// statement loses a concurrent update of the row it writes. When it is not
// the version the statement read, the statement's conditions are
// evaluated again on it (PostgreSQL's EvalPlanQual: the store supplies the
// version, the executor decides whether it still matches); ok is false
// when it no longer does or the row is gone. Where the level cannot
// explain the newest version, the store fails with 40001.
func (m *modifyTarget) lockForWrite(x *execCtx, mt match, mode isolation.RowLock) (match, bool, error) {
	t, mem := m.t, m.member(mt)
	if mem != nil {
		t = mem.t
	}
	got, err := x.txn.LockRow(x.ctx, t.id, mt.key, isolation.LockRequest{Mode: mode, Write: true})
	if err != nil || !got.Live {
		return match{}, false, err
	}
	first := m.items[0]
	if !got.Changed {
		if first.versions {
			setRowVersion(mt.full, first, got.Version) // xmax: this writer, as DELETE ... RETURNING shows
		}
		return mt, true, nil
	}
	key := mt.key
	if got.Key != nil {
		key = got.Key // a concurrent update moved the row to another primary key
	}
	row := got.Row
	if mem != nil {
		row = mem.toParent(got.Row)
	}
	if first.versions {
		row = withRowVersion(row, got.Version)
	}
	x.row = append([]any(nil), mt.full...)
	copy(x.row[first.off:first.off+first.width], row)
	ok, err := allHold(x, first.on, false)
	if err != nil || !ok {
		return match{}, false, err
	}
	nm, ok, err := m.joinRow(x, key, row)
	nm.member, nm.phys = mt.member, got.Row
	return nm, ok, err
}

// pruneUnread tells the subqueries and WITH queries among the FROM / USING
// items, once the statement is compiled, which of their outputs no one
// reads, as after PostgreSQL folds them into the statement.
func (m *modifyTarget) pruneUnread() {
	for _, it := range m.items {
		it.pruneUnread()
		m.deferred = append(m.deferred, it.deferErrors()...)
	}
}

// member returns the member table a matched row belongs to, nil when the
// target has no inheritance children.
func (m *modifyTarget) member(mt match) *inhMember {
	if ms := m.items[0].members; ms != nil {
		return ms[mt.member]
	}
	return nil
}

// rowTable returns the table the target row mt lives in.
func (m *modifyTarget) rowTable(mt match) *tableDesc {
	if mem := m.member(mt); mem != nil {
		return mem.t
	}
	return m.t
}

// readsOnly is the use of the target's columns for the SELECT an UPDATE
// or DELETE needs, as PostgreSQL only where it reads a column of the
// target (WHERE true or RETURNING 1 read none); nil, for the table's
// privilege always, when the target's reads are not tracked.
func (m *modifyTarget) readsOnly() *columnUse {
	if m.reads != nil {
		m.reads.ifUsed = true
	}
	return m.reads
}

// returningScope is the scope of RETURNING: the statement's, and for a
// target with members (an inheritance parent or a partitioned table) the
// system column tableoid, one slot past the joined row (returnRow), since
// the target's item has no slot of its own (tableoid.go).
func (m *modifyTarget) returningScope() *scope {
	if m.items[0].members == nil {
		return m.sc
	}
	rsc := *m.sc
	tableoid := scopeCol{rel: m.items[0].name, name: "tableoid", typ: types.OidType, slot: m.width, hidden: true, system: true}
	if m.reads != nil {
		tableoid.read = &m.reads.system
	}
	rsc.cols = append(slices.Clip(m.sc.cols), tableoid)
	return &rsc
}

// returnRow sets x.row to full, a joined row, for RETURNING, with oid, the
// OID of the table the target row is in now, in the slot returningScope
// gives it.
func (m *modifyTarget) returnRow(x *execCtx, full []any, oid uint32) {
	if m.items[0].members != nil {
		full = append(full[:m.width:m.width], int64(oid))
	}
	x.row = full
}

// modified tracks the rows a statement wrote, by table member and key: a
// row it reaches a second time (the adversary may have shown it at its old
// key and its new one, and a lock follows a moved row) is skipped, as
// PostgreSQL skips rows the current command already modified.
type modified map[string]bool

// first reports whether the row of mt is written for the first time, and
// marks it.
func (m modified) first(mt match) bool {
	var buf [64]byte
	k := modifiedKey(buf[:0], mt)
	if m[string(k)] {
		return false
	}
	m[string(k)] = true
	return true
}

// checkUnwritten refuses to write the row of mt when another part of a
// statement with data-modifying WITH queries wrote it (withSnapshot); a
// row this statement already wrote is its own and is skipped by first.
func (m modified) checkUnwritten(x *execCtx, t *tableDesc, mt match) error {
	var buf [64]byte
	if x.withSnapshot == nil || m[string(modifiedKey(buf[:0], mt))] {
		return nil
	}
	return x.withSnapshot.checkUnwritten(x, t.id, mt.key)
}

// modifiedKey appends "member:key" for mt to buf, built without fmt.
func modifiedKey(buf []byte, mt match) []byte {
	k := append(strconv.AppendInt(buf, int64(mt.member), 10), ':')
	return append(k, mt.key...)
}

func (b *binder) updatePlan(up *pg_query.UpdateStmt) (*stmtPlan, error) {
	if err := b.currentOfView(up.Relation, up.WhereClause); err != nil {
		return nil, err
	}
	checks := b.takeViewChecks()
	as := b.takeWriteAs()
	if p, ok, err := b.rewritten(up.Relation, pg_query.CmdType_CMD_UPDATE, &pg_query.Node{Node: &pg_query.Node_UpdateStmt{UpdateStmt: up}}); ok {
		if err == nil {
			err = refuseViewChecks(checks)
		}
		if err == nil && up.WithClause != nil {
			err = pgerror.Unsupported("WITH in an UPDATE that a rule rewrites")
		}
		return p, err
	}
	if v := b.viewTarget(up.Relation); v != nil {
		if err := b.checkViewAccess(v); err != nil {
			return nil, err
		}
		if up.WithClause != nil {
			return nil, pgerror.Unsupported("WITH in an UPDATE of a view")
		}
		if !v.hasInstead(tgUpdate) {
			b.viewChecks = checks
			return b.autoViewUpdate(v, up, as)
		}
		if err := refuseViewChecks(checks); err != nil {
			return nil, err
		}
		return b.viewModifyPlan(v, as, up.Relation, tgUpdate, up.FromClause, up.WhereClause, up.TargetList, up.ReturningList)
	}
	ctes, err := b.topWithClause(up.WithClause)
	if err != nil {
		return nil, err
	}
	reads := readsTargetRows(up.WhereClause, up.ReturningList, up.TargetList)
	b.rlsTarget = rowSecurityTarget{rv: up.Relation, cmds: targetCommands(polUpdate, reads)}
	m, err := b.modifyTarget(up.Relation, up.FromClause, up.WhereClause, ctes)
	b.rlsTarget = rowSecurityTarget{}
	if err != nil {
		return nil, err
	}
	updated := &columnUse{}
	b.requireColumnsAs(as, m.t.oid, m.t.name, "table", 'w', updated)
	if reads {
		b.requireColumnsAs(as, m.t.oid, m.t.name, "table", 'r', m.readsOnly())
	}
	t := m.t
	policies, err := b.rowSecurityCheckFor(t, polUpdate, reads)
	if err != nil {
		return nil, err
	}
	lazyIdentity := b.cat.prunablePartitions(t, up.WhereClause)
	b.atStart(b.cat.checkTargetReplicaIdentity(t, !up.Relation.Inh, lazyIdentity, true))
	vchecks, err := b.viewChecksFor(t, targetName(up.Relation), checks)
	if err != nil {
		return nil, err
	}
	sets, err := b.setTargets(t, m.sc, up.TargetList)
	if err != nil {
		return nil, err
	}
	updated.attnums = setAttnums(t, sets)
	w, err := b.writerFor(t, true)
	if err != nil {
		return nil, err
	}
	w.requireDefaults(func(c int) bool { return setsDefault(sets, c) })
	ws, err := b.memberWriters(m, w, sets)
	if err != nil {
		return nil, err
	}
	moves, err := b.rowMovement(m)
	if err != nil {
		return nil, err
	}
	rsc := m.returningScope()
	var versionRead bool // RETURNING reads xmin or xmax of the target
	watched := func() {}
	if first := m.items[0]; first.versions && first.members != nil {
		watched = watchVersionReads(rsc.cols, first.off+len(first.table.cols), &versionRead)
	}
	outs, cols, err := b.returning(rsc, up.ReturningList)
	if err != nil {
		return nil, err
	}
	watched()
	m.pruneUnread()
	// An UPDATE of a key column (tableDesc.keyColumns) locks its rows FOR
	// UPDATE, others FOR NO KEY UPDATE, as in PostgreSQL.
	lockMode := isolation.RowLockNoKeyUpdate
	keyCols := t.keyColumns()
	for _, s := range sets {
		if slices.Contains(keyCols, s.col) {
			lockMode = isolation.RowLockUpdate
		}
	}
	for i := range b.params {
		if b.params[i].Oid == 0 {
			b.params[i] = types.Text
		}
	}
	var setCols []int
	for _, s := range sets {
		setCols = append(setCols, s.col)
	}
	setCols = withGeneratedDependents(t, setCols)
	trg, err := b.triggersFor(t, tgUpdate, setCols)
	if err != nil {
		return nil, err
	}
	mtrg, err := b.memberTriggers(m, trg, tgUpdate, setCols)
	if err != nil {
		return nil, err
	}
	if ws == nil {
		trg = w.withActions(trg, tgUpdate, setCols)
	}
	return b.modifyPlan(&modifyOp{command: "Update", t: t, alias: up.Relation.Alias.GetAliasname()}, m.plan(), &stmtPlan{cols: cols, writes: "UPDATE", table: t.qualifiedName(), predicate: predicateText(up.WhereClause), exec: func(x *execCtx) (*Result, error) {
		trg, err := trg.start(x)
		if err != nil {
			return nil, err
		}
		guard := x.s.startModify()
		defer x.s.endModify()
		matches, err := m.collect(x)
		if err != nil {
			return nil, err
		}
		if lazyIdentity {
			if err := m.checkMatchedReplicaIdentity(x, matches, true); err != nil {
				return nil, err
			}
		}
		var rows [][]any
		updated := 0
		done := modified{}
		q := &rowQueue{}
		for _, mt := range matches {
			if err := guard.check(x.s, m.rowTable(mt).id, mt.key, "updated"); err != nil {
				return nil, err
			}
			if err := done.checkUnwritten(x, m.rowTable(mt), mt); err != nil {
				return nil, err
			}
			mt, ok, err := m.lockForWrite(x, mt, lockMode)
			if err != nil {
				return nil, err
			}
			if !ok || !done.first(mt) {
				continue
			}
			updated++
			x.row = mt.full
			nr := append([]any(nil), mt.row...)
			mem, wm := m.member(mt), w
			if mem != nil {
				wm = ws[mt.member]
			}
			for _, s := range sets {
				if s.e == nil {
					nr[s.col] = nil
					if d := wm.defaults[mem.col(s.col)]; d != nil {
						v, err := d.eval(x)
						if err != nil {
							return nil, err
						}
						nr[s.col] = v
					}
					continue
				}
				v, err := s.value(x, nr[s.col])
				if err != nil {
					return nil, err
				}
				nr[s.col] = v
			}
			w.clearGenerated(nr)
			if mt.member == 0 && mtrg == nil {
				if nr, err = trg.before(x, mt.row, nr); err != nil {
					return nil, err
				}
				if nr == nil {
					updated--
					continue
				}
			}
			np := mem.physical(mt.phys, nr)
			if mem != nil {
				wm.clearGenerated(np)
			}
			if mtrg != nil {
				if np, err = rowBefore(x, mtrg[mt.member], mt.phys, np); err != nil {
					return nil, err
				}
				if np == nil {
					updated--
					continue
				}
			}
			if err := wm.computeGenerated(x, np); err != nil {
				return nil, err
			}
			if mem != nil && (mtrg != nil || wm.generated != nil) {
				nr = mem.toParent(np)
			}
			if err := guard.check(x.s, m.rowTable(mt).id, mt.key, "updated"); err != nil {
				return nil, err
			}
			outcome, movedTo, movedKey, err := moves.apply(x, mt, wm, np, nr, policies, q)
			if err != nil {
				return nil, err
			}
			switch {
			case outcome == rowSkipped, outcome == rowDropped:
				updated--
				continue
			case outcome == rowStays:
				if err := policies.check(x, nr); err != nil {
					return nil, err
				}
				if err := wm.validate(x, np, mt.phys); err != nil {
					return nil, err
				}
				if err := wm.updateRow(x, mt.key, mt.phys, np); err != nil {
					return nil, err
				}
				if mtrg != nil {
					q.add(mtrg[mt.member], mt.phys, np)
				}
			}
			if err := checkViewRow(x, t, vchecks, nr); err != nil {
				return nil, err
			}
			if mt.member == 0 && mtrg == nil {
				trg.after(mt.row, nr)
			} else {
				trg.capture(mt.row, nr)
			}
			if outs != nil {
				copy(x.row[:len(nr)], nr)
				if first := m.items[0]; first.versions {
					id, key := m.rowTable(mt).id, mt.key
					if movedTo != nil {
						id, key = movedTo.id, movedKey
						if versionRead && routedVersionsUnreadable(t, m.rowTable(mt), movedTo) {
							return nil, versionsUnreadableError()
						}
					}
					setRowVersion(x.row, first, x.txn.OwnVersion(id, key))
				}
				oid := m.rowTable(mt).oid
				if movedTo != nil {
					oid = movedTo.oid
				}
				m.returnRow(x, x.row, oid)
				p, err := project(x, outs)
				if err != nil {
					return nil, err
				}
				rows = append(rows, p)
			}
		}
		if err := q.fire(x); err != nil {
			return nil, err
		}
		if err := trg.afterStatement(x); err != nil {
			return nil, err
		}
		return &Result{Rows: rows, Tag: rowsTag("UPDATE", int64(updated))}, nil
	}}), nil
}

func (b *binder) deletePlan(del *pg_query.DeleteStmt) (*stmtPlan, error) {
	if err := b.currentOfView(del.Relation, del.WhereClause); err != nil {
		return nil, err
	}
	as := b.takeWriteAs()
	if p, ok, err := b.rewritten(del.Relation, pg_query.CmdType_CMD_DELETE, &pg_query.Node{Node: &pg_query.Node_DeleteStmt{DeleteStmt: del}}); ok {
		if err == nil && del.WithClause != nil {
			err = pgerror.Unsupported("WITH in a DELETE that a rule rewrites")
		}
		return p, err
	}
	if v := b.viewTarget(del.Relation); v != nil {
		if err := b.checkViewAccess(v); err != nil {
			return nil, err
		}
		if del.WithClause != nil {
			return nil, pgerror.Unsupported("WITH in a DELETE from a view")
		}
		if !v.hasInstead(tgDelete) {
			return b.autoViewDelete(v, del, as)
		}
		return b.viewModifyPlan(v, as, del.Relation, tgDelete, del.UsingClause, del.WhereClause, nil, del.ReturningList)
	}
	ctes, err := b.topWithClause(del.WithClause)
	if err != nil {
		return nil, err
	}
	reads := readsTargetRows(del.WhereClause, del.ReturningList, nil)
	b.rlsTarget = rowSecurityTarget{rv: del.Relation, cmds: targetCommands(polDelete, reads)}
	m, err := b.modifyTarget(del.Relation, del.UsingClause, del.WhereClause, ctes)
	b.rlsTarget = rowSecurityTarget{}
	if err != nil {
		return nil, err
	}
	b.requirePrivilegeAs(as, m.t.oid, m.t.name, "table", 'd')
	if reads {
		b.requireColumnsAs(as, m.t.oid, m.t.name, "table", 'r', m.readsOnly())
	}
	t := m.t
	lazyIdentity := b.cat.prunablePartitions(t, del.WhereClause)
	b.atStart(b.cat.checkTargetReplicaIdentity(t, !del.Relation.Inh, lazyIdentity, false))
	w, err := b.writerFor(t, true)
	if err != nil {
		return nil, err
	}
	ws, err := b.memberWriters(m, w, nil)
	if err != nil {
		return nil, err
	}
	outs, cols, err := b.returning(m.returningScope(), del.ReturningList)
	if err != nil {
		return nil, err
	}
	m.pruneUnread()
	for i := range b.params {
		if b.params[i].Oid == 0 {
			b.params[i] = types.Text
		}
	}
	trg, err := b.triggersFor(t, tgDelete, nil)
	if err != nil {
		return nil, err
	}
	mtrg, err := b.memberTriggers(m, trg, tgDelete, nil)
	if err != nil {
		return nil, err
	}
	if ws == nil {
		trg = w.withActions(trg, tgDelete, nil)
	}
	return b.modifyPlan(&modifyOp{command: "Delete", t: t, alias: del.Relation.Alias.GetAliasname()}, m.plan(), &stmtPlan{cols: cols, writes: "DELETE", table: t.qualifiedName(), predicate: predicateText(del.WhereClause), exec: func(x *execCtx) (*Result, error) {
		trg, err := trg.start(x)
		if err != nil {
			return nil, err
		}
		guard := x.s.startModify()
		defer x.s.endModify()
		matches, err := m.collect(x)
		if err != nil {
			return nil, err
		}
		if lazyIdentity {
			if err := m.checkMatchedReplicaIdentity(x, matches, false); err != nil {
				return nil, err
			}
		}
		var rows [][]any
		deleted := 0
		done := modified{}
		q := &rowQueue{}
		for _, mt := range matches {
			locked := "deleted"
			if trg.hasBeforeRow(mtrg, mt.member) {
				locked = "updated" // found while locking the row for its BEFORE triggers
			}
			if err := guard.check(x.s, m.rowTable(mt).id, mt.key, locked); err != nil {
				return nil, err
			}
			if err := done.checkUnwritten(x, m.rowTable(mt), mt); err != nil {
				return nil, err
			}
			mt, ok, err := m.lockForWrite(x, mt, isolation.RowLockUpdate)
			if err != nil {
				return nil, err
			}
			if !ok || !done.first(mt) {
				continue
			}
			wm := w
			if mt.member != 0 {
				wm = ws[mt.member]
			}
			switch kept, err := memberDeleteBefore(x, trg, mtrg, mt); {
			case err != nil:
				return nil, err
			case kept == nil:
				continue
			}
			if err := guard.check(x.s, wm.t.id, mt.key, "deleted"); err != nil {
				return nil, err
			}
			deleted++
			if err := wm.deleteRow(x, mt.key, mt.phys, 0); err != nil {
				return nil, err
			}
			switch {
			case mtrg != nil:
				q.add(mtrg[mt.member], mt.phys, nil)
				trg.capture(mt.row, nil)
			case mt.member == 0:
				trg.after(mt.row, nil)
			default:
				trg.capture(mt.row, nil)
			}
			if outs != nil {
				m.returnRow(x, mt.full, m.rowTable(mt).oid)
				p, err := project(x, outs)
				if err != nil {
					return nil, err
				}
				rows = append(rows, p)
			}
		}
		if err := q.fire(x); err != nil {
			return nil, err
		}
		if err := trg.afterStatement(x); err != nil {
			return nil, err
		}
		return &Result{Rows: rows, Tag: rowsTag("DELETE", int64(deleted))}, nil
	}}), nil
}

// setAttnums lists the columns sets assign, for their UPDATE privilege.
func setAttnums(t *tableDesc, sets []setTarget) []int16 {
	var out []int16
	for _, st := range sets {
		if !slices.Contains(out, t.cols[st.col].attnum) {
			out = append(out, t.cols[st.col].attnum)
		}
	}
	return out
}
