package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// rolePlan compiles CREATE, ALTER and DROP ROLE (USER, GROUP), ALTER ROLE
// ... RENAME and GRANT or REVOKE of role memberships, which change the
// server's roles at once (not transactionally).
func (b *binder) rolePlan(n *pg_query.Node) (*stmtPlan, error) {
	var tag string
	// run edits the roles with rc locked: the role the session runs as is
	// read before (grantor), as reading it takes the lock.
	var run func(x *execCtx, rc *roleCatalog, note notify, grantor uint32) error
	switch v := n.Node.(type) {
	case *pg_query.Node_CreateRoleStmt:
		tag = "CREATE ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, grantor uint32) error {
			return x.s.createRole(rc, v.CreateRoleStmt, grantor)
		}
	case *pg_query.Node_AlterRoleStmt:
		tag = "ALTER ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, grantor uint32) error {
			return x.s.alterRole(rc, v.AlterRoleStmt, grantor)
		}
	case *pg_query.Node_DropRoleStmt:
		tag = "DROP ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, grantor uint32) error {
			return x.s.dropRoles(rc, v.DropRoleStmt, note)
		}
	case *pg_query.Node_GrantRoleStmt:
		tag = "GRANT ROLE"
		if !v.GrantRoleStmt.IsGrant {
			tag = "REVOKE ROLE"
		}
		run = func(x *execCtx, rc *roleCatalog, note notify, grantor uint32) error {
			return x.s.grantRoles(rc, v.GrantRoleStmt, note, grantor)
		}
	case *pg_query.Node_RenameStmt:
		tag = "ALTER ROLE"
		run = func(x *execCtx, rc *roleCatalog, note notify, grantor uint32) error {
			return x.s.renameRole(rc, v.RenameStmt.Subname, v.RenameStmt.Newname)
		}
	default:
		return nil, pgerror.Unsupported("statement " + nodeKind(n))
	}
	return &stmtPlan{noTxn: true, exec: func(x *execCtx) (*Result, error) {
		grantor := x.s.currentRole()
		rc := &x.s.engine.cluster.roles
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.roles == nil {
			rc.roles = map[string]*roleDesc{}
		}
		var notices []*pgerror.Error
		note := func(severity, format string, args ...any) {
			n := pgerror.Newf(pgerror.SuccessfulCompletion, format, args...)
			n.Severity = severity
			notices = append(notices, n)
		}
		if err := run(x, rc, note, grantor); err != nil {
			return nil, err
		}
		return &Result{Tag: tag, Notices: notices}, nil
	}}, nil
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

func (s *Session) createRole(rc *roleCatalog, cs *pg_query.CreateRoleStmt, grantor uint32) error {
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
	members, err := s.roleOptions(rc, r, cs.Options, true, grantor)
	if err != nil {
		return err
	}
	rc.roles[r.name] = r
	rc.members = append(rc.members, members...)
	return nil
}

func (s *Session) alterRole(rc *roleCatalog, as *pg_query.AlterRoleStmt, grantor uint32) error {
	name := s.roleSpecName(as.Role.Roletype.String(), as.Role.Rolename)
	r := rc.roles[name]
	if r == nil {
		if s.findRole(rc, name) != nil {
			return pgerror.Unsupported("ALTER ROLE of the bootstrap superuser or a predefined role")
		}
		return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", name)
	}
	changed := *r
	members, err := s.roleOptions(rc, &changed, as.Options, false, grantor)
	if err != nil {
		return err
	}
	rc.roles[name] = &changed
	rc.members = append(rc.members, members...)
	return nil
}

func (s *Session) renameRole(rc *roleCatalog, from, to string) error {
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
	renamed := *r
	renamed.name = to
	delete(rc.roles, from)
	rc.roles[to] = &renamed
	return nil
}

// roleOptions applies CREATE or ALTER ROLE's options to r and returns the
// memberships they ask for (IN ROLE, ROLE, ADMIN; CREATE only).
func (s *Session) roleOptions(rc *roleCatalog, r *roleDesc, opts []*pg_query.Node, create bool, grantor uint32) ([]roleMember, error) {
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
				r.password = sv.Sval
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
				if other == nil {
					return nil, pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", spec.Rolename)
				}
				m := roleMember{role: other.oid, member: r.oid, grantor: grantor}
				if de.Defname != "addroleto" {
					m.role, m.member = r.oid, other.oid
					m.admin = de.Defname == "adminmembers"
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

func (s *Session) dropRoles(rc *roleCatalog, ds *pg_query.DropRoleStmt, note notify) error {
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
		}
		for k, acl := range c.acls {
			for _, item := range acl {
				if item.grantee == r.oid || item.grantor == r.oid {
					return pgerror.Newf(pgerror.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", name).
						WithDetail("%s", aclObjectDescription(s, c, k))
				}
			}
		}
		if f := routineOwnedBy(c, name); f != nil {
			return pgerror.Newf(pgerror.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", name).
				WithDetail("owner of %s %s", f.kindName(), f.signature())
		}
		delete(rc.roles, name)
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

// grantRoles runs GRANT role TO role [WITH ADMIN OPTION] and its REVOKE.
func (s *Session) grantRoles(rc *roleCatalog, gs *pg_query.GrantRoleStmt, note notify, grantor uint32) error {
	admin := false
	for _, o := range gs.Opt {
		if de := o.GetDefElem(); de.Defname == "admin" {
			admin = de.Arg == nil || de.Arg.GetBoolean().GetBoolval()
		} else {
			return pgerror.Unsupported("GRANT ROLE option " + de.Defname)
		}
	}
	for _, g := range gs.GrantedRoles {
		granted := s.findRole(rc, g.GetAccessPriv().GetPrivName())
		if granted == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", g.GetAccessPriv().GetPrivName())
		}
		for _, n := range gs.GranteeRoles {
			spec := n.GetRoleSpec()
			grantee := s.findRole(rc, s.roleSpecName(spec.Roletype.String(), spec.Rolename))
			if grantee == nil {
				return pgerror.Newf(pgerror.UndefinedObject, "role \"%s\" does not exist", spec.Rolename)
			}
			if grantee.oid == granted.oid {
				return pgerror.Newf(pgerror.InvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", grantee.name, granted.name)
			}
			idx := -1
			for i, m := range rc.members {
				if m.role == granted.oid && m.member == grantee.oid {
					idx = i
				}
			}
			switch {
			case gs.IsGrant && idx >= 0:
				rc.members[idx].admin = rc.members[idx].admin || admin
			case gs.IsGrant:
				rc.members = append(rc.members, roleMember{role: granted.oid, member: grantee.oid, grantor: grantor, admin: admin})
			case idx >= 0 && admin:
				rc.members[idx].admin = false
			case idx >= 0:
				rc.members = append(rc.members[:idx], rc.members[idx+1:]...)
			default:
				note("WARNING", "role \"%s\" has not been granted membership in role \"%s\" by role \"%s\"",
					grantee.name, granted.name, s.user())
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
	case aclDatabase:
		return "privileges for database " + s.database()
	case aclSequence:
		_, name, _ := relationByOid(c, int64(k.oid))
		return "privileges for sequence " + name
	}
	_, name, _ := relationByOid(c, int64(k.oid))
	if viewByOid(c, k.oid) != nil {
		return "privileges for view " + name
	}
	return "privileges for table " + name
}
