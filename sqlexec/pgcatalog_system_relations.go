package sqlexec

import "strings"

// The system catalogs and views PostgreSQL 15's initdb creates (pgdata's
// pg_class) are rows of pg_class too, with their OIDs, row types and
// access control lists, whether or not fickle implements them: a query
// over pg_class counts and names them as PostgreSQL does.

// systemACL reads a system relation's relacl as initdb leaves it (text
// like {postgres=arwdDxt/postgres,=r/postgres}): a grantee named as a
// predefined role is that role (pg_read_all_stats), an empty grantee
// PUBLIC, and every other name the bootstrap superuser.
func systemACL(text string) []aclItem {
	text = strings.TrimSuffix(strings.TrimPrefix(text, "{"), "}")
	if text == "" {
		return nil
	}
	var out []aclItem
	for _, item := range strings.Split(text, ",") {
		grantee, rest, _ := strings.Cut(item, "=")
		privs, _, _ := strings.Cut(rest, "/")
		it := aclItem{grantee: oidBootstrapSuperuser, grantor: oidBootstrapSuperuser, privs: privs}
		switch {
		case grantee == "":
			it.grantee = 0
		default:
			for _, r := range predefinedRoles() {
				if r.name == grantee {
					it.grantee = r.oid
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// systemRelationRows are the pg_class rows of the system relations, in
// PostgreSQL's physical order.
func systemRelationRows(s *Session, c *catalog) [][]any {
	var out [][]any
	for _, r := range systemRelations().ordered {
		row := r.row.values()
		row[7] = int64(0) // relfilenode: initdb's mapped catalogs show 0, the others a number of their own
		row[14], row[25] = r.shared, r.replIdent
		row[28] = aclText(s, c, aclTable, r.oid)
		out = append(out, row)
	}
	return out
}
