package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Indexes made by CREATE INDEX on a partitioned table. As in PostgreSQL
// the table's index is a partitioned index (relkind I, no storage) and
// every partition, present and future, carries an index of its own linked
// to it (indexDesc.parent, pg_inherits): a partition's equal index not yet
// linked is adopted, otherwise one is built under PostgreSQL's name. The
// links ride on the mechanism of partition keys (partition_keys.go:
// partitionKeyRef.plain), which PARTITION OF, ATTACH and DETACH apply.
// CREATE INDEX ON ONLY makes the partitioned index alone, invalid while a
// partition lacks an index attached to it by ALTER INDEX ... ATTACH
// PARTITION.

// checkPartitionedIndex refuses what PostgreSQL refuses, or fickle cannot
// build, in CREATE INDEX on partitioned table t.
func checkPartitionedIndex(t *tableDesc, concurrent, unique bool, cols []int) error {
	if concurrent {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot create index on partitioned table \"%s\" concurrently", t.name)
	}
	if unique {
		return checkPartitionedKey(t, cols, "UNIQUE")
	}
	return nil
}

// partitionIndex1 gives partition ch the partitioned index k (plain),
// cols being k's columns in ch.
func (d *ddl) partitionIndex1(b *binder, ch *tableDesc, k partitionKeyRef, cols []int) error {
	for i := range cols {
		if k.shape.isExprKey(i) {
			cols[i] = -1
		}
	}
	for i, ix := range ch.indexes {
		if ix.parent == 0 && !(ix.invalid && k.attaching) && !ix.exclusion && ix != ch.pkIndex && ix.unique == k.unique &&
			ix.sameKeys(ch, k.shape, k.shapeTable) && ix.sameOptions(ch, k.shape, k.shapeTable) {
			nix := *ix
			nix.parent = k.oid
			ch.indexes[i] = &nix
			d.cat.schemas[ch.schema].indexes[nix.name] = &nix
			return nil
		}
	}
	names := append(slices.Clip(k.names), colNameList(k.shapeTable, k.shape.include)...)
	name := d.uniqueRelName(ch.schema, ch.name, indexNameAddition(indexColumnNames(names)), "idx")
	ix := &indexDesc{name: name, table: ch.oid, cols: cols, unique: k.unique, parent: k.oid,
		pred: k.shape.pred, exprs: k.shape.exprs, exprNames: k.shape.exprNames}
	ix.withOptionsOf(ch, k.shape, k.shapeTable)
	if err := d.registerIndex(ch, ix); err != nil {
		return err
	}
	if ch.part == nil {
		return nil
	}
	if err := d.keyToPartitions(b, ch, partitionKeyRef{names: k.names, oid: ix.oid, plain: true, unique: k.unique, shape: ix, shapeTable: ch}); err != nil {
		return err
	}
	d.inheritInvalidity(ch, ix)
	return nil
}

// sameKeys reports whether index ix of table t has the key columns,
// expressions and predicate of index o of table ot: columns by name,
// expressions and predicates by their text over the columns' names, as
// PostgreSQL's CompareIndexInfo matches a partition's index with its
// parent's.
func (ix *indexDesc) sameKeys(t *tableDesc, o *indexDesc, ot *tableDesc) bool {
	if len(ix.cols) != len(o.cols) || (ix.pred == nil) != (o.pred == nil) || ix.pred != nil && deparseExpr(ix.pred) != deparseExpr(o.pred) {
		return false
	}
	for i := range ix.cols {
		switch {
		case ix.isExprKey(i) != o.isExprKey(i):
			return false
		case ix.isExprKey(i):
			if deparseExpr(ix.exprs[i]) != deparseExpr(o.exprs[i]) {
				return false
			}
		case t.cols[ix.cols[i]].name != ot.cols[o.cols[i]].name:
			return false
		}
	}
	return true
}

// inheritInvalidity marks ix, the partitioned index of t just carried to
// t's partitions, invalid when it adopted an invalid index of a partition
// (made by CREATE INDEX ON ONLY), as PostgreSQL's DefineIndex does.
func (d *ddl) inheritInvalidity(t *tableDesc, ix *indexDesc) {
	for _, ch := range d.cat.children(t.oid) {
		if slices.ContainsFunc(ch.indexes, func(c *indexDesc) bool { return c.parent == ix.oid && c.invalid }) {
			ix.invalid = true
			return
		}
	}
}

// partitionIndexDropError is DROP INDEX's refusal of ix, the index (or
// primary key index) of a partition linked to its partitioned table's
// index (2BP01, as in
// PostgreSQL) or, concurrent, of a partitioned index (0A000; a temporary
// one PostgreSQL drops non-concurrently); nil when none applies.
func (d *ddl) partitionIndexDropError(ix *indexDesc, concurrent bool) error {
	if t := d.cat.tables[ix.table]; concurrent && t.part != nil && !isTempSchema(t.schema) {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot drop partitioned index \"%s\" concurrently", ix.name)
	}
	parentOID := ix.parent
	if t := d.cat.tables[ix.table]; ix == t.pkIndex {
		parentOID = t.pkParent
	}
	if parentOID == 0 {
		return nil
	}
	parent := ""
	for _, t := range d.cat.tables {
		if t.pk != nil && primaryKeyIndexOID(t) == parentOID {
			parent = t.pkName
		}
		for _, p := range t.indexes {
			if p.oid == parentOID {
				parent = p.name
			}
		}
	}
	return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop index %s because index %s requires it", ix.name, parent).
		WithHint("You can drop index %s instead.", parent)
}

// dropPartitionIndexes drops the indexes of t's partitions (and theirs,
// down the tree) linked to t's index oid.
func (d *ddl) dropPartitionIndexes(t *tableDesc, oid uint32) error {
	for _, ch := range d.cat.children(t.oid) {
		for _, ix := range ch.indexes {
			if ix.parent != oid {
				continue
			}
			if err := d.dropPartitionIndexes(ch, ix.oid); err != nil {
				return err
			}
			if err := d.lockTable(ch, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
			nc := d.cat.tables[ch.oid].clone()
			if err := d.dropStoreIndex(ix.id); err != nil {
				return err
			}
			nc.indexes = removeIndex(nc.indexes, ix)
			delete(d.cat.schemas[nc.schema].indexes, ix.name)
			d.cat.dropComments(ix.oid)
			d.cat.putTable(nc)
		}
	}
	return nil
}

// attachIndexPartition runs ALTER INDEX parent ATTACH PARTITION child: the
// index child of a partition becomes a partition of the partitioned index
// parent, which turns valid once every partition has one, as in
// PostgreSQL (its checks and messages included).
func (d *ddl) attachIndexPartition(at *pg_query.AlterTableStmt) error {
	pix, _ := d.s.lookupIndex(d.cat, at.Relation.Schemaname, at.Relation.Relname)
	if pix == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(at.Relation))
	}
	pt := d.cat.tables[pix.table]
	if pt.part == nil {
		return pgerror.Newf(pgerror.WrongObjectType, "ALTER action ATTACH PARTITION cannot be performed on relation \"%s\"", pix.name).
			WithDetail("This operation is not supported for indexes.")
	}
	name := at.Cmds[0].GetAlterTableCmd().Def.GetPartitionCmd().Name
	cix, _ := d.s.lookupIndex(d.cat, name.Schemaname, name.Relname)
	if cix == nil {
		return pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(name))
	}
	ct := d.cat.tables[cix.table]
	refuse := func(code pgerror.Code, detail string, args ...any) error {
		return pgerror.Newf(code, "cannot attach index \"%s\" as a partition of index \"%s\"", cix.name, pix.name).
			WithDetail(detail, args...)
	}
	if ct.bound == nil || ct.parents[0] != pt.oid {
		return refuse(pgerror.ObjectNotInPrerequisiteState, "Index \"%s\" is not an index on any partition of table \"%s\".", cix.name, pt.name)
	}
	if cix.parent == pix.oid {
		return nil
	}
	if cix.parent != 0 {
		return refuse(pgerror.ObjectNotInPrerequisiteState, "Index \"%s\" is already attached to another index.", cix.name)
	}
	if slices.ContainsFunc(ct.indexes, func(ix *indexDesc) bool { return ix.parent == pix.oid }) {
		return refuse(pgerror.ObjectNotInPrerequisiteState, "Another index is already attached for partition \"%s\".", ct.name)
	}
	if cix == ct.pkIndex || cix.exclusion || cix.unique != pix.unique || cix.constraint != pix.constraint ||
		!cix.sameKeys(ct, pix, pt) || !cix.sameOptions(ct, pix, pt) {
		return refuse(pgerror.InvalidObjectDefinition, "The index definitions do not match.")
	}
	if err := d.lockTable(ct, isolation.TableLockShareRowExclusive); err != nil {
		return err
	}
	nt := ct.clone()
	for i, ix := range nt.indexes {
		if ix == cix {
			nix := *ix
			nix.parent = pix.oid
			nt.indexes[i] = &nix
			d.cat.schemas[nt.schema].indexes[nix.name] = &nix
		}
	}
	d.cat.putTable(nt)
	d.validatePartitionedIndex(pt, pix)
	return nil
}

// validatePartitionedIndex marks the invalid partitioned index ix of t
// valid once every partition of t has a valid index attached to it, and
// then the index it is itself attached to, up the tree.
func (d *ddl) validatePartitionedIndex(t *tableDesc, ix *indexDesc) {
	if !ix.invalid {
		return
	}
	for _, ch := range d.cat.children(t.oid) {
		if !slices.ContainsFunc(ch.indexes, func(c *indexDesc) bool { return c.parent == ix.oid && !c.invalid }) {
			return
		}
	}
	nt := t.clone()
	for i, p := range nt.indexes {
		if p == ix {
			nix := *p
			nix.invalid = false
			nt.indexes[i] = &nix
			d.cat.schemas[nt.schema].indexes[nix.name] = &nix
			ix = &nix
		}
	}
	d.cat.putTable(nt)
	if ix.parent != 0 && t.bound != nil {
		parent := d.cat.tables[t.parents[0]]
		for _, p := range parent.indexes {
			if p.oid == ix.parent {
				d.validatePartitionedIndex(parent, p)
			}
		}
	}
}
