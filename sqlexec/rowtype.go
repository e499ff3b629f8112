package sqlexec

import (
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// A table's row type: as in PostgreSQL, every table is also a composite
// type of its columns, usable wherever a type goes ("create table t2 (x
// int, y t1)", "(1,'a')::t1", "t1[]"). It is one more source of a
// composite type's fields beside CREATE TYPE ... AS: the table keeps the
// type's OIDs (rowType, rowArray), and package types learns the fields
// from the table's columns each time a statement names the type, so that
// it follows ALTER TABLE. The ALTERs that would change values a column of
// another table stores are refused as PostgreSQL refuses them (0A000), or,
// where PostgreSQL rewrites the stored values and fickle cannot, refused as
// unsupported.

// newRowTypeOIDs gives a new table the OIDs of its row type and of the
// array type over it.
func newRowTypeOIDs(t *tableDesc) {
	t.rowType, t.rowArray = newCompositeOID(), newCompositeOID()
}

// rowTypeDesc is t's row type as a composite type: its OID, schema, name
// and the table's columns as fields. It registers the fields with package
// types, which reads record values through them.
func (t *tableDesc) rowTypeDesc() *typeDesc {
	td := &typeDesc{oid: t.rowType, schema: t.schema, name: t.name}
	for _, c := range t.cols {
		td.fields = append(td.fields, types.Field{Name: c.name, Type: c.typ})
		td.fieldDomains = append(td.fieldDomains, c.domain)
	}
	registerComposite(t.rowType, t.rowArray, t.name, td.fields, td.fieldDomains)
	return td
}

// compositeFields returns the fields of the composite type with the OID as
// the catalog has them now: a table's columns (registering them with
// package types, as rowTypeDesc does) or a composite type's attributes.
func (c *catalog) compositeFields(oid uint32) ([]types.Field, bool) {
	if t, array := c.tableOfRowType(oid); t != nil && !array {
		return t.rowTypeDesc().fields, true
	}
	if td, array := c.typeByOidOrArray(oid); td != nil && !array && td.domain == nil {
		return td.fields, true
	}
	return nil, false
}

// tableOfRowType returns the table whose row type (array says: the array
// type over it) has the OID, nil for none.
func (c *catalog) tableOfRowType(oid uint32) (t *tableDesc, array bool) {
	if oid == 0 {
		return nil, false
	}
	for _, t := range c.tables {
		if t.rowType == oid || t.rowArray == oid {
			return t, t.rowArray == oid
		}
	}
	return nil, false
}

// lookupTypeOrRowType finds a user-defined type or a table's row type by
// optional schema and name along the search path, as PostgreSQL's type
// namespace holds both; nil when there is none.
func (s *Session) lookupTypeOrRowType(c *catalog, schema, name string) *typeDesc {
	if schema != "" {
		if t := s.lookupType(c, schema, name); t != nil {
			return t
		}
		if tab := s.lookupTable(c, schema, name); tab != nil && tab.rowType != 0 {
			return tab.rowTypeDesc()
		}
		return nil
	}
	for _, p := range s.searchPath() {
		if t := s.lookupTypeOrRowType(c, p, name); t != nil {
			return t
		}
	}
	return nil
}

// rowTypeHolders returns the OIDs of the composite types whose values
// hold a value of row type rowType: itself and the composite types with
// an attribute of one of them (directly, as an array's element or through
// a domain).
func (c *catalog) rowTypeHolders(rowType uint32) map[uint32]bool {
	holding := map[uint32]bool{rowType: true}
	for grew := true; grew; {
		grew = false
		for _, sc := range c.schemas {
			for _, other := range sc.types {
				if holding[other.oid] {
					continue
				}
				for i, f := range other.fields {
					if c.typeHolds(f.Type, other.fieldDomains[i], holding) {
						holding[other.oid], grew = true, true
						break
					}
				}
			}
		}
	}
	return holding
}

// typeUser names the first table column whose values hold values of the
// composite type typ (directly, in an array, range, domain or another
// composite type); "" when none does. table and column come apart as
// PostgreSQL's messages show them.
func (c *catalog) typeUser(typ uint32) (table, column string) {
	holding := c.rowTypeHolders(typ)
	for _, tab := range sortedTables(c) {
		for _, col := range tab.cols {
			if c.typeHolds(col.typ, col.domain, holding) {
				return tab.name, col.name
			}
		}
	}
	return "", ""
}

// checkRowTypeMember refuses a column of t whose values would hold t's
// own row type (42P16), as PostgreSQL refuses a composite type that is a
// member of itself.
func (c *catalog) checkRowTypeMember(t *tableDesc) error {
	if t.rowType == 0 {
		return nil
	}
	holding := c.rowTypeHolders(t.rowType)
	for _, col := range t.cols {
		if c.typeHolds(col.typ, col.domain, holding) {
			return pgerror.Newf(pgerror.InvalidTableDefinition, "composite type %s cannot be made a member of itself", t.name)
		}
	}
	return nil
}

// typeHolds says whether values of type typ (declared with domain dom)
// hold a value of one of the composite types in holding.
func (c *catalog) typeHolds(typ types.Type, dom uint32, holding map[uint32]bool) bool {
	// Arrays hold their elements, multiranges their ranges, ranges their
	// subtype's values, as CheckAttributeType follows them.
	for {
		if holding[uint32(typ.Oid)] {
			return true
		}
		if e, ok := typ.Elem(); ok {
			typ = e
		} else if r, ok := typ.MultirangeRange(); ok {
			typ = r
		} else if sub, ok := typ.RangeSubtype(); ok {
			typ = sub
		} else {
			break
		}
	}
	for o := range holding {
		if c.domainIsOver(dom, o) {
			return true
		}
	}
	return false
}

// checkRowTypeAlter refuses an ALTER TABLE command on t that would change
// the values another table's column stores of t's row type: ALTER COLUMN
// TYPE and ADD COLUMN with a default as PostgreSQL does, and ADD COLUMN and
// DROP COLUMN, which PostgreSQL allows by keeping stored values in their
// old layout, as unsupported.
func (d *ddl) checkRowTypeAlter(t *tableDesc, cmd *pg_query.AlterTableCmd) error {
	if t.rowType == 0 {
		return nil
	}
	switch cmd.Subtype {
	case pg_query.AlterTableType_AT_AlterColumnType, pg_query.AlterTableType_AT_AddColumn, pg_query.AlterTableType_AT_DropColumn:
	default:
		return nil
	}
	table, column := d.cat.typeUser(t.rowType)
	if table == "" {
		return nil
	}
	if cmd.Subtype == pg_query.AlterTableType_AT_AlterColumnType || cmd.Subtype == pg_query.AlterTableType_AT_AddColumn && columnDefault(cmd) {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot alter %s \"%s\" because column \"%s.%s\" uses its row type", relNoun(t), t.name, table, column)
	}
	return pgerror.Unsupported("ADD COLUMN and DROP COLUMN on a table whose row type a column of another table uses")
}

// columnDefault says whether an ADD COLUMN command gives the column a
// default (or an identity, which fills it).
func columnDefault(cmd *pg_query.AlterTableCmd) bool {
	cd := cmd.Def.GetColumnDef()
	if cd == nil {
		return false
	}
	if cd.RawDefault != nil || cd.Identity != "" {
		return true
	}
	for _, n := range cd.Constraints {
		switch n.GetConstraint().GetContype() {
		case pg_query.ConstrType_CONSTR_DEFAULT, pg_query.ConstrType_CONSTR_IDENTITY, pg_query.ConstrType_CONSTR_GENERATED:
			return true
		}
	}
	return false
}

// dropRowTypeUsers runs the part of DROP TABLE that concerns the row
// types of the tables dropping holds: a column of another table that uses
// one keeps it (2BP01), or, under CASCADE, is dropped.
func (d *ddl) dropRowTypeUsers(ts []*tableDesc, dropping map[uint32]bool, cascade bool) error {
	for _, t := range ts {
		if t.rowType == 0 {
			continue
		}
		td := t.rowTypeDesc()
		dep := d.cat.typeDependent(td, dropping, d.s.visibleName)
		if dep == "" {
			continue
		}
		if !cascade {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", d.s.visibleName(t.schema, t.name)).
				WithDetail("%s depends on type %s", dep, d.s.visibleName(t.schema, t.name)).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if err := d.dropTypedColumns(td, dropping); err != nil {
			return err
		}
		lines, err := d.dropTypedRoutines(td)
		if err != nil {
			return err
		}
		d.cascadeNotice(lines)
		if d.cat.typeDependent(td, dropping, d.s.visibleName) != "" {
			return pgerror.Unsupported("DROP TABLE ... CASCADE of a table whose row type other types use")
		}
	}
	return nil
}

// checkRowTypeExprs refuses a CHECK constraint or column default of t
// whose expression names a table's row type (a cast "(x, y)::t1"):
// PostgreSQL keeps such an expression bound to the row type's columns as
// they were, so that a later ALTER TABLE of t1 makes it fail, which fickle,
// binding expressions anew, would not show.
func (d *ddl) checkRowTypeExprs(t *tableDesc) error {
	var exprs []*pg_query.Node
	for _, ck := range t.checks {
		exprs = append(exprs, ck.expr)
	}
	for _, col := range t.cols {
		exprs = append(exprs, col.def, col.generated)
	}
	for _, e := range exprs {
		if e == nil {
			continue
		}
		named := false
		walkTypeNames(e.ProtoReflect(), func(tn *pg_query.TypeName) {
			ns := strs(tn.Names)
			schema, name := "", ns[len(ns)-1]
			if len(ns) == 2 {
				schema = ns[0]
			}
			if len(ns) <= 2 && d.s.lookupType(d.cat, schema, name) == nil {
				if td := d.s.lookupTypeOrRowType(d.cat, schema, name); td != nil {
					named = true
				}
			}
		})
		if named {
			return pgerror.Unsupported("CHECK constraints and defaults that name a table's row type")
		}
	}
	return nil
}

// walkTypeNames calls fn for every TypeName message under m.
func walkTypeNames(m protoreflect.Message, fn func(*pg_query.TypeName)) {
	if tn, ok := m.Interface().(*pg_query.TypeName); ok {
		fn(tn)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			for i, l := 0, v.List(); i < l.Len(); i++ {
				walkTypeNames(l.Get(i).Message(), fn)
			}
			return true
		}
		walkTypeNames(v.Message(), fn)
		return true
	})
}

// inheritedRowConversion is e, a row of a table, converted to the row type
// of a table it inherits from (directly or not): the ancestor's columns
// taken by name, as PostgreSQL's ConvertRowtypeExpr does in any context;
// nil when e's and to's types are not such a pair.
func (b *binder) inheritedRowConversion(e *scalar, to types.Type) *scalar {
	if !e.typ.IsComposite() || !to.IsComposite() {
		return nil
	}
	child, array := b.cat.tableOfRowType(uint32(e.typ.Oid))
	if child == nil || array {
		return nil
	}
	ancestor, array := b.cat.tableOfRowType(uint32(to.Oid))
	if ancestor == nil || array || !b.cat.inheritsFrom(child, ancestor.oid) {
		return nil
	}
	from := make([]int, len(ancestor.cols))
	for i, ac := range ancestor.cols {
		from[i] = slices.IndexFunc(child.cols, func(c *columnDesc) bool { return c.name == ac.name })
		if from[i] < 0 {
			return nil
		}
	}
	inner := plainValue(e).eval
	return &scalar{typ: to, slot: -1, refs: e.refs, volatile: e.volatile, name: e.name, eval: func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil || v == nil {
			return nil, err
		}
		rec := v.([]any)
		out := make([]any, len(from))
		for i, j := range from {
			out[i] = rec[j]
		}
		return out, nil
	}}
}

// inheritsFrom reports whether table t inherits from the table of OID
// ancestor, directly or through its parents.
func (c *catalog) inheritsFrom(t *tableDesc, ancestor uint32) bool {
	for _, p := range t.parents {
		if p == ancestor {
			return true
		}
		if pt := c.tables[p]; pt != nil && c.inheritsFrom(pt, ancestor) {
			return true
		}
	}
	return false
}
