package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// GRANT and REVOKE of privileges on tables, views, sequences, schemas and
// the database edit the objects' access control lists as PostgreSQL's do,
// starting from the kind's default; the lists show in relacl, nspacl and
// datacl and answer has_*_privilege. Statements enforce those on tables
// and views (privileges_check.go).

// aclLetters is the order PostgreSQL prints privilege letters in.
const aclLetters = "arwdDxtXUCTc"

// allPrivileges are the letters GRANT ALL gives on each kind of object.
var allPrivileges = map[aclKind]string{aclTable: "arwdDxt", aclSequence: "rwU", aclSchema: "UC", aclDatabase: "CTc"}

func (d *ddl) grant(gs *pg_query.GrantStmt) error {
	if gs.Targtype == pg_query.GrantTargetType_ACL_TARGET_DEFAULTS {
		return pgerror.Unsupported("ALTER DEFAULT PRIVILEGES")
	}
	kind, ok := map[pg_query.ObjectType]aclKind{pg_query.ObjectType_OBJECT_TABLE: aclTable, pg_query.ObjectType_OBJECT_SEQUENCE: aclSequence,
		pg_query.ObjectType_OBJECT_SCHEMA: aclSchema, pg_query.ObjectType_OBJECT_DATABASE: aclDatabase}[gs.Objtype]
	if !ok {
		return pgerror.Unsupported("GRANT and REVOKE on " + strings.ToLower(strings.TrimPrefix(gs.Objtype.String(), "OBJECT_")) + "s")
	}
	objects, err := d.grantObjects(gs, kind)
	if err != nil {
		return err
	}
	var grantees []uint32
	for _, n := range gs.Grantees {
		spec := n.GetRoleSpec()
		name := d.s.roleSpecName(spec.Roletype.String(), spec.Rolename)
		if name == "" {
			if gs.IsGrant && gs.GrantOption {
				return pgerror.New(pgerror.InvalidGrantOperation, "grant options can only be granted to roles")
			}
			grantees = append(grantees, 0)
			continue
		}
		r := d.s.roleNamed(name)
		if r == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
		}
		grantees = append(grantees, r.oid)
	}
	for _, obj := range objects {
		letters, err := d.privilegeLetters(gs, obj.kind)
		if err != nil {
			return err
		}
		acl := append([]aclItem(nil), objectACL(d.cat, obj.kind, obj.oid)...)
		grantor := relationOwner(d.cat, obj.kind, obj.oid)
		for _, g := range grantees {
			acl = editACL(acl, g, grantor, letters, gs.IsGrant, gs.GrantOption)
		}
		d.cat.acls[aclKey{obj.kind, obj.oid}] = acl
	}
	return nil
}

// dropRelationACL forgets the grants on a table, view or sequence that is
// being dropped, as PostgreSQL's grants go with their object.
func (c *catalog) dropRelationACL(oid uint32) {
	delete(c.acls, aclKey{aclTable, oid})
	delete(c.acls, aclKey{aclSequence, oid})
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
			switch e := d.s.engine.cluster.database(name); {
			case e == nil:
				return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
			case e != d.s.engine:
				return nil, pgerror.Unsupported("GRANT and REVOKE on a database other than the current one")
			}
			out = append(out, aclObject{aclDatabase, d.s.engine.oid})
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
					if kind == aclSequence && r.kind == "S" || kind == aclTable && (r.kind == "r" || r.kind == "p" || r.kind == "v") {
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
// ALL is every privilege of the kind.
func (d *ddl) privilegeLetters(gs *pg_query.GrantStmt, kind aclKind) (string, error) {
	if len(gs.Privileges) == 0 {
		return allPrivileges[kind], nil
	}
	var out []byte
	for _, n := range gs.Privileges {
		ap := n.GetAccessPriv()
		if len(ap.Cols) > 0 {
			return "", pgerror.Unsupported("column privileges")
		}
		name := strings.ToUpper(ap.PrivName)
		letter, ok := privilegeLetters[kind][name]
		if !ok || letter == 0 {
			if kind == aclSequence {
				return "", pgerror.Newf(pgerror.InvalidGrantOperation, "invalid privilege type %s for sequence", name)
			}
			return "", pgerror.Newf(pgerror.InvalidGrantOperation, "invalid privilege type %s for %s", name,
				map[aclKind]string{aclTable: "relation", aclSchema: "schema", aclDatabase: "database"}[kind])
		}
		out = append(out, letter)
	}
	return string(out), nil
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
