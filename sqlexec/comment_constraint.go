package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// oidPgConstraint is pg_constraint's OID, the classoid of a constraint's
// comment in pg_description.
const oidPgConstraint = 2606

// constraintCommentKey keys the comment of a table's constraint by the
// table's OID and the constraint's name: fickle numbers constraints by
// their place among the table's (synthesizedOID), which an ALTER that adds
// or drops another constraint shifts, while a comment stays with its
// constraint until that constraint is dropped.
func constraintCommentKey(table uint32, name string) commentKey {
	return commentKey{classOID: oidPgConstraint, objOID: table, conName: name}
}

// commentOnConstraint runs COMMENT ON CONSTRAINT name ON table.
func (d *ddl) commentOnConstraint(cs *pg_query.CommentStmt) error {
	parts := strs(cs.Object.GetList().GetItems())
	if len(parts) < 2 {
		return pgerror.Unsupported("this form of COMMENT ON CONSTRAINT")
	}
	rel, name := parts[:len(parts)-1], parts[len(parts)-1]
	oid, kind, err := d.commentRelation(rel)
	if err != nil {
		return err
	}
	t := d.cat.tables[oid]
	if kind != relTable || t == nil || findConstraint(d.cat, t, name) == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", name, strings.Join(rel, "."))
	}
	if role := d.s.currentRole(); !d.s.isSuperuser(role) && !d.s.memberOf(role)[relationOwner(d.cat, aclTable, oid)] {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of relation %s", rel[len(rel)-1])
	}
	d.cat.setComment(constraintCommentKey(t.oid, name), cs.Comment)
	return nil
}

// findConstraint returns t's constraint of the name, nil for none.
func findConstraint(c *catalog, t *tableDesc, name string) *constraintRow {
	for _, r := range tableConstraints(c, t) {
		if r.name == name {
			return &r
		}
	}
	return nil
}

// constraintComment is the comment of the constraint with the OID, nil for
// none.
func constraintComment(c *catalog, oid uint32) any {
	r := constraintByOID(c, oid)
	if r == nil {
		return nil
	}
	if text, ok := c.comments[constraintCommentKey(r.table.oid, r.name)]; ok {
		return text
	}
	return nil
}

// describedObject is the pg_description objoid of a comment's key: a
// constraint's current OID for a constraint comment (ok false when the
// constraint is gone), the key's object otherwise (ok false for a trigger
// that is gone).
func describedObject(c *catalog, k commentKey) (uint32, bool) {
	if k.classOID == oidPgTrigger {
		return k.objOID, triggerExists(c, k.objOID)
	}
	if k.conName == "" {
		return k.objOID, true
	}
	t := c.tables[k.objOID]
	if t == nil {
		return 0, false
	}
	r := findConstraint(c, t, k.conName)
	if r == nil {
		return 0, false
	}
	return r.oid, true
}
