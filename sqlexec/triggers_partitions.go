package sqlexec

import (
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// Row triggers of partitioned tables, as PostgreSQL 15 keeps them: a row
// trigger created on a partitioned table is cloned onto each of its
// partitions (pg_trigger.tgparentid names the trigger cloned), and onto
// theirs, and onto every partition created or attached later, with the
// parent's tgenabled of the moment. The partitioned table holds no rows,
// so its own row triggers never fire: the clones fire for the rows of
// their partitions, whichever table a statement names (triggers_members.go
// fires the triggers of the partition each row lives in). A clone cannot
// be dropped or renamed alone; dropping, renaming, enabling or disabling
// the parent's trigger carries to its clones, and DETACH PARTITION drops
// them. A BEFORE INSERT clone that changes a row so that it leaves its
// partition fails, as PostgreSQL's does (0A000).

// triggerClone returns tr, a row trigger of p, as its clone on p's
// partition ch: a new trigger (no OID yet) whose UPDATE OF columns are
// ch's.
func triggerClone(tr *triggerDesc, p, ch *tableDesc) *triggerDesc {
	n := *tr
	n.oid, n.parent, n.table = 0, tr.oid, ch.oid
	if tr.cols != nil {
		n.cols = mapColumns(p, ch, tr.cols)
	}
	return &n
}

// cloneRowTriggers gives partition ch (a clone of the catalog's
// descriptor, or not yet published) a clone of every row trigger of its
// parent p, and carries them on to ch's own partitions. A trigger of ch's
// own of the same name is 42710, as in PostgreSQL.
func (d *ddl) cloneRowTriggers(ch, p *tableDesc) error {
	for _, tr := range p.triggers {
		if tr.tgtype&tgRow == 0 {
			continue
		}
		if err := d.cloneTriggerInto(ch, p, tr, false); err != nil {
			return err
		}
	}
	return nil
}

// cloneTriggerInto adds to partition ch the clone of its parent p's row
// trigger tr (with replace, in place of ch's trigger of that name), then
// clones the clone onto ch's partitions published in the catalog.
func (d *ddl) cloneTriggerInto(ch, p *tableDesc, tr *triggerDesc, replace bool) error {
	c := triggerClone(tr, p, ch)
	triggers, err := putNamed(d.cat, ch.triggers, c, replace, "trigger", ch.name)
	if err != nil {
		return err
	}
	ch.triggers = triggers
	return d.triggerToPartitions(ch, c, replace)
}

// triggerToPartitions clones t's row trigger tr onto t's partitions
// published in the catalog, and theirs; with replace (CREATE OR REPLACE
// TRIGGER) a partition's trigger of the same name becomes the clone.
func (d *ddl) triggerToPartitions(t *tableDesc, tr *triggerDesc, replace bool) error {
	if t.part == nil || tr.tgtype&tgRow == 0 {
		return nil
	}
	for _, ch := range d.cat.children(t.oid) {
		if err := d.lockTable(ch, isolation.TableLockShareRowExclusive); err != nil {
			return err
		}
		nc := ch.clone()
		if err := d.cloneTriggerInto(nc, t, tr, replace); err != nil {
			return err
		}
		d.cat.putTable(nc)
	}
	return nil
}

// dropTriggerClones drops from t's partitions the clones of t's trigger
// parent (an OID), and theirs.
func (d *ddl) dropTriggerClones(t *tableDesc, parent uint32) {
	_ = d.eachTriggerClone(t, parent, func(ch *tableDesc, i int) error {
		d.editTable(ch.oid, func(nt *tableDesc) { nt.triggers = slices.Delete(slices.Clone(nt.triggers), i, i+1) })
		return nil
	})
}

// detachTriggers drops the clones of partition t's triggers when it is
// detached (t is the caller's descriptor, not yet published), and their
// clones on t's partitions, as PostgreSQL 15 does. PostgreSQL keeps the
// clone of a constraint trigger with FROM, still tied to the parent's
// trigger; fickle refuses to detach it.
func (d *ddl) detachTriggers(t *tableDesc) error {
	var kept []*triggerDesc
	for _, tr := range t.triggers {
		switch {
		case tr.parent == 0:
			kept = append(kept, tr)
		case tr.constrRel != 0:
			return pgerror.Unsupported("DETACH PARTITION of a partition with a clone of a constraint trigger with FROM")
		default:
			d.dropTriggerClones(t, tr.oid)
		}
	}
	t.triggers = kept
	return nil
}

// parentTrigger returns the trigger tr, a clone on partition t, was cloned
// from, and the table it is on.
func (c *catalog) parentTrigger(t *tableDesc, tr *triggerDesc) (*tableDesc, *triggerDesc) {
	if tr.parent == 0 || len(t.parents) == 0 {
		return nil, nil
	}
	p := c.tables[t.parents[0]]
	if p == nil {
		return nil, nil
	}
	i := slices.IndexFunc(p.triggers, func(pt *triggerDesc) bool { return pt.oid == tr.parent })
	if i < 0 {
		return nil, nil
	}
	return p, p.triggers[i]
}

// cloneDropError is PostgreSQL's error for DROP TRIGGER of a clone.
func (c *catalog) cloneDropError(t *tableDesc, tr *triggerDesc) error {
	p, ptr := c.parentTrigger(t, tr)
	if p == nil {
		return pgerror.Newf(pgerror.InternalError, "trigger \"%s\" on table \"%s\" has no parent trigger", tr.name, t.name)
	}
	return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop trigger %s on table %s because trigger %s on table %s requires it",
		tr.name, t.name, ptr.name, p.name).WithHint("You can drop trigger %s on table %s instead.", ptr.name, p.name)
}

// eachTriggerClone calls fn with each partition of t, and of theirs after
// it, that holds a clone of t's trigger parent (an OID), and the clone's
// place among the partition's triggers.
func (d *ddl) eachTriggerClone(t *tableDesc, parent uint32, fn func(ch *tableDesc, i int) error) error {
	if t.part == nil {
		return nil
	}
	for _, ch := range d.cat.children(t.oid) {
		i := slices.IndexFunc(ch.triggers, func(tr *triggerDesc) bool { return tr.parent == parent })
		if i < 0 {
			continue
		}
		clone := ch.triggers[i].oid
		if err := fn(ch, i); err != nil {
			return err
		}
		if err := d.eachTriggerClone(ch, clone, fn); err != nil {
			return err
		}
	}
	return nil
}

// enableTriggerClones sets tgenabled of the clones of t's trigger parent
// (an OID) on t's partitions, and of theirs, as ALTER TABLE ... ENABLE /
// DISABLE TRIGGER without ONLY does on a partitioned table.
func (d *ddl) enableTriggerClones(t *tableDesc, parent uint32, enabled byte) error {
	return d.eachTriggerClone(t, parent, func(ch *tableDesc, i int) error {
		if err := d.lockTable(ch, isolation.TableLockShareRowExclusive); err != nil {
			return err
		}
		n := *ch.triggers[i]
		n.enabled = enabled
		d.editTable(ch.oid, func(nt *tableDesc) { nt.triggers[i] = &n })
		return nil
	})
}

// renameTriggerClones renames the clones of t's trigger parent (an OID)
// to name on t's partitions, and theirs; a partition with a trigger of
// that name already is 42710.
func (d *ddl) renameTriggerClones(t *tableDesc, parent uint32, name string) error {
	return d.eachTriggerClone(t, parent, func(ch *tableDesc, i int) error {
		if slices.ContainsFunc(ch.triggers, func(tr *triggerDesc) bool { return tr.name == name }) {
			return pgerror.Newf(pgerror.DuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", name, ch.name)
		}
		if err := d.lockTable(ch, isolation.TableLockAccessExclusive); err != nil {
			return err
		}
		d.editTable(ch.oid, func(nt *tableDesc) { nt.triggers = renamedTrigger(nt.triggers, i, name) })
		return nil
	})
}

// renamedTrigger returns triggers with the i-th renamed to name, in name
// order (the order triggers fire in).
func renamedTrigger(triggers []*triggerDesc, i int, name string) []*triggerDesc {
	triggers = slices.Clone(triggers)
	renamed := *triggers[i]
	renamed.name = name
	triggers[i] = &renamed
	slices.SortFunc(triggers, func(a, b *triggerDesc) int { return strings.Compare(a.name, b.name) })
	return triggers
}

// clonedRowMove is PostgreSQL's error for a BEFORE INSERT row trigger
// cloned from a partitioned table that changed the row so that it left
// the partition t it was routed to.
func clonedRowMove(t *tableDesc, tr *triggerDesc) error {
	return pgerror.New(pgerror.FeatureNotSupported, "moving row to another partition during a BEFORE FOR EACH ROW trigger is not supported").
		WithDetail("Before executing trigger \"%s\", the row was to be in partition \"%s.%s\".", tr.name, t.schema, t.name)
}
