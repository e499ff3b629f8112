package sqlexec

import (
	"cmp"
	"slices"
	"strings"
)

// information_schema.column_privileges and role_column_grants: the
// privileges on each column of the tables and views, from the relation's
// access control list (its default when it has none) and the column's own,
// as PostgreSQL's views union them. Like information_schema.columns, they
// list the user's relations, not the system catalogs.

// columnGrant is one row of column_privileges before its names are given:
// PostgreSQL's union of the relation's and the column's ACL items.
type columnGrant struct {
	grantor, grantee, owner uint32
	schema, table, column   string
	privilege               string
	grantable               bool
}

// columnPrivilegeNames names the ACL letters of the column privileges.
var columnPrivilegeNames = map[byte]string{'a': "INSERT", 'r': "SELECT", 'w': "UPDATE", 'x': "REFERENCES"}

// columnGrants lists the column privileges of every user table (not
// materialized view) and view, each once.
func columnGrants(s *Session, c *catalog) []columnGrant {
	seen := map[columnGrant]bool{}
	var out []columnGrant
	add := func(schema, table, column string, owner uint32, acl []aclItem) {
		for _, item := range acl {
			for i := 0; i < len(item.privs); i++ {
				name, ok := columnPrivilegeNames[item.privs[i]]
				if !ok {
					continue
				}
				g := columnGrant{grantor: item.grantor, grantee: item.grantee, owner: owner, schema: schema, table: table, column: column,
					privilege: name, grantable: i+1 < len(item.privs) && item.privs[i+1] == '*'}
				if !seen[g] {
					seen[g] = true
					out = append(out, g)
				}
			}
		}
	}
	for _, t := range sortedTables(c) {
		if t.matview != nil {
			continue
		}
		owner := relationOwner(c, aclTable, t.oid)
		relACL := s.objectACL(c, aclTable, t.oid)
		for _, col := range t.cols {
			add(t.schema, t.name, col.name, owner, relACL)
			add(t.schema, t.name, col.name, owner, columnACL(c, t.oid, col.attnum))
		}
	}
	for _, v := range sortedViews(c) {
		owner := v.ownerRole()
		relACL := s.objectACL(c, aclTable, v.oid)
		for i, col := range v.cols {
			add(v.schema, v.name, col.name, owner, relACL)
			add(v.schema, v.name, col.name, owner, columnACL(c, v.oid, int16(i+1)))
		}
	}
	return out
}

// columnPrivilegeRows are the rows of column_privileges (or, with
// enabledOnly, role_column_grants) the current user sees: those whose
// grantor or grantee it has the privileges of, or granted to PUBLIC (for
// role_column_grants: whose grantor or grantee is one of its enabled
// roles).
func columnPrivilegeRows(s *Session, c *catalog, enabledOnly bool) [][]any {
	role := s.currentRole()
	super := s.isSuperuser(role)
	holds := s.memberOf(role)
	usage := func(r uint32) bool { return r != 0 && (super || holds[r]) }
	names := catalogNames{s: s}
	name := func(r uint32) string {
		if r == 0 {
			return "PUBLIC"
		}
		return aclRoleName(names, r)
	}
	db := s.database()
	grants := columnGrants(s, c)
	slices.SortStableFunc(grants, func(a, b columnGrant) int {
		return cmp.Or(strings.Compare(a.schema, b.schema), strings.Compare(a.table, b.table), strings.Compare(a.column, b.column),
			strings.Compare(name(a.grantor), name(b.grantor)), strings.Compare(name(a.grantee), name(b.grantee)),
			strings.Compare(a.privilege, b.privilege))
	})
	var out [][]any
	for _, g := range grants {
		if !usage(g.grantor) && !usage(g.grantee) && (enabledOnly || g.grantee != 0) {
			continue
		}
		grantable := "NO"
		if g.grantable || g.grantee != 0 && (s.isSuperuser(g.grantee) || s.memberOf(g.grantee)[g.owner]) {
			grantable = "YES"
		}
		out = append(out, []any{name(g.grantor), name(g.grantee), db, g.schema, g.table, g.column, g.privilege, grantable})
	}
	return out
}

func init() {
	cols := []vcol{{"grantor", isIdent}, {"grantee", isIdent}, {"table_catalog", isIdent}, {"table_schema", isIdent},
		{"table_name", isIdent}, {"column_name", isIdent}, {"privilege_type", isChars}, {"is_grantable", isYesNo}}
	registerVirtual(&virtualTable{schema: "information_schema", name: "column_privileges", cols: cols,
		rows: func(s *Session, c *catalog) [][]any { return columnPrivilegeRows(s, c, false) }})
	registerVirtual(&virtualTable{schema: "information_schema", name: "role_column_grants", cols: cols,
		rows: func(s *Session, c *catalog) [][]any { return columnPrivilegeRows(s, c, true) }})
}
