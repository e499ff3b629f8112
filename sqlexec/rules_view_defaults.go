package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Column defaults of views (ALTER VIEW / ALTER TABLE ... ALTER COLUMN SET
// DEFAULT and DROP DEFAULT): INSERT through a view's rules or INSTEAD OF
// triggers fills the columns it does not give with them, as PostgreSQL
// does.

// alteredView is the view ALTER TABLE or ALTER VIEW at names, nil when it
// names a table or nothing of either kind.
func (d *ddl) alteredView(at *pg_query.AlterTableStmt) *viewDesc {
	if at.Objtype != pg_query.ObjectType_OBJECT_TABLE && at.Objtype != pg_query.ObjectType_OBJECT_VIEW || at.Relation == nil {
		return nil
	}
	if d.s.lookupTable(d.cat, at.Relation.Schemaname, at.Relation.Relname) != nil {
		return nil
	}
	return d.s.lookupView(d.cat, at.Relation.Schemaname, at.Relation.Relname)
}

// alterViewDefaults runs ALTER TABLE or ALTER VIEW on a view when every
// command sets or drops a column default; done is false for any other
// statement.
func (d *ddl) alterViewDefaults(at *pg_query.AlterTableStmt, full string) (done bool, err error) {
	v := d.alteredView(at)
	if v == nil {
		return false, nil
	}
	for _, c := range at.Cmds {
		if c.GetAlterTableCmd().GetSubtype() != pg_query.AlterTableType_AT_ColumnDefault {
			return false, nil
		}
	}
	vt := viewTable(v)
	b := d.binder(full)
	for _, c := range at.Cmds {
		if err := d.setDefault(b, vt, c.GetAlterTableCmd()); err != nil {
			return true, err
		}
	}
	nv := *v
	nv.cols = append([]viewCol(nil), v.cols...)
	for i, c := range vt.cols {
		nv.cols[i].def = c.def
	}
	d.cat.schemas[v.schema].views[v.name] = &nv
	return true, nil
}
