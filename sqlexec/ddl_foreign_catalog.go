package sqlexec

import (
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The catalogs of foreign-data wrappers, servers and user mappings:
// pg_foreign_data_wrapper, pg_foreign_server, pg_user_mapping (which only
// superusers may read, as its relacl says), the view pg_user_mappings,
// information_schema's views of them, and has_foreign_data_wrapper_privilege
// and has_server_privilege. psql's \dew, \des and \deu read these.

// optionsAny is an options list as a text[] datum, NULL for none.
func optionsAny(opts []string) any {
	if opts == nil {
		return nil
	}
	out := make([]any, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

// splitOption splits a name=value option at its first '='.
func splitOption(o string) (string, any) {
	name, value, ok := strings.Cut(o, "=")
	if !ok {
		return name, nil
	}
	return name, value
}

// visibleUserMappingOptions reports whether the current role may see the
// options of mapping m on srv, as pg_user_mappings decides: its own
// mapping on a server it may use, PUBLIC's on a server whose owner's
// privileges it has, or any as a superuser.
func (s *Session) visibleUserMappingOptions(m *userMappingDesc, srv *foreignServerDesc) bool {
	role := s.currentRole()
	switch {
	case s.isSuperuser(role):
		return true
	case m.user == 0:
		return s.memberOf(role)[srv.owner]
	case m.user == role:
		return s.memberOf(role)[srv.owner] || s.hasPrivilege(role, aclForeignServer, srv.oid, []byte{'U'})
	}
	return false
}

// usableFDW and usableServer report whether the current role sees a
// wrapper or server in information_schema: it has its owner's privileges
// or USAGE on it.
func (s *Session) usableFDW(f *fdwDesc) bool {
	role := s.currentRole()
	return s.isSuperuser(role) || s.memberOf(role)[f.owner] || s.hasPrivilege(role, aclForeignDataWrapper, f.oid, []byte{'U'})
}

func (s *Session) usableServer(srv *foreignServerDesc) bool {
	role := s.currentRole()
	return s.isSuperuser(role) || s.memberOf(role)[srv.owner] || s.hasPrivilege(role, aclForeignServer, srv.oid, []byte{'U'})
}

// roleNameOf is pg_authid.rolname of role oid.
func (s *Session) roleNameOf(oid uint32) string {
	name, _ := catalogNames{s: s}.roleName(oid)
	return unquoteIdent(name)
}

func init() {
	oid, name, text := types.OidType, types.Name, types.Text
	textArray, _ := types.ArrayOf(types.Text)
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_foreign_data_wrapper",
		cols: []vcol{{"oid", oid}, {"fdwname", name}, {"fdwowner", oid}, {"fdwhandler", types.Regproc}, {"fdwvalidator", types.Regproc},
			{"fdwacl", textArray}, {"fdwoptions", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, f := range c.sortedFDWs() {
				out = append(out, []any{int64(f.oid), f.name, int64(f.owner), int64(0), int64(f.validator),
					aclText(s, c, aclForeignDataWrapper, f.oid), optionsAny(f.options)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_foreign_server",
		cols: []vcol{{"oid", oid}, {"srvname", name}, {"srvowner", oid}, {"srvfdw", oid}, {"srvtype", text}, {"srvversion", text},
			{"srvacl", textArray}, {"srvoptions", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, srv := range c.sortedServers() {
				out = append(out, []any{int64(srv.oid), srv.name, int64(srv.owner), int64(srv.fdw), srv.srvType, srv.version,
					aclText(s, c, aclForeignServer, srv.oid), optionsAny(srv.options)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_user_mapping", restricted: true,
		cols: []vcol{{"oid", oid}, {"umuser", oid}, {"umserver", oid}, {"umoptions", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, m := range c.sortedUserMappings() {
				out = append(out, []any{int64(m.oid), int64(m.user), int64(m.server), optionsAny(m.options)})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_user_mappings",
		cols: []vcol{{"umid", oid}, {"srvid", oid}, {"srvname", name}, {"umuser", oid}, {"usename", name}, {"umoptions", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, m := range c.sortedUserMappings() {
				srv := c.serverByOID(m.server)
				var opts any
				if s.visibleUserMappingOptions(m, srv) {
					opts = optionsAny(m.options)
				}
				out = append(out, []any{int64(m.oid), int64(srv.oid), srv.name, int64(m.user), s.mappingUserName(m.user), opts})
			}
			return out
		}})

	is := func(table string, cols []vcol, rows func(s *Session, c *catalog) [][]any) {
		registerVirtual(&virtualTable{schema: "information_schema", name: table, cols: cols, rows: rows})
	}
	is("foreign_data_wrappers", []vcol{{"foreign_data_wrapper_catalog", isIdent}, {"foreign_data_wrapper_name", isIdent},
		{"authorization_identifier", isIdent}, {"library_name", isChars}, {"foreign_data_wrapper_language", isChars}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, f := range c.sortedFDWs() {
				if s.usableFDW(f) {
					out = append(out, []any{s.database(), f.name, s.roleNameOf(f.owner), nil, "c"})
				}
			}
			return out
		})
	is("foreign_data_wrapper_options", []vcol{{"foreign_data_wrapper_catalog", isIdent}, {"foreign_data_wrapper_name", isIdent},
		{"option_name", isIdent}, {"option_value", isChars}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, f := range c.sortedFDWs() {
				if !s.usableFDW(f) {
					continue
				}
				for _, o := range f.options {
					n, v := splitOption(o)
					out = append(out, []any{s.database(), f.name, n, v})
				}
			}
			return out
		})
	is("foreign_servers", []vcol{{"foreign_server_catalog", isIdent}, {"foreign_server_name", isIdent},
		{"foreign_data_wrapper_catalog", isIdent}, {"foreign_data_wrapper_name", isIdent}, {"foreign_server_type", isChars},
		{"foreign_server_version", isChars}, {"authorization_identifier", isIdent}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, srv := range c.sortedServers() {
				if s.usableServer(srv) {
					out = append(out, []any{s.database(), srv.name, s.database(), c.fdwByOID(srv.fdw).name, srv.srvType, srv.version,
						s.roleNameOf(srv.owner)})
				}
			}
			return out
		})
	is("foreign_server_options", []vcol{{"foreign_server_catalog", isIdent}, {"foreign_server_name", isIdent},
		{"option_name", isIdent}, {"option_value", isChars}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, srv := range c.sortedServers() {
				if !s.usableServer(srv) {
					continue
				}
				for _, o := range srv.options {
					n, v := splitOption(o)
					out = append(out, []any{s.database(), srv.name, n, v})
				}
			}
			return out
		})
	// mappingIdentifier is _pg_user_mappings.authorization_identifier:
	// the role's name, PUBLIC for PUBLIC's mapping.
	mappingIdentifier := func(s *Session, m *userMappingDesc) string {
		if m.user == 0 {
			return "PUBLIC"
		}
		return s.roleNameOf(m.user)
	}
	is("user_mappings", []vcol{{"authorization_identifier", isIdent}, {"foreign_server_catalog", isIdent}, {"foreign_server_name", isIdent}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, m := range c.sortedUserMappings() {
				if srv := c.serverByOID(m.server); s.usableServer(srv) {
					out = append(out, []any{mappingIdentifier(s, m), s.database(), srv.name})
				}
			}
			return out
		})
	is("user_mapping_options", []vcol{{"authorization_identifier", isIdent}, {"foreign_server_catalog", isIdent},
		{"foreign_server_name", isIdent}, {"option_name", isIdent}, {"option_value", isChars}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			role := s.currentRole()
			for _, m := range c.sortedUserMappings() {
				srv := c.serverByOID(m.server)
				if !s.usableServer(srv) {
					continue
				}
				// The view's own rule: one's own mapping, PUBLIC's on a
				// server whose owner's privileges one has, any for a
				// superuser.
				visible := m.user != 0 && m.user == role || m.user == 0 && s.memberOf(role)[srv.owner] || s.isSuperuser(role)
				for _, o := range m.options {
					n, v := splitOption(o)
					if !visible {
						v = nil
					}
					out = append(out, []any{mappingIdentifier(s, m), s.database(), srv.name, n, v})
				}
			}
			return out
		})

	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_foreign_table",
		cols: []vcol{{"ftrelid", oid}, {"ftserver", oid}, {"ftoptions", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				if t.foreign != nil {
					out = append(out, []any{int64(t.oid), int64(t.foreign.server), optionsAny(t.foreign.options)})
				}
			}
			return out
		}})
	// usableTable is _pg_foreign_tables' rule: the owner's privileges, or
	// any privilege on the table or one of its columns.
	usableTable := func(s *Session, c *catalog, t *tableDesc) bool {
		role := s.currentRole()
		return s.isSuperuser(role) || s.memberOf(role)[relationOwner(c, aclTable, t.oid)] ||
			s.hasPrivilege(role, aclTable, t.oid, []byte("arwdDxt")) || s.hasAnyColumnPrivilege(role, t.oid, []byte("arwx"))
	}
	is("foreign_tables", []vcol{{"foreign_table_catalog", isIdent}, {"foreign_table_schema", isIdent}, {"foreign_table_name", isIdent},
		{"foreign_server_catalog", isIdent}, {"foreign_server_name", isIdent}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				if t.foreign != nil && usableTable(s, c, t) {
					out = append(out, []any{s.database(), t.schema, t.name, s.database(), c.serverByOID(t.foreign.server).name})
				}
			}
			return out
		})
	is("foreign_table_options", []vcol{{"foreign_table_catalog", isIdent}, {"foreign_table_schema", isIdent}, {"foreign_table_name", isIdent},
		{"option_name", isIdent}, {"option_value", isChars}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, t := range sortedTables(c) {
				if t.foreign == nil || !usableTable(s, c, t) {
					continue
				}
				for _, o := range t.foreign.options {
					n, v := splitOption(o)
					out = append(out, []any{s.database(), t.schema, t.name, n, v})
				}
			}
			return out
		})
	is("column_options", []vcol{{"table_catalog", isIdent}, {"table_schema", isIdent}, {"table_name", isIdent},
		{"column_name", isIdent}, {"option_name", isIdent}, {"option_value", isChars}},
		func(s *Session, c *catalog) [][]any {
			var out [][]any
			role := s.currentRole()
			for _, t := range sortedTables(c) {
				if t.foreign == nil {
					continue
				}
				owner := s.isSuperuser(role) || s.memberOf(role)[relationOwner(c, aclTable, t.oid)]
				for _, col := range t.cols {
					if !owner && !s.hasColumnPrivilege(role, t.oid, col.attnum, []byte("rawx")) {
						continue
					}
					for _, o := range col.fdwOptions {
						n, v := splitOption(o)
						out = append(out, []any{s.database(), t.schema, t.name, col.name, n, v})
					}
				}
			}
			return out
		})

	cat := func(x *execCtx) *catalog {
		c, _ := x.s.catalog()
		return c
	}
	fdw := func(x *execCtx, arg any) (uint32, bool, error) {
		if n, isName := arg.(string); isName {
			f := cat(x).fdws[n]
			if f == nil {
				return 0, false, pgerror.Newf(pgerror.UndefinedObject, "foreign-data wrapper \"%s\" does not exist", n)
			}
			return f.oid, true, nil
		}
		oid := uint32(arg.(int64))
		return oid, cat(x).fdwByOID(oid) != nil, nil
	}
	server := func(x *execCtx, arg any) (uint32, bool, error) {
		if n, isName := arg.(string); isName {
			srv := cat(x).servers[n]
			if srv == nil {
				return 0, false, pgerror.Newf(pgerror.UndefinedObject, "server \"%s\" does not exist", n)
			}
			return srv.oid, true, nil
		}
		oid := uint32(arg.(int64))
		return oid, cat(x).serverByOID(oid) != nil, nil
	}
	addPrivilegeFunc("has_foreign_data_wrapper_privilege", aclForeignDataWrapper, fdw, false, nil)
	addPrivilegeFunc("has_server_privilege", aclForeignServer, server, false, nil)
}
