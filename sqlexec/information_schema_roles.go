package sqlexec

// information_schema.enabled_roles and applicable_roles, as PostgreSQL 15
// defines them: the roles whose privileges the current user holds, and
// the memberships of those roles (the current database's owner's implicit
// membership in pg_database_owner among them).

func init() {
	registerVirtual(&virtualTable{schema: "information_schema", name: "enabled_roles",
		cols: []vcol{{"role_name", isIdent}},
		rows: func(s *Session, c *catalog) [][]any {
			user := s.currentRole()
			var out [][]any
			for _, r := range s.roles() {
				if s.hasRolePrivilege(user, r.oid, "USAGE") {
					out = append(out, []any{r.name})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "information_schema", name: "applicable_roles",
		cols: []vcol{{"grantee", isIdent}, {"role_name", isIdent}, {"is_grantable", isYesNo}},
		rows: func(s *Session, c *catalog) [][]any {
			user := s.currentRole()
			names := map[uint32]string{}
			for _, r := range s.roles() {
				names[r.oid] = r.name
			}
			_, members := s.engine.cluster.roles.created()
			members = append(members, roleMember{role: oidDatabaseOwnerRole, member: s.engine.owner()})
			var out [][]any
			for _, m := range members {
				grantee, ok := names[m.member]
				if ok && names[m.role] != "" && s.hasRolePrivilege(user, m.member, "USAGE") {
					out = append(out, []any{grantee, names[m.role], yesNo(m.admin)})
				}
			}
			return out
		}})
}
