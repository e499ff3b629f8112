package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// oidPgConstraint is pg_constraint's OID, the classoid of a constraint's
// comment in pg_description.
const oidPgConstraint = 2606

// constraintCommentKey keys the comment of a table's or a domain's
// constraint by the table's or domain's OID and the constraint's name:
// fickle numbers constraints by their place among the table's or domain's
// (synthesizedOID), which an ALTER that adds or drops another constraint
// shifts, while a comment stays with its constraint until that constraint
// is dropped.
func constraintCommentKey(owner uint32, name string) commentKey {
	return commentKey{classOID: oidPgConstraint, objOID: owner, conName: name}
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

// commentOnDomainConstraint runs COMMENT ON CONSTRAINT name ON DOMAIN
// domain.
func (d *ddl) commentOnDomainConstraint(cs *pg_query.CommentStmt) error {
	items := cs.Object.GetList().GetItems()
	if len(items) != 2 || items[0].GetTypeName() == nil {
		return pgerror.Unsupported("this form of COMMENT ON CONSTRAINT")
	}
	dom, err := d.domainOfConstraint(items[0].GetTypeName())
	if err != nil {
		return err
	}
	name := items[1].GetString_().GetSval()
	if findDomainCheck(dom, name) == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "constraint \"%s\" for domain %s does not exist", name, dom.name)
	}
	if err := d.s.requireOwner(dom.ownerRole(), "type", dom.name); err != nil {
		return err
	}
	d.cat.setComment(constraintCommentKey(dom.oid, name), cs.Comment)
	return nil
}

// domainOfConstraint resolves the domain an ON DOMAIN clause names: 42704
// when no type has the name, 42809 when the type is not a domain.
func (d *ddl) domainOfConstraint(tn *pg_query.TypeName) (*typeDesc, error) {
	b := d.binder("")
	if dom := b.domainNamed(tn); dom != nil {
		return dom, nil
	}
	if _, err := b.typeName(tn); err != nil {
		return nil, err
	}
	return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a domain", strings.Join(strs(tn.Names), "."))
}

// findDomainCheck returns domain t's CHECK constraint of the name, nil for
// none.
func findDomainCheck(t *typeDesc, name string) *checkDesc {
	for _, ck := range t.domain.checks {
		if ck.name == name {
			return ck
		}
	}
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
	var key commentKey
	if r := constraintByOID(c, oid); r != nil {
		key = constraintCommentKey(r.table.oid, r.name)
	} else if dom, ck := domainCheckByOID(c, oid); dom != nil {
		key = constraintCommentKey(dom.oid, ck.name)
	} else {
		return nil
	}
	if text, ok := c.comments[key]; ok {
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
		if dom := c.typeByOid(k.objOID); dom != nil && dom.domain != nil {
			for i, ck := range dom.domain.checks {
				if ck.name == k.conName {
					return synthesizedOID(dom.oid, i), true
				}
			}
		}
		return 0, false
	}
	r := findConstraint(c, t, k.conName)
	if r == nil {
		return 0, false
	}
	return r.oid, true
}
