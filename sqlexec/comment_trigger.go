package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// oidPgTrigger is pg_trigger's OID, the classoid of a trigger's comment in
// pg_description.
const oidPgTrigger = 2620

// commentOnTrigger runs COMMENT ON TRIGGER name ON table (or view): the
// comment stays with the trigger's OID, which renaming and CREATE OR
// REPLACE keep, and goes with the trigger.
func (d *ddl) commentOnTrigger(cs *pg_query.CommentStmt) error {
	parts := strs(cs.Object.GetList().GetItems())
	if len(parts) < 2 {
		return pgerror.Unsupported("this form of COMMENT ON TRIGGER")
	}
	rel, name := parts[:len(parts)-1], parts[len(parts)-1]
	oid, kind, err := d.commentRelation(rel)
	if err != nil {
		return err
	}
	t, view := d.cat.tables[oid], (*viewDesc)(nil)
	if kind == relView {
		if view = viewByOid(d.cat, oid); view != nil {
			t = viewTable(view)
		}
	}
	var tr *triggerDesc
	if t != nil {
		if i := slices.IndexFunc(t.triggers, func(tr *triggerDesc) bool { return tr.name == name }); i >= 0 {
			tr = t.triggers[i]
		}
	}
	if tr == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, rel[len(rel)-1])
	}
	if owner, _ := hostOwner(d.cat, t, view); !d.s.actsAsOwner(owner) {
		return d.s.requireOwner(owner, "relation", t.name)
	}
	d.cat.setComment(commentKey{classOID: oidPgTrigger, objOID: tr.oid}, cs.Comment)
	return nil
}

// triggerExists reports whether a table or view of the catalog has a
// trigger with the OID: a trigger's comment outlives neither.
func triggerExists(c *catalog, oid uint32) bool {
	for _, t := range c.triggerRelations() {
		if slices.ContainsFunc(t.triggers, func(tr *triggerDesc) bool { return tr.oid == oid }) {
			return true
		}
	}
	return false
}
