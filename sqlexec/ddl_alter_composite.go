package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// ALTER TYPE c ADD ATTRIBUTE, DROP ATTRIBUTE, ALTER ATTRIBUTE ... TYPE and
// RENAME ATTRIBUTE on a composite type. A composite datum is the []any of
// its fields in their current order, and package types learns the fields
// from types.RegisterComposite: so an attribute is added, dropped or
// retyped only while no table column can hold a value of the type
// (PostgreSQL's values carry their own shape, fickle's do not), and no
// stored expression names the type; a dropped attribute keeps its pg_attribute row and number, as
// in PostgreSQL. Renaming an attribute changes no value, so it is refused
// only while a stored expression may name the attribute.

// compositeTypeForAlter resolves the composite type ALTER TYPE names, as
// PostgreSQL's relation lookup does: a type that is no relation does not
// exist (42P01), a relation that is no composite type is refused (42809).
func (d *ddl) compositeTypeForAlter(rv *pg_query.RangeVar) (*typeDesc, error) {
	t := d.s.lookupTypeOrRowType(d.cat, rv.Schemaname, rv.Relname)
	if t == nil || t.relid == 0 && d.cat.schemas[t.schema].types[t.name] == t {
		if t == nil && relationOrTypeExists(d, rv) {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a composite type", rv.Relname)
		}
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
	}
	if d.cat.schemas[t.schema].types[t.name] != t {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a composite type", rv.Relname)
	}
	if err := d.s.requireOwner(t.ownerRole(), "type", t.name); err != nil {
		return nil, err
	}
	return t, nil
}

// relationOrTypeExists reports whether rv names a view or sequence, which
// are relations but no composite types.
func relationOrTypeExists(d *ddl, rv *pg_query.RangeVar) bool {
	return d.s.lookupView(d.cat, rv.Schemaname, rv.Relname) != nil || d.s.lookupSequence(d.cat, rv.Schemaname, rv.Relname) != nil
}

// alterCompositeType runs ALTER TYPE c ADD / DROP / ALTER ATTRIBUTE, ....
func (d *ddl) alterCompositeType(at *pg_query.AlterTableStmt) error {
	t, err := d.compositeTypeForAlter(at.Relation)
	if err != nil {
		return err
	}
	nt := *t
	nt.fields = slices.Clone(t.fields)
	nt.fieldDomains = slices.Clone(t.fieldDomains)
	nt.attnums = make([]int16, len(t.fields))
	for i := range t.fields {
		nt.attnums[i] = t.attnum(i)
	}
	nt.dropped = slices.Clone(t.dropped)
	changed := false
	b := d.binder("")
	for _, n := range at.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil {
			return pgerror.Unsupported("this form of ALTER TYPE")
		}
		switch cmd.Subtype {
		case pg_query.AlterTableType_AT_AddColumn:
			cd := cmd.Def.GetColumnDef()
			if cd == nil || len(cd.Constraints) > 0 {
				return pgerror.Unsupported("this form of ALTER TYPE ... ADD ATTRIBUTE")
			}
			if slices.ContainsFunc(nt.fields, func(f types.Field) bool { return f.Name == cd.Colname }) {
				if cmd.MissingOk {
					d.notice(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists, skipping", cd.Colname, t.name)
					continue
				}
				return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", cd.Colname, t.name)
			}
			ft, dom, err := d.attributeType(b, &nt, cd)
			if err != nil {
				return err
			}
			nt.fields = append(nt.fields, types.Field{Name: cd.Colname, Type: ft})
			nt.fieldDomains = append(nt.fieldDomains, dom)
			nt.attnums = append(nt.attnums, int16(nt.natts()))
			changed = true
		case pg_query.AlterTableType_AT_DropColumn:
			i := slices.IndexFunc(nt.fields, func(f types.Field) bool { return f.Name == cmd.Name })
			if i < 0 {
				if cmd.MissingOk {
					d.notice(pgerror.SuccessfulCompletion, "column \"%s\" of relation \"%s\" does not exist, skipping", cmd.Name, t.name)
					continue
				}
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.name)
			}
			if d.storedExprsName(cmd.Name) {
				return pgerror.Unsupported("ALTER TYPE ... DROP ATTRIBUTE while a stored expression may name the attribute")
			}
			nt.dropped = append(nt.dropped, droppedAttr{attnum: nt.attnums[i], typ: nt.fields[i].Type})
			nt.fields = slices.Delete(nt.fields, i, i+1)
			nt.fieldDomains = slices.Delete(nt.fieldDomains, i, i+1)
			nt.attnums = slices.Delete(nt.attnums, i, i+1)
			changed = true
		case pg_query.AlterTableType_AT_AlterColumnType:
			i := slices.IndexFunc(nt.fields, func(f types.Field) bool { return f.Name == cmd.Name })
			if i < 0 {
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", cmd.Name, t.name)
			}
			cd := cmd.Def.GetColumnDef()
			if cd == nil || cd.RawDefault != nil {
				return pgerror.Unsupported("this form of ALTER TYPE ... ALTER ATTRIBUTE")
			}
			ft, dom, err := d.attributeType(b, &nt, cd)
			if err != nil {
				return err
			}
			if table, column := d.cat.typeUser(t.oid); table != "" {
				return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter type \"%s\" because column \"%s.%s\" uses it", t.name, table, column)
			}
			if d.storedExprsName(cmd.Name) {
				// A domain's CHECK over the type, say, reads the attribute
				// by name: PostgreSQL rebuilds such expressions.
				return pgerror.Unsupported("ALTER TYPE ... ALTER ATTRIBUTE ... TYPE while a stored expression may name the attribute")
			}
			nt.fields[i].Type, nt.fieldDomains[i] = ft, dom
			changed = true
		default:
			return pgerror.Unsupported("this form of ALTER TYPE")
		}
	}
	if !changed {
		return nil
	}
	if table, column := d.cat.typeUser(t.oid); table != "" {
		return pgerror.Unsupported("ALTER TYPE ... ADD or DROP ATTRIBUTE of a type whose values column \"" + table + "." + column + "\" holds")
	}
	if err := d.compositeUnnamed(t); err != nil {
		return err
	}
	d.cat.schemas[t.schema].types[t.name] = &nt
	d.reregisterType(t, &nt)
	return nil
}

// attributeType resolves the type of an attribute of t that cd declares:
// its type (a domain's base type) and the domain, 0 for none.
func (d *ddl) attributeType(b *binder, t *typeDesc, cd *pg_query.ColumnDef) (types.Type, uint32, error) {
	if cd.CollClause != nil {
		return types.Type{}, 0, pgerror.Unsupported("collations of composite type attributes")
	}
	ft, fd, err := b.declaredType(cd.TypeName)
	if err != nil {
		return types.Type{}, 0, err
	}
	var dom uint32
	if fd != nil {
		dom = fd.oid
	}
	if err := d.s.requireColumnTypeUsage(d.cat, uint32(ft.Oid), dom); err != nil {
		return types.Type{}, 0, err
	}
	if ft.Oid == types.OidUnknown || ft.Oid == types.OidRecord {
		return types.Type{}, 0, pgerror.Newf(pgerror.InvalidTableDefinition, "column \"%s\" has pseudo-type %s", cd.Colname, ft)
	}
	if d.cat.typeHolds(ft, dom, d.cat.rowTypeHolders(t.oid)) {
		return types.Type{}, 0, pgerror.Newf(pgerror.InvalidTableDefinition, "composite type %s cannot be made a member of itself", t.name)
	}
	return ft, dom, nil
}

// compositeUnnamed refuses (0A000) a change of t's attributes while a
// stored expression names t, or a view may read values of it that a
// routine returns: they were bound to its former attributes.
func (d *ddl) compositeUnnamed(t *typeDesc) error {
	if d.retargetedNamesType(t) {
		return pgerror.Unsupported("ALTER TYPE ... ATTRIBUTE of a type that a default, constraint or view names")
	}
	if where := d.typeNamedElsewhere(t); where != "" {
		return pgerror.Unsupported("ALTER TYPE ... ATTRIBUTE of a type that " + where + " names")
	}
	if d.routinesUseType(t) && (len(sortedViews(d.cat)) > 0 || len(sortedMatviews(d.cat)) > 0) {
		return pgerror.Unsupported("ALTER TYPE ... ATTRIBUTE of a type that routines return while views exist")
	}
	return nil
}

// renameAttribute runs ALTER TYPE c RENAME ATTRIBUTE a TO b.
func (d *ddl) renameAttribute(rs *pg_query.RenameStmt) error {
	if d.s.lookupTable(d.cat, rs.Relation.Schemaname, rs.Relation.Relname) != nil {
		// PostgreSQL's renameatt renames a table's column too.
		col := proto.Clone(rs).(*pg_query.RenameStmt)
		col.RenameType, col.RelationType = pg_query.ObjectType_OBJECT_COLUMN, pg_query.ObjectType_OBJECT_TABLE
		return d.rename(col)
	}
	t, err := d.compositeTypeForAlter(rs.Relation)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(t.fields, func(f types.Field) bool { return f.Name == rs.Subname })
	if i < 0 {
		return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", rs.Subname)
	}
	if slices.ContainsFunc(t.fields, func(f types.Field) bool { return f.Name == rs.Newname }) {
		return pgerror.Newf(pgerror.DuplicateColumn, "column \"%s\" of relation \"%s\" already exists", rs.Newname, t.name)
	}
	if err := d.compositeUnnamed(t); err != nil {
		return err
	}
	if d.storedExprsName(rs.Subname) {
		return pgerror.Unsupported("ALTER TYPE ... RENAME ATTRIBUTE while a stored expression may name the attribute")
	}
	nt := *t
	nt.fields = slices.Clone(t.fields)
	nt.fields[i].Name = rs.Newname
	d.cat.schemas[t.schema].types[t.name] = &nt
	d.reregisterType(t, &nt)
	return nil
}

// storedExprsName reports whether any stored expression of the catalog
// has an identifier or string constant spelled name.
func (d *ddl) storedExprsName(name string) bool {
	found := false
	d.forEachStoredExpr(func(n *pg_query.Node) {
		walk(n, func(x *pg_query.Node) bool {
			if x.GetString_().GetSval() == name || x.GetAConst().GetSval().GetSval() == name {
				found = true
			}
			return !found
		})
	})
	return found
}

// forEachStoredExpr calls fn on every parse tree the catalog stores:
// defaults, generated columns, constraints, indexes, partition keys,
// policies, triggers, rules, views, materialized views, domains and
// routine bodies and parameter defaults.
func (d *ddl) forEachStoredExpr(fn func(*pg_query.Node)) {
	each := func(ns ...*pg_query.Node) {
		for _, n := range ns {
			if n != nil {
				fn(n)
			}
		}
	}
	hooks := func(policies []*policyDesc, triggers []*triggerDesc, rules []*ruleDesc) {
		for _, p := range policies {
			each(p.using, p.check)
		}
		for _, tr := range triggers {
			each(tr.when)
		}
		for _, r := range rules {
			each(r.where)
			each(r.actions...)
		}
	}
	for _, tab := range sortedTables(d.cat) {
		for _, c := range tab.cols {
			each(c.def, c.generated)
		}
		for _, ck := range tab.checks {
			each(ck.expr)
		}
		for _, ix := range append(slices.Clone(tab.indexes), tab.pkIndex) {
			if ix != nil {
				each(ix.pred)
				each(ix.exprs...)
			}
		}
		if tab.part != nil {
			each(tab.part.exprs...)
		}
		if tab.matview != nil {
			each(tab.matview.query)
		}
		hooks(tab.policies, tab.triggers, tab.rules)
	}
	for _, v := range sortedViews(d.cat) {
		each(v.query)
		for _, c := range v.cols {
			each(c.def)
		}
		hooks(nil, v.triggers, v.rules)
	}
	for _, sc := range d.cat.schemas {
		for _, t := range sc.types {
			if dom := t.domain; dom != nil {
				each(dom.def)
				for _, ck := range dom.checks {
					each(ck.expr)
				}
			}
		}
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				each(f.sqlBody...)
				for _, p := range f.params {
					each(p.def)
				}
			}
		}
	}
}
