package sqlexec

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// rolePlan compiles CREATE, ALTER and DROP ROLE (USER, GROUP), ALTER ROLE
// ... RENAME and GRANT or REVOKE of role memberships, which change the
// server's roles at once: other sessions see the change before it commits,
// but a statement that fails, or a transaction (or savepoint) that rolls
// back, puts the roles back as they were before it.
func (b *binder) rolePlan(n *pg_query.Node) (*stmtPlan, error) {
	var tag string
	// run edits the roles with rc locked: the role the session runs as is
	// read before (actor), as reading it takes the lock.
	var run func(x *execCtx, rc *roleCatalog, note notify, actor roleActor) error
	switch v := n.Node.(type) {
	case *pg_query.Node_CreateRoleStmt:
		tag = "CREATE ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, actor roleActor) error {
			return x.s.createRole(rc, v.CreateRoleStmt, note, actor)
		}
	case *pg_query.Node_AlterRoleStmt:
		tag = "ALTER ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, actor roleActor) error {
			return x.s.alterRole(rc, v.AlterRoleStmt, note, actor)
		}
	case *pg_query.Node_DropRoleStmt:
		tag = "DROP ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, actor roleActor) error {
			return x.s.dropRoles(rc, v.DropRoleStmt, note, actor)
		}
	case *pg_query.Node_GrantRoleStmt:
		tag = "GRANT ROLE"
		if !v.GrantRoleStmt.IsGrant {
			tag = "REVOKE ROLE"
		}
		run = func(x *execCtx, rc *roleCatalog, note notify, actor roleActor) error {
			return x.s.grantRoles(rc, v.GrantRoleStmt, note, actor)
		}
	case *pg_query.Node_RenameStmt:
		tag = "ALTER ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, actor roleActor) error {
			return x.s.renameRole(rc, v.RenameStmt.Subname, v.RenameStmt.Newname, note, actor)
		}
	case *pg_query.Node_CommentStmt:
		tag = "COMMENT"
		run = func(x *execCtx, rc *roleCatalog, _ notify, actor roleActor) error {
			return x.s.commentOnRole(rc, v.CommentStmt, actor)
		}
	default:
		return nil, pgerror.Unsupported("statement " + nodeKind(n))
	}
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		actor := x.s.roleActor()
		rc := &x.s.engine.cluster.roles
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.roles == nil {
			rc.roles = map[string]*roleDesc{}
		}
		var notices []*pgerror.Error
		note := func(severity, format string, args ...any) {
			code := pgerror.SuccessfulCompletion
			if severity == "WARNING" {
				code = pgerror.Warning
			}
			n := pgerror.Newf(code, format, args...)
			n.Severity = severity
			notices = append(notices, n)
		}
		before := rc.snapshot()
		err := run(x, rc, note, actor)
		rc.version.Add(1)
		if err != nil {
			rc.restore(before) // what it changed before it failed
			return nil, err
		}
		x.s.undoAtRollback(func() {
			rc.mu.Lock()
			defer rc.mu.Unlock()
			rc.restore(before)
			rc.version.Add(1)
		})
		return &Result{Tag: tag, Notices: notices}, nil
	}}, nil
}

// roleSnapshot is the roles, memberships and comments of a roleCatalog at
// one time.
type roleSnapshot struct {
	roles    map[string]*roleDesc
	members  []roleMember
	comments map[uint32]string
}

// snapshot copies the roles, which role statements change in place; rc is
// locked.
func (rc *roleCatalog) snapshot() roleSnapshot {
	out := roleSnapshot{roles: make(map[string]*roleDesc, len(rc.roles)), members: slices.Clone(rc.members), comments: maps.Clone(rc.comments)}
	for name, r := range rc.roles {
		c := *r
		out.roles[name] = &c
	}
	return out
}

// restore puts the roles back as snap has them; OIDs handed out since are
// not given again. rc is locked.
func (rc *roleCatalog) restore(snap roleSnapshot) {
	rc.roles, rc.members, rc.comments = snap.roles, snap.members, snap.comments
	if rc.roles == nil {
		rc.roles = map[string]*roleDesc{}
	}
}

// undoAtRollback makes f run when the session's transaction, or the
// savepoint it is in, rolls back; outside a transaction it does nothing.
func (s *Session) undoAtRollback(f func()) {
	if s.txn == nil {
		return
	}
	if s.txn.cat == nil {
		cur, v := s.engine.published()
		s.txn.cat = &txnCatalog{base: cur, baseVersion: v, cat: cur, version: v}
	}
	s.txn.cat.undo = append(s.txn.cat.undo, f)
}

// findRole finds a role by name while rc is locked.
func (s *Session) findRole(rc *roleCatalog, name string) *roleDesc {
	if r := rc.roles[name]; r != nil {
		return r
	}
	boot := &roleDesc{oid: oidBootstrapSuperuser, name: s.info.User, super: true}
	if boot.name == "" || rc.roles[boot.name] != nil {
		boot.name = "postgres"
	}
	if name == boot.name || name == "postgres" {
		return boot
	}
	for _, r := range predefinedRoles() {
		if r.name == name {
			return r
		}
	}
	return nil
}

// roleActor is the role running a role statement and the attributes
// that decide what it may do, read before the role catalog is locked.
type roleActor struct {
	oid                         uint32
	super, createRole, createDB bool
}

// roleActor reads the role the session runs as (current_user) for a role
// statement's permission checks; a superuser has CREATEROLE's and
// CREATEDB's rights.
func (s *Session) roleActor() roleActor {
	role := s.currentRole()
	a := roleActor{oid: role}
	for _, r := range s.roles() {
		if r.oid == role {
			a.super, a.createRole, a.createDB = r.super, r.super || r.createRole, r.super || r.createDB
		}
	}
	if role == oidBootstrapSuperuser {
		a.super, a.createRole, a.createDB = true, true, true
	}
	return a
}

// createRoleAllowed is CREATE ROLE's permission check, PostgreSQL 15's:
// a superuser, replication or bypassrls role only by a superuser, others
// by a role with CREATEROLE.
func createRoleAllowed(cs *pg_query.CreateRoleStmt, actor roleActor) error {
	flags := map[string]bool{}
	for _, o := range cs.Options {
		if de := o.GetDefElem(); de.Arg != nil && de.Arg.GetBoolean() != nil {
			flags[de.Defname] = de.Arg.GetBoolean().GetBoolval()
		}
	}
	switch {
	case flags["superuser"] && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to create superusers")
	case flags["isreplication"] && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to create replication users")
	case flags["bypassrls"] && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to create bypassrls users")
	case !actor.createRole:
		return pgerror.New(pgerror.InsufficientPrivilege, "permission denied to create role")
	}
	return nil
}

// alterRoleAllowed is ALTER ROLE's permission check, PostgreSQL 15's: a
// superuser or replication role, or those attributes, only by a
// superuser; BYPASSRLS likewise; other roles by a role with CREATEROLE,
// or a role changing only its own password.
func alterRoleAllowed(r *roleDesc, as *pg_query.AlterRoleStmt, actor roleActor) error {
	given := map[string]bool{}
	for _, o := range as.Options {
		given[o.GetDefElem().Defname] = true
	}
	switch {
	case (r.super || given["superuser"]) && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
	case (r.replication || given["isreplication"]) && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to alter replication roles or change replication attribute")
	case given["bypassrls"] && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to change bypassrls attribute")
	case actor.createRole:
		return nil
	case r.oid == actor.oid && len(given) == 1 && given["password"]:
		return nil
	}
	return pgerror.New(pgerror.InsufficientPrivilege, "permission denied")
}

// isAdminOf is PostgreSQL 15's is_admin_of_role while rc is locked: a
// superuser administers every role; another role administers role when
// it, or a role it belongs to (with or without INHERIT), was granted
// role WITH ADMIN OPTION. No role administers itself.
func isAdminOf(rc *roleCatalog, actor roleActor, role uint32) bool {
	if actor.super {
		return true
	}
	if actor.oid == role {
		return false
	}
	return adminOptionReached(rc.members, actor.oid, role)
}

// adminOptionReached reports whether member, or a role it belongs to
// through members (with or without INHERIT), was granted role WITH ADMIN
// OPTION.
func adminOptionReached(members []roleMember, member, role uint32) bool {
	reached := map[uint32]bool{member: true}
	for changed := true; changed; {
		changed = false
		for _, m := range members {
			if !reached[m.member] {
				continue
			}
			if m.role == role && m.admin {
				return true
			}
			if !reached[m.role] {
				reached[m.role], changed = true, true
			}
		}
	}
	return false
}

// isMemberOf reports whether member belongs to role, directly or through
// other memberships, while rc is locked; superuserness does not count, as
// in PostgreSQL's check against membership loops.
func isMemberOf(rc *roleCatalog, member, role uint32) bool {
	reached := map[uint32]bool{member: true}
	for changed := true; changed; {
		changed = false
		for _, m := range rc.members {
			if reached[m.member] && !reached[m.role] {
				reached[m.role], changed = true, true
			}
		}
	}
	return reached[role]
}

// membershipAllowed is the check PostgreSQL 15 makes before adding or
// removing members of role: a superuser role only by a superuser, others
// by a role with CREATEROLE or the admin option on it; pg_database_owner
// takes no explicit members.
func membershipAllowed(rc *roleCatalog, actor roleActor, role *roleDesc, adding bool) error {
	switch {
	case role.super && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to alter superusers")
	case !role.super && !actor.createRole && !isAdminOf(rc, actor, role.oid):
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must have admin option on role \"%s\"", role.name)
	case adding && role.oid == oidDatabaseOwnerRole:
		return pgerror.Newf(pgerror.InternalError, "role \"%s\" cannot have explicit members", role.name)
	}
	return nil
}

// memberAllowed is the check PostgreSQL 15 makes on each new member of
// role: pg_database_owner belongs to no role, and no membership may close
// a loop.
func memberAllowed(rc *roleCatalog, role, member *roleDesc) error {
	switch {
	case member.oid == oidDatabaseOwnerRole:
		return pgerror.Newf(pgerror.InternalError, "role \"%s\" cannot be a member of any role", member.name)
	case member.oid == role.oid || isMemberOf(rc, role.oid, member.oid):
		return pgerror.Newf(pgerror.InvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role.name, member.name)
	}
	return nil
}

func (s *Session) createRole(rc *roleCatalog, cs *pg_query.CreateRoleStmt, note notify, actor roleActor) error {
	if err := createRoleAllowed(cs, actor); err != nil {
		return err
	}
	if err := reservedRoleName(cs.Role); err != nil {
		return err
	}
	if s.findRole(rc, cs.Role) != nil {
		return pgerror.Newf(pgerror.DuplicateObject, "role \"%s\" already exists", cs.Role)
	}
	if rc.nextOID == 0 {
		rc.nextOID = 1 << 24
	}
	rc.nextOID++
	r := &roleDesc{oid: rc.nextOID, name: cs.Role, inherit: true, connLimit: -1,
		login: cs.StmtType == pg_query.RoleStmtType_ROLESTMT_USER}
	members, err := s.roleOptions(rc, r, cs.Options, true, note, actor)
	if err != nil {
		return err
	}
	rc.roles[r.name] = r
	rc.members = append(rc.members, members...)
	return nil
}

func (s *Session) alterRole(rc *roleCatalog, as *pg_query.AlterRoleStmt, note notify, actor roleActor) error {
	name := s.roleSpecName(as.Role.Roletype.String(), as.Role.Rolename)
	r := rc.roles[name]
	if r == nil {
		if other := s.findRole(rc, name); other != nil && strings.HasPrefix(other.name, "pg_") {
			return pgerror.Newf(pgerror.ReservedName, "role name \"%s\" is reserved", name).WithDetail("Cannot alter reserved roles.")
		} else if other != nil {
			return pgerror.Unsupported("ALTER ROLE of the bootstrap superuser")
		}
		return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
	}
	if err := alterRoleAllowed(r, as, actor); err != nil {
		return err
	}
	opts := as.Options
	var groupMembers *pg_query.DefElem
	if i := slices.IndexFunc(opts, func(o *pg_query.Node) bool { return o.GetDefElem().GetDefname() == "rolemembers" }); i >= 0 {
		groupMembers, opts = opts[i].GetDefElem(), slices.Delete(slices.Clone(opts), i, i+1)
	}
	changed := *r
	members, err := s.roleOptions(rc, &changed, opts, false, note, actor)
	if err != nil {
		return err
	}
	rc.roles[name] = &changed
	rc.members = append(rc.members, members...)
	if groupMembers != nil {
		return s.alterGroupMembers(rc, &changed, groupMembers.Arg.GetList().GetItems(), as.Action > 0, note, actor)
	}
	return nil
}

// alterGroupMembers runs ALTER GROUP group ADD | DROP USER role, ..., as
// PostgreSQL 15's AddRoleMems and DelRoleMems: every role named must exist;
// a role already a member is noted, as is one that is not when dropped.
func (s *Session) alterGroupMembers(rc *roleCatalog, group *roleDesc, specs []*pg_query.Node, add bool, note notify, actor roleActor) error {
	var roles []*roleDesc
	for _, n := range specs {
		spec := n.GetRoleSpec()
		name := s.roleSpecName(spec.Roletype.String(), spec.Rolename)
		r := s.findRole(rc, name)
		if r == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
		}
		roles = append(roles, r)
	}
	for _, r := range roles {
		idx := slices.IndexFunc(rc.members, func(m roleMember) bool { return m.role == group.oid && m.member == r.oid })
		switch {
		case add && idx >= 0:
			note("NOTICE", "role \"%s\" is already a member of role \"%s\"", r.name, group.name)
		case add:
			if err := memberAllowed(rc, group, r); err != nil {
				return err
			}
			rc.members = append(rc.members, roleMember{role: group.oid, member: r.oid, grantor: actor.oid})
		case idx < 0:
			note("WARNING", "role \"%s\" is not a member of role \"%s\"", r.name, group.name)
		default:
			rc.members = slices.Delete(rc.members, idx, idx+1)
		}
	}
	return nil
}

func (s *Session) renameRole(rc *roleCatalog, from, to string, note notify, actor roleActor) error {
	r := rc.roles[from]
	switch {
	case r == nil && s.findRole(rc, from) != nil:
		return pgerror.Unsupported("renaming the bootstrap superuser or a predefined role")
	case r == nil:
		return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", from)
	case from == s.sessionUser():
		return pgerror.New(pgerror.FeatureNotSupported, "session user cannot be renamed")
	case from == s.user():
		return pgerror.New(pgerror.FeatureNotSupported, "current user cannot be renamed")
	case s.findRole(rc, to) != nil:
		return pgerror.Newf(pgerror.DuplicateObject, "role \"%s\" already exists", to)
	}
	if err := reservedRoleName(to); err != nil {
		return err
	}
	switch {
	case r.super && !actor.super:
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to rename superusers")
	case !actor.createRole:
		return pgerror.New(pgerror.InsufficientPrivilege, "permission denied to rename role")
	}
	renamed := *r
	renamed.name = to
	if p, ok := r.password.(string); ok && isMD5Secret(p) {
		// An MD5 hash is salted with the role's name.
		renamed.password = nil
		note("NOTICE", "MD5 password cleared because of role rename")
	}
	delete(rc.roles, from)
	rc.roles[to] = &renamed
	return nil
}

// roleOptions applies CREATE or ALTER ROLE's options to r and returns the
// memberships they ask for (IN ROLE, ROLE, ADMIN; CREATE only).
func (s *Session) roleOptions(rc *roleCatalog, r *roleDesc, opts []*pg_query.Node, create bool, note notify, actor roleActor) ([]roleMember, error) {
	var members []roleMember
	seen := map[string]bool{}
	for _, o := range opts {
		de := o.GetDefElem()
		if seen[de.Defname] {
			return nil, pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
		}
		seen[de.Defname] = true
		flag := de.Arg.GetBoolean().GetBoolval()
		switch de.Defname {
		case "superuser":
			r.super = flag
		case "createdb":
			r.createDB = flag
		case "createrole":
			r.createRole = flag
		case "inherit":
			r.inherit = flag
		case "canlogin":
			r.login = flag
		case "isreplication":
			r.replication = flag
		case "bypassrls":
			r.bypassRLS = flag
		case "connectionlimit":
			n := int64(de.Arg.GetInteger().GetIval())
			if n < -1 {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid connection limit: %d", n)
			}
			r.connLimit = n
		case "password":
			r.password = nil
			if sv := de.Arg.GetString_(); sv != nil {
				p, err := s.encryptPassword(r.name, sv.Sval, note)
				if err != nil {
					return nil, err
				}
				r.password = p
			}
		case "validUntil":
			v, err := types.ParseTextEnv(s.newEnv(), types.Timestamptz, de.Arg.GetString_().GetSval())
			if err != nil {
				return nil, err
			}
			r.validUntil = v
		case "sysid":
		case "addroleto", "rolemembers", "adminmembers":
			if !create {
				return nil, pgerror.Unsupported("ALTER ROLE ... " + de.Defname)
			}
			for _, item := range de.Arg.GetList().GetItems() {
				spec := item.GetRoleSpec()
				other := s.findRole(rc, s.roleSpecName(spec.Roletype.String(), spec.Rolename))
				if create && spec.Rolename == r.name {
					other = r
				}
				if other == nil {
					return nil, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", spec.Rolename)
				}
				m := roleMember{role: other.oid, member: r.oid, grantor: actor.oid}
				if de.Defname == "addroleto" {
					if err := membershipAllowed(rc, actor, other, true); err != nil {
						return nil, err
					}
				} else {
					m.role, m.member = r.oid, other.oid
					m.admin = de.Defname == "adminmembers"
					if err := memberAllowed(rc, r, other); err != nil {
						return nil, err
					}
				}
				members = append(members, m)
			}
		default:
			return nil, pgerror.Unsupported("role option " + de.Defname)
		}
	}
	return members, nil
}

// notify records a NOTICE or WARNING for the client.
type notify func(severity, format string, args ...any)

func (s *Session) dropRoles(rc *roleCatalog, ds *pg_query.DropRoleStmt, note notify, actor roleActor) error {
	if !actor.createRole {
		return pgerror.New(pgerror.InsufficientPrivilege, "permission denied to drop role")
	}
	c, _ := s.catalog()
	for _, n := range ds.Roles {
		spec := n.GetRoleSpec()
		name := s.roleSpecName(spec.Roletype.String(), spec.Rolename)
		r := rc.roles[name]
		switch {
		case r == nil && s.findRole(rc, name) != nil:
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", name)
		case r == nil && ds.MissingOk:
			note("NOTICE", "role \"%s\" does not exist, skipping", name)
			continue
		case r == nil:
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
		case name == s.user():
			return pgerror.New(pgerror.ObjectInUse, "current user cannot be dropped")
		case name == s.sessionUser():
			return pgerror.New(pgerror.ObjectInUse, "session user cannot be dropped")
		case r.super && !actor.super:
			return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to drop superusers")
		}
		if deps := s.roleDependents(c, r, func(oid uint32) string { return roleNameIn(s, rc, oid) }); len(deps) > 0 {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", name).
				WithDetail("%s", strings.Join(deps, "\n"))
		}
		delete(rc.roles, name)
		delete(rc.comments, r.oid)
		kept := rc.members[:0]
		for _, m := range rc.members {
			if m.role != r.oid && m.member != r.oid {
				kept = append(kept, m)
			}
		}
		rc.members = kept
	}
	return nil
}

// roleNameIn names the role of OID oid for a statement holding rc's lock:
// a created role, the bootstrap superuser, else the OID.
func roleNameIn(s *Session, rc *roleCatalog, oid uint32) string {
	for _, r := range rc.roles {
		if r.oid == oid {
			return r.name
		}
	}
	if oid == oidBootstrapSuperuser {
		return s.findRole(rc, "postgres").name
	}
	return strconv.FormatUint(uint64(oid), 10)
}

// roleDependents describes the objects that keep role from being
// dropped, as PostgreSQL's DROP ROLE error details list them: in the order
// they were made, the databases and the current database's objects it owns
// ("owner of table t"), those whose privileges name it ("privileges for
// table t"), and the default privileges it set or is named in; then how
// many such objects each other database holds ("2 objects in database
// d"). roleName names roles (DROP ROLE holds the role catalog's lock).
func (s *Session) roleDependents(c *catalog, role *roleDesc, roleName func(uint32) string) []string {
	deps := s.catalogDependents(c, role, roleName)
	for _, lo := range s.largeObjectDependents(role.oid) {
		deps = append(deps, roleDependent{lo.oid, lo.what})
	}
	for _, e := range s.engine.cluster.databases() {
		acl, _ := e.databaseACL()
		switch {
		case e.owner() == role.oid:
			deps = append(deps, roleDependent{e.oid, "owner of database " + e.Name()})
		case slices.ContainsFunc(acl, func(item aclItem) bool { return item.grantee == role.oid || item.grantor == role.oid }):
			deps = append(deps, roleDependent{e.oid, "privileges for database " + e.Name()})
		}
	}
	slices.SortStableFunc(deps, func(a, b roleDependent) int {
		return cmp.Or(cmp.Compare(a.oid, b.oid), strings.Compare(a.what, b.what))
	})
	out := make([]string, len(deps))
	for i, d := range deps {
		out[i] = d.what
	}
	for _, e := range s.engine.cluster.databases() {
		if e == s.engine {
			continue
		}
		other, _ := e.published()
		switch n := len(s.catalogDependents(other, role, roleName)); n {
		case 0:
		case 1:
			out = append(out, "1 object in database "+e.Name())
		default:
			out = append(out, fmt.Sprintf("%d objects in database %s", n, e.Name()))
		}
	}
	return out
}

// roleDependent is an object that keeps a role from being dropped, by OID
// (the order it was made in) with its description.
type roleDependent struct {
	oid  uint32
	what string
}

// catalogDependents lists the objects of catalog c that keep role from
// being dropped (roleDependents), not in order.
func (s *Session) catalogDependents(c *catalog, role *roleDesc, roleName func(uint32) string) []roleDependent {
	var deps []roleDependent
	add := func(oid uint32, what string) { deps = append(deps, roleDependent{oid, what}) }
	for _, o := range ownedObjects(c, role) {
		add(o.oid, "owner of "+o.description(s))
	}
	for k, acl := range c.acls {
		// The owner's own entries are no dependency (PostgreSQL's
		// updateAclDependencies leaves the owner out): owning is. A
		// routine names its owner, which needs no role lookup here.
		if f := c.funcByOID(k.oid); k.kind == aclFunction && f != nil && f.owner == role.name ||
			k.kind != aclFunction && s.objectOwner(c, k.kind, k.oid) == role.oid {
			continue
		}
		if slices.ContainsFunc(acl, func(item aclItem) bool { return item.grantee == role.oid || item.grantor == role.oid }) {
			add(k.oid, aclObjectDescription(s, c, k))
		}
	}
	for _, t := range c.tables {
		for _, p := range t.policies {
			if slices.Contains(p.roles, role.oid) {
				add(p.oid, fmt.Sprintf("target of policy %s on table %s", p.name, s.visibleName(t.schema, t.name)))
			}
		}
	}
	for _, key := range sortedDefaultACLKeys(c) {
		if what := defaultACLDependency(c, key, role.oid, roleName); what != "" {
			add(c.defaultACLs[key].oid, what)
		}
	}
	return deps
}

// visibleName is an object's name as PostgreSQL's object descriptions
// print it: qualified unless its schema is on the search path.
func (s *Session) visibleName(schema, name string) string {
	if slices.Contains(s.searchPath(), schema) {
		return name
	}
	return schema + "." + name
}

// grantRoles runs GRANT role TO role [WITH ADMIN OPTION] and its REVOKE.
func (s *Session) grantRoles(rc *roleCatalog, gs *pg_query.GrantRoleStmt, note notify, actor roleActor) error {
	// admin is WITH ADMIN OPTION granting, ADMIN OPTION FOR revoking (which
	// the parser gives as the option set to false).
	admin := false
	for _, o := range gs.Opt {
		if de := o.GetDefElem(); de.Defname == "admin" {
			admin = !gs.IsGrant || de.Arg == nil || de.Arg.GetBoolean().GetBoolval()
		} else {
			return pgerror.Unsupported("GRANT ROLE option " + de.Defname)
		}
	}
	for _, g := range gs.GrantedRoles {
		granted := s.findRole(rc, g.GetAccessPriv().GetPrivName())
		if granted == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", g.GetAccessPriv().GetPrivName())
		}
		if err := membershipAllowed(rc, actor, granted, gs.IsGrant); err != nil {
			return err
		}
		for _, n := range gs.GranteeRoles {
			spec := n.GetRoleSpec()
			grantee := s.findRole(rc, s.roleSpecName(spec.Roletype.String(), spec.Rolename))
			if grantee == nil {
				return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", spec.Rolename)
			}
			if gs.IsGrant {
				if err := memberAllowed(rc, granted, grantee); err != nil {
					return err
				}
			}
			idx := -1
			for i, m := range rc.members {
				if m.role == granted.oid && m.member == grantee.oid {
					idx = i
				}
			}
			switch {
			case gs.IsGrant && idx >= 0 && (!admin || rc.members[idx].admin):
				note("NOTICE", "role \"%s\" is already a member of role \"%s\"", grantee.name, granted.name)
			case gs.IsGrant && idx >= 0:
				rc.members[idx].admin = true
			case gs.IsGrant:
				rc.members = append(rc.members, roleMember{role: granted.oid, member: grantee.oid, grantor: actor.oid, admin: admin})
			case idx >= 0 && admin:
				rc.members[idx].admin = false
			case idx >= 0:
				rc.members = append(rc.members[:idx], rc.members[idx+1:]...)
			default:
				note("WARNING", "role \"%s\" is not a member of role \"%s\"", grantee.name, granted.name)
			}
		}
	}
	return nil
}

// aclObjectDescription names the object of an access control list as
// PostgreSQL's dependency errors do.
func aclObjectDescription(s *Session, c *catalog, k aclKey) string {
	switch k.kind {
	case aclSchema:
		name, _ := namespaceName(c, k.oid)
		return "privileges for schema " + name
	case aclFunction:
		if p := builtinIndex().procs[k.oid]; p != nil && k.oid < firstUserOID {
			return "privileges for function " + p.name + "(" + p.identityArguments + ")"
		}
		f := c.funcByOID(k.oid)
		return "privileges for function " + s.visibleName(f.schema, f.objectSignature())
	case aclType:
		name, _ := catalogNames{s: s, cat: c}.typeName(k.oid, -1)
		return "privileges for type " + name
	case aclForeignDataWrapper:
		return "privileges for foreign-data wrapper " + c.fdwByOID(k.oid).name
	case aclForeignServer:
		return "privileges for server " + c.serverByOID(k.oid).name
	}
	schema, name, _ := relationByOid(c, int64(k.oid))
	name = s.visibleName(schema, name)
	if k.kind == aclColumn {
		_, cols, _ := relationColumns(c, k.oid)
		noun := "table"
		if viewByOid(c, k.oid) != nil {
			noun = "view"
		}
		return "privileges for column " + cols[int64(k.attnum)] + " of " + noun + " " + name
	}
	switch {
	case k.kind == aclSequence:
		return "privileges for sequence " + name
	case viewByOid(c, k.oid) != nil:
		return "privileges for view " + name
	}
	return "privileges for table " + name
}
