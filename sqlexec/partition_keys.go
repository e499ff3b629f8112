package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Keys on partitioned tables. A PRIMARY KEY or UNIQUE constraint of a
// partitioned table is an index of the parent (relkind I, no storage of its
// own) and, on every partition, an index of the partition that the store
// enforces, linked to the parent's (pg_inherits, conparentid). The key must
// hold every partition key column, so that a key value can only live in one
// partition and uniqueness per partition is uniqueness in the whole table.
// Partitions created later get the keys at PARTITION OF; ATTACH PARTITION
// adopts a matching key of the table or creates one; DETACH unlinks them.

// partitionKeyRef is one key or index of a partitioned table that its
// partitions carry: its columns by name, the parent index's OID and its
// attributes. plain marks an index made by CREATE INDEX (no constraint;
// partition_index.go), unique then its UNIQUE.
type partitionKeyRef struct {
	names                         []string
	oid                           uint32
	primary                       bool
	deferrable, initiallyDeferred bool
	nullsNotDistinct              bool
	plain, unique                 bool
	// shape is a plain index's, whose expressions, predicate, access
	// method, key options and INCLUDE columns (of table shapeTable) its
	// partitions' indexes take; names then holds an expression's index
	// column name where the key is one.
	shape      *indexDesc
	shapeTable *tableDesc
	// attaching says the partition is being attached (or created as a
	// partition), where PostgreSQL does not choose an invalid index of
	// its as the index's partition; CREATE INDEX on the parent does.
	attaching bool
}

// partitionKeys lists the keys and indexes of partitioned table t.
func partitionKeys(t *tableDesc) []partitionKeyRef {
	var out []partitionKeyRef
	if t.pk != nil {
		out = append(out, partitionKeyRef{names: colNameList(t, t.pk), oid: primaryKeyIndexOID(t), primary: true})
	}
	for _, ix := range t.indexes {
		switch {
		case ix.unique && ix.constraint && !ix.exclusion && ix != t.pkIndex:
			out = append(out, partitionKeyRef{names: colNameList(t, ix.cols), oid: ix.oid,
				deferrable: ix.deferrable, initiallyDeferred: ix.initiallyDeferred, nullsNotDistinct: ix.nullsNotDistinct})
		case !ix.constraint && !ix.exclusion:
			out = append(out, partitionKeyRef{names: ix.keyColumnNames(t), oid: ix.oid, plain: true, unique: ix.unique, shape: ix, shapeTable: t})
		}
	}
	return out
}

// checkPartitionedKey refuses a key of partitioned table t that lacks a
// partition key column or whose partition key has an expression, as
// PostgreSQL does (0A000 with its message); what is "PRIMARY KEY" or
// "UNIQUE".
func checkPartitionedKey(t *tableDesc, cols []int, what string) error {
	for i, c := range t.part.cols {
		if c == "" {
			return pgerror.Newf(pgerror.FeatureNotSupported, "unsupported %s constraint with partition key definition", what).
				WithDetail("%s constraints cannot be used when partition keys include expressions.", what)
		}
		if !slices.ContainsFunc(cols, func(k int) bool { return k >= 0 && t.cols[k].name == t.part.cols[i] }) {
			return pgerror.New(pgerror.FeatureNotSupported, "unique constraint on partitioned table must include all partitioning columns").
				WithDetail("%s constraint on table \"%s\" lacks column \"%s\" which is part of the partition key.", what, t.name, c)
		}
	}
	return nil
}

// keyToPartitions gives every partition of t (published in the catalog)
// the key k of t.
func (d *ddl) keyToPartitions(b *binder, t *tableDesc, k partitionKeyRef) error {
	for _, ch := range d.cat.children(t.oid) {
		if ch.foreign != nil {
			// A foreign partition takes no index; a unique one cannot be
			// had on t then.
			if !k.plain || k.unique {
				return foreignPartitionsIndexError(t.name, []*tableDesc{ch})
			}
			continue
		}
		nc := ch.clone()
		if err := d.partitionKey1(b, nc, k); err != nil {
			return err
		}
		d.cat.putTable(nc)
	}
	return nil
}

// inheritPartitionKeys gives partition ch (not yet published) every key of
// its parent p.
func (d *ddl) inheritPartitionKeys(b *binder, ch, p *tableDesc, attaching bool) error {
	if ch.foreign != nil {
		return foreignPartitionKeyError(ch, p, attaching)
	}
	for _, k := range partitionKeys(p) {
		k.attaching = true
		if err := d.partitionKey1(b, ch, k); err != nil {
			return err
		}
	}
	return nil
}

// partitionKey1 gives partition ch the parent's key k: ch's own matching
// key, not yet linked to a parent, is adopted; otherwise a new one is
// created (and, ch being partitioned, carried to its partitions).
func (d *ddl) partitionKey1(b *binder, ch *tableDesc, k partitionKeyRef) error {
	cols := make([]int, len(k.names))
	for i, n := range k.names {
		cols[i] = ch.colIndex(n)
	}
	if k.plain {
		return d.partitionIndex1(b, ch, k, cols)
	}
	if k.primary && ch.pk != nil {
		if !intsEqual(ch.pk, cols) || ch.pkParent != 0 {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table \"%s\" are not allowed", ch.name)
		}
		ch.pkParent = k.oid
		return nil
	}
	if !k.primary {
		for i, ix := range ch.indexes {
			if ix.unique && ix.constraint && !ix.exclusion && ix != ch.pkIndex && ix.parent == 0 && intsEqual(ix.cols, cols) &&
				ix.deferrable == k.deferrable && ix.initiallyDeferred == k.initiallyDeferred && ix.nullsNotDistinct == k.nullsNotDistinct {
				nix := *ix
				nix.parent = k.oid
				ch.indexes[i] = &nix
				d.cat.schemas[ch.schema].indexes[nix.name] = &nix
				return nil
			}
		}
	}
	c := &pg_query.Constraint{Contype: pg_query.ConstrType_CONSTR_UNIQUE, Deferrable: k.deferrable, Initdeferred: k.initiallyDeferred,
		NullsNotDistinct: k.nullsNotDistinct}
	if k.primary {
		c.Contype = pg_query.ConstrType_CONSTR_PRIMARY
	}
	for _, n := range k.names {
		c.Keys = append(c.Keys, pg_query.MakeStrNode(n))
	}
	if err := d.addConstraint(b, ch, tableConstraint{c: c}, true); err != nil {
		return err
	}
	if k.primary {
		ch.pkParent, ch.pkCloned = k.oid, true
		return nil
	}
	last := ch.indexes[len(ch.indexes)-1]
	last.parent, last.cloned = k.oid, true
	return nil
}

// detachPartitionKeys unlinks the keys and indexes of partition t from its
// parent's.
func (d *ddl) detachPartitionKeys(t *tableDesc) {
	t.pkParent = 0
	for i, ix := range t.indexes {
		if ix.parent != 0 {
			nix := *ix
			nix.parent = 0
			t.indexes[i] = &nix
			d.cat.schemas[t.schema].indexes[nix.name] = &nix
		}
	}
}

// indexParent returns the OID of the partitioned table's index that index
// oid of t is a partition of, 0 for none.
func indexParent(t *tableDesc, oid uint32) uint32 {
	if t.pk != nil && primaryKeyIndexOID(t) == oid && t.pkParent != 0 {
		return t.pkParent
	}
	for _, ix := range t.indexes {
		if ix.oid == oid {
			return ix.parent
		}
	}
	return 0
}

// indexInheritsRows are pg_inherits' rows of partition indexes.
func indexInheritsRows(c *catalog) [][]any {
	var out [][]any
	for _, t := range c.tables {
		if t.pk != nil && t.pkParent != 0 {
			out = append(out, []any{int64(primaryKeyIndexOID(t)), int64(t.pkParent), int64(1), false})
		}
		for _, ix := range t.indexes {
			if ix.parent != 0 && ix != t.pkIndex {
				out = append(out, []any{int64(ix.oid), int64(ix.parent), int64(1), false})
			}
		}
	}
	return out
}

// childConstraints returns the constraints of the partitions below t that
// descend from t's key constraint name: SET CONSTRAINTS of a partitioned
// table's key sets theirs too, as in PostgreSQL.
func childConstraints(c *catalog, t *tableDesc, name string) []constraintKey {
	var oid uint32
	for _, k := range partitionKeys(t) {
		if k.primary && t.pkName == name || !k.primary && slices.ContainsFunc(t.indexes, func(ix *indexDesc) bool { return ix.oid == k.oid && ix.name == name }) {
			oid = k.oid
		}
	}
	if oid == 0 {
		return nil
	}
	var out []constraintKey
	for _, ch := range c.children(t.oid) {
		for _, ix := range ch.indexes {
			if ix.parent == oid {
				out = append(out, constraintKey{ch.oid, ix.name})
				out = append(out, childConstraints(c, ch, ix.name)...)
			}
		}
	}
	return out
}

// onlyPartitionedKey checks ALTER TABLE ONLY's PRIMARY KEY or UNIQUE
// constraint c on partitioned table t. PostgreSQL makes it an index of the
// parent alone, not valid until every partition's index is attached;
// fickle carries keys to the partitions at once, so with partitions it
// refuses (after PostgreSQL's check that a primary key's columns are
// already NOT NULL in every partition). Without partitions ONLY changes
// nothing.
func (d *ddl) onlyPartitionedKey(t *tableDesc, c *pg_query.Constraint) error {
	primary := c.Contype == pg_query.ConstrType_CONSTR_PRIMARY
	if !primary && c.Contype != pg_query.ConstrType_CONSTR_UNIQUE || c.Indexname != "" {
		return nil
	}
	children := d.cat.children(t.oid)
	if len(children) == 0 {
		return nil
	}
	if primary {
		for _, ch := range children {
			for _, n := range strs(c.Keys) {
				if i := ch.colIndex(n); i >= 0 && !ch.cols[i].notNull {
					return pgerror.New(pgerror.InvalidTableDefinition, "constraint must be added to child tables too").
						WithDetail("Column \"%s\" of relation \"%s\" is not already NOT NULL.", n, ch.name).
						WithHint("Do not specify the ONLY keyword.")
				}
			}
		}
	}
	return pgerror.Unsupported("ALTER TABLE ONLY ... ADD PRIMARY KEY or UNIQUE on a partitioned table with partitions")
}
