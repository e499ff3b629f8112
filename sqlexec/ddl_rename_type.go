package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// ALTER TYPE ... RENAME TO and ALTER DOMAIN ... RENAME TO. Columns,
// composite fields and routine signatures hold a type by its OID and
// follow the rename by themselves; package types holds an enum's or
// composite type's name for format_type and is told the new one. Stored
// expressions, though, hold parse trees that name types (a default's or a
// view's 'x'::mood): the rename rewrites those of column defaults,
// generated columns, CHECK constraints, views and materialized views, and
// is refused (0A000) while any other stored expression names the type,
// since the name would come to mean another type (Prisma's enum migration
// renames a type and creates a new one under its old name).

// typeNameToAlter reads the (possibly schema-qualified) type name object of
// an ALTER TYPE or ALTER DOMAIN command; a name with a catalog is refused.
func typeNameToAlter(object *pg_query.Node, command string) (names []string, schema, name string, err error) {
	names = strs(object.GetList().GetItems())
	if len(names) == 0 || len(names) > 2 {
		return nil, "", "", pgerror.Unsupported("ALTER TYPE ... " + command + " of a type named with a catalog")
	}
	if len(names) > 1 {
		schema = names[0]
	}
	return names, schema, names[len(names)-1], nil
}

// renameType runs ALTER TYPE name RENAME TO new and ALTER DOMAIN name
// RENAME TO new, with PostgreSQL's checks in RenameType's order.
func (d *ddl) renameType(rs *pg_query.RenameStmt) error {
	names, schema, name, err := typeNameToAlter(rs.Object, "RENAME")
	if err != nil {
		return err
	}
	t := d.s.lookupTypeOrRowType(d.cat, schema, name)
	if t == nil {
		if tab := d.arrayTypeOwner(schema, name); tab != "" {
			return pgerror.Newf(pgerror.WrongObjectType, "cannot alter array type %s[]", tab).
				WithHint("You can alter type %s, which will alter the array type as well.", tab)
		}
		return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	shown := types.QuoteIdent(t.name)
	if visible := d.s.lookupTypeOrRowType(d.cat, "", t.name); visible == nil || visible.oid != t.oid {
		shown = types.QuoteIdent(t.schema) + "." + shown
	}
	if err := d.s.requireOwner(t.ownerRole(), "type", shown); err != nil {
		return err
	}
	if rs.RenameType == pg_query.ObjectType_OBJECT_DOMAIN && t.domain == nil {
		return pgerror.Newf(pgerror.WrongObjectType, "%s is not a domain", shown)
	}
	sc := d.cat.schemas[t.schema]
	if sc.types[t.name] != t {
		return pgerror.Newf(pgerror.WrongObjectType, "%s is a table's row type", shown).WithHint("Use ALTER TABLE instead.")
	}
	newName := rs.Newname
	if t.relid != 0 {
		// A composite type is a relation too: RenameRelationInternal
		// checks pg_class first.
		other := sc.types[newName]
		if sc.tables[newName] != nil || sc.indexes[newName] != nil || sc.seqs[newName] != nil || sc.views[newName] != nil || other != nil && other.relid != 0 {
			return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists", newName)
		}
	}
	if sc.types[newName] != nil || sc.tables[newName] != nil || sc.views[newName] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists", newName)
	}
	if t.rng != nil {
		return pgerror.Unsupported("ALTER TYPE ... RENAME of a range type (its constructor functions keep their names)")
	}
	if t.extension != 0 || t.citext {
		return pgerror.Unsupported("ALTER TYPE ... RENAME of an extension's type")
	}
	if typeNameTaken(sc, newName) || t.array != 0 && typeNameTaken(sc, "_"+newName) || userArrayNamed(sc, newName, t) {
		return pgerror.Unsupported("ALTER TYPE ... RENAME to a name that an array type has or would need")
	}
	if t.domain != nil && d.routinesUseType(t) {
		return pgerror.Unsupported("ALTER DOMAIN ... RENAME of a domain that routines take or return")
	}
	if where := d.typeNamedElsewhere(t); where != "" {
		return pgerror.Unsupported("ALTER TYPE ... RENAME of a type that " + where + " names")
	}
	if newName == t.name {
		return nil
	}
	d.retargetTypeNames(t, newName)
	nt := *t
	nt.name = newName
	delete(sc.types, t.name)
	sc.types[newName] = &nt
	d.reregisterType(t, &nt)
	return nil
}

// arrayTypeOwner returns the name of the user type whose array type is
// named name ("_" + its name), "" when there is none.
func (d *ddl) arrayTypeOwner(schema, name string) string {
	base, ok := strings.CutPrefix(name, "_")
	if !ok {
		return ""
	}
	if t := d.s.lookupType(d.cat, schema, base); t != nil && t.array != 0 {
		return types.QuoteIdent(t.name)
	}
	return ""
}

// userArrayNamed reports whether the array type of a user type of sc is
// named name, which a rename of another type to name would have to
// move aside.
func userArrayNamed(sc *schemaDesc, name string, self *typeDesc) bool {
	base, ok := strings.CutPrefix(name, "_")
	other := sc.types[base]
	return ok && other != nil && other != self && other.array != 0
}

// reregisterType tells package types the new name of an enum or
// composite type, and the old one again should the transaction roll back.
func (d *ddl) reregisterType(old, cur *typeDesc) {
	register := func(t *typeDesc) {
		switch {
		case t.enum != nil:
			registerEnum(t)
		case t.fields != nil || t.relid != 0:
			registerComposite(t.oid, t.array, t.name, t.fields, t.fieldDomains)
		}
	}
	register(cur)
	d.undo = append(d.undo, func() { register(old) })
	// An ADD VALUE earlier in the transaction registers the type at commit
	// as it was then: register it again afterwards as this statement left
	// it (a later statement's registration runs later still).
	d.onCommit = append(d.onCommit, func() { register(cur) })
}

// routinesUseType reports whether a routine takes or returns values of t.
func (d *ddl) routinesUseType(t *typeDesc) bool {
	for _, sc := range d.cat.schemas {
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				if routineUsesType(f, t) {
					return true
				}
			}
		}
	}
	return false
}

// typeNameMatches reports whether tn may name t: its last name is t's
// name or its array type's, and its schema, if any, is t's (a catalog
// before it names the current database or fails to resolve).
func typeNameMatches(tn *pg_query.TypeName, t *typeDesc) bool {
	names := strs(tn.Names)
	if len(names) == 0 {
		return false
	}
	last := names[len(names)-1]
	if last != t.name && last != "_"+t.name {
		return false
	}
	return len(names) == 1 || names[len(names)-2] == t.schema
}

// namesType reports whether any of the parse trees has a TypeName that
// may name t.
func namesType(t *typeDesc, nodes ...*pg_query.Node) bool {
	found := false
	for _, n := range nodes {
		if n == nil {
			continue
		}
		walkTypeNames(n.ProtoReflect(), func(tn *pg_query.TypeName) {
			found = found || typeNameMatches(tn, t)
		})
	}
	return found
}

// typeNamedElsewhere names the kind of stored expression, other than
// those retargetTypeNames rewrites, that names t; "" when none does. A
// type of t's name in another schema makes an unqualified name ambiguous:
// then every stored expression counts.
func (d *ddl) typeNamedElsewhere(t *typeDesc) string {
	for _, sc := range d.cat.schemas {
		if sc.name != t.schema && (sc.types[t.name] != nil || sc.tables[t.name] != nil || sc.views[t.name] != nil) {
			if d.retargetedNamesType(t) {
				return "a stored expression (with a type of its name in another schema)"
			}
		}
	}
	for _, sc := range d.cat.schemas {
		for _, other := range sc.types {
			if dom := other.domain; dom != nil {
				if namesType(t, dom.def) || slices.ContainsFunc(dom.checks, func(c *checkDesc) bool { return namesType(t, c.expr) }) {
					return "a domain's default or constraint"
				}
			}
		}
		for _, overloads := range sc.funcs {
			for _, f := range overloads {
				if namesType(t, f.sqlBody...) || slices.ContainsFunc(f.params, func(p funcParam) bool { return namesType(t, p.def) }) {
					return "a routine's body or parameter default"
				}
			}
		}
	}
	for _, tab := range d.cat.tables {
		for _, ix := range append(slices.Clone(tab.indexes), tab.pkIndex) {
			if ix != nil && (namesType(t, ix.pred) || namesType(t, ix.exprs...)) {
				return "an index"
			}
		}
		if tab.part != nil && namesType(t, tab.part.exprs...) {
			return "a partition key"
		}
		if where := namesTypeInHooks(t, tab.policies, tab.triggers, tab.rules); where != "" {
			return where
		}
	}
	for _, v := range sortedViews(d.cat) {
		if slices.ContainsFunc(v.cols, func(c viewCol) bool { return namesType(t, c.def) }) {
			return "a view column's default"
		}
		if where := namesTypeInHooks(t, nil, v.triggers, v.rules); where != "" {
			return where
		}
	}
	return ""
}

// namesTypeInHooks names the kind of policy, trigger or rule that names
// t, "" when none does.
func namesTypeInHooks(t *typeDesc, policies []*policyDesc, triggers []*triggerDesc, rules []*ruleDesc) string {
	for _, p := range policies {
		if namesType(t, p.using, p.check) {
			return "a policy"
		}
	}
	for _, tr := range triggers {
		if namesType(t, tr.when) {
			return "a trigger's WHEN condition"
		}
	}
	for _, r := range rules {
		if namesType(t, r.where) || namesType(t, r.actions...) {
			return "a rule"
		}
	}
	return ""
}

// retargetedNamesType reports whether a stored expression that
// retargetTypeNames rewrites names t.
func (d *ddl) retargetedNamesType(t *typeDesc) bool {
	for _, tab := range d.cat.tables {
		for _, c := range tab.cols {
			if namesType(t, c.def, c.generated) {
				return true
			}
		}
		for _, ck := range tab.checks {
			if namesType(t, ck.expr) {
				return true
			}
		}
		if tab.matview != nil && namesType(t, tab.matview.query) {
			return true
		}
	}
	for _, v := range sortedViews(d.cat) {
		if namesType(t, v.query) {
			return true
		}
	}
	return false
}

// retargeted returns n with the TypeNames that name t naming it as
// newName, and whether it changed anything; n itself is left as it is.
func retargeted(n *pg_query.Node, t *typeDesc, newName string) (*pg_query.Node, bool) {
	if n == nil || !namesType(t, n) {
		return n, false
	}
	c := proto.Clone(n).(*pg_query.Node)
	walkTypeNames(c.ProtoReflect(), func(tn *pg_query.TypeName) {
		if !typeNameMatches(tn, t) {
			return
		}
		last := tn.Names[len(tn.Names)-1].GetString_()
		if last.Sval == t.name {
			last.Sval = newName
		} else {
			last.Sval = "_" + newName
		}
	})
	return c, true
}

// retargetTypeNames points the column defaults, generated columns, CHECK
// constraints, views and materialized views whose expressions name t at
// its new name.
func (d *ddl) retargetTypeNames(t *typeDesc, newName string) {
	for _, tab := range sortedTables(d.cat) {
		var nt *tableDesc
		edit := func() *tableDesc {
			if nt == nil {
				nt = tab.clone()
			}
			return nt
		}
		for i, c := range tab.cols {
			def, a := retargeted(c.def, t, newName)
			gen, b := retargeted(c.generated, t, newName)
			if a || b {
				nc := *c
				nc.def, nc.generated = def, gen
				edit().cols[i] = &nc
			}
		}
		for i, ck := range tab.checks {
			if e, ok := retargeted(ck.expr, t, newName); ok {
				nck := *ck
				nck.expr, nck.text = e, deparseExpr(e)
				edit().checks[i] = &nck
			}
		}
		if tab.matview != nil {
			if q, ok := retargeted(tab.matview.query, t, newName); ok {
				def := *tab.matview
				def.query = q
				edit().matview = &def
			}
		}
		if nt != nil {
			d.cat.putTable(nt)
		}
	}
	for _, v := range sortedViews(d.cat) {
		if q, ok := retargeted(v.query, t, newName); ok {
			nv := *v
			nv.query = q
			d.cat.schemas[v.schema].views[v.name] = &nv
		}
	}
}

// setTypeSchema runs ALTER TYPE name SET SCHEMA s and ALTER DOMAIN name
// SET SCHEMA s, with PostgreSQL's checks in AlterTypeNamespace's order;
// the type's array type moves with it. Stored expressions name types
// unqualified, as they were written: while any names the type, the move
// is refused (0A000), since the name would then reach another type or
// none.
func (d *ddl) setTypeSchema(as *pg_query.AlterObjectSchemaStmt) error {
	names, schema, name, err := typeNameToAlter(as.Object, "SET SCHEMA")
	if err != nil {
		return err
	}
	t := d.s.lookupTypeOrRowType(d.cat, schema, name)
	if t == nil {
		if tab := d.arrayTypeOwner(schema, name); tab != "" {
			return d.setArrayTypeSchema(as, tab)
		}
		return pgerror.Newf(pgerror.UndefinedObject, "type \"%s\" does not exist", strings.Join(names, "."))
	}
	shown := types.QuoteIdent(t.name)
	if visible := d.s.lookupTypeOrRowType(d.cat, "", t.name); visible == nil || visible.oid != t.oid {
		shown = types.QuoteIdent(t.schema) + "." + shown
	}
	if as.ObjectType == pg_query.ObjectType_OBJECT_DOMAIN && t.domain == nil {
		return pgerror.Newf(pgerror.WrongObjectType, "%s is not a domain", shown)
	}
	target := d.s.schemaAlias(as.Newschema)
	system := target == "pg_catalog" || target == "information_schema"
	temp := isTempSchema(target)
	to := d.cat.schemas[target]
	if to == nil && !system && !temp {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", as.Newschema)
	}
	if role := d.s.currentRole(); to != nil && !d.s.isSuperuser(role) && !d.s.hasPrivilege(role, aclSchema, to.oid, []byte{'C'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for schema %s", to.name)
	}
	if err := d.s.requireOwner(t.ownerRole(), "type", shown); err != nil {
		return err
	}
	if temp || isTempSchema(t.schema) {
		return pgerror.New(pgerror.FeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if system {
		return pgerror.Unsupported("moving a type into a system schema")
	}
	isTableRowType := d.cat.schemas[t.schema].types[t.name] != t
	if t.schema != to.name {
		if typeNameTaken(to, t.name) {
			return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists in schema \"%s\"", t.name, to.name)
		}
	}
	if isTableRowType {
		return pgerror.Newf(pgerror.WrongObjectType, "%s is a table's row type", shown).WithHint("Use ALTER TABLE instead.")
	}
	if t.schema == to.name {
		return nil
	}
	if t.relid != 0 && d.relationExists(to.name, t.name) {
		return pgerror.Newf(pgerror.DuplicateTable, "relation \"%s\" already exists in schema \"%s\"", t.name, to.name)
	}
	if t.array != 0 && to.types["_"+t.name] != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "type \"%s\" already exists in schema \"%s\"", "_"+t.name, to.name)
	}
	if t.rng != nil {
		return pgerror.Unsupported("ALTER TYPE ... SET SCHEMA of a range type (its constructor functions stay where they are)")
	}
	if t.extension != 0 || t.citext {
		return pgerror.Unsupported("ALTER TYPE ... SET SCHEMA of an extension's type")
	}
	if t.array != 0 && typeNameTaken(to, "_"+t.name) || userArrayNamed(to, t.name, nil) {
		return pgerror.Unsupported("ALTER TYPE ... SET SCHEMA to a schema where an array type has or would need its name")
	}
	if t.domain != nil && d.routinesUseType(t) {
		return pgerror.Unsupported("ALTER DOMAIN ... SET SCHEMA of a domain that routines take or return")
	}
	if d.retargetedNamesType(t) {
		return pgerror.Unsupported("ALTER TYPE ... SET SCHEMA of a type that a default, constraint or view names")
	}
	if where := d.typeNamedElsewhere(t); where != "" {
		return pgerror.Unsupported("ALTER TYPE ... SET SCHEMA of a type that " + where + " names")
	}
	nt := *t
	nt.schema = to.name
	delete(d.cat.schemas[t.schema].types, t.name)
	to.types[t.name] = &nt
	return nil
}

// setArrayTypeSchema is ALTER TYPE ... SET SCHEMA naming the array type
// of type elem: PostgreSQL's errors up to its refusal.
func (d *ddl) setArrayTypeSchema(as *pg_query.AlterObjectSchemaStmt, elem string) error {
	if as.ObjectType == pg_query.ObjectType_OBJECT_DOMAIN {
		return pgerror.Newf(pgerror.WrongObjectType, "%s[] is not a domain", elem)
	}
	if d.cat.schemas[as.Newschema] == nil {
		return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", as.Newschema)
	}
	return pgerror.Newf(pgerror.WrongObjectType, "cannot alter array type %s[]", elem).
		WithHint("You can alter type %s, which will alter the array type as well.", elem)
}
