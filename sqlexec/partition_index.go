package sqlexec

import (
	"strings"

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

// checkPartitionedIndex refuses what PostgreSQL refuses, or fickle cannot
// build, in CREATE INDEX on partitioned table t.
func checkPartitionedIndex(t *tableDesc, only, concurrent, unique bool, cols []int) error {
	if concurrent {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot create index on partitioned table \"%s\" concurrently", t.name)
	}
	if only {
		return pgerror.Unsupported("CREATE INDEX ON ONLY a partitioned table")
	}
	if unique {
		return checkPartitionedKey(t, cols, "UNIQUE")
	}
	return nil
}

// partitionIndex1 gives partition ch the partitioned index k (plain),
// cols being k's columns in ch.
func (d *ddl) partitionIndex1(b *binder, ch *tableDesc, k partitionKeyRef, cols []int) error {
	for i, ix := range ch.indexes {
		if ix.parent == 0 && !ix.exclusion && ix != ch.pkIndex && ix.unique == k.unique && intsEqual(ix.cols, cols) {
			nix := *ix
			nix.parent = k.oid
			ch.indexes[i] = &nix
			d.cat.schemas[ch.schema].indexes[nix.name] = &nix
			return nil
		}
	}
	name := d.uniqueRelName(ch.schema, ch.name+"_"+strings.Join(k.names, "_")+"_idx")
	ix, err := d.addIndex(ch, name, cols, k.unique, false)
	if err != nil {
		return err
	}
	ix.parent = k.oid
	if ch.part == nil {
		return nil
	}
	return d.keyToPartitions(b, ch, partitionKeyRef{names: k.names, oid: ix.oid, plain: true, unique: k.unique})
}

// partitionIndexDropError is DROP INDEX's refusal of ix, the index of a
// partition linked to its partitioned table's index (2BP01, as in
// PostgreSQL); nil when ix has no parent.
func (d *ddl) partitionIndexDropError(ix *indexDesc) error {
	if ix.parent == 0 {
		return nil
	}
	parent := ""
	for _, t := range d.cat.tables {
		for _, p := range t.indexes {
			if p.oid == ix.parent {
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
