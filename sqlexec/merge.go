package sqlexec

import (
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// MERGE INTO target USING source ON cond WHEN [NOT] MATCHED [AND cond]
// THEN UPDATE | DELETE | INSERT | DO NOTHING, as PostgreSQL 15 runs it.
//
// The statement is compiled as the join "source LEFT JOIN target ON cond"
// (an inner join when there is no NOT MATCHED action), whose rows are all
// collected first, each with the store key of its target row, as a lock
// stage collects them (lockrows.go). Each joined row then takes the first
// action whose WHEN clause holds: a matched row the MATCHED actions, a
// source row without a target row the NOT MATCHED ones. An UPDATE or DELETE
// locks the target row with Txn.LockRow before it writes it, as UPDATE and
// DELETE do; when the lock finds a version other than the one the join
// read (a concurrent update under READ COMMITTED), the join condition is
// checked again on it with the source row fixed and, as PostgreSQL's
// EvalPlanQual does, the MATCHED actions are evaluated again from the
// first; a row gone (deleted, or no longer joining) makes the source row
// take the NOT MATCHED actions. The isolation engine decides what a lock
// may see: at REPEATABLE READ and SERIALIZABLE it fails with 40001 where a
// concurrent change is in the way. A row already updated or deleted by the
// statement fails with 21000 when another source row would change it again.
//
// Statement triggers fire for each action type present (BEFORE: INSERT,
// UPDATE, DELETE; AFTER: the reverse), row triggers as each action fires.
// An inheritance parent's or a partitioned table's rows are updated and
// deleted in the member they live in, and inserted rows routed, as UPDATE,
// DELETE and INSERT do. Row-level security as PostgreSQL applies it to
// MERGE (mergePolicies). Data-modifying WITH queries run first, as for
// UPDATE (with_dml.go). Refused with 0A000: row triggers reading
// transition tables beside other AFTER ROW triggers or on a table with
// members (mergeRowTransitions), EXPLAIN MERGE.

// mergeAction is one compiled WHEN clause.
type mergeAction struct {
	matched bool
	cmd     pg_query.CmdType // UPDATE, DELETE, INSERT or NOTHING
	cond    *scalar
	// sets are an UPDATE's assignments, over the joined row.
	sets []setTarget
	lock isolation.RowLock
	// An INSERT's target columns, values (nil entries for DEFAULT), their
	// subscripts, and whether OVERRIDING USER VALUE gives the identity
	// columns their defaults.
	target       []int
	vals         []*scalar
	isDefault    []bool
	assigns      []*arrayAssign
	overrideUser bool
}

// mergeSyntaxError fails, as PostgreSQL 15's grammar does, on what later
// versions' MERGE accepts: RETURNING and WHEN NOT MATCHED BY SOURCE |
// TARGET. The error points at the token PostgreSQL 15 stops at.
func (b *binder) mergeSyntaxError(st *Statement, ms *pg_query.MergeStmt) error {
	bySource := false
	for _, n := range ms.MergeWhenClauses {
		if n.GetMergeWhenClause().GetMatchKind() == pg_query.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE {
			bySource = true
		}
	}
	res, err := pg_query.Scan(st.full)
	if err != nil {
		return nil
	}
	start, end := int32(st.offset), int32(st.offset+len(st.sql))
	toks := res.Tokens
	for i, tk := range toks {
		if tk.Start < start || tk.Start >= end {
			continue
		}
		if i >= 2 && tk.Token == pg_query.Token_BY && toks[i-1].Token == pg_query.Token_MATCHED && toks[i-2].Token == pg_query.Token_NOT {
			return b.errAt(pgerror.Newf(pgerror.SyntaxError, "syntax error at or near \"%s\"", st.full[tk.Start:tk.End]), tk.Start)
		}
	}
	if len(ms.ReturningList) > 0 {
		for i := len(toks) - 1; i >= 0; i-- {
			if tk := toks[i]; tk.Start >= start && tk.Start < end && tk.Token == pg_query.Token_RETURNING {
				return b.errAt(pgerror.Newf(pgerror.SyntaxError, "syntax error at or near \"%s\"", st.full[tk.Start:tk.End]), tk.Start)
			}
		}
		return pgerror.New(pgerror.SyntaxError, "syntax error at or near \"RETURNING\"")
	}
	if bySource {
		return pgerror.New(pgerror.SyntaxError, "syntax error at or near \"BY\"")
	}
	return nil
}

// mergeRefusal is PostgreSQL's error for a MERGE target that is not a
// table.
func mergeRefusal(name, what string) error {
	return pgerror.Newf(pgerror.FeatureNotSupported, "cannot execute MERGE on relation \"%s\"", name).
		WithDetail("This operation is not supported for %s.", what)
}

// sourceNames returns the names the MERGE source brings into scope, where
// they can be read off the syntax.
func sourceNames(n *pg_query.Node) []string {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		if v.RangeVar.Alias != nil {
			return []string{v.RangeVar.Alias.Aliasname}
		}
		return []string{v.RangeVar.Relname}
	case *pg_query.Node_RangeSubselect:
		if v.RangeSubselect.Alias != nil {
			return []string{v.RangeSubselect.Alias.Aliasname}
		}
	case *pg_query.Node_RangeFunction:
		if v.RangeFunction.Alias != nil {
			return []string{v.RangeFunction.Alias.Aliasname}
		}
	case *pg_query.Node_JoinExpr:
		if v.JoinExpr.Alias != nil {
			return []string{v.JoinExpr.Alias.Aliasname}
		}
		return append(sourceNames(v.JoinExpr.Larg), sourceNames(v.JoinExpr.Rarg)...)
	}
	return nil
}

func (b *binder) mergePlan(st *Statement, ms *pg_query.MergeStmt) (*stmtPlan, error) {
	if err := b.mergeSyntaxError(st, ms); err != nil {
		return nil, err
	}
	as := b.takeWriteAs()
	if ms.WithClause.GetRecursive() {
		return nil, pgerror.New(pgerror.SyntaxError, "WITH RECURSIVE is not supported for MERGE statement")
	}
	// The WHEN clauses' privileges and reachability, as PostgreSQL checks
	// them first.
	var hasIns, hasUpd, hasDel, hasNotMatched, matchedNothing bool
	terminal := [2]bool{}
	for _, n := range ms.MergeWhenClauses {
		wc := n.GetMergeWhenClause()
		matched := wc.MatchKind == pg_query.MergeMatchKind_MERGE_WHEN_MATCHED
		switch wc.CommandType {
		case pg_query.CmdType_CMD_INSERT:
			hasIns = true
		case pg_query.CmdType_CMD_UPDATE:
			hasUpd = true
		case pg_query.CmdType_CMD_DELETE:
			hasDel = true
		case pg_query.CmdType_CMD_NOTHING:
			matchedNothing = matchedNothing || matched
		}
		k := 0
		if !matched {
			k, hasNotMatched = 1, true
		}
		if terminal[k] {
			return nil, pgerror.New(pgerror.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		terminal[k] = wc.Condition == nil
	}
	rv := ms.Relation
	if virtualTableFor(rv.Schemaname, rv.Relname, nil) == nil && b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname) == nil {
		if b.s.lookupView(b.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, b.errAt(mergeRefusal(rv.Relname, "views").(*pgerror.Error), rv.Location)
		}
		if b.s.lookupSequence(b.cat, rv.Schemaname, rv.Relname) != nil {
			return nil, b.errAt(mergeRefusal(rv.Relname, "sequences").(*pgerror.Error), rv.Location)
		}
	}
	if t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); t != nil && t.matview != nil {
		return nil, b.errAt(mergeRefusal(t.name, "materialized views").(*pgerror.Error), rv.Location)
	} else if t != nil && t.foreign != nil {
		return nil, mergeRefusal(t.name, "foreign tables") // PostgreSQL's planner says it, with no position
	}
	t, err := b.targetTable(rv)
	if err != nil {
		return nil, err
	}
	if len(t.rules) > 0 {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot execute MERGE on relation \"%s\"", t.name).
			WithDetail("MERGE is not supported for relations with rules.")
	}
	for _, w := range ms.MergeWhenClauses {
		if ct := w.GetMergeWhenClause().CommandType; ct == pg_query.CmdType_CMD_UPDATE || ct == pg_query.CmdType_CMD_DELETE {
			b.atStart(b.cat.checkTargetReplicaIdentity(t, !rv.Inh, true, ct == pg_query.CmdType_CMD_UPDATE))
		}
	}
	tname := rv.Relname
	if rv.Alias != nil {
		tname = rv.Alias.Aliasname
	}
	if slices.Contains(sourceNames(ms.SourceRelation), tname) {
		return nil, pgerror.Newf(pgerror.DuplicateAlias, "name \"%s\" specified more than once", tname).
			WithDetail("The name is used both as MERGE target table and data source.")
	}
	ctes, err := b.topWithClause(ms.WithClause)
	if err != nil {
		return nil, err
	}
	// The join: the source, then the target, LEFT joined when a source
	// row without a target row has actions to take.
	jt := pg_query.JoinType_JOIN_INNER
	if hasNotMatched {
		jt = pg_query.JoinType_JOIN_LEFT
	}
	join := &pg_query.Node{Node: &pg_query.Node_JoinExpr{JoinExpr: &pg_query.JoinExpr{
		Jointype: jt,
		Larg:     ms.SourceRelation,
		Rarg:     &pg_query.Node{Node: &pg_query.Node_RangeVar{RangeVar: rv}},
		Quals:    ms.JoinCondition,
	}}}
	mark := len(b.perms)
	b.modifying = rv
	// The target's SELECT policies filter its rows where the statement
	// reads them (dropped below otherwise).
	b.rlsTarget = rowSecurityTarget{rv: rv, cmds: []byte{polSelect}}
	items, sc, pending, err := b.buildFrom(nil, []*pg_query.Node{join}, ctes)
	b.rlsTarget = rowSecurityTarget{}
	b.modifying = nil
	targetReads := b.dropPrivilegeSince(mark, t.oid) // the target is read only as its references say
	if err != nil {
		return nil, err
	}
	ti := -1
	for i, it := range items {
		if it.table == t && it.name == tname {
			ti = i
		}
	}
	if ti < 0 {
		return nil, pgerror.Unsupported("this MERGE source")
	}
	tgt := items[ti]
	policyFilter := slices.Clone(tgt.on) // all addItem put there: the SELECT policies
	width := len(sc.cols)
	readsTarget := matchedNothing
	tbit := itemBit(ti)
	if ms.JoinCondition != nil {
		sc.noAgg = "JOIN conditions"
		on, err := b.cond(sc, ms.JoinCondition, "JOIN/ON")
		sc.noAgg = ""
		if err != nil {
			return nil, err
		}
		readsTarget = readsTarget || on.refs&tbit != 0
	}
	// A NOT MATCHED action sees the source only.
	nsc := *sc
	nsc.cols, nsc.starOrder = nil, nil
	remap := map[int]int{}
	for i, c := range sc.cols {
		if c.item != ti {
			remap[i] = len(nsc.cols)
			nsc.cols = append(nsc.cols, c)
		}
	}
	for _, i := range sc.starOrder {
		if j, ok := remap[i]; ok {
			nsc.starOrder = append(nsc.starOrder, j)
		}
	}
	nsc.rels = slices.DeleteFunc(slices.Clone(sc.rels), func(r string) bool { return r == tname })
	nsc.hiddenRels = append(slices.Clone(sc.hiddenRels), tname)
	var actions []*mergeAction
	var setCols []int
	keyCols := t.keyColumns()
	mayDefault := make([]bool, len(t.cols))
	for _, n := range ms.MergeWhenClauses {
		wc := n.GetMergeWhenClause()
		a := &mergeAction{matched: wc.MatchKind == pg_query.MergeMatchKind_MERGE_WHEN_MATCHED, cmd: wc.CommandType}
		asc := sc
		if !a.matched {
			asc = &nsc
		}
		if wc.Condition != nil {
			asc.noAgg, asc.noSystemCols = "MERGE WHEN conditions", "MERGE WHEN condition"
			c, err := b.cond(asc, wc.Condition, "WHEN")
			asc.noAgg, asc.noSystemCols = "", ""
			if err != nil {
				return nil, err
			}
			a.cond = c
			readsTarget = readsTarget || c.refs&tbit != 0
		}
		switch wc.CommandType {
		case pg_query.CmdType_CMD_UPDATE:
			sc.noAgg = "UPDATE"
			a.sets, err = b.setTargets(t, sc, wc.TargetList)
			sc.noAgg = ""
			if err != nil {
				return nil, err
			}
			a.lock = isolation.RowLockNoKeyUpdate
			for _, s := range a.sets {
				setCols = append(setCols, s.col)
				if s.e == nil {
					mayDefault[s.col] = true
				} else if s.e.refs&tbit != 0 {
					readsTarget = true
				}
				if slices.Contains(keyCols, s.col) {
					a.lock = isolation.RowLockUpdate
				}
			}
		case pg_query.CmdType_CMD_DELETE:
			a.lock = isolation.RowLockUpdate
		case pg_query.CmdType_CMD_INSERT:
			if err := b.mergeInsert(t, &nsc, wc, a, mayDefault); err != nil {
				return nil, err
			}
		}
		actions = append(actions, a)
	}
	// The statement needs SELECT on the target where it reads the target's
	// columns, and, as in PostgreSQL, where a MATCHED action does nothing
	// or no action writes.
	readsTarget = readsTarget || !hasIns && !hasUpd && !hasDel
	if !readsTarget {
		tgt.on = slices.DeleteFunc(tgt.on, func(c *conj) bool { return slices.Contains(policyFilter, c) })
	}
	var pre []*conj
	if err := b.placeConds(sc, items, pending, nil, &pre); err != nil {
		return nil, err
	}
	chooseAccesses(items)
	planJoins(items)
	// INSERT and UPDATE may be held on the columns the actions insert and
	// set, all actions' together, as PostgreSQL's target entry has them.
	inserted, updated := &columnUse{}, &columnUse{}
	for _, a := range actions {
		if a.cmd == pg_query.CmdType_CMD_INSERT {
			for _, c := range a.target {
				if !slices.Contains(inserted.attnums, t.cols[c].attnum) {
					inserted.attnums = append(inserted.attnums, t.cols[c].attnum)
				}
			}
		}
	}
	for _, c := range setCols {
		if !slices.Contains(updated.attnums, t.cols[c].attnum) {
			updated.attnums = append(updated.attnums, t.cols[c].attnum)
		}
	}
	if hasIns {
		b.requireColumnsAs(as, t.oid, t.name, "table", 'a', inserted)
	}
	if hasUpd {
		b.requireColumnsAs(as, t.oid, t.name, "table", 'w', updated)
	}
	if hasDel {
		b.requirePrivilegeAs(as, t.oid, t.name, "table", 'd')
	}
	if readsTarget {
		b.requireColumnsAs(as, t.oid, t.name, "table", 'r', targetReads)
	}
	w, err := b.writerFor(t, hasUpd || hasDel)
	if err != nil {
		return nil, err
	}
	w.requireDefaults(func(c int) bool { return mayDefault[c] })
	// The target's members (inheritance children, partitions) as UPDATE
	// and DELETE reach them (inherit.go, partition_route.go).
	mt := &modifyTarget{t: t, items: []*fromItem{tgt}, sc: sc, width: width}
	var allSets []setTarget
	for _, a := range actions {
		allSets = append(allSets, a.sets...)
	}
	ws, err := b.memberWriters(mt, w, allSets)
	if err != nil {
		return nil, err
	}
	moves, err := b.rowMovement(mt)
	if err != nil {
		return nil, err
	}
	router, pcheck, err := b.insertRouting(t, nil)
	if err != nil {
		return nil, err
	}
	for i := range b.params {
		if b.params[i].Oid == 0 {
			b.params[i] = types.Text
		}
	}
	setCols = withGeneratedDependents(t, setCols)
	var insTrg, updTrg, delTrg *triggerSet
	if hasIns {
		if insTrg, err = b.triggersFor(t, tgInsert, nil); err != nil {
			return nil, err
		}
	}
	if hasUpd {
		if updTrg, err = b.triggersFor(t, tgUpdate, setCols); err != nil {
			return nil, err
		}
	}
	if hasDel {
		if delTrg, err = b.triggersFor(t, tgDelete, nil); err != nil {
			return nil, err
		}
	}
	rowTrans, err := mergeRowTransitions(t, tgt, [3]*triggerSet{insTrg, updTrg, delTrg})
	if err != nil {
		return nil, err
	}
	mp := &mergeRun{t: t, items: items, pre: pre, ti: ti, width: width, actions: actions, w: w,
		ins: rowPart(insTrg), upd: rowPart(updTrg), del: rowPart(delTrg),
		ws: ws, moves: moves, router: router, pcheck: pcheck, rowTrans: rowTrans}
	if err := b.mergePolicies(mp, hasIns, hasUpd, hasDel, readsTarget); err != nil {
		return nil, err
	}
	if hasUpd {
		if mp.mupd, err = b.memberTriggers(mt, updTrg, tgUpdate, setCols); err != nil {
			return nil, err
		}
	}
	if hasDel {
		if mp.mdel, err = b.memberTriggers(mt, delTrg, tgDelete, nil); err != nil {
			return nil, err
		}
	}
	return &stmtPlan{writes: "MERGE", table: t.qualifiedName(), exec: func(x *execCtx) (*Result, error) {
		var runs [3]*triggerRun
		for i, ts := range []*triggerSet{insTrg, updTrg, delTrg} {
			run, err := ts.start(x)
			if err != nil {
				return nil, err
			}
			runs[i] = run
		}
		n, err := mp.run(x, runs)
		if err != nil {
			return nil, err
		}
		for i := 2; i >= 0; i-- {
			if err := runs[i].afterStatement(x); err != nil {
				return nil, err
			}
		}
		return &Result{Tag: rowsTag("MERGE", n)}, nil
	}}, nil
}

// mergePolicies compiles the row-level security of the MERGE target as
// PostgreSQL applies it: a MATCHED UPDATE or DELETE fails with 42501 on a
// target row its command's USING expressions do not pass (they do not
// filter the rows, the SELECT policies do where the statement reads the
// target); the rows an UPDATE or INSERT writes must pass its WITH CHECK
// expressions, and an updated row the SELECT policies where the
// statement reads the target.
func (b *binder) mergePolicies(m *mergeRun, hasIns, hasUpd, hasDel, reads bool) error {
	t := m.t
	rs := b.rowSecurityFor(t)
	if rs == nil {
		return nil
	}
	m.rs = rs
	var err error
	if hasIns {
		if m.insCheck, err = b.rowSecurityCheckFor(t, polInsert, false); err != nil {
			return err
		}
	}
	sc := tableScope(t, t.name)
	if hasUpd {
		if m.updCheck, err = b.rowSecurityCheckFor(t, polUpdate, reads); err != nil {
			return err
		}
		lists, err := b.compileEach(t, sc, []byte{polUpdate}, false)
		if err != nil {
			return err
		}
		m.updUsing = lists[0]
	}
	if hasDel {
		lists, err := b.compileEach(t, sc, []byte{polDelete}, false)
		if err != nil {
			return err
		}
		m.delUsing = lists[0]
	}
	return nil
}

// targetRowCheck fails with 42501 when old, a target row an UPDATE or
// DELETE action is about to change, does not pass that command's USING
// expressions.
func (m *mergeRun) targetRowCheck(x *execCtx, a *mergeAction, old []any) error {
	if m.rs == nil {
		return nil
	}
	on, held, err := m.rs.active(x)
	if err != nil || !on {
		return err
	}
	ps := m.updUsing
	if a.cmd == pg_query.CmdType_CMD_DELETE {
		ps = m.delUsing
	}
	saved := x.row
	x.row = old
	ok, failed, err := combine(x, ps, held)
	x.row = saved
	switch {
	case err != nil:
		return err
	case ok:
		return nil
	case failed != nil:
		return pgerror.Newf(pgerror.InsufficientPrivilege, "target row violates row-level security policy \"%s\" (USING expression) for table \"%s\"", failed.name, m.t.name)
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "target row violates row-level security policy (USING expression) for table \"%s\"", m.t.name)
}

// mergeRowTransitions returns the action type (0 INSERT, 1 UPDATE, 2
// DELETE) whose AFTER ROW triggers read transition tables, -1 for none.
// Such a trigger sees all the rows of its type the statement wrote, so
// its row events fire once every row is written; PostgreSQL fires the
// AFTER ROW events of all types in the order the rows were written, which
// that keeps only where no other type has AFTER ROW triggers and the
// target has no members (whose triggers fire from their own queue):
// fickle refuses the rest.
func mergeRowTransitions(t *tableDesc, tgt *fromItem, sets [3]*triggerSet) (int, error) {
	reads := func(ts *triggerSet) bool {
		return ts != nil && slices.ContainsFunc(ts.afterRow, func(f firing) bool { return f.tr.oldTable != "" || f.tr.newTable != "" })
	}
	typ := slices.IndexFunc(sets[:], reads)
	if typ < 0 {
		return -1, nil
	}
	for i, ts := range sets {
		if i != typ && ts != nil && len(ts.afterRow) > 0 || t.part != nil || tgt.members != nil {
			return -1, pgerror.Unsupported("MERGE firing row triggers that read transition tables with other AFTER ROW triggers, or on a table with inheritance children or partitions")
		}
	}
	return typ, nil
}

// mergeInsert compiles the INSERT of a NOT MATCHED action in nsc, the
// source's scope, and marks in mayDefault the columns it may default.
func (b *binder) mergeInsert(t *tableDesc, nsc *scope, wc *pg_query.MergeWhenClause, a *mergeAction, mayDefault []bool) error {
	// rel.* in the VALUES list stands for rel's columns, as PostgreSQL
	// expands it.
	items, err := b.expandRowStars(nsc, wc.Values)
	if err != nil {
		return err
	}
	ins := &pg_query.InsertStmt{Cols: wc.TargetList, Override: wc.Override}
	if len(items) > 0 || len(wc.TargetList) > 0 {
		ins.SelectStmt = &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{
			ValuesLists: []*pg_query.Node{{Node: &pg_query.Node_List{List: &pg_query.List{Items: items}}}},
		}}}
	}
	target, assigns, err := b.insertTargets(t, ins)
	if err != nil {
		return err
	}
	if err := refuseGeneratedInsert(t, target, ins.SelectStmt); err != nil {
		return err
	}
	if ins.Override != pg_query.OverridingKind_OVERRIDING_SYSTEM_VALUE && ins.SelectStmt != nil {
		for i, c := range target {
			if t.cols[c].identity == 'a' && ins.Override != pg_query.OverridingKind_OVERRIDING_USER_VALUE && items[i].GetSetToDefault() == nil {
				return pgerror.Newf(pgerror.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", t.cols[c].name).
					WithDetail("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", t.cols[c].name).
					WithHint("Use OVERRIDING SYSTEM VALUE to override.")
			}
		}
	}
	a.overrideUser = ins.Override == pg_query.OverridingKind_OVERRIDING_USER_VALUE
	for i, d := range insertDefaults(t, target, ins, a.overrideUser) {
		mayDefault[i] = mayDefault[i] || d
	}
	if ins.SelectStmt == nil {
		return nil // DEFAULT VALUES
	}
	if len(items) > len(target) {
		return pgerror.New(pgerror.SyntaxError, "INSERT has more expressions than target columns")
	}
	if len(items) < len(target) {
		return pgerror.New(pgerror.SyntaxError, "INSERT has more target columns than expressions")
	}
	a.target, a.assigns = target, assigns
	a.vals = make([]*scalar, len(items))
	a.isDefault = make([]bool, len(items))
	for i, it := range items {
		if it.GetSetToDefault() != nil {
			if assigns != nil && assigns[i] != nil {
				return b.defaultTargetError(assigns[i].steps != nil && assigns[i].steps[0].field >= 0, assigns[i].loc)
			}
			a.isDefault[i] = true
			continue
		}
		nsc.noAgg = "VALUES"
		e, err := b.expr(nsc, it)
		nsc.noAgg = ""
		if err != nil {
			return err
		}
		if assigns != nil && assigns[i] != nil {
			if a.vals[i], err = b.coerceAssignValue(assigns[i], e); err != nil {
				return err
			}
			continue
		}
		col := t.cols[target[i]]
		ce, err := b.coerceToColumn(e, col, it)
		if err != nil {
			return b.assignError(err, col, e, it)
		}
		a.vals[i] = ce
	}
	return nil
}

// mergeRun is a compiled MERGE's join and actions.
type mergeRun struct {
	t     *tableDesc
	items []*fromItem
	pre   []*conj
	ti    int // the target's item
	width int
	// actions are the WHEN clauses in order.
	actions []*mergeAction
	w       *writer
	// ins, upd and del are the target's row triggers of each action type
	// (nil for none).
	ins, upd, del *triggerSet
	// ws are the writers of the target's members (nil without members),
	// mupd and mdel their UPDATE and DELETE row triggers (nil when none
	// has its own), moves the partition checks and row movement of an
	// update, router and pcheck where an inserted row goes.
	ws         []*writer
	mupd, mdel []*triggerSet
	moves      *rowMoves
	router     *partRouter
	pcheck     *partCheck
	// rs is the target's row-level security (nil when disabled),
	// updUsing and delUsing the USING expressions of its UPDATE and
	// DELETE policies, updCheck and insCheck the checks of the rows an
	// UPDATE and an INSERT write.
	rs                 *rowSecurity
	updUsing, delUsing []compiledPolicy
	updCheck, insCheck *rowSecurityCheck
	// rowTrans is the action type whose AFTER ROW triggers read
	// transition tables (mergeRowTransitions), -1 for none.
	rowTrans int
}

// written queues the AFTER ROW events of a row an action of type typ (0
// INSERT, 1 UPDATE, 2 DELETE) wrote, whose row triggers are ts, and keeps
// the row for the transition tables.
func (m *mergeRun) written(st *mergeState, typ int, ts *triggerSet, old, new []any) {
	if typ == m.rowTrans {
		st.runs[typ].after(old, new)
		return
	}
	st.q.add(ts, old, new)
	st.runs[typ].capture(old, new)
}

// fireRowTransitions fires the queued AFTER ROW events of the type whose
// row triggers read transition tables, which see every row of the type,
// and leaves the rows to the statement triggers' transition tables.
func (m *mergeRun) fireRowTransitions(x *execCtx, st *mergeState) error {
	if m.rowTrans < 0 {
		return nil
	}
	run := st.runs[m.rowTrans]
	if run == nil {
		return nil
	}
	rows := &triggerRun{triggerSet: rowPart(run.triggerSet), queued: run.queued}
	run.queued, run.members = nil, append(run.queued, run.members...)
	return rows.afterStatement(x)
}

// mergeRow is a matched target row: its key, its member (0 for the
// target's own rows) and the row in the target's column order (row) and
// as its member stores it (phys).
type mergeRow struct {
	key    []byte
	member int
	row    []any
	phys   []any
}

// memberOf returns the member of the target a row of member index i
// lives in, nil when the target has no members.
func (m *mergeRun) memberOf(i int) *inhMember {
	if ms := m.items[m.ti].members; ms != nil {
		return ms[i]
	}
	return nil
}

// writerOf returns the writer of member index i.
func (m *mergeRun) writerOf(i int) *writer {
	if m.ws != nil {
		return m.ws[i]
	}
	return m.w
}

// doneKey names a target row in mergeState.done.
func doneKey(r mergeRow) string {
	return strconv.Itoa(r.member) + ":" + string(r.key)
}

// mergeState is one execution's progress: the target rows the statement
// updated or deleted (by store key), the AFTER ROW events it queued, the
// rows it processed.
type mergeState struct {
	done  map[string]bool
	q     *rowQueue
	n     int64
	guard modifyGuard
	// runs are the statement's trigger runs of INSERT, UPDATE and DELETE,
	// which keep the rows for transition tables.
	runs [3]*triggerRun
}

// run joins the source and the target and takes each joined row's action;
// it returns the number of rows inserted, updated and deleted.
func (m *mergeRun) run(x *execCtx, runs [3]*triggerRun) (int64, error) {
	st := &mergeState{done: map[string]bool{}, q: &rowQueue{}, runs: runs}
	st.guard = x.s.startModify()
	defer x.s.endModify()
	x.row = make([]any, m.width)
	x.items = nil
	ok, err := allHold(x, m.pre, false)
	if err == nil && ok {
		ok, err = allHold(x, m.pre, true)
	}
	if err != nil {
		return 0, err
	}
	var cands []lockCandidate
	if ok {
		ls := &lockStage{items: m.items, width: m.width}
		x.marks = ls.start()
		err = runItems(x, m.items, 0, func() error {
			cands = append(cands, ls.candidate(x))
			return nil
		})
		x.marks = nil
		if err != nil {
			return 0, err
		}
	}
	for i, c := range cands {
		if i%1024 == 0 {
			if err := x.checkCancel(); err != nil {
				return 0, err
			}
		}
		matched := !c.nullExt[m.ti]
		if matched {
			if matched, err = m.matched(x, st, c); err != nil {
				return 0, err
			}
		}
		if !matched {
			tgt := m.items[m.ti]
			clear(c.full[tgt.off : tgt.off+tgt.width])
			if err := m.notMatched(x, st, c.full); err != nil {
				return 0, err
			}
		}
	}
	if err := st.q.fire(x); err != nil {
		return 0, err
	}
	if err := m.fireRowTransitions(x, st); err != nil {
		return 0, err
	}
	return st.n, nil
}

// choose returns the first action of the kind (matched or not) whose
// condition holds on x.row, nil for none.
func (m *mergeRun) choose(x *execCtx, matched bool) (*mergeAction, error) {
	for _, a := range m.actions {
		if a.matched != matched {
			continue
		}
		if a.cond == nil {
			return a, nil
		}
		v, err := a.cond.eval(x)
		if err != nil {
			return nil, err
		}
		if v == true {
			return a, nil
		}
	}
	return nil, nil
}

// matched takes the MATCHED action of the joined row c. It returns false
// when the target row turned out gone or no longer joining once locked:
// the source row then takes the NOT MATCHED actions.
func (m *mergeRun) matched(x *execCtx, st *mergeState, c lockCandidate) (bool, error) {
	tgt := m.items[m.ti]
	r := mergeRow{key: c.keys[m.ti], member: c.members[m.ti]}
	mem, table := m.memberOf(r.member), m.t
	if mem != nil {
		table = mem.t
	}
	full := c.full
	held := isolation.RowLockNone
	for {
		x.row = full
		a, err := m.choose(x, true)
		if err != nil {
			return true, err
		}
		if a == nil || a.cmd == pg_query.CmdType_CMD_NOTHING {
			return true, nil
		}
		if err := m.targetRowCheck(x, a, full[tgt.off:tgt.off+len(m.t.cols)]); err != nil {
			return true, err
		}
		if st.done[doneKey(r)] {
			return true, pgerror.New(pgerror.CardinalityViolation, "MERGE command cannot affect row a second time").
				WithHint("Ensure that not more than one source row matches any one target row.")
		}
		if held < a.lock {
			verb := "updated"
			if a.cmd == pg_query.CmdType_CMD_DELETE && !m.beforeDelete(r.member) {
				verb = "deleted"
			}
			if err := st.guard.check(x.s, table.id, r.key, verb); err != nil {
				return true, err
			}
			got, err := x.txn.LockRow(x.ctx, table.id, r.key, isolation.LockRequest{Mode: a.lock, Write: true})
			if err != nil {
				return true, err
			}
			held = a.lock
			if !got.Live {
				return false, nil
			}
			r.phys = got.Row
			if got.Changed {
				if got.Key != nil {
					r.key = got.Key
				}
				prow := got.Row
				if mem != nil {
					prow = mem.toParent(got.Row)
				}
				if tgt.versions {
					prow = withRowVersion(prow, got.Version)
				}
				nf := append([]any(nil), full...)
				copy(nf[tgt.off:tgt.off+len(prow)], prow)
				ok, err := m.recheck(x, c, nf)
				if err != nil || !ok {
					return ok, err
				}
				full = nf
				continue
			}
		}
		x.row = full
		r.row = full[tgt.off : tgt.off+len(m.t.cols)]
		if a.cmd == pg_query.CmdType_CMD_DELETE {
			return true, m.delete(x, st, r)
		}
		return true, m.update(x, st, a, r)
	}
}

// beforeDelete reports whether a row of member i fires BEFORE DELETE row
// triggers.
func (m *mergeRun) beforeDelete(i int) bool {
	switch {
	case m.mdel != nil:
		return m.mdel[i] != nil && len(m.mdel[i].beforeRow) > 0
	case i == 0:
		return m.del != nil && len(m.del.beforeRow) > 0
	}
	return false
}

// recheck runs the join again with the items fixed to c's rows and the
// target's at its newest version (in nf): it reports whether the target
// row still joins the source row.
func (m *mergeRun) recheck(x *execCtx, c lockCandidate, nf []any) (bool, error) {
	ex := *x
	ex.row, ex.items = make([]any, m.width), nil
	ls := &lockStage{items: m.items, width: m.width}
	ex.marks = ls.start()
	ex.epq = &epqRows{full: nf, nullExt: c.nullExt}
	joins := false
	err := runItems(&ex, m.items, 0, func() error {
		joins = !ex.marks.nullExt[m.ti]
		return errLimitReached
	})
	if err != nil && err != errLimitReached {
		return false, err
	}
	return joins, nil
}

// delete deletes the target row r, after its BEFORE DELETE triggers
// (which may skip it).
func (m *mergeRun) delete(x *execCtx, st *mergeState, r mergeRow) error {
	var kept []any
	var err error
	switch {
	case m.mdel != nil:
		kept, err = rowBefore(x, m.mdel[r.member], r.phys, nil)
	case r.member == 0:
		kept, err = rowBefore(x, m.del, r.row, nil)
	default:
		kept = r.phys
	}
	if err != nil || kept == nil {
		return err
	}
	wm := m.writerOf(r.member)
	if err := st.guard.check(x.s, wm.t.id, r.key, "deleted"); err != nil {
		return err
	}
	if err := wm.deleteRow(x, r.key, r.phys, 0); err != nil {
		return err
	}
	st.done[doneKey(r)] = true
	st.n++
	switch {
	case m.mdel != nil:
		st.q.add(m.mdel[r.member], r.phys, nil)
		st.runs[2].capture(r.row, nil)
	case r.member == 0:
		m.written(st, 2, m.del, r.row, nil)
	default:
		st.runs[2].capture(r.row, nil)
	}
	return nil
}

// update updates the target row r with a's assignments, evaluated over the
// joined row in x.row, as UPDATE does (dml_modify.go): the row triggers of
// its member, its generated columns, its partition's constraint (a
// partitioned target moves a row its new values take out of its
// partition).
func (m *mergeRun) update(x *execCtx, st *mergeState, a *mergeAction, r mergeRow) error {
	mem, wm := m.memberOf(r.member), m.writerOf(r.member)
	nr := append([]any(nil), r.row...)
	for _, s := range a.sets {
		if s.e == nil {
			nr[s.col] = nil
			if d := wm.defaults[mem.col(s.col)]; d != nil {
				v, err := d.eval(x)
				if err != nil {
					return err
				}
				nr[s.col] = v
			}
			continue
		}
		v, err := s.value(x, nr[s.col])
		if err != nil {
			return err
		}
		nr[s.col] = v
	}
	m.w.clearGenerated(nr)
	var err error
	if r.member == 0 && m.mupd == nil {
		if nr, err = rowBefore(x, m.upd, r.row, nr); err != nil || nr == nil {
			return err
		}
	}
	np := mem.physical(r.phys, nr)
	if mem != nil {
		wm.clearGenerated(np)
	}
	if m.mupd != nil {
		if np, err = rowBefore(x, m.mupd[r.member], r.phys, np); err != nil || np == nil {
			return err
		}
	}
	if err := wm.computeGenerated(x, np); err != nil {
		return err
	}
	if mem != nil && (m.mupd != nil || wm.generated != nil) {
		nr = mem.toParent(np)
	}
	if err := st.guard.check(x.s, wm.t.id, r.key, "updated"); err != nil {
		return err
	}
	outcome, _, _, err := m.moves.apply(x, match{key: r.key, row: r.row, member: r.member, phys: r.phys}, wm, np, nr, m.updCheck, st.q)
	if err != nil {
		return err
	}
	switch outcome {
	case rowSkipped, rowDropped:
		return nil
	case rowStays:
		if err := m.updCheck.check(x, nr); err != nil {
			return err
		}
		if err := wm.validate(x, np, r.phys); err != nil {
			return err
		}
		if err := wm.updateRow(x, r.key, r.phys, np); err != nil {
			return err
		}
		if m.mupd != nil {
			st.q.add(m.mupd[r.member], r.phys, np)
		}
	}
	st.done[doneKey(r)] = true
	st.n++
	if r.member == 0 && m.mupd == nil {
		m.written(st, 1, m.upd, r.row, nr)
	} else {
		st.runs[1].capture(r.row, nr)
	}
	return nil
}

// notMatched takes the NOT MATCHED action of the source row in full.
func (m *mergeRun) notMatched(x *execCtx, st *mergeState, full []any) error {
	x.row = full
	a, err := m.choose(x, false)
	if err != nil || a == nil || a.cmd != pg_query.CmdType_CMD_INSERT {
		return err
	}
	t := m.t
	row := make([]any, len(t.cols))
	given := make([]bool, len(t.cols))
	if a.vals != nil {
		vals := make([]any, len(a.vals))
		for i, e := range a.vals {
			if e == nil {
				continue
			}
			if vals[i], err = e.eval(x); err != nil {
				return err
			}
		}
		var skip func(int) bool
		if a.overrideUser {
			skip = func(c int) bool { return t.cols[c].identity != 0 }
		}
		if err := placeInserted(x, row, given, a.target, vals, a.isDefault, a.assigns, skip); err != nil {
			return err
		}
	}
	if err := m.w.fillDefaults(x, row, given); err != nil {
		return err
	}
	if row, err = rowBefore(x, m.ins, nil, row); err != nil || row == nil {
		return err
	}
	if err := m.w.computeGenerated(x, row); err != nil {
		return err
	}
	if m.router != nil {
		if err := m.pcheck.check(x, t, row); err != nil {
			return err
		}
		if row, _, _, err = m.router.insert(x, row, m.insCheck, st.q); err != nil || row == nil {
			return err
		}
	} else {
		if err := m.insCheck.check(x, row); err != nil {
			return err
		}
		if err := m.w.validate(x, row, nil); err != nil {
			return err
		}
		if err := m.pcheck.check(x, t, row); err != nil {
			return err
		}
		if _, err := m.w.insertRow(x, row); err != nil {
			return err
		}
	}
	st.n++
	m.written(st, 0, m.ins, nil, row)
	return nil
}
