package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// publicationRowFilter checks a publication's WHERE (expr) over t as
// TransformPubWhereClauses does (a boolean expression of t's columns
// without aggregates) and as check_simple_rowfilter_expr_walker does (only
// columns, constants, built-in operators and types, immutable built-in
// functions), and returns it as stored and the attnums it reads.
func (d *ddl) publicationRowFilter(t *tableDesc, where *pg_query.Node, full string) (*pg_query.Node, []int16, error) {
	b := d.binder(full)
	expr := d.s.qualifiedCalls(d.cat, where)
	sc := tableScope(t, t.name)
	sc.noAgg = "WHERE"
	var sysErr error
	walk(expr, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil && sysErr == nil && rowFilterColumn(t, cr) < 0 {
			if f := cr.Fields[len(cr.Fields)-1].GetString_(); f != nil && slices.Contains(systemColumnNames, f.Sval) {
				sysErr = b.invalidRowFilter("System columns are not allowed.", cr.Location)
			}
		}
		return sysErr == nil
	})
	if sysErr != nil {
		return nil, nil, sysErr
	}
	if _, err := b.cond(sc, expr, "PUBLICATION WHERE"); err != nil {
		return nil, nil, err
	}
	var cols []int16
	var err error
	walk(expr, func(n *pg_query.Node) bool {
		if err != nil {
			return false
		}
		err = b.simpleRowFilterNode(t, sc, n)
		if cr := n.GetColumnRef(); cr != nil && err == nil {
			if i := rowFilterColumn(t, cr); i >= 0 && !slices.Contains(cols, t.cols[i].attnum) {
				cols = append(cols, t.cols[i].attnum)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(cols)
	return expr, cols, nil
}

// rowFilterColumn is the index in t of the column cr names, -1 for none.
func rowFilterColumn(t *tableDesc, cr *pg_query.ColumnRef) int {
	fields := cr.Fields
	if len(fields) == 2 && fields[0].GetString_().GetSval() == t.name {
		fields = fields[1:]
	}
	if len(fields) != 1 || fields[0].GetString_() == nil {
		return -1
	}
	return t.colIndex(fields[0].GetString_().GetSval())
}

// invalidRowFilter is the error for a row filter that is not a simple
// expression, at loc.
func (b *binder) invalidRowFilter(detail string, loc int32) error {
	return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "invalid publication WHERE expression").WithDetail("%s", detail), loc)
}

// simpleRowFilterNode checks one node of a row filter, its subexpressions
// aside (their own visits check them).
func (b *binder) simpleRowFilterNode(t *tableDesc, sc *scope, n *pg_query.Node) error {
	const notSimple = "Only columns, constants, built-in operators, built-in data types, built-in collations, and immutable built-in functions are allowed."
	switch v := n.Node.(type) {
	case *pg_query.Node_SubLink:
		return b.invalidRowFilter(notSimple, v.SubLink.Location)
	case *pg_query.Node_ColumnRef:
		i := rowFilterColumn(t, v.ColumnRef)
		if i < 0 {
			return b.invalidRowFilter("System columns are not allowed.", v.ColumnRef.Location)
		}
		if uint32(t.cols[i].typ.Oid) >= firstUserOID {
			return b.invalidRowFilter("User-defined types are not allowed.", v.ColumnRef.Location)
		}
	case *pg_query.Node_AIndirection, *pg_query.Node_ParamRef, *pg_query.Node_SqlvalueFunction, *pg_query.Node_GroupingFunc,
		*pg_query.Node_CurrentOfExpr, *pg_query.Node_NextValueExpr:
		return b.invalidRowFilter(notSimple, exprLocation(n))
	case *pg_query.Node_AExpr:
		ops := map[uint32]bool{}
		saved := b.extOpsUsed
		b.extOpsUsed = ops
		_, err := b.expr(sc, n)
		b.extOpsUsed = saved
		if err != nil {
			return err
		}
		if len(ops) > 0 && !b.argsUseExtensionOps(sc, v.AExpr.Lexpr, v.AExpr.Rexpr) {
			return b.invalidRowFilter("User-defined operators are not allowed.", leftmostLocation(n))
		}
	case *pg_query.Node_TypeCast:
		if !b.simpleCast(sc, v.TypeCast) {
			return b.invalidRowFilter(notSimple, leftmostLocation(n))
		}
	case *pg_query.Node_FuncCall:
		routines, mutable := b.routineCalls, b.mutableCalls
		e, err := b.expr(sc, n)
		if err != nil {
			return err
		}
		ownRoutines, ownMutable := b.routineCalls-routines, b.mutableCalls-mutable
		for _, a := range v.FuncCall.Args {
			r, m := b.routineCalls, b.mutableCalls
			if _, err := b.expr(sc, a); err != nil {
				return err
			}
			ownRoutines -= b.routineCalls - r
			ownMutable -= b.mutableCalls - m
		}
		if ownRoutines > 0 || ownMutable > 0 || e.volatile && !slices.ContainsFunc(v.FuncCall.Args, func(a *pg_query.Node) bool { return b.isVolatile(sc, a) }) {
			return b.invalidRowFilter("User-defined or built-in mutable functions are not allowed.", v.FuncCall.Location)
		}
		if uint32(e.typ.Oid) >= firstUserOID {
			return b.invalidRowFilter("User-defined types are not allowed.", v.FuncCall.Location)
		}
	}
	return nil
}

// simpleCast reports whether PostgreSQL's parser makes a cast of a row
// filter a node the filter may hold: a constant, no conversion, a relabeling
// of binary-compatible types or a cast function (pg_cast's methods b and f);
// a conversion through the types' text forms (CoerceViaIO) and array and
// domain coercions are not.
func (b *binder) simpleCast(sc *scope, tc *pg_query.TypeCast) bool {
	if tc.Arg.GetAConst() != nil {
		return true
	}
	arg, err := b.expr(sc, tc.Arg)
	if err != nil || unresolved(arg) || arg.lit != nil || arg.null {
		return true
	}
	to, err := b.expr(sc, &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: tc}})
	if err != nil || to.typ.Oid == arg.typ.Oid {
		return true
	}
	switch pgCasts().methods[[2]uint32{uint32(arg.typ.Oid), uint32(to.typ.Oid)}] {
	case 'b', 'f':
		return true
	}
	return false
}

// isVolatile reports whether n compiles to a volatile expression.
func (b *binder) isVolatile(sc *scope, n *pg_query.Node) bool {
	e, err := b.expr(sc, n)
	return err == nil && e.volatile
}

// argsUseExtensionOps reports whether the operands of an operator apply
// extensions' operators themselves.
func (b *binder) argsUseExtensionOps(sc *scope, args ...*pg_query.Node) bool {
	for _, a := range args {
		if a == nil {
			continue
		}
		ops := map[uint32]bool{}
		saved := b.extOpsUsed
		b.extOpsUsed = ops
		_, err := b.expr(sc, a)
		b.extOpsUsed = saved
		if err == nil && len(ops) > 0 {
			return true
		}
	}
	return false
}

// replicaIdentityCols are the indexes of t's replica identity index's
// columns (RelationGetIndexAttrBitmap's INDEX_ATTR_BITMAP_IDENTITY_KEY):
// the primary key's by default, the chosen index's, none for FULL and
// NOTHING.
func replicaIdentityCols(t *tableDesc) []int {
	switch t.replicaIdentity {
	case 0:
		return t.pk
	case 'i':
		if t.pk != nil && t.replicaIndex == primaryKeyIndexOID(t) {
			return t.pk
		}
		if ix := t.indexByOID(t.replicaIndex); ix != nil {
			return ix.cols
		}
	}
	return nil
}

// hasReplicaIndex reports whether t has a replica identity index
// (RelationGetReplicaIndex).
func hasReplicaIndex(t *tableDesc) bool {
	switch t.replicaIdentity {
	case 0:
		return t.pk != nil
	case 'i':
		return true
	}
	return false
}

// isPublishable is is_publishable_relation: a permanent table.
func isPublishable(t *tableDesc) bool {
	return t.matview == nil && !t.unlogged && !isTempSchema(t.schema)
}

// partitionAncestors are the partitioned tables t is a partition of,
// nearest first.
func (c *catalog) partitionAncestors(t *tableDesc) []*tableDesc {
	var out []*tableDesc
	for t.bound != nil && len(t.parents) > 0 {
		p := c.tables[t.parents[0]]
		if p == nil {
			break
		}
		out = append(out, p)
		t = p
	}
	return out
}

// relationPublications are the publications whose changes t's changes
// are part of (RelationBuildPublicationDesc): those naming t or its
// schema, those naming a partitioned table t is a partition of or its
// schema, and those FOR ALL TABLES.
func (c *catalog) relationPublications(t *tableDesc, ancestors []*tableDesc) []*publicationDesc {
	nsp := func(x *tableDesc) uint32 {
		if sc := c.schemas[x.schema]; sc != nil {
			return sc.oid
		}
		return 0
	}
	var out []*publicationDesc
	for _, p := range c.sortedPublications() {
		member := p.allTables
		for _, x := range append([]*tableDesc{t}, ancestors...) {
			member = member || c.relOf(p, x.oid) != nil || c.hasSchema(p, nsp(x))
		}
		if member {
			out = append(out, p)
		}
	}
	return out
}

// topmostPublished is GetTopMostAncestorInPublication: the farthest of
// ancestors that p names, by itself or by its schema; nil for none.
func (c *catalog) topmostPublished(p *publicationDesc, ancestors []*tableDesc) *tableDesc {
	var top *tableDesc
	for _, a := range ancestors {
		if c.relOf(p, a.oid) != nil {
			top = a
		} else if sc := c.schemas[a.schema]; sc != nil && c.hasSchema(p, sc.oid) {
			top = a
		}
	}
	return top
}

// publishedEntry is the pg_publication_rel entry whose row filter and
// column list apply to t's changes in p: t's own, or with
// publish_via_partition_root its topmost published ancestor's; and that
// table.
func (c *catalog) publishedEntry(p *publicationDesc, t *tableDesc, ancestors []*tableDesc) (*pubRel, *tableDesc) {
	as := t
	if p.viaRoot && t.bound != nil {
		if top := c.topmostPublished(p, ancestors); top != nil {
			as = top
		}
	}
	return c.relOf(p, as.oid), as
}

// rowFilterInvalid is pub_rf_contains_invalid_column: p's row filter for
// t reads a column outside t's replica identity.
func (c *catalog) rowFilterInvalid(p *publicationDesc, t *tableDesc, ancestors []*tableDesc) bool {
	if t.replicaIdentity == 'f' {
		return false
	}
	r, as := c.publishedEntry(p, t, ancestors)
	if r == nil || r.qual == "" {
		return false
	}
	ident := replicaIdentityCols(t)
	for _, a := range r.qualCols {
		i := as.colIndexByAttnum(a)
		if i < 0 {
			continue
		}
		j := t.colIndex(as.cols[i].name)
		if !slices.Contains(ident, j) {
			return true
		}
	}
	return false
}

// columnListInvalid is pub_collist_contains_invalid_column: p's column
// list for t leaves out a column of t's replica identity, or t's replica
// identity is FULL.
func (c *catalog) columnListInvalid(p *publicationDesc, t *tableDesc, ancestors []*tableDesc) bool {
	r, as := c.publishedEntry(p, t, ancestors)
	if r == nil || r.cols == nil {
		return false
	}
	if t.replicaIdentity == 'f' {
		return true
	}
	for _, j := range replicaIdentityCols(t) {
		a := t.cols[j].attnum
		if p.viaRoot {
			i := as.colIndex(t.cols[j].name)
			if i < 0 {
				return true
			}
			a = as.cols[i].attnum
		}
		if !slices.Contains(r.cols, a) {
			return true
		}
	}
	return false
}

// colIndexByAttnum is the index of t's column of attnum a, -1 for none.
func (t *tableDesc) colIndexByAttnum(a int16) int {
	return slices.IndexFunc(t.cols, func(c *columnDesc) bool { return c.attnum == a })
}

// checkReplicaIdentity is CheckCmdReplicaIdentity: an UPDATE (update) or
// DELETE of t fails when a publication publishing those changes has a row
// filter or column list t's replica identity does not cover, or when t
// has no replica identity at all.
func (c *catalog) checkReplicaIdentity(t *tableDesc, update bool) error {
	if len(c.publications) == 0 || !isPublishable(t) {
		return nil
	}
	ancestors := c.partitionAncestors(t)
	var pubUpdate, pubDelete bool
	rfUpdate, rfDelete, colsUpdate, colsDelete := true, true, true, true
	for _, p := range c.relationPublications(t, ancestors) {
		pubUpdate, pubDelete = pubUpdate || p.update, pubDelete || p.delete
		if p.allTables || !p.update && !p.delete {
			continue
		}
		if c.rowFilterInvalid(p, t, ancestors) {
			rfUpdate, rfDelete = rfUpdate && !p.update, rfDelete && !p.delete
		}
		if c.columnListInvalid(p, t, ancestors) {
			colsUpdate, colsDelete = colsUpdate && !p.update, colsDelete && !p.delete
		}
	}
	verb := "update"
	if !update {
		verb = "delete from"
	}
	switch {
	case update && !rfUpdate, !update && !rfDelete:
		return pgerror.Newf(pgerror.InvalidColumnReference, "cannot %s table \"%s\"", verb, t.name).
			WithDetail("Column used in the publication WHERE expression is not part of the replica identity.")
	case update && !colsUpdate, !update && !colsDelete:
		return pgerror.Newf(pgerror.InvalidColumnReference, "cannot %s table \"%s\"", verb, t.name).
			WithDetail("Column list used by the publication does not cover the replica identity.")
	}
	if hasReplicaIndex(t) || t.replicaIdentity == 'f' {
		return nil
	}
	if update && pubUpdate {
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot update table \"%s\" because it does not have a replica identity and publishes updates", t.name).
			WithHint("To enable updating the table, set REPLICA IDENTITY using ALTER TABLE.")
	}
	if !update && pubDelete {
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot delete from table \"%s\" because it does not have a replica identity and publishes deletes", t.name).
			WithHint("To enable deleting from the table, set REPLICA IDENTITY using ALTER TABLE.")
	}
	return nil
}

// checkTargetReplicaIdentity runs checkReplicaIdentity for the tables an
// UPDATE or DELETE of t writes, as PostgreSQL's executor does for its
// result relations when it starts: t itself, its inheritance children
// unless only, and for a partitioned table its leaf partitions. lazy
// leaves a partitioned table's partitions to checkMatchedReplicaIdentity:
// PostgreSQL checks only those its planner did not prune.
func (c *catalog) checkTargetReplicaIdentity(t *tableDesc, only, lazy, update bool) error {
	if len(c.publications) == 0 {
		return nil
	}
	tables := []*tableDesc{t}
	if !only {
		tables = append(tables, c.descendants(t)...)
	}
	for _, x := range tables {
		if x.part != nil || lazy && x != t && t.part != nil {
			continue
		}
		if err := c.checkReplicaIdentity(x, update); err != nil {
			return err
		}
	}
	return nil
}

// prunablePartitions reports whether PostgreSQL's planner may leave out
// some partitions of partitioned table t that an UPDATE or DELETE with
// this WHERE clause writes: the clause reads a partition key column (of
// t or of a partitioned partition), or no column at all (a constant, which
// may be false).
func (c *catalog) prunablePartitions(t *tableDesc, where *pg_query.Node) bool {
	if t.part == nil || where == nil {
		return false
	}
	keys, exprKey := map[string]bool{}, false
	for _, x := range append([]*tableDesc{t}, c.descendants(t)...) {
		if x.part == nil {
			continue
		}
		for i, col := range x.part.cols {
			if col == "" || i < len(x.part.exprs) && x.part.exprs[i] != nil {
				exprKey = true
			} else {
				keys[col] = true
			}
		}
	}
	refs, key := false, false
	walk(where, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil {
			refs = true
			if f := cr.Fields[len(cr.Fields)-1].GetString_(); exprKey || f != nil && keys[f.Sval] {
				key = true
			}
		}
		return true
	})
	return !refs || key
}

// checkMatchedReplicaIdentity is checkReplicaIdentity, when
// checkTargetReplicaIdentity left them (lazy), for the partitions of a
// partitioned target in which the statement found rows to write: those
// PostgreSQL's planner cannot have pruned. They are checked in partition
// order.
func (m *modifyTarget) checkMatchedReplicaIdentity(x *execCtx, matches []match, update bool) error {
	c, _ := x.s.catalog()
	if len(c.publications) == 0 || len(matches) == 0 {
		return nil
	}
	hit := map[uint32]bool{}
	for _, mt := range matches {
		hit[m.rowTable(mt).oid] = true
	}
	for _, x := range c.descendants(m.t) {
		if hit[x.oid] {
			if err := c.checkReplicaIdentity(x, update); err != nil {
				return err
			}
		}
	}
	return nil
}

// atStart defers err, found while the statement was planned, to when it
// starts, as PostgreSQL raises the replica identity errors when its
// executor starts (ExecInitModifyTable): PREPARE succeeds, EXECUTE and
// EXPLAIN fail.
func (b *binder) atStart(err error) {
	if err != nil {
		b.constChecks = append(b.constChecks, func(*execCtx) error { return err })
	}
}
