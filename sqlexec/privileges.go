package sqlexec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Privileges are recorded as PostgreSQL records them, in access control
// lists of (grantee, privileges) items, and answered by the has_*_privilege
// functions; statements enforce the privileges on tables, views and
// routines (privileges_check.go). An object without a list of its own has its
// kind's default, PostgreSQL's acldefault, for its owner.

// aclKind is the kind of object an access control list belongs to.
type aclKind byte

const (
	aclTable    aclKind = 'r'
	aclSequence aclKind = 's'
	aclSchema   aclKind = 'n'
	aclDatabase aclKind = 'd'
	aclType     aclKind = 'T'
	aclFunction aclKind = 'f'
	// aclColumn names the privileges of columns, which the table's ACL
	// holds.
	aclColumn aclKind = 'c'
	// Kinds fickle has no grants on, whose defaults acldefault gives
	// (pg_dump asks for them).
	aclLanguage           aclKind = 'l'
	aclLargeObject        aclKind = 'L'
	aclTablespace         aclKind = 't'
	aclForeignDataWrapper aclKind = 'F'
	aclForeignServer      aclKind = 'S'
	aclParameter          aclKind = 'p'
)

// privilegeLetters maps each privilege's name to its letter in an ACL
// item, per kind of object.
var privilegeLetters = map[aclKind]map[string]byte{
	aclTable: {"SELECT": 'r', "INSERT": 'a', "UPDATE": 'w', "DELETE": 'd', "TRUNCATE": 'D', "REFERENCES": 'x',
		"TRIGGER": 't', "RULE": 0},
	aclSequence:           {"USAGE": 'U', "SELECT": 'r', "UPDATE": 'w'},
	aclSchema:             {"CREATE": 'C', "USAGE": 'U'},
	aclDatabase:           {"CREATE": 'C', "CONNECT": 'c', "TEMPORARY": 'T', "TEMP": 'T'},
	aclType:               {"USAGE": 'U'},
	aclFunction:           {"EXECUTE": 'X'},
	aclForeignDataWrapper: {"USAGE": 'U'},
	aclForeignServer:      {"USAGE": 'U'},
	aclColumn:             {"SELECT": 'r', "INSERT": 'a', "UPDATE": 'w', "REFERENCES": 'x'},
}

// aclItem is one grant: grantee 0 is PUBLIC. privs holds the privilege
// letters, each followed by * when granted WITH GRANT OPTION.
type aclItem struct {
	grantee, grantor uint32
	privs            string
}

// aclKey names the object an access control list belongs to: for a
// column (aclColumn), oid is its table's or view's and attnum its number.
type aclKey struct {
	kind   aclKind
	oid    uint32
	attnum int16
}

// columnACL is the access control list GRANT gave column attnum of
// relation oid: nil when it has none, which grants nothing (a column's
// default list is empty).
func columnACL(c *catalog, oid uint32, attnum int16) []aclItem {
	return c.acls[aclKey{kind: aclColumn, oid: oid, attnum: attnum}]
}

// hasColumnPrivilege reports whether role holds any of the privileges on
// column attnum of relation oid: on the relation, or on the column
// through its own list, as PostgreSQL's pg_attribute_aclcheck.
func (s *Session) hasColumnPrivilege(role, oid uint32, attnum int16, privs []byte) bool {
	if s.hasPrivilege(role, aclTable, oid, privs) {
		return true
	}
	c, _ := s.catalog()
	return aclHolds(columnACL(c, oid, attnum), s.memberOf(role), privs)
}

// hasAnyColumnPrivilege reports whether role holds any of the privileges
// on the relation oid or on some column of it, as PostgreSQL's
// has_any_column_privilege and pg_attribute_aclcheck_all(ACLMASK_ANY).
func (s *Session) hasAnyColumnPrivilege(role, oid uint32, privs []byte) bool {
	return s.hasPrivilege(role, aclTable, oid, privs) || s.anyColumnACLHolds(role, oid, privs, aclHolds)
}

// hasAnyColumnGrantOption is hasGrantOption for the relation oid or some
// column of it, as has_any_column_privilege asks WITH GRANT OPTION.
func (s *Session) hasAnyColumnGrantOption(role, oid uint32, privs []byte) bool {
	return s.hasGrantOption(role, aclTable, oid, privs) || s.anyColumnACLHolds(role, oid, privs, aclHoldsOption)
}

// anyColumnACLHolds reports whether holds, aclHolds or aclHoldsOption,
// finds privs for role in the ACL of some column of the relation oid.
func (s *Session) anyColumnACLHolds(role, oid uint32, privs []byte, holds func([]aclItem, map[uint32]bool, []byte) bool) bool {
	c, _ := s.catalog()
	roles := s.memberOf(role)
	for k, acl := range c.acls {
		if k.kind == aclColumn && k.oid == oid && k.attnum > 0 && holds(acl, roles, privs) {
			return true
		}
	}
	return false
}

// aclHolds reports whether acl grants one of privs to PUBLIC or to a role
// of holds.
func aclHolds(acl []aclItem, holds map[uint32]bool, privs []byte) bool {
	for _, p := range privs {
		if p == 0 {
			continue
		}
		for _, item := range acl {
			if (item.grantee == 0 || holds[item.grantee]) && strings.IndexByte(item.privs, p) >= 0 {
				return true
			}
		}
	}
	return false
}

// defaultACL is acldefault(kind, owner).
func defaultACL(kind aclKind, owner uint32) []aclItem {
	switch kind {
	case aclTable:
		return []aclItem{{owner, owner, "arwdDxt"}}
	case aclSequence:
		return []aclItem{{owner, owner, "rwU"}}
	case aclSchema:
		return []aclItem{{owner, owner, "UC"}}
	case aclDatabase:
		return []aclItem{{0, owner, "Tc"}, {owner, owner, "CTc"}}
	case aclType:
		return []aclItem{{0, owner, "U"}, {owner, owner, "U"}}
	case aclFunction:
		return []aclItem{{0, owner, "X"}, {owner, owner, "X"}}
	case aclLanguage:
		return []aclItem{{0, owner, "U"}, {owner, owner, "U"}}
	case aclLargeObject:
		return []aclItem{{owner, owner, "rw"}}
	case aclTablespace:
		return []aclItem{{owner, owner, "C"}}
	case aclForeignDataWrapper, aclForeignServer:
		return []aclItem{{owner, owner, "U"}}
	case aclParameter:
		return []aclItem{{owner, owner, "sA"}}
	}
	return nil
}

// aclRoleName is a role as aclitem's text names it: its name, or its OID
// when no role has it.
func aclRoleName(names catalogNames, role uint32) string {
	if name, ok := names.roleName(role); ok {
		return name
	}
	return strconv.FormatUint(uint64(role), 10)
}

// formatACL writes acl as text[] (aclitem[]'s text: grantee=privileges/grantor,
// PUBLIC as an empty grantee).
func formatACL(s *Session, acl []aclItem) []any {
	names := catalogNames{s: s}
	out := make([]any, len(acl))
	for i, item := range acl {
		grantee := ""
		if item.grantee != 0 {
			grantee = aclRoleName(names, item.grantee)
		}
		out[i] = grantee + "=" + item.privs + "/" + aclRoleName(names, item.grantor)
	}
	return out
}

// objectACL is the access control list an object has: its own, or its
// kind's default.
func (s *Session) objectACL(c *catalog, kind aclKind, oid uint32) []aclItem {
	switch kind {
	case aclType:
		oid = aclTypeOID(c, oid)
	case aclDatabase:
		return s.databaseObjectACL(oid)
	}
	if acl, ok := explicitACL(c, kind, oid); ok {
		return acl
	}
	return defaultACL(kind, s.objectOwner(c, kind, oid))
}

// objectOwner is the role that owns an object: a routine's owner (which
// the routine records by name), a type's, else relationOwner's answer.
func (s *Session) objectOwner(c *catalog, kind aclKind, oid uint32) uint32 {
	switch kind {
	case aclColumn:
		kind = aclTable
	case aclDatabase:
		return s.databaseOwner(oid)
	}
	if kind == aclFunction {
		if f := c.funcByOID(oid); f != nil {
			if owner := s.routineOwner(f); owner != 0 {
				return owner
			}
		}
		return oidBootstrapSuperuser
	}
	if kind == aclType {
		if t := c.typeByOid(aclTypeOID(c, oid)); t != nil {
			return t.ownerRole()
		}
		return oidBootstrapSuperuser
	}
	if kind == aclForeignDataWrapper {
		if f := c.fdwByOID(oid); f != nil {
			return f.owner
		}
		return oidBootstrapSuperuser
	}
	if kind == aclForeignServer {
		if srv := c.serverByOID(oid); srv != nil {
			return srv.owner
		}
		return oidBootstrapSuperuser
	}
	return relationOwner(c, kind, oid)
}

// relationOwner is the role holding the default privileges of a table,
// view or sequence: the one that created it.
func relationOwner(c *catalog, kind aclKind, oid uint32) uint32 {
	if kind == aclSequence {
		if schema, name, ok := relationByOid(c, int64(oid)); ok && c.schemas[schema] != nil {
			if q := c.schemas[schema].seqs[name]; q != nil && q.role != 0 {
				return q.role
			}
		}
	}
	if kind == aclSchema {
		for _, sc := range c.schemas {
			if sc.oid == oid {
				return schemaOwner(sc)
			}
		}
	}
	if kind == aclTable {
		if t := c.tables[oid]; t != nil && t.owner != 0 {
			return t.owner
		}
		for _, sc := range c.schemas {
			for _, v := range sc.views {
				if v.oid == oid {
					return v.ownerRole()
				}
			}
		}
	}
	return oidBootstrapSuperuser
}

// ownerRole is the OID of the role that owns v.
func (v *viewDesc) ownerRole() uint32 {
	if v.owner == 0 {
		return oidBootstrapSuperuser
	}
	return v.owner
}

// explicitACL is the access control list an object was given (NULL in
// the catalog when not): schema public's, the system catalogs' and the
// built-in functions' are PostgreSQL's initial ones.
func explicitACL(c *catalog, kind aclKind, oid uint32) ([]aclItem, bool) {
	if acl, ok := c.acls[aclKey{kind: kind, oid: oid}]; ok {
		return acl, true
	}
	switch {
	case kind == aclSchema && oid == oidPublic:
		return []aclItem{{oidDatabaseOwnerRole, oidDatabaseOwnerRole, "UC"}, {0, oidDatabaseOwnerRole, "U"}}, true
	case kind == aclSchema && (oid == oidPgCatalog || oid == oidInfoSchema):
		return []aclItem{{oidBootstrapSuperuser, oidBootstrapSuperuser, "UC"}, {0, oidBootstrapSuperuser, "U"}}, true
	case kind == aclTable && oid < firstUserOID:
		if r := systemRelations().byOID[oid]; r != nil {
			return r.acl, true
		}
		return []aclItem{{oidBootstrapSuperuser, oidBootstrapSuperuser, "arwdDxt"}, {0, oidBootstrapSuperuser, "r"}}, true
	case kind == aclFunction && oid < firstUserOID:
		return builtinProcACL(oid)
	}
	return nil, false
}

// aclText is an object's access control list as the catalog shows it
// (aclitem[] as text[]: grantee=privileges/grantor, PUBLIC as an empty
// grantee), NULL when it has none of its own.
func aclText(s *Session, c *catalog, kind aclKind, oid uint32) any {
	acl, ok := explicitACL(c, kind, oid)
	if kind == aclDatabase {
		acl, ok = nil, false
		if e := s.databaseByOID(oid); e != nil {
			acl, ok = e.databaseACL()
		}
	}
	if !ok {
		return nil
	}
	return formatACL(s, acl)
}

// columnACLText is pg_attribute.attacl: the list GRANT gave column attnum
// of relation oid, NULL when it has none.
func columnACLText(s *Session, c *catalog, oid uint32, attnum int16) any {
	if acl := columnACL(c, oid, attnum); acl != nil {
		return formatACL(s, acl)
	}
	return nil
}

// schemaOwner is pg_namespace.nspowner: the role that created the schema
// or was given it; public belongs to pg_database_owner, as in PostgreSQL
// 15, the other schemas initdb makes to the bootstrap superuser.
func schemaOwner(sc *schemaDesc) uint32 {
	switch {
	case sc.owner != 0:
		return sc.owner
	case sc.oid == oidPublic:
		return oidDatabaseOwnerRole
	}
	return oidBootstrapSuperuser
}

// oidDatabaseOwnerRole is pg_database_owner, the role that stands for the
// owner of the current database.
const oidDatabaseOwnerRole = 6171

// parsePrivileges reads the privilege list of a has_*_privilege call
// ('SELECT, UPDATE WITH GRANT OPTION') as the letters asked for: privs
// those asked for plainly, options those asked for WITH GRANT OPTION; a
// privilege that exists but that no ACL records (RULE) reads as 0.
func parsePrivileges(kind aclKind, list string) (privs, options []byte, err error) {
	for _, written := range strings.Split(list, ",") {
		written = strings.TrimSpace(written)
		p := strings.ToUpper(written)
		option := strings.HasSuffix(p, " WITH GRANT OPTION")
		if option {
			p = strings.TrimSpace(strings.TrimSuffix(p, " WITH GRANT OPTION"))
			written = written[:len(p)]
		}
		letter, ok := privilegeLetters[kind][p]
		if !ok {
			return nil, nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized privilege type: \"%s\"", written)
		}
		if option {
			options = append(options, letter)
		} else {
			privs = append(privs, letter)
		}
	}
	return privs, options, nil
}

// hasGrantOption reports whether role may grant one of privs on an object,
// as PostgreSQL's aclmask answers for grant options: a superuser and the
// owner's roles always may, others through an ACL item that gives the
// privilege WITH GRANT OPTION to PUBLIC or to a role they hold.
func (s *Session) hasGrantOption(role uint32, kind aclKind, oid uint32, privs []byte) bool {
	privs = slices.DeleteFunc(slices.Clone(privs), func(p byte) bool { return p == 0 })
	if len(privs) == 0 {
		return false
	}
	c, _ := s.catalog()
	holds := s.memberOf(role)
	if s.isSuperuser(role) || holds[s.objectOwner(c, kind, oid)] {
		return true
	}
	return aclHoldsOption(s.objectACL(c, kind, oid), holds, privs)
}

// aclHoldsOption reports whether acl grants one of privs WITH GRANT
// OPTION to PUBLIC or to a role of holds.
func aclHoldsOption(acl []aclItem, holds map[uint32]bool, privs []byte) bool {
	for _, p := range privs {
		for _, item := range acl {
			if (item.grantee == 0 || holds[item.grantee]) && strings.Contains(item.privs, string(p)+"*") {
				return true
			}
		}
	}
	return false
}

// hasPrivilege reports whether role holds any of the privileges on an
// object: a superuser holds them all, others through the object's ACL
// (grants to the role, to the roles it belongs to, or to PUBLIC). An OID
// that names no role holds what PUBLIC holds, as in PostgreSQL.
func (s *Session) hasPrivilege(role uint32, kind aclKind, oid uint32, privs []byte) bool {
	if s.isSuperuser(role) {
		return slices.ContainsFunc(privs, func(p byte) bool { return p != 0 })
	}
	c, _ := s.catalog()
	holds := s.memberOf(role)
	if aclHolds(s.objectACL(c, kind, oid), holds, privs) {
		return true
	}
	return slices.ContainsFunc(privs, func(p byte) bool { return p != 0 && dataRoleGrants(holds, kind, p) })
}

// OIDs of the predefined roles that hold privileges on every relation.
const (
	oidPgReadAllData  = 6181
	oidPgWriteAllData = 6182
)

// dataRoleGrants reports whether the roles held give privilege p on every
// object of kind, as PostgreSQL's predefined roles do: pg_read_all_data
// SELECT on relations, pg_write_all_data INSERT, UPDATE and DELETE, and
// both USAGE on schemas.
func dataRoleGrants(holds map[uint32]bool, kind aclKind, p byte) bool {
	switch {
	case kind == aclSchema:
		return p == 'U' && (holds[oidPgReadAllData] || holds[oidPgWriteAllData])
	case kind != aclTable && kind != aclSequence:
		return false
	case p == 'r':
		return holds[oidPgReadAllData]
	}
	return strings.IndexByte("awd", p) >= 0 && holds[oidPgWriteAllData]
}

// isSuperuser reports whether role is a superuser. The bootstrap
// superuser, whom most test suites connect as, always is: the answer for it
// needs no role list, which hasPrivilege asks for on every statement.
func (s *Session) isSuperuser(role uint32) bool {
	if role == oidBootstrapSuperuser {
		return true
	}
	for _, x := range s.roles() {
		if x.oid == role {
			return x.super
		}
	}
	return false
}

// privilegeObject resolves the object argument of a has_*_privilege
// function: a name as text (its lookup's error when it names nothing) or
// an OID (ok false when it names nothing: the answer is NULL).
type privilegeObject func(x *execCtx, arg any) (oid uint32, ok bool, err error)

func init() {
	textArray, _ := types.ArrayOf(types.Text)
	addSysFunc("acldefault", sysFunc{args: []types.Type{types.Char, types.OidType}, result: textArray,
		eval: func(x *execCtx, a []any) (any, error) {
			kind := aclKind(a[0].(string)[0])
			if kind != aclColumn && defaultACL(kind, 0) == nil {
				return nil, pgerror.Newf(pgerror.InternalError, "unrecognized object type abbreviation: %c", kind)
			}
			return formatACL(x.s, defaultACL(kind, uint32(a[1].(int64)))), nil
		}})
	names := func(x *execCtx) catalogNames { return catalogNames{s: x.s} }
	c := func(x *execCtx) *catalog {
		cat, _ := x.s.catalog()
		return cat
	}
	relation := func(x *execCtx, arg any) (uint32, bool, error) {
		var oid int64
		if name, isName := arg.(string); isName {
			var err error
			if oid, err = names(x).RelationOid(name); err != nil {
				return 0, false, err
			}
		} else {
			oid = arg.(int64)
		}
		_, _, ok := relationByOid(c(x), oid)
		return uint32(oid), ok, nil
	}
	// A sequence's privileges are asked of a sequence: PostgreSQL reads
	// the privileges first, then the relation, then checks its kind.
	sequence := func(x *execCtx, oid uint32) error {
		schema, rel, _ := relationByOid(c(x), int64(oid))
		if kind, _ := relationKindIn(c(x), []string{schema}, rel); kind != relSequence {
			return pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", rel)
		}
		return nil
	}
	byName := func(lookup func(x *execCtx, name string) (int64, error), exists func(x *execCtx, oid uint32) bool) privilegeObject {
		return func(x *execCtx, arg any) (uint32, bool, error) {
			if name, isName := arg.(string); isName {
				oid, err := lookup(x, name)
				return uint32(oid), err == nil, err
			}
			oid := uint32(arg.(int64))
			return oid, exists(x, oid), nil
		}
	}
	schema := byName(func(x *execCtx, name string) (int64, error) {
		if oid, ok := namespaceByName(c(x), name); ok {
			return int64(oid), nil
		}
		return 0, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
	}, func(x *execCtx, oid uint32) bool { _, ok := namespaceName(c(x), oid); return ok })
	database := byName(func(x *execCtx, name string) (int64, error) {
		if e := x.s.engine.cluster.database(name); e != nil {
			return int64(e.oid), nil
		}
		return 0, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
	}, func(x *execCtx, oid uint32) bool { return x.s.engine.cluster.databaseByOID(oid) != nil })
	// Types and functions are named as regtype and regprocedure read them
	// (PostgreSQL calls their input functions), so a number is an OID.
	regInput := func(t types.Type) func(x *execCtx, name string) (int64, error) {
		return func(x *execCtx, name string) (int64, error) {
			v, err := x.s.ParseText(t, name)
			if err != nil {
				return 0, err
			}
			return v.(int64), nil
		}
	}
	typ := byName(regInput(types.Regtype), func(x *execCtx, oid uint32) bool { _, ok := names(x).typeName(oid, -1); return ok })
	function := byName(regInput(types.Regprocedure), func(x *execCtx, oid uint32) bool { return builtinIndex().procs[oid] != nil })

	addPrivilegeFunc("has_table_privilege", aclTable, relation, false, nil)
	addPrivilegeFunc("has_sequence_privilege", aclSequence, relation, true, sequence)
	addPrivilegeFunc("has_any_column_privilege", aclColumn, relation, false, nil)
	addPrivilegeFunc("has_schema_privilege", aclSchema, schema, false, nil)
	addPrivilegeFunc("has_database_privilege", aclDatabase, database, false, nil)
	addPrivilegeFunc("has_type_privilege", aclType, typ, false, nil)
	addPrivilegeFunc("has_function_privilege", aclFunction, function, false, nil)
	addColumnPrivilegeFunc(relation)
}

// addColumnPrivilegeFunc registers has_column_privilege's forms: those of
// addPrivilegeFunc with a column (by name or number) after the table. A
// privilege on the table is one on each of its columns; the column's own
// list may grant it too.
func addColumnPrivilegeFunc(table privilegeObject) {
	check := func(x *execCtx, role uint32, tab, col any, priv string) (any, error) {
		// PostgreSQL's order: the table, the column, then the privileges;
		// a table or column number that names nothing answers NULL.
		oid, ok, err := table(x, tab)
		if err != nil {
			return nil, err
		}
		found := ok
		var attnum int16
		if ok {
			cat, _ := x.s.catalog()
			rel, cols, err := relationColumns(cat, oid)
			if err != nil {
				return nil, err
			}
			if t := cat.tables[oid]; t != nil && t.oid == oid {
				// A table's system columns, numbered from -1 down.
				for i, name := range systemColumnNames {
					cols[int64(-i-1)] = name
				}
			}
			switch c := col.(type) {
			case string:
				named := false
				for num, n := range cols {
					if n == c {
						named, attnum = true, int16(num)
					}
				}
				if t := cat.tables[oid]; !named && t != nil && slices.ContainsFunc(t.droppedCols, func(d *columnDesc) bool {
					return c == fmt.Sprintf("........pg.dropped.%d........", d.attnum)
				}) {
					found = false // a dropped column, by the name pg_attribute gives it: NULL
					break
				}
				if !named {
					return nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, rel)
				}
			case int64:
				_, found = cols[c]
				attnum = int16(c)
			}
		}
		privs, options, err := parsePrivileges(aclColumn, priv)
		if err != nil || !found {
			return nil, err
		}
		if x.s.hasColumnPrivilege(role, oid, attnum, privs) || x.s.hasGrantOption(role, aclTable, oid, options) {
			return true, nil
		}
		cat, _ := x.s.catalog()
		return aclHoldsOption(columnACL(cat, oid, attnum), x.s.memberOf(role), options), nil
	}
	text, oid := types.Text, types.OidType
	for _, tabType := range []types.Type{text, oid} {
		for _, colType := range []types.Type{text, types.Int2} {
			addSysFunc("has_column_privilege", sysFunc{args: []types.Type{tabType, colType, text}, result: types.Bool,
				eval: func(x *execCtx, a []any) (any, error) { return check(x, x.s.currentRole(), a[0], a[1], a[2].(string)) }})
			addSysFunc("has_column_privilege", sysFunc{args: []types.Type{types.Name, tabType, colType, text}, result: types.Bool,
				eval: func(x *execCtx, a []any) (any, error) {
					role, err := privilegeRoleNamed(x.s, a[0].(string))
					if err != nil {
						return nil, err
					}
					return check(x, role, a[1], a[2], a[3].(string))
				}})
			addSysFunc("has_column_privilege", sysFunc{args: []types.Type{oid, tabType, colType, text}, result: types.Bool,
				eval: func(x *execCtx, a []any) (any, error) {
					return check(x, uint32(a[0].(int64)), a[1], a[2], a[3].(string))
				}})
		}
	}
}

// privilegeRoleNamed resolves the role argument of a has_*_privilege call
// given by name: "public" is the PUBLIC pseudo-role (OID 0, which holds
// what is granted to PUBLIC), as PostgreSQL's get_role_oid_or_public.
func privilegeRoleNamed(s *Session, name string) (uint32, error) {
	if name == "public" {
		return 0, nil
	}
	oid, err := catalogNames{s: s}.roleOID(types.QuoteIdent(name))
	return uint32(oid), err
}

// addPrivilegeFunc registers a has_*_privilege function in PostgreSQL's
// six forms: (object, privilege) for the current user, and (role,
// object, privilege) with the role by name or OID, each with the object
// by name or OID. PostgreSQL looks an object named by text up before it
// reads the privileges and one given by OID after, except where
// privilegesFirst says it reads them first; verify, when set, checks the
// object at the end.
func addPrivilegeFunc(name string, kind aclKind, object privilegeObject, privilegesFirst bool, verify func(x *execCtx, oid uint32) error) {
	check := func(x *execCtx, role uint32, obj any, priv string) (any, error) {
		_, byName := obj.(string)
		byName = byName && !privilegesFirst
		var oid uint32
		var ok bool
		var err error
		if byName {
			if oid, ok, err = object(x, obj); err != nil {
				return nil, err
			}
		}
		privs, options, err := parsePrivileges(kind, priv)
		if err != nil {
			return nil, err
		}
		if !byName {
			if oid, ok, err = object(x, obj); err != nil {
				return nil, err
			}
		}
		if !ok {
			return nil, nil
		}
		if verify != nil {
			if err := verify(x, oid); err != nil {
				return nil, err
			}
		}
		if kind == aclColumn {
			return x.s.hasAnyColumnPrivilege(role, oid, privs) || x.s.hasAnyColumnGrantOption(role, oid, options), nil
		}
		return x.s.hasPrivilege(role, kind, oid, privs) || x.s.hasGrantOption(role, kind, oid, options), nil
	}
	text, oid := types.Text, types.OidType
	for _, objType := range []types.Type{text, oid} {
		addSysFunc(name, sysFunc{args: []types.Type{objType, text}, result: types.Bool, eval: func(x *execCtx, a []any) (any, error) {
			return check(x, x.s.currentRole(), a[0], a[1].(string))
		}})
		addSysFunc(name, sysFunc{args: []types.Type{types.Name, objType, text}, result: types.Bool, eval: func(x *execCtx, a []any) (any, error) {
			role, err := privilegeRoleNamed(x.s, a[0].(string))
			if err != nil {
				return nil, err
			}
			return check(x, role, a[1], a[2].(string))
		}})
		addSysFunc(name, sysFunc{args: []types.Type{oid, objType, text}, result: types.Bool, eval: func(x *execCtx, a []any) (any, error) {
			return check(x, uint32(a[0].(int64)), a[1], a[2].(string))
		}})
	}
}

// relationColumns names relation oid and lists its columns by attribute
// number: a table's, a view's, a sequence's, or a system relation's that
// fickle serves; other relations' columns are not known (0A000). An OID
// that names no relation gives no name.
func relationColumns(c *catalog, oid uint32) (string, map[int64]string, error) {
	numbered := func(names []string) map[int64]string {
		out := make(map[int64]string, len(names))
		for i, n := range names {
			out[int64(i+1)] = n
		}
		return out
	}
	if t := c.tables[oid]; t != nil && t.oid == oid {
		cols := make(map[int64]string, len(t.cols))
		for _, col := range t.cols {
			cols[int64(col.attnum)] = col.name
		}
		return t.name, cols, nil
	}
	if r := systemRelations().byOID[oid]; r != nil {
		if vt := virtualTableFor(r.schema, r.name, nil); vt != nil {
			names := make([]string, len(vt.cols))
			for i, col := range vt.cols {
				names[i] = col.name
			}
			return r.name, numbered(names), nil
		}
		return "", nil, pgerror.Unsupported("the columns of system relation " + r.name)
	}
	schema, name, ok := relationByOid(c, int64(oid))
	if !ok {
		return "", nil, nil
	}
	if sc := c.schemas[schema]; sc != nil {
		if v := sc.views[name]; v != nil {
			names := make([]string, len(v.cols))
			for i, col := range v.cols {
				names[i] = col.name
			}
			return name, numbered(names), nil
		}
		if sc.seqs[name] != nil {
			return name, numbered([]string{"last_value", "log_cnt", "is_called"}), nil
		}
	}
	return "", nil, pgerror.Unsupported("the columns of relation " + name)
}
