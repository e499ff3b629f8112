package sqlexec

import "github.com/fickle-db/fickle/internal/pgerror"

// hostOwner is the role owning the table, or the view when view is not
// nil, that a trigger or rule hangs on, and the noun PostgreSQL's ownership
// error calls that relation by.
func hostOwner(c *catalog, t *tableDesc, view *viewDesc) (uint32, string) {
	if view != nil {
		return view.ownerRole(), "view"
	}
	return relationOwner(c, aclTable, t.oid), "table"
}

// requireTriggerPrivilege is CREATE TRIGGER's check that the role running
// it holds TRIGGER on the table or view: 42501 "permission denied" as from
// PostgreSQL otherwise.
func (d *ddl) requireTriggerPrivilege(t *tableDesc, view *viewDesc) error {
	oid, noun := t.oid, "table"
	if view != nil {
		oid, noun = view.oid, "view"
	}
	if d.s.hasPrivilege(d.s.currentRole(), aclTable, oid, []byte{'t'}) {
		return nil
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for %s %s", noun, t.name)
}
