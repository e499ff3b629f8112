package sqlexec

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Roles. fickle accepts every user a client connects as and runs it as
// the bootstrap superuser (OID 10), which owns every object, unless the
// user names a role CREATE ROLE made: then the session runs as that role
// (which needs LOGIN, and CONNECT on the database: database_owner.go) and
// the bootstrap superuser is named postgres, as initdb names it.
// CREATE, ALTER and DROP ROLE, GRANT and REVOKE of roles, SET ROLE and SET
// SESSION AUTHORIZATION are recorded and shown by the catalog (pg_roles,
// pg_auth_members, current_user, has_*_privilege); the role statements
// check PostgreSQL 15's rules on who may run them (CREATEROLE, superuser,
// the admin option: roles_ddl.go), and statements the privileges of
// privileges_check.go. Like PostgreSQL's shared
// catalogs, the roles belong to the server, not to a database; unlike
// PostgreSQL's, their changes show to other sessions before they commit
// (a rollback undoes them: roles_ddl.go).

// oidBootstrapSuperuser is the OID of the role initdb creates, which owns
// every object fickle has.
const oidBootstrapSuperuser = 10

// roleDesc is a role as pg_authid describes it.
type roleDesc struct {
	oid                                                                 uint32
	name                                                                string
	super, inherit, createRole, createDB, login, replication, bypassRLS bool
	connLimit                                                           int64
	// password is the role's password (nil for none), validUntil the
	// text of VALID UNTIL (nil for none).
	password, validUntil any
}

// roleMember is a pg_auth_members row: member is a member of role.
type roleMember struct {
	role, member, grantor uint32
	admin                 bool
}

// roleCatalog holds the roles CREATE ROLE made and their memberships.
type roleCatalog struct {
	mu      sync.Mutex
	nextOID uint32
	roles   map[string]*roleDesc
	members []roleMember
	// comments are COMMENT ON ROLE's, by role OID (roles_comment.go).
	comments map[uint32]string
	// version counts the role statements that succeeded: a plan holds
	// what it read of the roles ('name'::regrole folded to an OID), so a
	// plan made before one is made again.
	version atomic.Uint64
}

// created returns the roles CREATE ROLE made and the memberships.
func (rc *roleCatalog) created() ([]*roleDesc, []roleMember) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]*roleDesc, 0, len(rc.roles))
	for _, r := range rc.roles {
		out = append(out, r)
	}
	return out, append([]roleMember(nil), rc.members...)
}

// predefinedRoles are PostgreSQL 15's pg_* roles.
var predefinedRoles = sync.OnceValue(func() []*roleDesc {
	var out []*roleDesc
	eachRow(pgdata.Load(pgdata.PgAuthid), func(get func(string) string) {
		r := &roleDesc{oid: atou(get("oid")), name: get("rolname"), super: get("rolsuper") == "t", inherit: get("rolinherit") == "t",
			createRole: get("rolcreaterole") == "t", createDB: get("rolcreatedb") == "t", login: get("rolcanlogin") == "t",
			replication: get("rolreplication") == "t", bypassRLS: get("rolbypassrls") == "t", connLimit: -1}
		out = append(out, r)
	})
	return out
})

// bootstrapName is the name the session sees the bootstrap superuser by:
// the user it connected as, unless that user is a created role.
func (s *Session) bootstrapName(created []*roleDesc) string {
	u := s.info.User
	if u == "" {
		return "postgres"
	}
	for _, r := range created {
		if r.name == u {
			return "postgres"
		}
	}
	return u
}

// roles lists the roles session s sees, in OID order: the bootstrap
// superuser, PostgreSQL's predefined roles and the created ones.
func (s *Session) roles() []*roleDesc {
	created, _ := s.engine.cluster.roles.created()
	out := []*roleDesc{{oid: oidBootstrapSuperuser, name: s.bootstrapName(created), super: true, inherit: true, createRole: true,
		createDB: true, login: true, replication: true, bypassRLS: true, connLimit: -1}}
	out = append(out, predefinedRoles()...)
	out = append(out, created...)
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

// roleNamed finds a role by name. postgres, initdb's name for the
// bootstrap superuser, names it also when the session sees it by the
// connecting user's name, so that dumps' OWNER TO postgres load.
func (s *Session) roleNamed(name string) *roleDesc {
	roles := s.roles()
	for _, r := range roles {
		if r.name == name {
			return r
		}
	}
	if name == "postgres" {
		return roles[0]
	}
	return nil
}

// user is current_user: the owner of the SECURITY DEFINER routine
// running, else the role SET ROLE chose, else the session user.
func (s *Session) user() string {
	if s.definer != "" {
		return s.definer
	}
	if r, _ := s.settings.get("role"); r != "none" && r != "" {
		return r
	}
	return s.sessionUser()
}

// sessionUser is session_user: the user the session connected as, or the
// one SET SESSION AUTHORIZATION chose.
func (s *Session) sessionUser() string {
	if a, _ := s.settings.get("session_authorization"); a != "" {
		return a
	}
	return "postgres"
}

// currentRole is the OID of the role the session runs as (current_user).
func (s *Session) currentRole() uint32 {
	// The bootstrap superuser comes first in roleNamed's order: answer for
	// it without building the sorted role list on every statement.
	user := s.user()
	if created, _ := s.engine.cluster.roles.created(); user == s.bootstrapName(created) {
		return oidBootstrapSuperuser
	}
	if r := s.roleNamed(user); r != nil {
		return r.oid
	}
	return oidBootstrapSuperuser
}

// memberOf returns the roles whose privileges role holds: itself and,
// through memberships with INHERIT, the roles it belongs to; the current
// database's owner, if reached with INHERIT, holds pg_database_owner's, as
// PostgreSQL's roles_is_member_of gives them.
func (s *Session) memberOf(role uint32) map[uint32]bool {
	_, members := s.engine.cluster.roles.created()
	inherit := map[uint32]bool{}
	for _, r := range s.roles() {
		inherit[r.oid] = r.inherit
	}
	dba := s.engine.owner()
	out := map[uint32]bool{role: true}
	for changed := true; changed; {
		changed = false
		for _, m := range members {
			if out[m.member] && inherit[m.member] && !out[m.role] {
				out[m.role], changed = true, true
			}
		}
	}
	if out[dba] && inherit[dba] {
		// pg_database_owner belongs to no role: nothing more to reach.
		out[oidDatabaseOwnerRole] = true
	}
	return out
}

// belongsTo reports whether member is role or belongs to it through
// memberships, with or without INHERIT (PostgreSQL's is_member_of_role,
// which SET ROLE and OWNER TO check); the current database's owner belongs
// to pg_database_owner.
func (s *Session) belongsTo(member, role uint32) bool {
	if member == role {
		return true
	}
	_, members := s.engine.cluster.roles.created()
	reached := map[uint32]bool{member: true}
	for changed := true; changed; {
		changed = false
		for _, m := range members {
			if reached[m.member] && !reached[m.role] {
				reached[m.role], changed = true, true
			}
		}
	}
	return reached[role] || role == oidDatabaseOwnerRole && reached[s.engine.owner()]
}

// roleOID is regrolein.
func (n catalogNames) roleOID(text string) (int64, error) {
	parts, err := parseQualifiedName(text)
	if err != nil {
		return 0, err
	}
	if len(parts) != 1 {
		return 0, pgerror.New(pgerror.InvalidName, "invalid name syntax")
	}
	if r := n.s.roleNamed(parts[0]); r != nil {
		return int64(r.oid), nil
	}
	return 0, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", parts[0])
}

// roleName is regroleout.
func (n catalogNames) roleName(oid uint32) (string, bool) {
	for _, r := range n.s.roles() {
		if r.oid == oid {
			return types.QuoteIdent(r.name), true
		}
	}
	return "", false
}

// setRole runs SET [LOCAL] ROLE (name "none" resets it) and SET [LOCAL]
// SESSION AUTHORIZATION (name "" for DEFAULT), which also resets the
// role; the named role must exist.
func (s *Session) setRole(setting, name string, local bool) error {
	if s.definer != "" {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "cannot set parameter \"%s\" within security-definer function", setting)
	}
	if setting == "session_authorization" && name == "" {
		name = s.info.User
		if name == "" {
			name = "postgres"
		}
	} else if name != "none" && s.roleNamed(name) == nil {
		return pgerror.Newf(pgerror.InvalidParameterValue, "role \"%s\" does not exist", name)
	}
	if err := s.maySetRole(setting, name); err != nil {
		return err
	}
	if setting == "session_authorization" {
		s.settings.put("session_authorization", name, local)
		s.settings.put("role", "none", local)
	} else {
		s.settings.put("role", name, local)
	}
	super := "off"
	if r := s.roleNamed(s.user()); r == nil || r.super {
		super = "on"
	}
	s.settings.put("is_superuser", super, local)
	return nil
}

// maySetRole is PostgreSQL's permission check of SET ROLE name (the
// session user must be a superuser or belong to the role) and of SET
// SESSION AUTHORIZATION name (the user the session logged in as must be a
// superuser, or name itself).
func (s *Session) maySetRole(setting, name string) error {
	if name == "none" {
		return nil
	}
	target := s.roleNamed(name)
	if setting == "role" {
		if user := s.roleNamed(s.sessionUser()); user != nil && !user.super && !s.belongsTo(user.oid, target.oid) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to set role \"%s\"", name)
		}
		return nil
	}
	login := s.info.User
	if login == "" {
		login = "postgres"
	}
	if user := s.roleNamed(login); user != nil && !user.super && user.oid != target.oid {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to set session authorization \"%s\"", name)
	}
	return nil
}

func init() {
	name, b, i4, oid, text := types.Name, types.Bool, types.Int4, types.OidType, types.Text
	textArray, _ := types.ArrayOf(types.Text)
	row := func(r *roleDesc, password any) []any {
		return []any{r.name, r.super, r.inherit, r.createRole, r.createDB, r.login, r.replication, r.connLimit, password,
			r.validUntil, r.bypassRLS, nil, int64(r.oid)}
	}
	roleCols := []vcol{{"rolname", name}, {"rolsuper", b}, {"rolinherit", b}, {"rolcreaterole", b}, {"rolcreatedb", b},
		{"rolcanlogin", b}, {"rolreplication", b}, {"rolconnlimit", i4}, {"rolpassword", text}, {"rolvaliduntil", types.Timestamptz},
		{"rolbypassrls", b}, {"rolconfig", textArray}, {"oid", oid}}
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_roles", cols: roleCols,
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, r := range s.roles() {
				out = append(out, row(r, "********"))
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_authid",
		cols: []vcol{{"oid", oid}, {"rolname", name}, {"rolsuper", b}, {"rolinherit", b}, {"rolcreaterole", b}, {"rolcreatedb", b},
			{"rolcanlogin", b}, {"rolreplication", b}, {"rolbypassrls", b}, {"rolconnlimit", i4}, {"rolpassword", text},
			{"rolvaliduntil", types.Timestamptz}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, r := range s.roles() {
				out = append(out, []any{int64(r.oid), r.name, r.super, r.inherit, r.createRole, r.createDB, r.login, r.replication,
					r.bypassRLS, r.connLimit, r.password, r.validUntil})
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_user",
		cols: []vcol{{"usename", name}, {"usesysid", oid}, {"usecreatedb", b}, {"usesuper", b}, {"userepl", b}, {"usebypassrls", b},
			{"passwd", text}, {"valuntil", types.Timestamptz}, {"useconfig", textArray}},
		rows: func(s *Session, c *catalog) [][]any {
			var out [][]any
			for _, r := range s.roles() {
				if r.login {
					out = append(out, []any{r.name, int64(r.oid), r.createDB, r.super, r.replication, r.bypassRLS, "********", r.validUntil, nil})
				}
			}
			return out
		}})
	registerVirtual(&virtualTable{schema: "pg_catalog", name: "pg_auth_members",
		cols: []vcol{{"roleid", oid}, {"member", oid}, {"grantor", oid}, {"admin_option", b}},
		rows: func(s *Session, c *catalog) [][]any {
			_, members := s.engine.cluster.roles.created()
			var out [][]any
			for _, m := range members {
				out = append(out, []any{int64(m.role), int64(m.member), int64(m.grantor), m.admin})
			}
			return out
		}})
}

// roleSpecName resolves a role specification (a name, CURRENT_USER,
// SESSION_USER, CURRENT_ROLE, PUBLIC as "") to a role name.
func (s *Session) roleSpecName(kind string, name string) string {
	switch kind {
	case "ROLESPEC_CURRENT_USER", "ROLESPEC_CURRENT_ROLE":
		return s.user()
	case "ROLESPEC_SESSION_USER":
		return s.sessionUser()
	case "ROLESPEC_PUBLIC":
		return ""
	}
	return name
}

// reservedRoleName is PostgreSQL's check of a new role's name.
func reservedRoleName(name string) error {
	switch {
	case name == "public" || name == "none":
		return pgerror.Newf(pgerror.ReservedName, "role name \"%s\" is reserved", name)
	case strings.HasPrefix(name, "pg_"):
		return pgerror.Newf(pgerror.ReservedName, "role name \"%s\" is reserved", name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	return nil
}

// hasRolePrivilege is pg_has_role's answer for one privilege of member on
// role, as PostgreSQL's pg_role_aclcheck: USAGE holds role's privileges
// (memberOf), MEMBER belongs to it (belongsTo), and the admin option (WITH
// ADMIN or GRANT OPTION) is held through a membership granted with it; a
// superuser holds all three, and no role holds the admin option on itself.
func (s *Session) hasRolePrivilege(member, role uint32, priv string) bool {
	if s.isSuperuser(member) {
		return true
	}
	switch priv {
	case "USAGE":
		return s.memberOf(member)[role]
	case "MEMBER":
		return s.belongsTo(member, role)
	}
	if member == role {
		return false
	}
	_, members := s.engine.cluster.roles.created()
	return adminOptionReached(members, member, role)
}

// rolePrivileges reads pg_has_role's privilege list: USAGE, MEMBER, or
// either WITH ADMIN OPTION or WITH GRANT OPTION (both "ADMIN").
func rolePrivileges(list string) ([]string, error) {
	var out []string
	for _, written := range strings.Split(list, ",") {
		p := strings.ToUpper(strings.TrimSpace(written))
		switch p {
		case "USAGE", "MEMBER":
			out = append(out, p)
		case "USAGE WITH GRANT OPTION", "USAGE WITH ADMIN OPTION", "MEMBER WITH GRANT OPTION", "MEMBER WITH ADMIN OPTION":
			out = append(out, "ADMIN")
		default:
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(written))
		}
	}
	return out, nil
}

func init() {
	// A role given by name must exist (42704); one given by OID need not,
	// and then holds nothing.
	role := func(x *execCtx, arg any) (uint32, error) {
		if name, ok := arg.(string); ok {
			oid, err := catalogNames{s: x.s}.roleOID(types.QuoteIdent(name))
			return uint32(oid), err
		}
		return uint32(arg.(int64)), nil
	}
	check := func(x *execCtx, member, target any, list string) (any, error) {
		m, err := role(x, member)
		if err != nil {
			return nil, err
		}
		r, err := role(x, target)
		if err != nil {
			return nil, err
		}
		privs, err := rolePrivileges(list)
		if err != nil {
			return nil, err
		}
		for _, p := range privs {
			if x.s.hasRolePrivilege(m, r, p) {
				return true, nil
			}
		}
		return false, nil
	}
	for _, roleType := range []types.Type{types.Name, types.OidType} {
		addSysFunc("pg_has_role", sysFunc{args: []types.Type{roleType, types.Text}, result: types.Bool,
			eval: func(x *execCtx, a []any) (any, error) {
				return check(x, int64(x.s.currentRole()), a[0], a[1].(string))
			}})
		for _, memberType := range []types.Type{types.Name, types.OidType} {
			addSysFunc("pg_has_role", sysFunc{args: []types.Type{memberType, roleType, types.Text}, result: types.Bool,
				eval: func(x *execCtx, a []any) (any, error) { return check(x, a[0], a[1], a[2].(string)) }})
		}
	}
}
