package sqlexec

import (
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Dropping a primary key. A table created without one is keyed in the
// store by hidden row ids, and a primary key added later is a unique index
// (pkIndex), which goes like any other. A table created with one is keyed
// by its primary key's values: dropping the key rekeys it in the store
// (Store.RekeyToRowIDs), so that its rows keep their keys as opaque
// identities and the rows inserted later get fresh hidden row ids; the
// table is then one keyed by hidden row ids (hidden), whose storedKey
// names the keys of the rows stored before in the history. A rollback of
// the DDL makes it keyed by its primary key again.

// dropPrimaryKey drops t's primary key, whose dependents the caller has
// dealt with: its index, or the store's keying by it.
func (d *ddl) dropPrimaryKey(t *tableDesc) error {
	oid := primaryKeyIndexOID(t)
	if t.hidden {
		if err := d.dropKeyIndex(t, t.pkIndex); err != nil {
			return err
		}
	} else {
		if err := d.rekeyToRowIDs(t); err != nil {
			return err
		}
		d.cat.dropComments(oid)
	}
	if t.clusteredOn == oid {
		t.clusteredOn = 0
	}
	t.pk, t.pkName, t.pkIndex, t.pkOptions, t.pkParent, t.pkCloned = nil, "", nil, nil, 0, false
	return nil
}

// rekeyToRowIDs makes t, a table keyed by its primary key, keyed by hidden
// row ids in the store; a rollback undoes it. The caller drops the primary
// key from t.
func (d *ddl) rekeyToRowIDs(t *tableDesc) error {
	restore, err := d.store().RekeyToRowIDs(t.id)
	if err != nil {
		return err
	}
	d.undo = append(d.undo, restore)
	t.storedKey = make([]types.Type, len(t.pk))
	for i, c := range t.pk {
		t.storedKey[i] = t.cols[c].typ
	}
	t.hidden = true
	return nil
}

// keyDependents are the foreign keys (their roots, not the clones on
// partitions) that reference t through its key index oid, as PostgreSQL's
// foreign keys depend on the unique index they were made against.
func (d *ddl) keyDependents(t *tableDesc, oid uint32) []fkRef {
	var out []fkRef
	for _, r := range d.cat.referencing(t.oid) {
		if r.fk.parentName == "" && referencedIndex(t, r.fk.refCols) == oid {
			out = append(out, r)
		}
	}
	return out
}

// dropDependentForeignKeys drops deps, foreign keys that depend on object
// (an index or a column of t, named so in the error's detail) of t that is
// being dropped: 2BP01 without cascade, else each goes with a NOTICE, as
// PostgreSQL's DROP ... CASCADE. A key of t itself is dropped from t, which
// the caller publishes.
func (d *ddl) dropDependentForeignKeys(t *tableDesc, deps []fkRef, what, object string, cascade bool) error {
	if len(deps) == 0 {
		return nil
	}
	lines := make([]string, len(deps))
	for i, r := range deps {
		lines[i] = fmt.Sprintf("constraint %s on table %s", r.fk.name, r.child.name)
	}
	if !cascade {
		detail := make([]string, len(lines))
		for i, l := range lines {
			detail[i] = l + " depends on " + object
		}
		return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop %s because other objects depend on it", what).
			WithDetail("%s", strings.Join(detail, "\n")).
			WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	for _, r := range deps {
		child := t
		if r.child.oid != t.oid {
			if err := d.lockTable(r.child, isolation.TableLockAccessExclusive); err != nil {
				return err
			}
			child = d.cat.tables[r.child.oid].clone()
		}
		if on := d.pendingForeignKeyEvents(child, r.fk); on != "" {
			return pgerror.Newf(pgerror.ObjectInUse, "cannot ALTER TABLE \"%s\" because it has pending trigger events", on)
		}
		var kept []*fkDesc
		for _, fk := range child.fks {
			if fk.name != r.fk.name {
				kept = append(kept, fk)
			}
		}
		child.fks = kept
		dropReferencedClones(child, map[string]bool{r.fk.name: true})
		d.cat.setComment(constraintCommentKey(child.oid, r.fk.name), "")
		if child != t {
			d.cat.putTable(child)
		}
		d.dropForeignKeyClones(child, r.fk.name)
	}
	d.cascadeNotice(lines)
	return nil
}
