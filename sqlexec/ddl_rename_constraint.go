package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// renameConstraint runs ALTER TABLE ... RENAME CONSTRAINT old TO new: the
// index of a PRIMARY KEY, UNIQUE or EXCLUDE constraint takes the new name
// too (they share it), and the constraint keeps its comment. An inheritable
// CHECK constraint is renamed down the inheritance or partition tree, as
// PostgreSQL's rename_constraint_internal does.
func (d *ddl) renameConstraint(rs *pg_query.RenameStmt) error {
	t, err := d.alteredTable(rs.Relation, rs.MissingOk)
	if t == nil {
		return err
	}
	return d.renameConstraintOf(t, rs.Subname, rs.Newname, rs.Relation.Inh, 0)
}

// renameConstraintOf renames constraint old of t to name; recurse says
// whether an inheritable CHECK is renamed in t's descendants too, and
// parents is the number of t's parents whose constraint is being renamed
// with it (0 for the table the statement names).
func (d *ddl) renameConstraintOf(t *tableDesc, old, name string, recurse bool, parents int) error {
	if err := d.lockTable(t, isolation.TableLockAccessExclusive); err != nil {
		return err
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) && !d.s.memberOf(role)[relationOwner(d.cat, aclTable, t.oid)] {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of table %s", t.name)
	}
	r := findConstraint(d.cat, t, old)
	if r == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", old, t.name)
	}
	if ck := checkNamed(t, old); r.kind == 'c' && ck != nil && !ck.noInherit {
		if err := d.renameInheritedCheck(t, old, name, recurse, parents); err != nil {
			return err
		}
		if int(ck.inhCount) > parents {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "cannot rename inherited constraint \"%s\"", old)
		}
		t = d.cat.tables[t.oid]
	}
	if conNameUsed(t, name) {
		return pgerror.Newf(pgerror.DuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", name, t.name)
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

// renameInheritedCheck renames inheritable CHECK constraint old of t in
// each of t's descendants first, each told how many of its parents are in
// the tree; without recursion (ONLY) a table with children fails, since
// theirs would keep the old name.
func (d *ddl) renameInheritedCheck(t *tableDesc, old, name string, recurse bool, parents int) error {
	if !recurse {
		if parents == 0 && len(d.cat.children(t.oid)) > 0 {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "inherited constraint \"%s\" must be renamed in child tables too", old)
		}
		return nil
	}
	desc := d.cat.descendants(t)
	tree := map[uint32]bool{t.oid: true}
	for _, ch := range desc {
		tree[ch.oid] = true
	}
	for _, ch := range desc {
		n := 0
		for _, p := range ch.parents {
			if tree[p] {
				n++
			}
		}
		if err := d.renameConstraintOf(d.cat.tables[ch.oid], old, name, false, n); err != nil {
			return err
		}
	}
	return nil
}

// checkNamed returns t's CHECK constraint called name, nil for none.
func checkNamed(t *tableDesc, name string) *checkDesc {
	for _, ck := range t.checks {
		if ck.name == name {
			return ck
		}
	}
	return nil
}
