package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// attachPartition runs ALTER TABLE p ATTACH PARTITION t FOR VALUES ...: t
// must have exactly p's columns, with their types and NOT NULL, and p's
// CHECK constraints; its rows must fall in the bound, and no row of the
// DEFAULT partition may.
func (d *ddl) attachPartition(b *binder, p *tableDesc, cmd *pg_query.AlterTableCmd) error {
	pc := cmd.Def.GetPartitionCmd()
	if p.part == nil {
		return notPartitioned(p)
	}
	// The bound is checked first, as PostgreSQL's transformPartitionCmd
	// does before it looks the partition up.
	pb, err := d.partitionBound(b, p, pc.Name.Relname, pc.Bound)
	if err != nil {
		return err
	}
	t := d.s.lookupTable(d.cat, pc.Name.Schemaname, pc.Name.Relname)
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(pc.Name))
	}
	if err := d.s.requireOwner(relationOwner(d.cat, aclTable, t.oid), "table", t.name); err != nil {
		return err
	}
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	if err := partitionPersistence(t, p, "attach"); err != nil {
		return err
	}
	switch {
	case t.bound != nil:
		return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is already a partition", t.name)
	case len(t.parents) > 0:
		return pgerror.New(pgerror.WrongObjectType, "cannot attach inheritance child as partition")
	case len(d.cat.children(t.oid)) > 0 && t.part == nil:
		return pgerror.New(pgerror.WrongObjectType, "cannot attach inheritance parent as partition")
	case t.oid == p.oid || slices.ContainsFunc(d.cat.descendants(t), func(x *tableDesc) bool { return x.oid == p.oid }):
		return pgerror.Newf(pgerror.DuplicateTable, "circular inheritance not allowed").
			WithDetail("\"%s\" is already a child of \"%s\".", p.name, t.name)
	}
	if err := attachedTransitionTables(t); err != nil {
		return err
	}
	for _, c := range t.cols {
		if p.colIndex(c.name) < 0 {
			return pgerror.Newf(pgerror.DatatypeMismatch, "table \"%s\" contains column \"%s\" not found in parent \"%s\"", t.name, c.name, p.name).
				WithDetail("The new partition may contain only the columns present in parent.")
		}
	}
	if r := referencedInTree(d.cat, t); r != nil {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot attach table \"%s\" as a partition because it is referenced by foreign key \"%s\"", t.name, r.fk.name)
	}
	nt := t.clone()
	if err := d.addInheritFrom(nt, p); err != nil {
		return err
	}
	// A partition has no columns of its own: they all come from the
	// parent, as after PARTITION OF; nor has it the CHECK constraints it
	// shares with the parent.
	for i, c := range nt.cols {
		nc := *c
		nc.notLocal = true
		nt.cols[i] = &nc
	}
	for i, ck := range nt.checks {
		if slices.ContainsFunc(p.checks, func(pk *checkDesc) bool { return pk.name == ck.name && !pk.noInherit }) {
			nk := *ck
			nk.notLocal = true
			nt.checks[i] = &nk
		}
	}
	if err := d.checkNewPartition(b, p, t.name, pb); err != nil {
		return err
	}
	nt.bound = pb
	if err := d.inheritPartitionKeys(b, nt, p, true); err != nil {
		return err
	}
	if err := d.cloneForeignKeys(b, nt, p, true); err != nil {
		return err
	}
	if err := d.cloneRowTriggers(nt, p); err != nil {
		return err
	}
	d.cat.putTable(nt)
	d.referenceNewPartition(p, nt)
	// The rows already in the table (in its leaves, when it is partitioned)
	// must satisfy the new partition constraint.
	leaves := []*tableDesc{nt}
	if nt.part != nil {
		leaves = d.cat.descendants(nt)
	}
	for _, leaf := range leaves {
		check, err := b.partCheckFor(leaf)
		if err != nil || check == nil {
			return err
		}
		if err := d.scanRows(leaf, func(row []any) error {
			ok, err := check.holds(d.x, row)
			if err == nil && !ok {
				err = pgerror.Newf(pgerror.CheckViolation, "partition constraint of relation \"%s\" is violated by some row", leaf.name)
			}
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// detachPartition runs ALTER TABLE p DETACH PARTITION t: t becomes a table
// of its own, its columns and inherited constraints its own.
func (d *ddl) detachPartition(p *tableDesc, cmd *pg_query.AlterTableCmd) error {
	pc := cmd.Def.GetPartitionCmd()
	if p.part == nil {
		return notPartitioned(p)
	}
	if pc.Concurrent {
		return pgerror.Unsupported("DETACH PARTITION CONCURRENTLY")
	}
	t := d.s.lookupTable(d.cat, pc.Name.Schemaname, pc.Name.Relname)
	if t == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(pc.Name))
	}
	if t.bound == nil || t.parents[0] != p.oid {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" is not a partition of relation \"%s\"", t.name, p.name)
	}
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	if err := d.unreferencePartition(p, t); err != nil {
		return err
	}
	nt := d.cat.tables[t.oid].clone()
	d.removeParent(nt, p)
	nt.bound = nil
	d.detachPartitionKeys(nt)
	// Published first, so that a key of nt's that references p gets no
	// clone for nt, no longer p's partition.
	d.cat.putTable(nt)
	d.detachForeignKeys(nt)
	if err := d.detachTriggers(nt); err != nil {
		return err
	}
	d.cat.putTable(nt)
	return nil
}

// notPartitioned is the 42P17 of ATTACH or DETACH PARTITION on table p,
// which is not partitioned.
func notPartitioned(p *tableDesc) error {
	return pgerror.Newf(pgerror.InvalidObjectDefinition, "table \"%s\" is not partitioned", p.name)
}

// attachedTransitionTables is PostgreSQL's error for attaching t as a
// partition when a row trigger of t has transition tables.
func attachedTransitionTables(t *tableDesc) error {
	for _, tr := range t.triggers {
		if tr.tgtype&tgRow != 0 && (tr.oldTable != "" || tr.newTable != "") {
			return pgerror.Newf(pgerror.FeatureNotSupported, "trigger \"%s\" prevents table \"%s\" from becoming a partition", tr.name, t.name).
				WithDetail("ROW triggers with transition tables are not supported on partitions.")
		}
	}
	return nil
}
