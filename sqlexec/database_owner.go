package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Database owners and privileges, pg_database's datdba and datacl. Like
// PostgreSQL's shared catalogs they belong to the server, not to one
// database's catalog: a session sees another database's owner and grants,
// and changes them from any database. A change takes effect at once; the
// statement's undo puts the old value back when it or its transaction
// rolls back, as pg_database's rows are transactional in PostgreSQL. The
// owner of the current database holds the privileges of pg_database_owner
// (memberOf), which owns schema public: a role that does not own the
// database may not create objects there unless granted CREATE, as in
// PostgreSQL 15.

// owner is the database's datdba.
func (e *Engine) owner() uint32 { return e.dba.Load() }

// databaseACL is the database's datacl, ok false when it is NULL (the
// default, acldefault('d', owner)).
func (e *Engine) databaseACL() ([]aclItem, bool) {
	if p := e.acl.Load(); p != nil {
		return *p, true
	}
	return nil, false
}

// initdbDatabaseACL is the list initdb gives template0 and template1: the
// owner's privileges and CONNECT for PUBLIC.
func initdbDatabaseACL() []aclItem {
	return []aclItem{{0, oidBootstrapSuperuser, "c"}, {oidBootstrapSuperuser, oidBootstrapSuperuser, "CTc"}}
}

// setDatabaseACL makes acl the datacl of e for the statement d and its
// transaction.
func (d *ddl) setDatabaseACL(e *Engine, acl []aclItem) {
	if e == nil {
		return // dropped meanwhile
	}
	old := e.acl.Swap(&acl)
	d.undo = append(d.undo, func() { e.acl.Store(old) })
}

// databaseByOID is the database of OID oid the session may name, nil when
// there is none.
func (s *Session) databaseByOID(oid uint32) *Engine {
	if oid == s.engine.oid {
		return s.engine
	}
	return s.engine.cluster.databaseByOID(oid)
}

// databaseObjectACL is the access control list of database oid: its own,
// else the default for its owner.
func (s *Session) databaseObjectACL(oid uint32) []aclItem {
	e := s.databaseByOID(oid)
	if e == nil {
		return defaultACL(aclDatabase, oidBootstrapSuperuser)
	}
	if acl, ok := e.databaseACL(); ok {
		return acl
	}
	return defaultACL(aclDatabase, e.owner())
}

// databaseOwner is the datdba of database oid.
func (s *Session) databaseOwner(oid uint32) uint32 {
	if e := s.databaseByOID(oid); e != nil {
		return e.owner()
	}
	return oidBootstrapSuperuser
}

// ownsDatabase is pg_database_ownercheck: role is a superuser or holds the
// privileges of e's owner.
func (s *Session) ownsDatabase(role uint32, e *Engine) bool { return s.databaseOwnerCheck(role)(e) }

// databaseOwnerCheck is ownsDatabase for role, reading the roles at once:
// the statements that hold the cluster's lock call the check it returns,
// as the roles' lock is never taken under the cluster's.
func (s *Session) databaseOwnerCheck(role uint32) func(e *Engine) bool {
	super, holds := s.isSuperuser(role), s.memberOf(role)
	return func(e *Engine) bool { return super || holds[e.owner()] }
}

// alterDatabaseOwner runs ALTER DATABASE name OWNER TO role with
// PostgreSQL's AlterDatabaseOwner checks, none when the role owns it
// already: the current role owns the database, belongs to the new owner
// and may create databases. The database's grants follow the owner.
func (d *ddl) alterDatabaseOwner(ao *pg_query.AlterOwnerStmt) error {
	r, err := d.newOwner(ao.Newowner)
	if err != nil {
		return err
	}
	name := ao.Object.GetString_().GetSval()
	e := d.s.engine.cluster.database(name)
	if e == nil {
		return pgerror.Newf(pgerror.InvalidCatalogName, "database \"%s\" does not exist", name)
	}
	old := e.owner()
	if old == r.oid {
		return nil
	}
	role := d.s.currentRole()
	if !d.s.ownsDatabase(role, e) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of database %s", name)
	}
	if !d.s.isSuperuser(role) && !d.s.belongsTo(role, r.oid) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be member of role \"%s\"", r.name)
	}
	if !d.s.roleActor().createDB {
		return pgerror.New(pgerror.InsufficientPrivilege, "permission denied to change owner of database")
	}
	d.giveDatabase(e, r.oid)
	return nil
}

// giveDatabase makes owner the owner of e, its grants rewritten for the
// new owner as PostgreSQL's aclnewowner does.
func (d *ddl) giveDatabase(e *Engine, owner uint32) {
	old := e.dba.Swap(owner)
	d.undo = append(d.undo, func() { e.dba.Store(old) })
	if acl, ok := e.databaseACL(); ok {
		d.setDatabaseACL(e, aclNewOwner(acl, old, owner))
	}
}

// requireDatabaseCreate is the check that the current role holds CREATE on
// the current database, which CREATE SCHEMA and the like need.
func (d *ddl) requireDatabaseCreate() error {
	if !d.s.hasPrivilege(d.s.currentRole(), aclDatabase, d.s.engine.oid, []byte{'C'}) {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for database %s", d.s.database())
	}
	return nil
}

// mayConnect is the check PostgreSQL makes as a session starts, for a user
// that names a role (any other runs as the bootstrap superuser): the role
// may log in, and, unless a superuser, holds CONNECT on the database.
func (s *Session) mayConnect() error {
	role := s.currentRole()
	if role == oidBootstrapSuperuser {
		return nil
	}
	if r := s.roleNamed(s.info.User); r != nil && !r.login {
		return pgerror.Newf(pgerror.InvalidAuthorizationSpecification, "role \"%s\" is not permitted to log in", r.name)
	}
	if s.hasPrivilege(role, aclDatabase, s.engine.oid, []byte{'c'}) {
		return nil
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for database \"%s\"", s.engine.Name()).
		WithDetail("User does not have CONNECT privilege.")
}
