package sqlexec

import (
	"maps"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Data-modifying WITH queries: WITH a AS (INSERT | UPDATE | DELETE ...
// [RETURNING ...]) in the WITH clause of a top-level statement. As in
// PostgreSQL, each runs exactly once and to completion, whether or not the
// rest of the statement reads it, and the rest reads only its RETURNING
// rows. PostgreSQL runs every part of the statement on one snapshot, so no
// part sees another's changes to a table. fickle runs them in
// PostgreSQL's order (with_order.go); every read of a table they modify
// (and of its inheritance family) reads as of the statement's start
// (withSnapshot), so it sees what PostgreSQL's would: "WITH ins AS (INSERT
// ... ON CONFLICT DO NOTHING RETURNING id) SELECT id FROM ins UNION ALL
// SELECT id FROM t WHERE ..." answers as there. A statement where two parts
// modify one table, or one part locks rows (FOR UPDATE / SHARE) of a table
// another modifies, is refused (0A000): there PostgreSQL's outcome depends
// on the order of work it leaves unspecified. Foreign-key checks see the
// WITH queries' changes, as PostgreSQL's, which run at the end of the
// statement, do.

// withSnapshot is the start of a statement with data-modifying WITH
// queries and the tables they modify, which the statement reads as of its
// start.
type withSnapshot struct {
	mark   isolation.WriteMark
	tables map[isolation.TableID]bool
	// refused marks the snapshot of a volatile routine the statement calls,
	// whose reads of those tables are refused (beginRoutineStatement).
	refused bool
	// ran holds the RETURNING rows of the data-modifying WITH queries run
	// so far, which a context of its own (a rule action's) reads too:
	// each runs once.
	ran map[*selectPlan][][]any
	// top is the statement's context at its start, where a WITH query
	// runs when a part first reads it.
	top *execCtx
}

// readMark is the mark before which a read of table id sees the
// transaction's own writes: the statement's start for a table a
// data-modifying WITH query modifies, asOf (the reading context's) for any
// other.
func (s *withSnapshot) readMark(id isolation.TableID, asOf isolation.WriteMark) (isolation.WriteMark, error) {
	switch {
	case s == nil || !s.tables[id]:
		return asOf, nil
	case s.refused:
		return 0, pgerror.Unsupported("a volatile function reading a table that a data-modifying WITH query of the calling statement modifies")
	case asOf != 0 && asOf < s.mark:
		return asOf, nil
	}
	return s.mark, nil
}

// dataModifyingCTE is one data-modifying WITH query of the statement.
type dataModifyingCTE struct {
	query  *pg_query.Node
	target *tableDesc
	plan   *selectPlan
}

// dataModifyingWith returns the WITH clause of a SELECT, INSERT, UPDATE or
// DELETE when one of its queries modifies data, nil otherwise.
func dataModifyingWith(n *pg_query.Node) *pg_query.WithClause {
	var w *pg_query.WithClause
	switch v := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		w = v.SelectStmt.WithClause
	case *pg_query.Node_InsertStmt:
		w = v.InsertStmt.WithClause
	case *pg_query.Node_UpdateStmt:
		w = v.UpdateStmt.WithClause
	case *pg_query.Node_DeleteStmt:
		w = v.DeleteStmt.WithClause
	case *pg_query.Node_MergeStmt:
		w = v.MergeStmt.WithClause
	}
	for _, c := range w.GetCtes() {
		if modifiedTable(c.GetCommonTableExpr().GetCtequery()) != nil {
			return w
		}
	}
	return nil
}

// modifiedTable is the target of an INSERT, UPDATE or DELETE (a WITH
// query's, a rule action's), nil for other statements.
func modifiedTable(n *pg_query.Node) *pg_query.RangeVar {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_InsertStmt:
		return v.InsertStmt.Relation
	case *pg_query.Node_UpdateStmt:
		return v.UpdateStmt.Relation
	case *pg_query.Node_DeleteStmt:
		return v.DeleteStmt.Relation
	}
	return nil
}

// statementWithDataModifyingCTEs compiles st, whose WITH clause w holds
// data-modifying queries, into a plan that runs the rest first, each of
// them when a part first reads it, and the unread ones at the end.
func (b *binder) statementWithDataModifyingCTEs(st *Statement, w *pg_query.WithClause) (*stmtPlan, error) {
	b.topWith, b.dataModifying = w, nil
	defer func() { b.topWith, b.dataModifying = nil, nil }()
	p, err := b.statement(st)
	if err != nil {
		return nil, err
	}
	mods := b.dataModifying
	if err := b.checkDataModifyingCTEs(st.node, mods); err != nil {
		return nil, err
	}
	if err := b.checkInterleavedEffects(st.node, mods); err != nil {
		return nil, err
	}
	modified := map[isolation.TableID]bool{}
	for _, fam := range b.modifiedFamilies(mods) {
		for _, oid := range fam {
			modified[b.cat.tables[oid].id] = true
		}
	}
	late := maps.Clone(modified)
	for _, oid := range b.mainFamily(st.node) {
		late[b.cat.tables[oid].id] = true
	}
	begin := func(x *execCtx) {
		top := *x
		x.withSnapshot = &withSnapshot{mark: x.stmtMark, tables: modified, ran: map[*selectPlan][][]any{}, top: &top}
		top.withSnapshot = x.withSnapshot
	}
	// finish runs, as PostgreSQL's ExecPostprocessPlan does once the rest
	// is done, the WITH queries no part read, the last first; they read
	// the rest's target as of the statement's start too.
	finish := func(x *execCtx) error {
		s := x.withSnapshot
		cx := *s.top
		cx.withSnapshot = &withSnapshot{mark: s.mark, tables: late, ran: s.ran}
		cx.withSnapshot.top = &cx
		for _, m := range slices.Backward(mods) {
			if _, err := m.plan.rowsCached(&cx); err != nil {
				return err
			}
		}
		return nil
	}
	exec := p.exec
	p.exec = func(x *execCtx) (*Result, error) {
		begin(x)
		res, err := exec(x)
		if err != nil {
			return nil, err
		}
		return res, finish(x)
	}
	if stream := p.stream; stream != nil {
		p.stream = func(x *execCtx, send func(row []any) error) (string, error) {
			begin(x)
			tag, err := stream(x, send)
			if err != nil {
				return "", err
			}
			return tag, finish(x)
		}
	}
	if p.writes == "" {
		p.writes = "SELECT"
	}
	return p, nil
}

// dataModifyingCTE compiles the WITH query c, an INSERT, UPDATE or DELETE,
// with the statement's earlier WITH queries ctes in reach.
func (b *binder) dataModifyingCTE(w *pg_query.WithClause, c *pg_query.CommonTableExpr, ctes map[string]*ctePlan) (*ctePlan, error) {
	if w != b.topWith {
		return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "WITH clause containing a data-modifying statement must be at the top level"), c.Location)
	}
	rv := modifiedTable(c.Ctequery)
	target := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
	if target == nil && b.viewTarget(rv) != nil {
		return nil, b.errAt(pgerror.Unsupported("a data-modifying WITH query on a view"), rv.Location)
	}
	if target != nil {
		if err := rulesInWith(target, c.Ctequery, b.s.replica()); err != nil {
			return nil, err
		}
	}
	saved := b.outerCTEs
	b.outerCTEs = ctes
	var sp *stmtPlan
	var err error
	switch v := c.Ctequery.Node.(type) {
	case *pg_query.Node_InsertStmt:
		sp, err = b.insertPlan(v.InsertStmt)
	case *pg_query.Node_UpdateStmt:
		sp, err = b.updatePlan(v.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		sp, err = b.deletePlan(v.DeleteStmt)
	}
	b.outerCTEs = saved
	if err != nil {
		return nil, err
	}
	p := &selectPlan{cols: sp.cols, node: sp.node}
	p.run = func(x *execCtx) ([][]any, error) {
		ran := map[*selectPlan][][]any(nil)
		if ws := x.withSnapshot; ws != nil {
			ran = ws.ran
			if ws.top != nil {
				// It runs where the part reading it first reads it, in a
				// context of its own.
				top := *ws.top
				x = &top
			}
		}
		if rows, ok := ran[p]; ok {
			return rows, nil
		}
		res, err := sp.exec(x)
		if err != nil {
			return nil, err
		}
		if ran != nil {
			ran[p] = res.Rows
		}
		return res.Rows, nil
	}
	b.dataModifying = append(b.dataModifying, &dataModifyingCTE{query: c.Ctequery, target: target, plan: p})
	return &ctePlan{name: c.Ctename, plan: p, noReturning: sp.cols == nil}, nil
}

// rulesInWith refuses, as PostgreSQL's rewriter does (0A000), the rules
// of t for the command q of a data-modifying WITH query that would not
// rewrite it into exactly one statement: a WITH query stands for a single
// statement's rows. Only one unconditional DO INSTEAD rule with one
// action, or no rule, is taken.
func rulesInWith(t *tableDesc, q *pg_query.Node, replica bool) error {
	event := pg_query.CmdType_CMD_INSERT
	switch q.Node.(type) {
	case *pg_query.Node_UpdateStmt:
		event = pg_query.CmdType_CMD_UPDATE
	case *pg_query.Node_DeleteStmt:
		event = pg_query.CmdType_CMD_DELETE
	}
	rules := t.rulesFor(event, replica)
	if len(rules) == 0 {
		return nil
	}
	refuse := func(kind string) error {
		return pgerror.Newf(pgerror.FeatureNotSupported, "%s rules are not supported for data-modifying statements in WITH", kind)
	}
	actions := 0
	for _, r := range rules {
		if r.instead && r.where != nil {
			return refuse("conditional DO INSTEAD")
		}
		actions += len(r.actions)
	}
	for _, r := range rules {
		if !r.instead && len(r.actions) > 0 {
			return refuse("DO ALSO")
		}
	}
	switch {
	case actions == 0:
		return refuse("DO INSTEAD NOTHING")
	case actions == 1 && slices.ContainsFunc(rules, func(r *ruleDesc) bool { return len(r.actions) == 1 && r.actions[0].GetNotifyStmt() != nil }):
		return refuse("DO INSTEAD NOTIFY")
	case actions > 1:
		return refuse("multi-statement DO INSTEAD")
	}
	return nil
}

// mainFamily returns the table the statement itself (not a WITH query)
// modifies with its ancestors and descendants, none for a SELECT.
func (b *binder) mainFamily(stmt *pg_query.Node) []uint32 {
	rv := mainTarget(stmt)
	if rv == nil {
		return nil
	}
	t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
	if t == nil {
		return nil
	}
	return b.modifiedFamilies([]*dataModifyingCTE{{target: t}})[0]
}

// mainTarget is the relation a statement (INSERT, UPDATE, DELETE or
// MERGE) writes, nil for others.
func mainTarget(stmt *pg_query.Node) *pg_query.RangeVar {
	if ms := stmt.GetMergeStmt(); ms != nil {
		return ms.Relation
	}
	return modifiedTable(stmt)
}

// modifiedFamilies returns, for each data-modifying WITH query, the
// table it modifies with its ancestors and descendants: a scan of any of
// them may read the table's rows.
func (b *binder) modifiedFamilies(mods []*dataModifyingCTE) [][]uint32 {
	families := make([][]uint32, len(mods))
	for i, m := range mods {
		fam := []uint32{m.target.oid}
		for _, d := range b.cat.descendants(m.target) {
			fam = append(fam, d.oid)
		}
		up := slices.Clone(m.target.parents)
		for len(up) > 0 {
			if p := b.cat.tables[up[0]]; p != nil {
				fam = append(fam, p.oid)
				up = append(up, p.parents...)
			}
			up = up[1:]
		}
		families[i] = fam
	}
	return families
}

// viewReaches reports whether view v reads, directly or through other
// views, a table touches reports (one a data-modifying WITH query
// modifies): writing through it writes that table.
func (b *binder) viewReaches(v *viewDesc, touches func(t *tableDesc, by int) bool) bool {
	for _, oid := range v.deps {
		if t := b.cat.tables[oid]; t != nil && touches(t, -1) {
			return true
		}
		if inner := viewByOid(b.cat, oid); inner != nil && b.viewReaches(inner, touches) {
			return true
		}
	}
	return false
}

// checkDataModifyingCTEs refuses a statement where a table that a
// data-modifying WITH query modifies is modified by another part too, or
// has its rows locked by another part (a view counts as any table).
func (b *binder) checkDataModifyingCTEs(stmt *pg_query.Node, mods []*dataModifyingCTE) error {
	refused := func() error {
		return pgerror.Unsupported("modifying, or locking rows of, a table that a data-modifying WITH query modifies elsewhere in the statement")
	}
	families := b.modifiedFamilies(mods)
	touches := func(t *tableDesc, by int) bool {
		for i, fam := range families {
			if i != by && slices.Contains(fam, t.oid) {
				return true
			}
		}
		return false
	}
	writers := make([]*dataModifyingCTE, len(mods), len(mods)+1)
	copy(writers, mods)
	if rv := mainTarget(stmt); rv != nil {
		if t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); t != nil {
			writers = append(writers, &dataModifyingCTE{query: stmt, target: t})
		}
		if v := b.viewTarget(rv); v != nil && b.viewReaches(v, touches) {
			return refused()
		}
	}
	for i, w := range writers {
		for _, o := range writers[i+1:] {
			if !b.sharedWritesExact(w, o) {
				return refused()
			}
		}
	}
	cteNames := map[string]bool{}
	walk(stmt, func(n *pg_query.Node) bool {
		if c := n.GetCommonTableExpr(); c != nil {
			cteNames[c.Ctename] = true
		}
		return true
	})
	var err error
	// lockedReads finds the locking SELECTs of root (part by) that read a
	// table another part modifies.
	lockedReads := func(root *pg_query.Node, by int) {
		walk(root, func(n *pg_query.Node) bool {
			if err != nil || by < 0 && slices.ContainsFunc(mods, func(m *dataModifyingCTE) bool { return m.query == n }) {
				return false
			}
			if sel := n.GetSelectStmt(); sel == nil || len(sel.LockingClause) == 0 {
				return true
			}
			walk(n, func(n *pg_query.Node) bool {
				rv := n.GetRangeVar()
				if rv == nil || rv.Schemaname == "" && cteNames[rv.Relname] {
					return true
				}
				if t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname); t != nil && touches(t, by) || t == nil && b.viewTarget(rv) != nil {
					err = refused()
				}
				return err == nil
			})
			return false
		})
	}
	lockedReads(stmt, -1)
	for i, m := range mods {
		lockedReads(m.query, i)
	}
	return err
}

// sharedWritesExact reports whether two parts of a statement, a and b,
// that may write one table (a table and its descendants each) still get
// PostgreSQL's answer when fickle runs them one after the other. Each
// reads the statement's snapshot, so neither sees the other's rows;
// what PostgreSQL leaves to its order of work is refused: ON CONFLICT
// and MERGE (whose outcome depends on the rows the other part wrote),
// triggers (which fire in that order), a unique or exclusion constraint
// where one part adds row versions and the other removes some (whether a
// key is taken depends on whether the other part freed it yet), and
// column defaults where both insert (which part draws a sequence's next
// value first). A row both
// update or delete is refused when it happens (withSnapshot.checkUnwritten).
func (b *binder) sharedWritesExact(a, c *dataModifyingCTE) bool {
	writes := func(m *dataModifyingCTE) map[uint32]*tableDesc {
		ts := map[uint32]*tableDesc{m.target.oid: m.target}
		for _, d := range b.cat.descendants(m.target) {
			ts[d.oid] = d
		}
		return ts
	}
	wa, wc := writes(a), writes(c)
	inserts := func(m *dataModifyingCTE) bool { return m.query.GetInsertStmt() != nil }
	// An UPDATE that sets no column of a unique key changes no key: it
	// neither takes nor frees one (the old pre-ON CONFLICT upsert, "WITH
	// u AS (UPDATE ...) INSERT ... WHERE NOT EXISTS (SELECT FROM u)").
	var t *tableDesc
	updates := func(m *dataModifyingCTE) bool {
		up := m.query.GetUpdateStmt()
		return up != nil && !keepsKeys(up, t)
	}
	adds := func(m *dataModifyingCTE) bool { return inserts(m) || updates(m) }
	removes := func(m *dataModifyingCTE) bool { return updates(m) || m.query.GetDeleteStmt() != nil }
	orderFree := func(m *dataModifyingCTE) bool {
		return m.query.GetMergeStmt() == nil && m.query.GetInsertStmt().GetOnConflictClause() == nil
	}
	for oid := range wa {
		if wc[oid] == nil {
			continue
		}
		t = wa[oid]
		if !orderFree(a) || !orderFree(c) || len(t.triggers) > 0 {
			return false
		}
		if (adds(a) && removes(c) || adds(c) && removes(a)) && hasUniqueness(t) {
			return false
		}
		if inserts(a) && inserts(c) && slices.ContainsFunc(t.cols, func(col *columnDesc) bool { return col.def != nil || col.identity != 0 }) {
			return false
		}
	}
	return true
}

// keepsKeys reports whether up sets no column of t's primary key, unique
// indexes and exclusion constraints (an index with expressions or a
// predicate, an exclusion constraint or a generated key column counts as
// setting one).
func keepsKeys(up *pg_query.UpdateStmt, t *tableDesc) bool {
	set := map[int]bool{}
	for _, n := range up.TargetList {
		i := slices.IndexFunc(t.cols, func(c *columnDesc) bool { return c.name == n.GetResTarget().GetName() })
		if i < 0 {
			return false
		}
		set[i] = true
	}
	keyed := func(cols []int) bool {
		return slices.ContainsFunc(cols, func(c int) bool { return c < 0 || c >= len(t.cols) || set[c] || t.cols[c].generated != nil })
	}
	if keyed(t.pk) {
		return false
	}
	for _, ix := range append(slices.Clone(t.indexes), t.pkIndex) {
		if ix == nil || !ix.unique && !ix.exclusion {
			continue
		}
		if ix.exclusion || ix.pred != nil || slices.ContainsFunc(ix.exprs, func(e *pg_query.Node) bool { return e != nil }) || keyed(ix.cols) {
			return false
		}
	}
	return true
}

// hasUniqueness reports whether t has a primary key, a unique index or an
// exclusion constraint.
func hasUniqueness(t *tableDesc) bool {
	if t.pk != nil || t.pkIndex != nil {
		return true
	}
	return slices.ContainsFunc(t.indexes, func(ix *indexDesc) bool { return ix.unique || ix.exclusion })
}

// checkUnwritten refuses (0A000) to update or delete the row key of table
// when another part of the statement with data-modifying WITH queries
// already wrote it: PostgreSQL modifies such a row once, in whichever part
// its order of work reaches it first, and the other part skips it.
func (s *withSnapshot) checkUnwritten(x *execCtx, table isolation.TableID, key []byte) error {
	if s == nil || s.refused || !s.tables[table] || !x.txn.WroteSince(table, key, s.mark) {
		return nil
	}
	return pgerror.Unsupported("updating or deleting a row that another part of the statement (a data-modifying WITH query) updated or deleted")
}

// rulesBesideDataModifyingWith checks the actions of the rules that rewrite
// a statement with data-modifying WITH queries, which PostgreSQL attaches
// to the action: an INSERT ... SELECT action fails there (0A000), and an
// action writing a table a WITH query modifies is refused (0A000), as two
// parts modifying one table are where fickle cannot tell their order.
func (b *binder) rulesBesideDataModifyingWith(rules []*ruleDesc) error {
	families := b.modifiedFamilies(b.dataModifying)
	for _, r := range rules {
		for _, a := range r.actions {
			if sel := a.GetInsertStmt().GetSelectStmt().GetSelectStmt(); sel != nil && len(sel.ValuesLists) == 0 {
				return pgerror.New(pgerror.FeatureNotSupported, "INSERT...SELECT rule actions are not supported for queries having data-modifying statements in WITH")
			}
			rv := modifiedTable(a)
			if rv == nil {
				continue
			}
			touches := func(t *tableDesc, _ int) bool {
				return slices.ContainsFunc(families, func(fam []uint32) bool { return slices.Contains(fam, t.oid) })
			}
			t := b.s.lookupTable(b.cat, rv.Schemaname, rv.Relname)
			if v := b.viewTarget(rv); t == nil && v != nil && b.viewReaches(v, touches) || t != nil && touches(t, -1) {
				return pgerror.Unsupported("modifying, or locking rows of, a table that a data-modifying WITH query modifies elsewhere in the statement")
			}
		}
	}
	return nil
}
