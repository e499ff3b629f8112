package sqlexec

import (
	"cmp"
	"maps"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ALTER DEFAULT PRIVILEGES sets, for a role, a schema (or every schema)
// and a kind of object, the access control list that the objects the role
// creates start with, as PostgreSQL's pg_default_acl does: an entry for
// every schema replaces the kind's built-in default, an entry for one
// schema adds to it. Creating a table, view, sequence, routine, type or
// schema applies the entries that match (applyDefaultACL); later changes leave
// existing objects alone.

// defaultACLKey names an entry: the role whose new objects it applies to,
// the schema (0 for every schema) and the kind of object.
type defaultACLKey struct {
	role, schema uint32
	kind         aclKind
}

// defaultACLEntry is an entry's OID (pg_default_acl.oid) and its list.
type defaultACLEntry struct {
	oid uint32
	acl []aclItem
}

// defaultACLKinds are the kinds of object whose defaults can be set, by the
// object type the ON clause names (ROUTINES reads as FUNCTIONS).
var defaultACLKinds = map[pg_query.ObjectType]aclKind{pg_query.ObjectType_OBJECT_TABLE: aclTable,
	pg_query.ObjectType_OBJECT_SEQUENCE: aclSequence, pg_query.ObjectType_OBJECT_FUNCTION: aclFunction,
	pg_query.ObjectType_OBJECT_SCHEMA: aclSchema, pg_query.ObjectType_OBJECT_TYPE: aclType}

// defaultACLObjType is pg_default_acl.defaclobjtype of each kind, and
// defaultACLNoun how PostgreSQL's messages name the kind's objects.
var (
	defaultACLObjType = map[aclKind]string{aclTable: "r", aclSequence: "S", aclFunction: "f", aclSchema: "n", aclType: "T"}
	defaultACLNoun    = map[aclKind]string{aclTable: "relations", aclSequence: "sequences", aclFunction: "functions", aclSchema: "schemas",
		aclType: "types"}
)

// alterDefaultPrivileges runs ALTER DEFAULT PRIVILEGES [FOR ROLE ...] [IN
// SCHEMA ...] GRANT | REVOKE ... ON TABLES | SEQUENCES | FUNCTIONS |
// ROUTINES | TYPES | SCHEMAS.
func (d *ddl) alterDefaultPrivileges(ap *pg_query.AlterDefaultPrivilegesStmt) error {
	var roles, schemas []*pg_query.Node
	seen := map[string]bool{}
	for _, o := range ap.Options {
		de := o.GetDefElem()
		if seen[de.Defname] {
			return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
		}
		seen[de.Defname] = true
		if de.Defname == "roles" {
			roles = de.Arg.GetList().GetItems()
		} else {
			schemas = de.Arg.GetList().GetItems()
		}
	}
	gs := ap.Action
	kind, ok := defaultACLKinds[gs.Objtype]
	if !ok {
		return pgerror.Unsupported("ALTER DEFAULT PRIVILEGES on this kind of object")
	}
	grantees, err := d.grantees(gs)
	if err != nil {
		return err
	}
	for _, n := range gs.Privileges {
		if len(n.GetAccessPriv().Cols) > 0 {
			return pgerror.New(pgerror.InvalidGrantOperation, "default privileges cannot be set for columns")
		}
	}
	letters, _, err := d.privilegeLetters(gs, kind)
	if err != nil {
		return err
	}
	current := d.s.currentRole()
	owners := []uint32{current}
	if len(roles) > 0 {
		owners = owners[:0]
		for _, n := range roles {
			spec := n.GetRoleSpec()
			name := d.s.roleSpecName(spec.Roletype.String(), spec.Rolename)
			r := d.s.roleNamed(name)
			if r == nil {
				return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
			}
			if !d.s.isSuperuser(current) && !d.s.belongsTo(current, r.oid) {
				return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
			}
			owners = append(owners, r.oid)
		}
	}
	for _, owner := range owners {
		if len(schemas) == 0 {
			d.editDefaultACL(defaultACLKey{owner, 0, kind}, gs, grantees, letters)
			continue
		}
		for _, n := range schemas {
			name := n.GetString_().GetSval()
			sc := d.cat.schemas[name]
			if sc == nil {
				return pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if kind == aclSchema {
				return pgerror.New(pgerror.InvalidGrantOperation, "cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS")
			}
			d.editDefaultACL(defaultACLKey{owner, sc.oid, kind}, gs, grantees, letters)
		}
	}
	return nil
}

// editDefaultACL grants or revokes letters to grantees in the entry key,
// by its role. An entry for every schema starts from the kind's built-in
// default, one for a schema from nothing; an entry that comes back to
// that start is removed, as PostgreSQL's SetDefaultACL does.
func (d *ddl) editDefaultACL(key defaultACLKey, gs *pg_query.GrantStmt, grantees []uint32, letters string) {
	var start []aclItem
	if key.schema == 0 {
		start = defaultACL(key.kind, key.role)
	}
	entry, exists := d.cat.defaultACLs[key]
	acl := start
	if exists {
		acl = entry.acl
	}
	acl = slices.Clone(acl)
	for _, g := range grantees {
		acl = editACL(acl, g, key.role, letters, gs.IsGrant, gs.GrantOption)
	}
	slices.SortFunc(acl, compareACLItems)
	if sameACLItems(acl, start) {
		delete(d.cat.defaultACLs, key)
		return
	}
	if !exists {
		entry.oid = d.cat.newOID()
	}
	entry.acl = acl
	d.cat.defaultACLs[key] = entry
}

// createdObjectACL is the access control list an object of kind that
// owner creates in schema (0 for a schema) starts with, as PostgreSQL's
// get_user_default_acl: the entry for every schema (or the built-in
// default) with the schema's entry merged in, in aclitem order; ok is
// false when that is the built-in default, which the object then has
// without a list of its own.
func (c *catalog) createdObjectACL(kind aclKind, owner, schema uint32) (acl []aclItem, ok bool) {
	all, hasAll := c.defaultACLs[defaultACLKey{owner, 0, kind}]
	one, hasOne := c.defaultACLs[defaultACLKey{owner, schema, kind}]
	if !hasAll && (schema == 0 || !hasOne) {
		return nil, false
	}
	builtin := defaultACL(kind, owner)
	acl = builtin
	if hasAll {
		acl = all.acl
	}
	acl = slices.Clone(acl)
	if schema != 0 {
		for _, item := range one.acl {
			plain, options := "", ""
			for i := 0; i < len(item.privs); i++ {
				switch {
				case item.privs[i] == '*':
				case i+1 < len(item.privs) && item.privs[i+1] == '*':
					options += item.privs[i : i+1]
				default:
					plain += item.privs[i : i+1]
				}
			}
			acl = editACL(acl, item.grantee, item.grantor, plain, true, false)
			acl = editACL(acl, item.grantee, item.grantor, options, true, true)
		}
	}
	slices.SortFunc(acl, compareACLItems)
	if sameACLItems(acl, builtin) {
		return nil, false
	}
	return acl, true
}

// applyDefaultACL gives the object of kind oid, which owner has just
// created in the schema of OID schema (0 for a schema), the list the
// default privileges set for it.
func (d *ddl) applyDefaultACL(kind aclKind, oid, owner, schema uint32) {
	if acl, ok := d.cat.createdObjectACL(kind, owner, schema); ok {
		d.cat.acls[aclKey{kind: kind, oid: oid}] = acl
	}
}

// compareACLItems orders items as PostgreSQL's aclitemsort does: by
// grantee, grantor, then privileges. Default privileges keep their lists
// so ordered.
func compareACLItems(x, y aclItem) int {
	return cmp.Or(cmp.Compare(x.grantee, y.grantee), cmp.Compare(x.grantor, y.grantor), cmp.Compare(x.privs, y.privs))
}

// sameACLItems reports whether two lists hold the same items, in any
// order (PostgreSQL sorts both before comparing).
func sameACLItems(a, b []aclItem) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, compareACLItems)
	slices.SortFunc(b, compareACLItems)
	return slices.Equal(a, b)
}

// dropSchemaACLs removes the grants on the schema of OID schema, which is
// being dropped, and the default privileges set for it.
func (c *catalog) dropSchemaACLs(schema uint32) {
	delete(c.acls, aclKey{kind: aclSchema, oid: schema})
	maps.DeleteFunc(c.defaultACLs, func(k defaultACLKey, _ defaultACLEntry) bool { return k.schema == schema })
}

// defaultACLDependency describes what role is to the entry key, as
// PostgreSQL's DROP ROLE error details do: its role ("owner of ...") or a
// grantee in it ("privileges for ..."); "" when neither.
func defaultACLDependency(c *catalog, key defaultACLKey, role uint32, roleName func(uint32) string) string {
	what := "default privileges on new " + defaultACLNoun[key.kind] + " belonging to role " + roleName(key.role)
	if key.schema != 0 {
		name, _ := namespaceName(c, key.schema)
		what += " in schema " + name
	}
	switch {
	case key.role == role:
		return "owner of " + what
	case slices.ContainsFunc(c.defaultACLs[key].acl, func(item aclItem) bool { return item.grantee == role }):
		return "privileges for " + what
	}
	return ""
}

// sortedDefaultACLKeys lists the entries in the order they were made.
func sortedDefaultACLKeys(c *catalog) []defaultACLKey {
	return slices.SortedFunc(maps.Keys(c.defaultACLs), func(a, b defaultACLKey) int {
		return cmp.Compare(c.defaultACLs[a].oid, c.defaultACLs[b].oid)
	})
}

// defaultACLRows are pg_default_acl's rows.
func defaultACLRows(s *Session, c *catalog) [][]any {
	var out [][]any
	for _, key := range sortedDefaultACLKeys(c) {
		e := c.defaultACLs[key]
		out = append(out, []any{int64(e.oid), int64(key.role), int64(key.schema), defaultACLObjType[key.kind], formatACL(s, e.acl)})
	}
	return out
}
