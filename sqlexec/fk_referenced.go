package sqlexec

import (
	"fmt"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// This file handles foreign keys that reference a partitioned table, as
// PostgreSQL 15 does. The referencing table's key names the partitioned
// table, and is what checks the referencing rows (in every leaf of the
// referenced table). Beside it the referencing table gets a clone of the
// key for each partition of the referenced table, partitions of partitions
// included (refClone, with PostgreSQL's names and conparentid): a deleted
// row or a changed key in a partition enforces the clone that references
// that partition, so the referential actions and the 23503 errors name the
// partition and the clone as PostgreSQL's do.

// referencedClones adds to t, whose foreign key fk references partitioned
// table p, a clone of fk for each partition of p, and theirs.
func (d *ddl) referencedClones(t *tableDesc, fk *fkDesc, p *tableDesc) {
	for _, ch := range d.cat.partitions(p) {
		d.referencedClone(t, fk, p, ch)
	}
}

// referencedClone adds to t the clone of its foreign key fk (which
// references p) for p's partition ch, and the clones for ch's partitions.
func (d *ddl) referencedClone(t *tableDesc, fk *fkDesc, p, ch *tableDesc) {
	nfk := *fk
	nfk.name = uniqueConName(t, t.name, foreignKeyNameAddition(colNameList(t, fk.cols)), "fkey")
	nfk.refTable, nfk.refCols, nfk.parentName, nfk.refClone = ch.oid, mapColumns(p, ch, fk.refCols), fk.name, true
	nfk.riState = [4]byte{} // new triggers, enabled
	t.fks = append(t.fks, &nfk)
	if ch.part != nil {
		d.referencedClones(t, &nfk, ch)
	}
}

// mapColumns maps columns cols of table from to the same-named columns of
// table to (a partition's columns may be in another order).
func mapColumns(from, to *tableDesc, cols []int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = to.colIndex(from.cols[c].name)
	}
	return out
}

// referenceNewPartition gives every foreign key that references
// partitioned table p a clone for ch, p's new partition (CREATE TABLE ...
// PARTITION OF, ATTACH PARTITION). p is the caller's descriptor, not yet
// published: a key of p's own (referencing p itself) is cloned there.
func (d *ddl) referenceNewPartition(p, ch *tableDesc) {
	for _, r := range d.cat.referencing(p.oid) {
		if r.fk.parentName != "" && !r.fk.refClone {
			continue // a partition's clone of its parent's key, which the parent's clones serve
		}
		t := p
		if r.child.oid != p.oid {
			t = d.cat.tables[r.child.oid].clone()
		}
		if fk := foreignKeyNamed(t, r.fk.name); fk != nil {
			d.referencedClone(t, fk, p, ch)
		}
		if t != p {
			d.cat.putTable(t)
		}
	}
}

// unreferencePartition removes, when partition ch leaves its referenced
// parent p (DETACH PARTITION), the clones of the foreign keys that
// reference p for ch and ch's partitions. It fails as PostgreSQL does when
// a row still references a row of ch. p is the caller's descriptor, not
// yet published.
func (d *ddl) unreferencePartition(p, ch *tableDesc) error {
	gone := map[uint32]bool{ch.oid: true}
	for _, g := range d.cat.descendants(ch) {
		gone[g.oid] = true
	}
	for _, r := range d.cat.referencing(ch.oid) {
		if !r.fk.refClone {
			continue
		}
		if err := d.checkUnreferenced(ch, r.child, r.fk); err != nil {
			return err
		}
	}
	for _, t := range d.cat.tables {
		if t.oid == p.oid {
			t = p
		}
		var kept []*fkDesc
		for _, fk := range t.fks {
			if !fk.refClone || !gone[fk.refTable] {
				kept = append(kept, fk)
			}
		}
		switch {
		case len(kept) == len(t.fks):
		case t == p:
			p.fks = kept
		default:
			nt := t.clone()
			nt.fks = kept
			d.cat.putTable(nt)
		}
	}
	return nil
}

// checkUnreferenced fails unless no row of child (or of its leaves)
// references a row of partition ch through fk, fk's clone for ch.
func (d *ddl) checkUnreferenced(ch, child *tableDesc, fk *fkDesc) error {
	b := d.binder("")
	for _, leaf := range leafTables(d.cat, child) {
		lfk := fk
		if leaf != child {
			nfk := *fk
			nfk.cols = mapColumns(child, leaf, fk.cols)
			lfk = &nfk
		}
		fc, err := b.fkCheckFor(leaf, lfk)
		if err != nil {
			return err
		}
		err = d.scanRows(leaf, func(row []any) error {
			vals, err := fc.parentValues(row)
			if err != nil || vals == nil {
				return err
			}
			found, err := fc.parentExists(d.x, vals)
			if err == nil && found {
				err = pgerror.Newf(pgerror.ForeignKeyViolation, "removing partition \"%s\" violates foreign key constraint \"%s\"", ch.name, fk.name).
					WithDetail("Key (%s)=(%s) is still referenced from table \"%s\".", colNames(leaf, lfk.cols), valuesText(leaf, lfk.cols, row), child.name)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// withReferencedClones adds to names, names of t's foreign keys, those of
// their clones on the referenced side, and theirs.
func withReferencedClones(t *tableDesc, names map[string]bool) map[string]bool {
	for grew := true; grew; {
		grew = false
		for _, fk := range t.fks {
			if fk.refClone && names[fk.parentName] && !names[fk.name] {
				names[fk.name], grew = true, true
			}
		}
	}
	return names
}

// dropReferencedClones removes from t the clones on the referenced side of
// its keys named in names, and theirs.
func dropReferencedClones(t *tableDesc, names map[string]bool) {
	names = withReferencedClones(t, names)
	var kept []*fkDesc
	for _, fk := range t.fks {
		if !fk.refClone || !names[fk.name] {
			kept = append(kept, fk)
		}
	}
	t.fks = kept
}

// alterForeignKeyFamily sets the deferrability of t's foreign key name and
// of its clones, on the referenced side in t and in t's partitions.
func (d *ddl) alterForeignKeyFamily(t *tableDesc, name string, deferrable, initiallyDeferred bool) {
	family := withReferencedClones(t, map[string]bool{name: true})
	for j, fk := range t.fks {
		if family[fk.name] {
			nfk := *fk
			nfk.deferrable, nfk.initiallyDeferred = deferrable, initiallyDeferred
			t.fks[j] = &nfk
		}
	}
	if t.part == nil {
		return
	}
	for _, ch := range d.cat.children(t.oid) {
		nc := ch.clone()
		for _, fk := range nc.fks {
			if fk.parentName == name && !fk.refClone {
				d.alterForeignKeyFamily(nc, fk.name, deferrable, initiallyDeferred)
				break
			}
		}
		d.cat.putTable(nc)
	}
}

// referencedInTree returns a foreign key that references t or one of its
// partitions from outside their own clones; nil when there is none.
func referencedInTree(c *catalog, t *tableDesc) *fkRef {
	for _, g := range append([]*tableDesc{t}, c.descendants(t)...) {
		for _, r := range c.referencing(g.oid) {
			if !r.fk.refClone {
				return &r
			}
		}
	}
	return nil
}

// foreignKeyTypes fails unless a key column of type fc.typ can reference
// one of pc.typ, as PostgreSQL decides: an equality of the referenced
// type's btree family takes both, or the referencing type casts to the
// referenced one implicitly. Cross-type families fickle's checks do not
// compare (float4 against float8, date against timestamp) are refused.
func foreignKeyTypes(name string, fc, pc *columnDesc) error {
	ct, pt := fc.typ, pc.typ
	if keyCompatible(pt, ct) {
		return nil
	}
	if _, err := types.LookupCast(ct, pt, types.CastImplicit); err == nil {
		return nil
	}
	family := func(t types.Type) int {
		switch t.Oid {
		case types.OidFloat4, types.OidFloat8:
			return 1
		case types.OidDate, types.OidTimestamp, types.OidTimestamptz:
			return 2
		}
		return 0
	}
	if f := family(ct); f != 0 && f == family(pt) {
		return pgerror.Unsupported(fmt.Sprintf("foreign keys from %s to %s columns", ct, pt))
	}
	return pgerror.Newf(pgerror.DatatypeMismatch, "foreign key constraint \"%s\" cannot be implemented", name).
		WithDetail("Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.", fc.name, pc.name, ct, pt)
}

// leafTables is t when it holds rows, else its leaf partitions.
func leafTables(c *catalog, t *tableDesc) []*tableDesc {
	if t.part == nil {
		return []*tableDesc{t}
	}
	var out []*tableDesc
	for _, g := range c.descendants(t) {
		if g.part == nil {
			out = append(out, g)
		}
	}
	return out
}

// foreignKeyRoot is the key of t that fk belongs to: fk, or for a clone
// on the referenced side the key it was cloned from, followed up.
func foreignKeyRoot(t *tableDesc, fk *fkDesc) *fkDesc {
	for fk.refClone {
		up := foreignKeyNamed(t, fk.parentName)
		if up == nil {
			break
		}
		fk = up
	}
	return fk
}

// foreignKeyNamed is t's foreign key name, nil when t has none so named.
func foreignKeyNamed(t *tableDesc, name string) *fkDesc {
	for _, f := range t.fks {
		if f.name == name {
			return f
		}
	}
	return nil
}

// leafChecks returns, for a foreign key fk of t that references
// partitioned table fc.parent, a check of each leaf of the parent: the
// referenced row is in one of them.
func (b *binder) leafChecks(t *tableDesc, fk *fkDesc, parent *tableDesc) ([]*fkCheck, error) {
	var out []*fkCheck
	for _, leaf := range leafTables(b.cat, parent) {
		nfk := *fk
		nfk.refTable, nfk.refCols = leaf.oid, mapColumns(parent, leaf, fk.refCols)
		c, err := b.fkCheckFor(t, &nfk)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// leafRefs returns, for a clone fk on partitioned table child that
// references a partition, the referencing side in each leaf of child.
func leafRefs(c *catalog, child *tableDesc, fk *fkDesc) []*fkRef2 {
	var out []*fkRef2
	for _, leaf := range leafTables(c, child) {
		nfk := *fk
		nfk.cols = mapColumns(child, leaf, fk.cols)
		if fk.delSetCols != nil {
			nfk.delSetCols = mapColumns(child, leaf, fk.delSetCols)
		}
		ref := newFKRef(c, leaf, &nfk)
		ref.named, ref.namedFK, ref.con = child, fk, constraintKey{child.oid, fk.name}
		out = append(out, ref)
	}
	return out
}

// moveOut deletes w's row (stored under key) that an UPDATE of target
// moves to another partition. A foreign key referencing target or its
// ancestors sees the move as a change of the row's key, which movedIn
// applies once the row is in its new partition, as PostgreSQL 15 does; a
// key referencing the partition alone sees a delete. A key that
// references a partition of target that the row leaves is refused.
func (w *writer) moveOut(x *execCtx, target *tableDesc, key []byte, row []any) error {
	for _, ref := range w.refs {
		if ref.fk.refClone && !w.b.cat.inPartitionTree(target, foreignKeyRoot(ref.child, ref.fk).refTable) {
			return pgerror.Unsupported("moving a row out of a partition that a foreign key references")
		}
	}
	if err := x.txn.MoveOut(x.ctx, w.t.id, key); err != nil {
		return err
	}
	for _, ref := range w.refs {
		if !ref.fk.refClone {
			if err := w.applyRef(x, ref, row, nil, 0, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// movedIn applies, after moveOut's row is inserted in its new partition,
// the foreign keys that see the move as a change from row to newRow (both
// in w's partition's column order).
func (w *writer) movedIn(x *execCtx, row, newRow []any) error {
	for _, ref := range w.refs {
		if ref.fk.refClone {
			if err := w.applyRef(x, ref.asRoot(w.b.cat), row, newRow, 0, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// asRoot is ref enforced as the key it was cloned from, which PostgreSQL
// names when a row moved between partitions violates it: the key's checks
// and errors name that key and the partitioned table it references.
func (ref *fkRef2) asRoot(c *catalog) *fkRef2 {
	owner := c.tables[ref.con.table] // the key's table: a leaf's ref.child is not
	root := foreignKeyRoot(owner, ref.fk)
	r := *ref
	r.con.name, r.named, r.namedFK, r.namedParent = root.name, owner, root, c.tables[root.refTable]
	r.action = root
	r.leaves = nil
	for _, lr := range ref.leaves {
		r.leaves = append(r.leaves, lr.asRoot(c))
	}
	return &r
}

// inPartitionTree reports whether table t is table oid or one of its
// partitions, at any depth.
func (c *catalog) inPartitionTree(t *tableDesc, oid uint32) bool {
	for t != nil {
		if t.oid == oid {
			return true
		}
		if t.bound == nil || len(t.parents) == 0 {
			return false
		}
		t = c.tables[t.parents[0]]
	}
	return false
}
