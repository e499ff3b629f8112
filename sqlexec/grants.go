package sqlexec

import (
	"maps"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// GRANT and REVOKE of privileges on tables, views, sequences, schemas,
// routines, types and databases edit the objects' access control lists
// as PostgreSQL's do, starting from the kind's default (or what ALTER
// DEFAULT PRIVILEGES set, default_privileges.go); the lists show in relacl,
// nspacl, proacl, typacl and datacl and answer has_*_privilege. Statements
// enforce those on tables, views and routines (privileges_check.go) and on
// types (type_privileges.go).

// aclLetters is the order PostgreSQL prints privilege letters in.
const aclLetters = "arwdDxtXUCTc"

// allPrivileges are the letters GRANT ALL gives on each kind of object.
var allPrivileges = map[aclKind]string{aclTable: "arwdDxt", aclSequence: "rwU", aclSchema: "UC", aclDatabase: "CTc", aclFunction: "X",
	aclColumn: "arwx", aclType: "U", aclForeignDataWrapper: "U", aclForeignServer: "U"}

// grantKinds are the kinds of object GRANT and REVOKE edit, by the object
// type the statement names.
var grantKinds = map[pg_query.ObjectType]aclKind{pg_query.ObjectType_OBJECT_TABLE: aclTable, pg_query.ObjectType_OBJECT_SEQUENCE: aclSequence,
	pg_query.ObjectType_OBJECT_SCHEMA: aclSchema, pg_query.ObjectType_OBJECT_DATABASE: aclDatabase,
	pg_query.ObjectType_OBJECT_FUNCTION: aclFunction, pg_query.ObjectType_OBJECT_PROCEDURE: aclFunction, pg_query.ObjectType_OBJECT_ROUTINE: aclFunction,
	pg_query.ObjectType_OBJECT_TYPE: aclType, pg_query.ObjectType_OBJECT_DOMAIN: aclType,
	pg_query.ObjectType_OBJECT_FDW: aclForeignDataWrapper, pg_query.ObjectType_OBJECT_FOREIGN_SERVER: aclForeignServer}

func (d *ddl) grant(gs *pg_query.GrantStmt) error {
	if gs.Objtype == pg_query.ObjectType_OBJECT_LARGEOBJECT {
		return d.grantLargeObjects(gs)
	}
	kind, ok := grantKinds[gs.Objtype]
	if !ok {
		return pgerror.Unsupported("GRANT and REVOKE on " + strings.ToLower(strings.TrimPrefix(gs.Objtype.String(), "OBJECT_")) + "s")
	}
	objects, err := d.grantObjects(gs, kind)
	if err != nil {
		return err
	}
	role := d.s.currentRole()
	if err := d.checkGrantor(gs); err != nil {
		return err
	}
	grantees, err := d.grantees(gs)
	if err != nil {
		return err
	}
	for _, obj := range objects {
		letters, colPrivs, err := d.privilegeLetters(gs, obj.kind)
		if err != nil {
			return err
		}
		relACL := d.s.objectACL(d.cat, obj.kind, obj.oid)
		if letters != "" || len(colPrivs) == 0 {
			grantor, letters, err := d.grantableLetters(gs, obj, role, letters)
			if err != nil {
				return err
			}
			key := aclKey{kind: obj.kind, oid: obj.oid}
			acl, err := d.editGrants(gs, obj, slices.Clone(relACL), grantees, grantor, letters)
			if err != nil {
				return err
			}
			if obj.kind == aclFunction && obj.oid < firstUserOID {
				if err := requireBuiltinPublicExecute(obj.oid, relACL, acl); err != nil {
					return err
				}
			}
			if obj.kind == aclDatabase {
				d.setDatabaseACL(d.s.databaseByOID(obj.oid), acl)
			} else {
				d.cat.acls[key] = acl
			}
		}
		if err := d.grantColumns(gs, obj, role, grantees, relACL, letters, colPrivs); err != nil {
			return err
		}
	}
	return nil
}

// editGrants grants (or revokes) the privilege letters to (from) each of
// grantees, by grantor, in acl, the list of obj (a column's for
// aclColumn), following a REVOKE to the privileges granted on with the
// grant options it took (revokeDependent).
func (d *ddl) editGrants(gs *pg_query.GrantStmt, obj aclObject, acl []aclItem, grantees []uint32, grantor uint32, letters string) ([]aclItem, error) {
	owner := d.s.objectOwner(d.cat, obj.kind, obj.oid)
	for _, g := range grantees {
		before := grantOptions(acl, g, grantor)
		acl = editACL(acl, g, grantor, letters, gs.IsGrant, gs.GrantOption)
		if lost := withoutLetters(before, grantOptions(acl, g, grantor)); !gs.IsGrant && g != 0 && lost != "" {
			var err error
			if acl, err = d.revokeDependent(acl, g, lost, owner, gs.Behavior == pg_query.DropBehavior_DROP_CASCADE); err != nil {
				return nil, err
			}
		}
	}
	return acl, nil
}

// columnPrivilege is a privilege a GRANT or REVOKE names with a column
// list: SELECT (a, b), ALL (a).
type columnPrivilege struct {
	letters string
	cols    []string
}

// grantColumns runs the column part of a GRANT or REVOKE on relation obj
// as PostgreSQL's ExecGrant_Relation and ExecGrant_Attribute: the
// privileges named with columns, and, revoking, the table privileges
// that are column privileges too (tableLetters), which a REVOKE takes from
// every column as well. Each column's list starts empty; who may grant
// on it is decided from the relation's list before the statement (relACL)
// and the column's together.
func (d *ddl) grantColumns(gs *pg_query.GrantStmt, obj aclObject, role uint32, grantees []uint32, relACL []aclItem, tableLetters string, colPrivs []columnPrivilege) error {
	if len(colPrivs) > 0 && obj.kind != aclTable {
		return pgerror.Unsupported("column privileges on sequences")
	}
	implied := ""
	if !gs.IsGrant && obj.kind == aclTable {
		implied = withoutLetters(tableLetters, withoutLetters(tableLetters, allPrivileges[aclColumn]))
	}
	if implied == "" && len(colPrivs) == 0 {
		return nil
	}
	relation, cols, err := relationColumns(d.cat, obj.oid)
	if err != nil {
		return err
	}
	if t := d.cat.tables[obj.oid]; t != nil && t.oid == obj.oid {
		// A table's system columns, numbered from -1 down: a REVOKE of
		// the table's privileges reaches them too.
		for i, name := range systemColumnNames {
			cols[int64(-i-1)] = name
		}
	}
	asked := map[int16]string{}
	if implied != "" {
		for num := range cols {
			asked[int16(num)] = implied
		}
	}
	for _, cp := range colPrivs {
		for _, name := range cp.cols {
			var attnum int16
			for num, col := range cols {
				if col == name {
					attnum = int16(num)
				}
			}
			if attnum < 0 {
				return pgerror.Unsupported("column privileges on system columns")
			}
			if attnum == 0 {
				return pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, relation)
			}
			asked[attnum] = unionPrivileges(asked[attnum], cp.letters)
		}
	}
	for _, attnum := range slices.Sorted(maps.Keys(asked)) {
		key := aclKey{kind: aclColumn, oid: obj.oid, attnum: attnum}
		grantor, letters, err := d.grantableColumnLetters(gs, obj, role, relACL, attnum, relation, cols[int64(attnum)], asked[attnum])
		if err != nil {
			return err
		}
		acl, err := d.editGrants(gs, aclObject{aclColumn, obj.oid}, slices.Clone(d.cat.acls[key]), grantees, grantor, letters)
		if err != nil {
			return err
		}
		if len(acl) == 0 {
			delete(d.cat.acls, key)
		} else {
			d.cat.acls[key] = acl
		}
	}
	return nil
}

// grantableColumnLetters is grantableLetters for a column: what role may
// grant or revoke of the letters on column attnum (called column) of
// relation, from the grant options it holds on the relation or the
// column, with the column's warnings, and 42501 for the column when it
// holds no column privilege on either.
func (d *ddl) grantableColumnLetters(gs *pg_query.GrantStmt, obj aclObject, role uint32, relACL []aclItem, attnum int16, relation, column, letters string) (uint32, string, error) {
	owner := d.s.objectOwner(d.cat, obj.kind, obj.oid)
	if d.s.isSuperuser(role) || d.s.memberOf(role)[owner] {
		return owner, letters, nil
	}
	merged := append(slices.Clone(relACL), columnACL(d.cat, obj.oid, attnum)...)
	options := ""
	for _, item := range merged {
		if item.grantee == role {
			options = unionPrivileges(options, grantOptions([]aclItem{item}, role, item.grantor))
		}
	}
	all := allPrivileges[aclColumn]
	if options == "" && !aclHolds(merged, d.s.memberOf(role), []byte(all)) {
		return 0, "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for column \"%s\" of relation \"%s\"", column, relation)
	}
	granted := withoutLetters(letters, withoutLetters(letters, options))
	allAsked := len(letters) == len(all)
	switch {
	case gs.IsGrant && granted == "":
		d.warning(pgerror.WarningPrivilegeNotGranted, "no privileges were granted for column \"%s\" of relation \"%s\"", column, relation)
	case gs.IsGrant && !allAsked && granted != letters:
		d.warning(pgerror.WarningPrivilegeNotGranted, "not all privileges were granted for column \"%s\" of relation \"%s\"", column, relation)
	case !gs.IsGrant && granted == "":
		d.warning(pgerror.WarningPrivilegeNotRevoked, "no privileges could be revoked for column \"%s\" of relation \"%s\"", column, relation)
	case !gs.IsGrant && !allAsked && granted != letters:
		d.warning(pgerror.WarningPrivilegeNotRevoked, "not all privileges could be revoked for column \"%s\" of relation \"%s\"", column, relation)
	}
	return role, granted, nil
}

// grantees resolves the roles a GRANT or REVOKE names, PUBLIC as 0.
func (d *ddl) grantees(gs *pg_query.GrantStmt) ([]uint32, error) {
	out, err := d.roleOIDs(gs.Grantees)
	if err == nil && gs.IsGrant && gs.GrantOption && slices.Contains(out, 0) {
		return nil, pgerror.New(pgerror.InvalidGrantOperation, "grant options can only be granted to roles")
	}
	return out, err
}

// roleOIDs resolves role specifications, PUBLIC as 0.
func (d *ddl) roleOIDs(specs []*pg_query.Node) ([]uint32, error) {
	var out []uint32
	for _, n := range specs {
		spec := n.GetRoleSpec()
		name := d.s.roleSpecName(spec.Roletype.String(), spec.Rolename)
		if name == "" {
			out = append(out, 0)
			continue
		}
		r := d.s.roleNamed(name)
		if r == nil {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
		}
		out = append(out, r.oid)
	}
	return out, nil
}

// grantableLetters restricts a GRANT or REVOKE by role of the privilege
// letters on obj to what role may grant, as PostgreSQL's
// restrict_and_check_grant does: everything, as the owner, for a superuser
// or a member of the owner's role; otherwise the privileges it holds with
// the grant option, as itself, with a warning for the others, and 42501
// when it holds no privilege at all on the object.
func (d *ddl) grantableLetters(gs *pg_query.GrantStmt, obj aclObject, role uint32, letters string) (grantor uint32, granted string, err error) {
	name := aclObjectName(d, obj)
	return d.restrictGrant(gs, d.s.objectOwner(d.cat, obj.kind, obj.oid), d.s.objectACL(d.cat, obj.kind, obj.oid), role, letters, name,
		func() bool { return d.s.hasPrivilege(role, obj.kind, obj.oid, []byte(allPrivileges[obj.kind])) },
		func() error {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for %s %s", aclKindNoun[obj.kind], name)
		})
}

// restrictGrant is restrict_and_check_grant over an object's owner and
// ACL: a superuser or a member of the owner's role grants everything as
// the owner; another role the privileges it holds with the grant option,
// as itself, with PostgreSQL's warnings for the others naming the object
// name, and denied's error when holdsAny says it holds no privilege on it.
func (d *ddl) restrictGrant(gs *pg_query.GrantStmt, owner uint32, acl []aclItem, role uint32, letters, name string,
	holdsAny func() bool, denied func() error) (grantor uint32, granted string, err error) {
	if d.s.isSuperuser(role) || d.s.memberOf(role)[owner] {
		return owner, letters, nil
	}
	var options []byte
	for _, item := range acl {
		if item.grantee != role {
			continue
		}
		for i := 0; i+1 < len(item.privs); i++ {
			if item.privs[i+1] == '*' {
				options = append(options, item.privs[i])
			}
		}
	}
	if len(options) == 0 && !holdsAny() {
		return 0, "", denied()
	}
	var b strings.Builder
	for i := 0; i < len(letters); i++ {
		if strings.IndexByte(string(options), letters[i]) >= 0 {
			b.WriteByte(letters[i])
		}
	}
	granted = b.String()
	all := len(gs.Privileges) == 0
	switch {
	case gs.IsGrant && granted == "":
		d.warning(pgerror.WarningPrivilegeNotGranted, "no privileges were granted for \"%s\"", name)
	case gs.IsGrant && !all && granted != letters:
		d.warning(pgerror.WarningPrivilegeNotGranted, "not all privileges were granted for \"%s\"", name)
	case !gs.IsGrant && granted == "":
		d.warning(pgerror.WarningPrivilegeNotRevoked, "no privileges could be revoked for \"%s\"", name)
	case !gs.IsGrant && !all && granted != letters:
		d.warning(pgerror.WarningPrivilegeNotRevoked, "not all privileges could be revoked for \"%s\"", name)
	}
	return role, granted, nil
}

// aclKindNoun names a kind of object in PostgreSQL's "permission denied
// for ..." messages.
var aclKindNoun = map[aclKind]string{aclTable: "table", aclSequence: "sequence", aclSchema: "schema", aclDatabase: "database",
	aclFunction: "function", aclType: "type", aclForeignDataWrapper: "foreign-data wrapper", aclForeignServer: "foreign server"}

// aclObjectName is the name of obj as PostgreSQL's GRANT messages give it.
func aclObjectName(d *ddl, obj aclObject) string {
	switch obj.kind {
	case aclSchema:
		for name, sc := range d.cat.schemas {
			if sc.oid == obj.oid {
				return name
			}
		}
	case aclDatabase:
		return d.s.databaseByOID(obj.oid).Name()
	case aclFunction:
		if p := builtinIndex().procs[obj.oid]; p != nil && obj.oid < firstUserOID {
			return p.name
		}
		return d.cat.funcByOID(obj.oid).name
	case aclType:
		return d.cat.typeByOid(obj.oid).name
	case aclForeignDataWrapper:
		return d.cat.fdwByOID(obj.oid).name
	case aclForeignServer:
		return d.cat.serverByOID(obj.oid).name
	}
	_, name, _ := relationByOid(d.cat, int64(obj.oid))
	return name
}

// dropRelationACL forgets the grants on a table, view or sequence that is
// being dropped, and on its columns, as PostgreSQL's grants go with their
// object.
func (c *catalog) dropRelationACL(oid uint32) {
	delete(c.acls, aclKey{kind: aclTable, oid: oid})
	delete(c.acls, aclKey{kind: aclSequence, oid: oid})
	maps.DeleteFunc(c.acls, func(k aclKey, _ []aclItem) bool { return k.kind == aclColumn && k.oid == oid })
}

// aclObject is an object a GRANT names.
type aclObject struct {
	kind aclKind
	oid  uint32
}

// grantObjects resolves the objects of a GRANT or REVOKE. A sequence named
// as a table takes sequence privileges, as in PostgreSQL.
func (d *ddl) grantObjects(gs *pg_query.GrantStmt, kind aclKind) ([]aclObject, error) {
	var out []aclObject
	for _, n := range gs.Objects {
		switch kind {
		case aclSchema:
			name := n.GetString_().GetSval()
			sc := d.cat.schemas[name]
			if sc == nil {
				return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			if gs.Targtype == pg_query.GrantTargetType_ACL_TARGET_OBJECT {
				out = append(out, aclObject{aclSchema, sc.oid})
				continue
			}
			return nil, pgerror.Unsupported("GRANT ON ALL ... IN SCHEMA of this kind")
		case aclDatabase:
			name := n.GetString_().GetSval()
			e := d.s.engine.cluster.database(name)
			if e == nil {
				return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
			}
			out = append(out, aclObject{aclDatabase, e.oid})
		case aclFunction:
			fs, err := d.grantRoutines(gs, n)
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
		case aclType:
			t, err := d.grantTypes(gs, n)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		case aclForeignDataWrapper:
			f, err := d.lookupFDW(n.GetString_().GetSval())
			if err != nil {
				return nil, err
			}
			out = append(out, aclObject{aclForeignDataWrapper, f.oid})
		case aclForeignServer:
			srv, err := d.lookupServer(n.GetString_().GetSval())
			if err != nil {
				return nil, err
			}
			out = append(out, aclObject{aclForeignServer, srv.oid})
		default:
			if gs.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
				name := n.GetString_().GetSval()
				sc := d.cat.schemas[name]
				if sc == nil {
					return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
				}
				for _, r := range relationRows(d.cat) {
					if r.namespace != int64(sc.oid) {
						continue
					}
					if kind == aclSequence && r.kind == "S" || kind == aclTable && (r.kind == "r" || r.kind == "p" || r.kind == "v" || r.kind == "f") {
						out = append(out, aclObject{kind, r.oid})
					}
				}
				continue
			}
			rv := n.GetRangeVar()
			path := d.s.searchPath()
			if rv.Schemaname != "" {
				path = []string{rv.Schemaname}
			}
			oid, relKind, ok := relationLookup(d.cat, path, rv.Relname)
			if !ok || relKind == relIndex {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "relation \"%s\" does not exist", qualName(rv))
			}
			if oid < firstUserOID {
				return nil, pgerror.Unsupported("GRANT and REVOKE on system catalogs")
			}
			switch {
			case relKind == relSequence:
				out = append(out, aclObject{aclSequence, uint32(oid)})
			case kind == aclSequence:
				return nil, pgerror.Newf(pgerror.WrongObjectType, "\"%s\" is not a sequence", rv.Relname)
			default:
				out = append(out, aclObject{aclTable, uint32(oid)})
			}
		}
	}
	return out, nil
}

// privilegeLetters reads a GRANT's privilege list for an object kind;
// ALL is every privilege of the kind. The privileges named with columns
// come apart, each with its columns.
func (d *ddl) privilegeLetters(gs *pg_query.GrantStmt, kind aclKind) (string, []columnPrivilege, error) {
	if len(gs.Privileges) == 0 {
		return allPrivileges[kind], nil, nil
	}
	var out []byte
	var cols []columnPrivilege
	for _, n := range gs.Privileges {
		ap := n.GetAccessPriv()
		name := strings.ToUpper(ap.PrivName)
		if len(ap.Cols) > 0 {
			if gs.Objtype != pg_query.ObjectType_OBJECT_TABLE {
				return "", nil, pgerror.New(pgerror.InvalidGrantOperation, "column privileges are only valid for relations")
			}
			letters := allPrivileges[aclColumn]
			if name != "" {
				letter := privilegeLetters[aclColumn][name]
				if letter == 0 {
					return "", nil, pgerror.Newf(pgerror.InvalidGrantOperation, "invalid privilege type %s for column", name)
				}
				letters = string(letter)
			}
			cols = append(cols, columnPrivilege{letters: letters, cols: strs(ap.Cols)})
			continue
		}
		letter, ok := privilegeLetters[kind][name]
		if !ok || letter == 0 {
			return "", nil, pgerror.Newf(pgerror.InvalidGrantOperation, "invalid privilege type %s for %s", name, privilegeTarget(gs.Objtype, kind))
		}
		out = append(out, letter)
	}
	return string(out), cols, nil
}

// privilegeTarget names the kind of object in the message of a privilege
// it does not have: "relation" for tables and views, the routine kind the
// statement names for routines.
func privilegeTarget(objType pg_query.ObjectType, kind aclKind) string {
	switch kind {
	case aclTable:
		return "relation"
	case aclFunction, aclType:
		return strings.ToLower(strings.TrimPrefix(objType.String(), "OBJECT_"))
	}
	return aclKindNoun[kind]
}

// grantRoutines resolves a routine a GRANT or REVOKE names, or, for ALL
// FUNCTIONS | PROCEDURES | ROUTINES IN SCHEMA, the schema's routines of
// that kind. A name that reaches a built-in function names it
// (builtin_function_privileges.go).
func (d *ddl) grantRoutines(gs *pg_query.GrantStmt, n *pg_query.Node) ([]aclObject, error) {
	if gs.Targtype == pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
		name := n.GetString_().GetSval()
		sc := d.cat.schemas[name]
		if sc == nil {
			return nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", name)
		}
		var out []aclObject
		for _, f := range sortedFuncs(d.cat) {
			procedure := f.kind == 'p'
			if f.schema == name && (gs.Objtype == pg_query.ObjectType_OBJECT_ROUTINE ||
				procedure == (gs.Objtype == pg_query.ObjectType_OBJECT_PROCEDURE)) {
				out = append(out, aclObject{aclFunction, f.oid})
			}
		}
		return out, nil
	}
	if p := d.grantBuiltinRoutine(gs, n.GetObjectWithArgs()); p != nil {
		return []aclObject{{aclFunction, p.oid}}, nil
	}
	f, err := d.findRoutine(n.GetObjectWithArgs(), gs.Objtype, false, false)
	if err != nil {
		return nil, err
	}
	return []aclObject{{aclFunction, f.oid}}, nil
}

// grantOptions lists the privilege letters the item of acl from grantor
// to grantee holds with the grant option.
func grantOptions(acl []aclItem, grantee, grantor uint32) string {
	var b strings.Builder
	for _, item := range acl {
		if item.grantee != grantee || item.grantor != grantor {
			continue
		}
		for i := 0; i+1 < len(item.privs); i++ {
			if item.privs[i+1] == '*' {
				b.WriteByte(item.privs[i])
			}
		}
	}
	return b.String()
}

// withoutLetters is the letters of from that are not in remove.
func withoutLetters(from, remove string) string {
	var b strings.Builder
	for i := 0; i < len(from); i++ {
		if strings.IndexByte(remove, from[i]) < 0 {
			b.WriteByte(from[i])
		}
	}
	return b.String()
}

// revokeDependent follows a REVOKE that took from grantee the grant
// options lost, as PostgreSQL's recursive_revoke: the privileges grantee
// granted on with them, unless it still holds those options through
// another grant (or owns the object), are dependent; without CASCADE
// they make the REVOKE fail with 2BP01, with it they are revoked too, and
// what their grantees granted in turn.
func (d *ddl) revokeDependent(acl []aclItem, grantee uint32, lost string, owner uint32, cascade bool) ([]aclItem, error) {
	if grantee == owner {
		return acl, nil
	}
	holds := d.s.memberOf(grantee)
	for _, item := range acl {
		if item.grantee == 0 || holds[item.grantee] {
			lost = withoutLetters(lost, grantOptions([]aclItem{item}, item.grantee, item.grantor))
		}
	}
	for lost != "" {
		idx := slices.IndexFunc(acl, func(item aclItem) bool {
			return item.grantor == grantee && strings.ContainsAny(strings.ReplaceAll(item.privs, "*", ""), lost)
		})
		if idx < 0 {
			break
		}
		if !cascade {
			return nil, pgerror.New(pgerror.DependentObjectsStillExist, "dependent privileges exist").
				WithHint("Use CASCADE to revoke them too.")
		}
		next := acl[idx].grantee
		before := grantOptions(acl, next, grantee)
		acl = editACL(acl, next, grantee, lost, false, false)
		if gone := withoutLetters(before, grantOptions(acl, next, grantee)); next != 0 && gone != "" {
			var err error
			if acl, err = d.revokeDependent(acl, next, gone, owner, cascade); err != nil {
				return nil, err
			}
		}
	}
	return acl, nil
}

// editACL grants (or revokes) the privilege letters to grantee, by
// grantor, with (or, revoking, only) the grant option. The grantor is the
// object's owner: a superuser's or the owner's GRANT is recorded as the
// owner's, as in PostgreSQL.
func editACL(acl []aclItem, grantee, grantor uint32, letters string, grant, option bool) []aclItem {
	idx := -1
	for i, item := range acl {
		if item.grantee == grantee && item.grantor == grantor {
			idx = i
		}
	}
	if idx < 0 {
		if !grant {
			return acl
		}
		acl = append(acl, aclItem{grantee: grantee, grantor: grantor})
		idx = len(acl) - 1
	}
	held := map[byte]bool{}
	withOption := map[byte]bool{}
	privs := acl[idx].privs
	for i := 0; i < len(privs); i++ {
		if privs[i] == '*' {
			continue
		}
		held[privs[i]] = true
		withOption[privs[i]] = i+1 < len(privs) && privs[i+1] == '*'
	}
	for i := 0; i < len(letters); i++ {
		l := letters[i]
		switch {
		case grant:
			held[l] = true
			withOption[l] = withOption[l] || option
		case option:
			withOption[l] = false
		default:
			held[l], withOption[l] = false, false
		}
	}
	var b strings.Builder
	for i := 0; i < len(aclLetters); i++ {
		l := aclLetters[i]
		if held[l] {
			b.WriteByte(l)
			if withOption[l] {
				b.WriteByte('*')
			}
		}
	}
	acl[idx].privs = b.String()
	if acl[idx].privs == "" {
		acl = append(acl[:idx], acl[idx+1:]...)
	}
	return acl
}

// checkGrantor refuses GRANTED BY naming another role than the current one,
// as PostgreSQL 15 does.
func (d *ddl) checkGrantor(gs *pg_query.GrantStmt) error {
	if g := gs.Grantor; g != nil {
		if r := d.s.roleNamed(d.s.roleSpecName(g.Roletype.String(), g.Rolename)); r == nil || r.oid != d.s.currentRole() {
			return pgerror.New(pgerror.FeatureNotSupported, "grantor must be current user")
		}
	}
	return nil
}
