package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// renameConstraint runs ALTER TABLE ... RENAME CONSTRAINT old TO new: the
// index of a PRIMARY KEY, UNIQUE or EXCLUDE constraint takes the new name
// too (they share it), and the constraint keeps its comment. Constraints of
// a table in an inheritance or partition hierarchy, which PostgreSQL renames
// down the tree, are refused.
func (d *ddl) renameConstraint(rs *pg_query.RenameStmt) error {
	t, err := d.alteredTable(rs.Relation, rs.MissingOk)
	if t == nil {
		return err
	}
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) && !d.s.memberOf(role)[relationOwner(d.cat, aclTable, t.oid)] {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of table %s", t.name)
	}
	old, name := rs.Subname, rs.Newname
	r := findConstraint(d.cat, t, old)
	if r == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", old, t.name)
	}
	if conNameUsed(t, name) {
		return pgerror.Newf(pgerror.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", name, t.name)
	}
	if d.cat.inhHierarchy(t) {
		return pgerror.Unsupported("RENAME CONSTRAINT on a table in an inheritance or partition hierarchy")
	}
	nt := t.clone()
	switch r.kind {
	case 'c':
		for i, ck := range nt.checks {
			if ck.name == old {
				nk := *ck
				nk.name = name
				nt.checks[i] = &nk
			}
		}
	case 'f':
		for i, fk := range nt.fks {
			if fk.name == old {
				nf := *fk
				nf.name = name
				nt.fks[i] = &nf
			}
		}
	case 'p', 'u', 'x':
		ok, err := d.renameIndex(&pg_query.RenameStmt{Relation: &pg_query.RangeVar{Schemaname: t.schema, Relname: old}, Newname: name})
		if err != nil || !ok {
			return err
		}
		nt = d.cat.tables[t.oid]
	default:
		return pgerror.Unsupported("RENAME CONSTRAINT of a constraint trigger")
	}
	if text, ok := d.cat.comments[constraintCommentKey(t.oid, old)]; ok {
		d.cat.setComment(constraintCommentKey(t.oid, old), "")
		d.cat.setComment(constraintCommentKey(t.oid, name), text)
	}
	d.cat.putTable(nt)
	return nil
}
