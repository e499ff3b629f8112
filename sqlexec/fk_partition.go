package sqlexec

import "github.com/fickle-db/fickle/internal/pgerror"

// This file carries the foreign keys of a partitioned table to its
// partitions, as PostgreSQL 15 clones them: the partitioned table's key
// holds no rows of its own, each partition has a clone (conparentid names
// the parent's key) whose checks run on the partition's rows, and the
// tables the key references see the clones of the leaves when their rows
// are deleted or their keys change.

// cloneForeignKeys gives partition ch (a clone of the catalog's descriptor,
// or not yet published) a clone of every foreign key of its parent p, with
// alter checking ch's existing rows, and carries them on to ch's own
// partitions.
func (d *ddl) cloneForeignKeys(b *binder, ch, p *tableDesc, alter bool) error {
	for _, fk := range p.fks {
		if fk.refClone {
			continue // the parent's own, for the partitions it references
		}
		if err := d.cloneForeignKey(b, ch, p, fk, alter); err != nil {
			return err
		}
	}
	return nil
}

// cloneForeignKey adds to partition ch the clone of its parent p's foreign
// key fk (its columns those of ch, which may be in another order): under
// fk's name unless ch has a constraint so named, then under the name
// PostgreSQL chooses for an unnamed key.
func (d *ddl) cloneForeignKey(b *binder, ch, p *tableDesc, fk *fkDesc, alter bool) error {
	nfk := *fk
	nfk.cols = mapColumns(p, ch, fk.cols)
	nfk.riState = [4]byte{} // new triggers, enabled
	if fk.delSetCols != nil {
		nfk.delSetCols = mapColumns(p, ch, fk.delSetCols)
	}
	for j, own := range ch.fks {
		if own.parentName == "" && sameForeignKey(own, &nfk) {
			adopted := *own
			adopted.parentName = fk.name
			ch.fks[j] = &adopted
			// The parent's clones on the referenced side serve the key
			// now: PostgreSQL removes the partition's own.
			dropReferencedClones(ch, map[string]bool{own.name: true})
			return nil
		}
	}
	name := fk.name
	if conNameUsed(ch, name) {
		name = uniqueConName(ch, ch.name, foreignKeyNameAddition(colNameList(ch, nfk.cols)), "fkey")
	}
	nfk.name, nfk.parentName = name, fk.name
	if alter && ch.part == nil {
		if err := d.validateForeignKey(b, ch, &nfk); err != nil {
			return err
		}
	}
	ch.fks = append(ch.fks, &nfk)
	return d.foreignKeyToPartitions(b, ch, &nfk, alter)
}

// sameForeignKey says a partition's own key a is equal to its parent's
// key b, so that attaching the partition makes a b's clone instead of
// adding a second key.
func sameForeignKey(a, b *fkDesc) bool {
	return intsEqual(a.cols, b.cols) && a.refTable == b.refTable && intsEqual(a.refCols, b.refCols) &&
		a.onDelete == b.onDelete && a.onUpdate == b.onUpdate && a.deferrable == b.deferrable &&
		a.initiallyDeferred == b.initiallyDeferred && a.matchFull == b.matchFull && intsEqual(a.delSetCols, b.delSetCols)
}

// foreignKeyToPartitions clones foreign key fk of partitioned table t to
// t's partitions published in the catalog.
func (d *ddl) foreignKeyToPartitions(b *binder, t *tableDesc, fk *fkDesc, alter bool) error {
	if t.part == nil {
		return nil
	}
	for _, ch := range d.cat.children(t.oid) {
		nc := ch.clone()
		if err := d.cloneForeignKey(b, nc, t, fk, alter); err != nil {
			return err
		}
		d.cat.putTable(nc)
	}
	return nil
}

// dropForeignKeyClones drops the clones of t's foreign key name from t's
// partitions, and theirs.
func (d *ddl) dropForeignKeyClones(t *tableDesc, name string) {
	if t.part == nil {
		return
	}
	for _, ch := range d.cat.children(t.oid) {
		nc := ch.clone()
		for j, fk := range nc.fks {
			if fk.parentName == name {
				nc.fks = append(nc.fks[:j:j], nc.fks[j+1:]...)
				d.dropForeignKeyClones(nc, fk.name)
				break
			}
		}
		d.cat.putTable(nc)
	}
}

// detachForeignKeys makes the clones of partition t's foreign keys its own
// when it is detached, as PostgreSQL does; one that references a
// partitioned table gets the clones for its partitions (fk_referenced.go).
func (d *ddl) detachForeignKeys(t *tableDesc) {
	for j, fk := range t.fks {
		if fk.parentName == "" || fk.refClone {
			continue
		}
		nfk := *fk
		nfk.parentName = ""
		// PostgreSQL gives the key new action triggers, enabled.
		nfk.riState[riActionDelete], nfk.riState[riActionUpdate] = 0, 0
		t.fks[j] = &nfk
		if ref := d.cat.tables[fk.refTable]; ref != nil && ref.part != nil {
			d.referencedClones(t, &nfk, ref)
		}
	}
}

// inheritedConstraintDrop is PostgreSQL's error for dropping a partition's
// clone of its parent's foreign key, PRIMARY KEY or UNIQUE constraint.
func inheritedConstraintDrop(t *tableDesc, name string) error {
	return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot drop inherited constraint \"%s\" of relation \"%s\"", name, t.name)
}

// referencedThrough returns, for a foreign key fk of table child, the
// table and key PostgreSQL names when a referenced row is still
// referenced: the topmost partitioned ancestor's key fk is a clone of.
func (c *catalog) referencedThrough(child *tableDesc, fk *fkDesc) (*tableDesc, *fkDesc) {
	for fk.parentName != "" && len(child.parents) > 0 {
		p := c.tables[child.parents[0]]
		if p == nil {
			break
		}
		pfk := foreignKeyNamed(p, fk.parentName)
		if pfk == nil {
			break
		}
		child, fk = p, pfk
	}
	return child, fk
}

// parentForeignKeyOID is conparentid of partition t's foreign key r: the
// OID of its parent's key that r clones; 0 for a key of t's own.
func parentForeignKeyOID(c *catalog, t *tableDesc, r constraintRow) uint32 {
	var parentName string
	p := (*tableDesc)(nil)
	for _, fk := range t.fks {
		if fk.name == r.name {
			parentName = fk.parentName
			if fk.refClone {
				p = t // cloned from a key of t's own
			}
		}
	}
	if p == nil && len(t.parents) > 0 {
		p = c.tables[t.parents[0]]
	}
	if parentName == "" || p == nil {
		return 0
	}
	for _, pr := range tableConstraints(c, p) {
		if pr.kind == 'f' && pr.name == parentName {
			return pr.oid
		}
	}
	return 0
}

// columnDefault is the default ON ... SET DEFAULT gives column c of
// ref.child: that of the table the key was declared on, as PostgreSQL's
// action updates that table (a partition attached with defaults of its
// own does not use them); nil for none.
func (ref *fkRef2) columnDefault(b *binder, c int) (*scalar, error) {
	top := ref.named
	if top == ref.child || top.part == nil {
		return ref.cw.defaults[c], nil
	}
	if ref.topWriter == nil {
		tw, err := b.writerFor(top, false)
		if err != nil {
			return nil, err
		}
		ref.topWriter = tw
	}
	return ref.topWriter.defaults[top.colIndex(ref.child.cols[c].name)], nil
}

// moveIfLeaving moves the referencing row (key, old) whose new version nr,
// set by a referential action (ON UPDATE CASCADE, SET NULL, SET DEFAULT),
// no longer fits its partition: through the router of the partitioned
// table the key was declared on, as PostgreSQL's cascaded UPDATE of that
// table moves it. A key declared on the partition itself fails with the
// partition constraint's 23514, as PostgreSQL's UPDATE of the partition
// alone does. moved is false when nr stays where it is.
func (ref *fkRef2) moveIfLeaving(x *execCtx, b *binder, key []byte, old, nr []any) (moved bool, err error) {
	if ref.child.bound == nil {
		return false, nil
	}
	if ref.childCheck == nil {
		if ref.childCheck, err = b.partCheckFor(ref.child); err != nil {
			return false, err
		}
	}
	if ok, err := ref.childCheck.holds(x, nr); err != nil || ok {
		return false, err
	}
	top := ref.named
	if top == ref.child || top.part == nil {
		return false, ref.childCheck.check(x, ref.child, nr)
	}
	if ref.router == nil {
		if ref.router, err = b.partRouterFor(top, true); err != nil {
			return false, err
		}
		if ref.topCheck, err = b.partCheckFor(top); err != nil {
			return false, err
		}
	}
	row := make([]any, len(top.cols))
	for i, c := range top.cols {
		row[i] = nr[ref.child.colIndex(c.name)]
	}
	if err := ref.topCheck.check(x, top, row); err != nil {
		return false, err
	}
	if err := ref.cw.moveOut(x, top, key, old); err != nil {
		return false, err
	}
	q := &rowQueue{}
	if _, _, _, err := ref.router.insert(x, row, nil, q); err != nil {
		return false, err
	}
	if err := q.fire(x); err != nil {
		return false, err
	}
	return true, ref.cw.movedIn(x, old, nr)
}
