package sqlexec

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Table inheritance (CREATE TABLE ... INHERITS). A child table holds every
// column of its parents, merged by name, then its own; it inherits their
// CHECK constraints (but no index, key or foreign key). A read or write of
// a parent without ONLY covers the parent and all its descendants: the
// binder expands the table item into members (inhMember), each read and
// written through the store as its own table, so the history names the
// rows' own tables.

// inhMember is one table that a read of a parent covers: cols maps each
// column of the parent (the item's row shape) to the member's column.
type inhMember struct {
	t    *tableDesc
	cols []int
}

// toParent returns the member row in the parent's column order.
func (m *inhMember) toParent(row []any) []any {
	out := make([]any, len(m.cols))
	for i, c := range m.cols {
		out[i] = row[c]
	}
	return out
}

// fromParent returns the member row base with the parent-shaped row prow's
// values in their columns.
func (m *inhMember) fromParent(base, prow []any) []any {
	out := append([]any(nil), base...)
	for i, c := range m.cols {
		out[c] = prow[i]
	}
	return out
}

// children returns the tables that name t as a parent, in OID order as
// PostgreSQL lists them.
func (c *catalog) children(oid uint32) []*tableDesc {
	var out []*tableDesc
	for _, t := range c.tables {
		if slices.Contains(t.parents, oid) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *tableDesc) int { return int(a.oid) - int(b.oid) })
	return out
}

// descendants returns every table below t, each once: breadth first for
// inheritance, depth first in bound order for partitions, the orders in
// which PostgreSQL reads them.
func (c *catalog) descendants(t *tableDesc) []*tableDesc {
	if t.part != nil {
		var out []*tableDesc
		for _, p := range c.partitions(t) {
			out = append(append(out, p), c.descendants(p)...)
		}
		return out
	}
	seen := map[uint32]bool{t.oid: true}
	var out []*tableDesc
	queue := []*tableDesc{t}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, ch := range c.children(cur.oid) {
			if !seen[ch.oid] {
				seen[ch.oid] = true
				out = append(out, ch)
				queue = append(queue, ch)
			}
		}
	}
	return out
}

// inhMembers returns the members a read of t without ONLY covers: t
// itself first, then its descendants; nil when t has none.
func (c *catalog) inhMembers(t *tableDesc) []*inhMember {
	desc := c.descendants(t)
	if len(desc) == 0 {
		return nil
	}
	out := make([]*inhMember, 0, len(desc)+1)
	for _, m := range append([]*tableDesc{t}, desc...) {
		im := &inhMember{t: m, cols: make([]int, len(t.cols))}
		for i, col := range t.cols {
			im.cols[i] = m.colIndex(col.name)
		}
		out = append(out, im)
	}
	return out
}

// inheritParents resolves the parents of CREATE TABLE ... INHERITS and
// gives t their columns, merged by name, and their inheritable CHECK
// constraints. conflicts are the columns two parents give different
// defaults, which the table must define one of its own for.
func (d *ddl) inheritParents(t *tableDesc, rvs []*pg_query.Node, temp bool) (conflicts []string, err error) {
	for _, n := range rvs {
		rv := n.GetRangeVar()
		p := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
		if p == nil {
			return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
		}
		if p.matview != nil {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "inherited relation \"%s\" is not a table or foreign table", p.name)
		}
		if p.part != nil {
			if err := partitionPersistence(t, p, "create"); err != nil {
				return nil, err
			}
		} else if p.schema != t.schema && isTempSchema(p.schema) && !temp {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from temporary relation \"%s\"", p.name)
		}
		if slices.Contains(t.parents, p.oid) {
			return nil, pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" would be inherited from more than once", p.name)
		}
		t.parents = append(t.parents, p.oid)
		for _, pc := range p.cols {
			i := t.colIndex(pc.name)
			if i < 0 {
				nc := &columnDesc{name: pc.name, typ: pc.typ, notNull: pc.notNull, def: pc.def, attnum: int16(len(t.cols) + 1), inhCount: 1, notLocal: true, collation: pc.collation, domain: pc.domain,
					compression: pc.compression, generated: pc.generated, storage: pc.storage}
				t.cols = append(t.cols, nc)
				continue
			}
			d.notice(pgerror.SuccessfulCompletion, "merging multiple inherited definitions of column \"%s\"", pc.name)
			cur := t.cols[i]
			if cur.typ.Oid != pc.typ.Oid || cur.typ.Typmod != pc.typ.Typmod {
				return nil, pgerror.Newf(pgerror.DatatypeMismatch, "inherited column \"%s\" has a type conflict", pc.name).
					WithDetail("%s versus %s", cur.typ.String(), pc.typ.String())
			}
			if a, b := declaredCollation(cur), declaredCollation(pc); a != b {
				return nil, pgerror.Newf(pgerror.CollationMismatch, "inherited column \"%s\" has a collation conflict", pc.name).
					WithDetail("\"%s\" versus \"%s\"", a, b)
			}
			if a, b := columnStorage(cur), columnStorage(pc); a != b {
				return nil, pgerror.Newf(pgerror.DatatypeMismatch, "inherited column \"%s\" has a storage parameter conflict", pc.name).
					WithDetail("%s versus %s", storageName[a], storageName[b])
			}
			if err := mergeParentsGeneration(cur, pc); err != nil {
				return nil, err
			}
			compression, err := mergeCompression(pc.name, cur.compression, pc.compression)
			if err != nil {
				return nil, err
			}
			nc := *cur
			nc.notNull = nc.notNull || pc.notNull
			nc.compression = compression
			nc.inhCount++
			switch {
			case nc.def == nil:
				nc.def = pc.def
			case pc.def != nil && deparseExpr(nc.def) != deparseExpr(pc.def) && !slices.Contains(conflicts, pc.name):
				conflicts = append(conflicts, pc.name)
			}
			t.cols[i] = &nc
		}
		for _, ck := range p.checks {
			if ck.noInherit {
				continue
			}
			if j := slices.IndexFunc(t.checks, func(c *checkDesc) bool { return c.name == ck.name }); j >= 0 {
				if t.checks[j].text != ck.text {
					return nil, pgerror.Newf(pgerror.DuplicateObject, "check constraint name \"%s\" appears multiple times but with different expressions", ck.name)
				}
				nk := *t.checks[j]
				nk.inhCount++
				t.checks[j] = &nk
				continue
			}
			t.checks = append(t.checks, &checkDesc{name: ck.name, expr: ck.expr, text: ck.text, inhCount: 1, notLocal: true})
		}
	}
	return conflicts, nil
}

// mergeLocalColumn merges a column definition of CREATE TABLE ... INHERITS
// into the inherited column of the same name, as PostgreSQL does: the
// types must agree; a local default replaces the inherited one and NOT
// NULL adds to it. ok is false when no inherited column has the name.
//
// ordinal is the column's position among the statement's column
// definitions, from 1.
func (d *ddl) mergeLocalColumn(b *binder, t *tableDesc, cd *pg_query.ColumnDef, ordinal int) (cons []tableConstraint, ok bool, err error) {
	if cd.TypeName == nil {
		cons, err := partitionColumnOptions(t, cd)
		return cons, true, err
	}
	i := t.colIndex(cd.Colname)
	if i < 0 || !t.cols[i].notLocal {
		return nil, false, nil
	}
	if i+1 == ordinal {
		d.notice(pgerror.SuccessfulCompletion, "merging column \"%s\" with inherited definition", cd.Colname)
	} else {
		d.notice(pgerror.SuccessfulCompletion, "moving and merging column \"%s\" with inherited definition", cd.Colname)
		d.notices[len(d.notices)-1].Detail = "User-specified column moved to the position of the inherited column."
	}
	// scratch numbers the column as the inherited one (droppedAttnum sets
	// where addColumnDef numbers from), so that an identity column's new
	// sequence is owned by t's column.
	scratch := &tableDesc{oid: t.oid, name: t.name, schema: t.schema, owner: t.owner, unlogged: t.unlogged, droppedAttnum: t.cols[i].attnum - 1}
	cons, err = d.addColumnDef(b, scratch, cd, false)
	if err != nil {
		return nil, true, err
	}
	local, cur := scratch.cols[0], t.cols[i]
	if local.typ.Oid != cur.typ.Oid || local.typ.Typmod != cur.typ.Typmod {
		return nil, true, pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" has a type conflict", cd.Colname).
			WithDetail("%s versus %s", cur.typ.String(), local.typ.String())
	}
	if a, b := declaredCollation(cur), declaredCollation(local); a != b {
		return nil, true, pgerror.Newf(pgerror.CollationMismatch, "column \"%s\" has a collation conflict", cd.Colname).
			WithDetail("\"%s\" versus \"%s\"", a, b)
	}
	if err := mergeLocalGeneration(cur, local); err != nil {
		return nil, true, err
	}
	compression, err := mergeCompression(cd.Colname, cur.compression, local.compression)
	if err != nil {
		return nil, true, err
	}
	nc := *cur
	nc.compression = compression
	nc.notLocal = false
	nc.notNull = nc.notNull || local.notNull
	if local.def != nil {
		nc.def = local.def
	}
	if local.generated != nil {
		nc.generated, nc.def = local.generated, nil
	}
	nc.identity = local.identity
	t.cols[i] = &nc
	return cons, true, nil
}

// partitionColumnOptions applies a column entry of CREATE TABLE ...
// PARTITION OF (name [WITH OPTIONS] constraints) to the column t inherits:
// NOT NULL, and PRIMARY KEY, UNIQUE or CHECK constraints over it, which it
// returns. Other options (DEFAULT, identity, generation, references) are
// refused.
func partitionColumnOptions(t *tableDesc, cd *pg_query.ColumnDef) ([]tableConstraint, error) {
	i := t.colIndex(cd.Colname)
	if i < 0 {
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", cd.Colname)
	}
	if columnGenerated(cd) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "generated columns are not supported on partitions")
	}
	if cd.RawDefault != nil || cd.CollClause != nil || cd.Identity != "" || cd.Generated != "" {
		return nil, pgerror.Unsupported("column options in PARTITION OF other than NOT NULL, PRIMARY KEY, UNIQUE and CHECK")
	}
	nc := *t.cols[i]
	var cons []tableConstraint
	for _, n := range cd.Constraints {
		switch c := n.GetConstraint(); c.Contype {
		case pg_query.ConstrType_CONSTR_NOTNULL:
			nc.notNull = true
		case pg_query.ConstrType_CONSTR_PRIMARY, pg_query.ConstrType_CONSTR_UNIQUE, pg_query.ConstrType_CONSTR_CHECK:
			cons = append(cons, tableConstraint{c: c, column: cd.Colname})
		default:
			return nil, pgerror.Unsupported("column options in PARTITION OF other than NOT NULL, PRIMARY KEY, UNIQUE and CHECK")
		}
	}
	t.cols[i] = &nc
	return cons, nil
}

// inhHierarchy reports whether t has a parent or a child: ALTER TABLE
// commands that PostgreSQL applies to a whole hierarchy are refused there.
func (c *catalog) inhHierarchy(t *tableDesc) bool {
	return len(t.parents) > 0 || len(c.children(t.oid)) > 0
}

// fetchMembers is fetchTableWith for an item with members: the parent's
// rows by its chosen access path, then each descendant's by a scan, in
// the parent's column order.
func fetchMembers(x *execCtx, it *fromItem, withKeys bool, conds []*conj) ([]keyedRow, error) {
	own := *it
	own.members = nil
	setTableoid(x, it, it.table)
	out, err := fetchTableWith(x, &own, withKeys, conds)
	if err != nil {
		return nil, err
	}
	withTableoid(it, it.table, out)
	for i, m := range it.members[1:] {
		setTableoid(x, it, m.t)
		start := len(out)
		ro := isolation.ReadOptions{ForLock: it.lock != isolation.RowLockNone}
		if ro.AsOf, err = x.withSnapshot.readMark(m.t.id, x.statementSnapshot()); err != nil {
			return nil, err
		}
		// A member's whole table is read: its own sequential scan.
		var places *heapPlaces
		if !x.txn.HeapInKeyOrder(m.t.id) {
			places = trackPlaces(&ro)
		}
		itemRow := readVersions(it, &ro)
		err := x.txn.Scan(x.ctx, m.t.id, isolation.Span{}, ro, func(key []byte, row []any) (bool, error) {
			prow := itemRow(m.toParent(row))
			copy(x.row[it.off:it.off+len(prow)], prow)
			ok, err := allHold(x, conds, false)
			if err != nil || !ok {
				return false, err
			}
			kr := keyedRow{row: prow, member: i + 1, phys: row}
			if withKeys {
				kr.key = append([]byte(nil), key...)
			}
			out = append(out, kr)
			places.add()
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		places.sort(out[start:])
		withTableoid(it, m.t, out[start:])
	}
	return out, nil
}

// col returns the member's column for the parent's column c; c itself
// for a nil member (a target without children).
func (m *inhMember) col(c int) int {
	if m == nil {
		return c
	}
	return m.cols[c]
}

// physical returns the row to store for the parent-shaped row prow, base
// being the member's stored row; prow itself for a nil member.
func (m *inhMember) physical(base, prow []any) []any {
	if m == nil {
		return prow
	}
	return m.fromParent(base, prow)
}

// memberWriters returns the writers of an UPDATE or DELETE target's
// members, by member index (the first is w, the target's own); nil when
// the target has no children. Their row triggers are the statement's
// (triggers_members.go); the defaults they need are those sets give.
func (b *binder) memberWriters(m *modifyTarget, w *writer, sets []setTarget) ([]*writer, error) {
	ms := m.items[0].members
	if ms == nil {
		return nil, nil
	}
	ws := []*writer{w}
	for _, mem := range ms[1:] {
		b.useTable(mem.t, isolation.TableLockRowExclusive)
		if err := foreignMemberError([]*tableDesc{mem.t}); err != nil {
			b.perms = append(b.perms, permCheck{planErr: err})
		}
		mw, err := b.writerFor(mem.t, true)
		if err != nil {
			return nil, err
		}
		mw.requireDefaults(func(c int) bool {
			return slices.ContainsFunc(sets, func(s setTarget) bool { return s.e == nil && mem.col(s.col) == c })
		})
		ws = append(ws, mw)
	}
	return ws, nil
}

// withInheritors adds to the tables DROP TABLE names their inheritance
// descendants when cascade is set, and refuses the drop with 2BP01 when it
// is not and a descendant would be left without its parent.
func (d *ddl) withInheritors(ts []*tableDesc, cascade bool) ([]*tableDesc, error) {
	named := map[uint32]bool{}
	for _, t := range ts {
		named[t.oid] = true
	}
	out := ts
	var lines []string
	for _, t := range ts {
		var deps []string
		for _, ch := range d.cat.descendants(t) {
			if named[ch.oid] {
				continue
			}
			named[ch.oid] = true
			if err := d.lockTable(ch, isolation.TableLockAccessExclusive); err != nil {
				return nil, err
			}
			out = append(out, ch)
			if ch.bound != nil {
				// A partition goes with its table, CASCADE or not.
				continue
			}
			parent := d.cat.tables[ch.parents[0]]
			deps = append(deps, fmt.Sprintf("%s %s depends on %s %s", relNoun(ch), ch.name, relNoun(parent), parent.name))
			lines = append(lines, "drop cascades to "+relNoun(ch)+" "+ch.name)
		}
		if len(deps) > 0 && !cascade {
			return nil, pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", relNoun(t), t.name).
				WithDetail("%s", strings.Join(deps, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
	}
	switch {
	case len(lines) == 1:
		d.notice(pgerror.SuccessfulCompletion, "%s", lines[0])
	case len(lines) > 1:
		d.notice(pgerror.SuccessfulCompletion, "drop cascades to %d other objects", len(lines))
		d.notices[len(d.notices)-1].Detail = strings.Join(lines, "\n")
	}
	return out, nil
}

// inheritedAlter reports whether cmd on t is one that PostgreSQL applies
// to an inheritance hierarchy (alterHierarchy runs it).
func (d *ddl) inheritedAlter(t *tableDesc, cmd *pg_query.AlterTableCmd) bool {
	if isTriggerToggle(cmd.Subtype) || isRowSecurityToggle(cmd.Subtype) {
		return false
	}
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_ChangeOwner,
		pg_query.AlterTableType_AT_AddInherit, pg_query.AlterTableType_AT_DropInherit,
		pg_query.AlterTableType_AT_AttachPartition, pg_query.AlterTableType_AT_DetachPartition,
		pg_query.AlterTableType_AT_SetTableSpace,
		pg_query.AlterTableType_AT_ClusterOn, pg_query.AlterTableType_AT_DropCluster, pg_query.AlterTableType_AT_ReplicaIdentity, // never recurse, as in PostgreSQL
		pg_query.AlterTableType_AT_AlterConstraint: // foreign keys: their clones follow (ri_triggers.go)
		return false
	case pg_query.AlterTableType_AT_AddIdentity, pg_query.AlterTableType_AT_SetIdentity, pg_query.AlterTableType_AT_DropIdentity:
		// PostgreSQL 15 never recurses these; fickle keeps refusing them on
		// partitioned tables and partitions, whose rows take their
		// defaults elsewhere.
		return t.part != nil || t.bound != nil
	}
	return d.cat.inhHierarchy(t)
}

// inheritsRows are pg_inherits' rows: one per (child, parent) pair.
func inheritsRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range c.tables {
		for i, p := range t.parents {
			out = append(out, []any{int64(t.oid), int64(p), int64(i + 1), false})
		}
	}
	out = append(out, indexInheritsRows(c)...)
	slices.SortFunc(out, func(a, b []any) int {
		if a[0] != b[0] {
			return int(a[0].(int64) - b[0].(int64))
		}
		return int(a[2].(int64) - b[2].(int64))
	})
	return out
}

// addInherit runs ALTER TABLE t INHERIT parent: t must already have every
// column of the parent, with its type and NOT NULL, and every inheritable
// CHECK constraint; they become inherited.
func (d *ddl) addInherit(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	p, err := d.inheritanceParent(t, cmd)
	if err != nil {
		return err
	}
	if p.oid == t.oid || slices.ContainsFunc(d.cat.descendants(t), func(x *tableDesc) bool { return x.oid == p.oid }) {
		return pgerror.New(pgerror.DuplicateTable, "circular inheritance not allowed").
			WithDetail("\"%s\" is already a child of \"%s\".", p.name, t.name)
	}
	if i := slices.IndexFunc(t.triggers, func(tr *triggerDesc) bool {
		return tr.tgtype&tgRow != 0 && (tr.oldTable != "" || tr.newTable != "")
	}); i >= 0 {
		return pgerror.Newf(pgerror.FeatureNotSupported, "trigger \"%s\" prevents table \"%s\" from becoming an inheritance child", t.triggers[i].name, t.name).
			WithDetail("ROW triggers with transition tables are not supported in inheritance hierarchies.")
	}
	if slices.Contains(t.parents, p.oid) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" would be inherited from more than once", p.name)
	}
	if isTempSchema(p.schema) && !isTempSchema(t.schema) {
		return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from temporary relation \"%s\"", p.name)
	}
	if err := d.lockTable(p, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	return d.addInheritFrom(t, p)
}

// addInheritFrom makes t, which has every column and CHECK constraint of
// p, a child of p: they become inherited.
func (d *ddl) addInheritFrom(t, p *tableDesc) error {
	for _, pc := range p.cols {
		i := t.colIndex(pc.name)
		if i < 0 {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table is missing column \"%s\"", pc.name)
		}
		c := t.cols[i]
		if c.typ.Oid != pc.typ.Oid || c.typ.Typmod != pc.typ.Typmod {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table \"%s\" has different type for column \"%s\"", t.name, pc.name)
		}
		if declaredCollation(c) != declaredCollation(pc) {
			return pgerror.Newf(pgerror.CollationMismatch, "child table \"%s\" has different collation for column \"%s\"", t.name, pc.name)
		}
		if pc.notNull && !c.notNull {
			return pgerror.Newf(pgerror.DatatypeMismatch, "column \"%s\" in child table must be marked NOT NULL", pc.name)
		}
		if err := existingChildGeneration(pc, c); err != nil {
			return err
		}
		nc := *c
		nc.inhCount++
		t.cols[i] = &nc
	}
	for _, pk := range p.checks {
		if pk.noInherit {
			continue
		}
		j := slices.IndexFunc(t.checks, func(k *checkDesc) bool { return k.name == pk.name })
		if j < 0 {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table is missing constraint \"%s\"", pk.name)
		}
		if t.checks[j].text != pk.text {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table \"%s\" has different definition for check constraint \"%s\"", t.name, pk.name)
		}
		if t.checks[j].noInherit {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "constraint \"%s\" conflicts with non-inherited constraint on child table \"%s\"", pk.name, t.name)
		}
		nk := *t.checks[j]
		nk.inhCount++
		t.checks[j] = &nk
	}
	t.parents = append(t.parents, p.oid)
	return nil
}

// dropInherit runs ALTER TABLE t NO INHERIT parent: the columns and
// constraints t had only from the parent become its own.
func (d *ddl) dropInherit(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	p, err := d.inheritanceParent(t, cmd)
	if err != nil {
		return err
	}
	i := slices.Index(t.parents, p.oid)
	if i < 0 {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" is not a parent of relation \"%s\"", p.name, t.name)
	}
	d.removeParent(t, p)
	return nil
}

// partitionInheritance refuses INHERIT and NO INHERIT between t and p
// when either is partitioned or a partition.
func partitionInheritance(t, p *tableDesc) error {
	switch {
	case t.part != nil:
		return pgerror.New(pgerror.WrongObjectType, "cannot change inheritance of partitioned table")
	case t.bound != nil:
		return pgerror.New(pgerror.WrongObjectType, "cannot change inheritance of a partition")
	case p.part != nil:
		return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from partitioned table \"%s\"", p.name)
	case p.bound != nil:
		return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from a partition")
	}
	return nil
}

// removeParent takes p out of t's parents: the columns and constraints t
// had only from p become its own.
func (d *ddl) removeParent(t, p *tableDesc) {
	i := slices.Index(t.parents, p.oid)
	t.parents = slices.Delete(t.parents, i, i+1)
	for _, pc := range p.cols {
		if j := t.colIndex(pc.name); j >= 0 {
			nc := *t.cols[j]
			nc.inhCount--
			if nc.inhCount <= 0 {
				nc.inhCount, nc.notLocal = 0, false
			}
			t.cols[j] = &nc
		}
	}
	for _, pk := range p.checks {
		if j := slices.IndexFunc(t.checks, func(k *checkDesc) bool { return k.name == pk.name }); j >= 0 && !pk.noInherit {
			nk := *t.checks[j]
			nk.inhCount--
			if nk.inhCount <= 0 {
				nk.inhCount, nk.notLocal = 0, false
			}
			t.checks[j] = &nk
		}
	}
}

// inheritanceParent finds the parent table ALTER TABLE t [NO] INHERIT names,
// which neither may be a partition or partitioned.
func (d *ddl) inheritanceParent(t *tableDesc, cmd *pg_query.AlterTableCmd) (*tableDesc, error) {
	rv := cmd.Def.GetRangeVar()
	p := d.s.lookupTable(d.cat, rv.Schemaname, rv.Relname)
	if p == nil {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	// INHERIT needs the parent's owner too; NO INHERIT only the child's.
	if cmd.Subtype == pg_query.AlterTableType_AT_AddInherit {
		if err := d.s.requireOwner(relationOwner(d.cat, aclTable, p.oid), "table", p.name); err != nil {
			return nil, err
		}
	}
	if err := partitionInheritance(t, p); err != nil {
		return nil, err
	}
	return p, nil
}

// declaresDefault reports whether CREATE TABLE's elements define column
// name with a DEFAULT.
func declaresDefault(elts []*pg_query.Node, name string) bool {
	for _, e := range elts {
		if cd := e.GetColumnDef(); cd != nil && cd.Colname == name {
			for _, c := range cd.Constraints {
				if c.GetConstraint().GetContype() == pg_query.ConstrType_CONSTR_DEFAULT {
					return true
				}
			}
		}
	}
	return false
}
