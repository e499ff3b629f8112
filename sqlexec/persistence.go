package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// setPersistence runs ALTER TABLE ... SET LOGGED (logged true) or SET
// UNLOGGED on t, a clone of the catalog's descriptor, as PostgreSQL 15
// checks it: a temporary table has no logged status to change (42P16), a
// table already so is left alone, and a permanent table may reference no
// unlogged one nor an unlogged one be referenced by a permanent one (its
// own self-references aside). The table's indexes, TOAST table and the
// sequences it owns follow it (they take their persistence from it); a
// partitioned table keeps its own, as in PostgreSQL 15. fickle keeps every
// table in memory alike, so only the catalog changes. changed says the
// persistence was to change, which a statement may do once.
func (d *ddl) setPersistence(t *tableDesc, logged bool) (changed bool, err error) {
	if changed, err = d.persistenceChange(t, logged); !changed || err != nil {
		return changed, err
	}
	if t.part == nil {
		t.unlogged = !logged
		// The sequences the table owns follow it, as in PostgreSQL 15.
		for _, q := range d.cat.ownedSequences(t) {
			if q.unlogged == logged {
				d.replaceSequence(q).unlogged = !logged
			}
		}
	}
	return true, nil
}

// persistenceChange checks SET LOGGED (logged) or SET UNLOGGED on t, as
// PostgreSQL's ATPrepChangePersistence before any subcommand runs, and
// says whether it changes t.
func (d *ddl) persistenceChange(t *tableDesc, logged bool) (bool, error) {
	if isTempSchema(t.schema) {
		return false, pgerror.Newf(pgerror.InvalidTableDefinition, "cannot change logged status of table \"%s\" because it is temporary", t.name)
	}
	if t.unlogged != logged {
		return false, nil
	}
	if !logged && d.cat.namedInPublication(t) {
		return false, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot change table \"%s\" to unlogged because it is part of a publication", t.name).
			WithDetail("Unlogged relations cannot be replicated.")
	}
	if logged {
		for _, fk := range t.fks {
			if ref := d.cat.tables[fk.refTable]; ref != nil && ref.oid != t.oid && ref.unlogged {
				return false, pgerror.Newf(pgerror.InvalidTableDefinition, "could not change table \"%s\" to logged because it references unlogged table \"%s\"", t.name, ref.name)
			}
		}
	} else {
		for _, r := range d.cat.referencing(t.oid) {
			if r.child.oid != t.oid && !r.child.unlogged && !isTempSchema(r.child.schema) {
				return false, pgerror.Newf(pgerror.InvalidTableDefinition, "could not change table \"%s\" to unlogged because it references logged table \"%s\"", t.name, r.child.name)
			}
		}
	}
	return true, nil
}
