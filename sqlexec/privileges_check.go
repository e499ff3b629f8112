package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Privilege checks. The binder notes what a statement needs (SELECT on
// the tables and views it reads, INSERT, UPDATE or DELETE on the table it
// writes, SELECT on that table too when the statement reads its rows:
// WHERE, RETURNING, a SET value computed from a column; EXECUTE on the
// routines it calls, for the role running it even inside a view, as
// PostgreSQL checks them when the executor starts), and the statement
// checks them each time it runs, as PostgreSQL's executor does, against
// the role current then (SET ROLE, SET SESSION AUTHORIZATION, a SECURITY
// DEFINER routine's owner). The tables a view reads are checked against
// the view's owner. A superuser holds every privilege; other roles hold
// those the relation's ACL grants them, PUBLIC or a role they inherit
// from (Session.hasPrivilege). Column privileges are not recorded (GRANT
// on columns is refused), so only table privileges are checked.

// permCheck is one privilege a statement needs on a relation or routine.
type permCheck struct {
	kind aclKind // aclTable or aclFunction
	oid  uint32
	name string
	what string // "table", "view", "function" or "procedure", for the message
	// privs are the ACL letters of the privileges of which the role must
	// hold one.
	privs string
	// as is the role the privilege is checked for; 0 is the role running
	// the statement.
	as uint32
	// rls, when set, makes this the check that the table's row-level
	// security allows the statement to run (row_security off).
	rls *rowSecurity
	// unpopulated, when set, makes this the check that the materialized
	// view name has been populated (matview.go), which PostgreSQL makes
	// when the statement starts, after its privilege checks.
	unpopulated bool
}

// requirePrivilege notes that the statement needs priv on relation oid.
func (b *binder) requirePrivilege(oid uint32, name, what string, priv byte) {
	b.requirePrivilegeAs(b.privRole, oid, name, what, priv)
}

// requirePrivilegeAs notes that the statement needs priv on relation oid,
// checked for role as (0: the role running the statement).
func (b *binder) requirePrivilegeAs(as, oid uint32, name, what string, priv byte) {
	b.perms = append(b.perms, permCheck{kind: aclTable, oid: oid, name: name, what: what, privs: string(priv), as: as})
}

// requireExecute notes that the statement calls routine f, which the role
// running it must hold EXECUTE on.
func (b *binder) requireExecute(f *funcDesc) {
	b.perms = append(b.perms, permCheck{kind: aclFunction, oid: f.oid, name: f.name, what: f.aclNoun(), privs: "X"})
}

// takeWriteAs returns the role the statement being compiled checks its
// target relation for, and forgets a view owner's writeAs so that the
// statements nested in it check theirs as usual.
func (b *binder) takeWriteAs() uint32 {
	as := b.writeAs
	b.writeAs = 0
	if as == 0 {
		as = b.privRole
	}
	return as
}

// dropPrivilegeSince forgets the first SELECT on oid noted since mark:
// the one the target of an UPDATE or DELETE got as a FROM item.
func (b *binder) dropPrivilegeSince(mark int, oid uint32) {
	for i := mark; i < len(b.perms); i++ {
		if b.perms[i].oid == oid && b.perms[i].privs == "r" {
			b.perms = append(b.perms[:i:i], b.perms[i+1:]...)
			return
		}
	}
}

// checkPrivileges fails with 42501 on the first privilege of perms that
// its role does not hold.
func (s *Session) checkPrivileges(perms []permCheck) error {
	current := uint32(0)
	for _, p := range perms {
		role := p.as
		if role == 0 {
			if current == 0 {
				current = s.currentRole()
			}
			role = current
		}
		if p.unpopulated {
			return matviewUnpopulatedError(p.name)
		}
		if p.rls != nil {
			on, err := s.rowSecurityActive(p.rls.t, role)
			if err == nil && on && p.rls.recursive {
				err = pgerror.Newf(pgerror.InvalidObjectDefinition, "infinite recursion detected in policy for relation \"%s\"", p.rls.t.name)
			}
			if err != nil {
				return err
			}
			continue
		}
		if !s.hasPrivilege(role, p.kind, p.oid, []byte(p.privs)) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for %s %s", p.what, p.name)
		}
	}
	return nil
}

// readsTargetRows reports whether an UPDATE or DELETE reads the rows of
// its target beyond finding them: a WHERE clause, RETURNING, or a SET value
// that names a column.
func readsTargetRows(where *pg_query.Node, returning []*pg_query.Node, sets []*pg_query.Node) bool {
	if where != nil || len(returning) > 0 {
		return true
	}
	for _, n := range sets {
		if rt := n.GetResTarget(); rt != nil && namesColumn(rt.Val) {
			return true
		}
	}
	return false
}

// namesColumn reports whether the expression n contains a column
// reference.
func namesColumn(n *pg_query.Node) bool {
	if n == nil {
		return false
	}
	found := false
	walk(n, func(m *pg_query.Node) bool {
		if m.GetColumnRef() != nil {
			found = true
		}
		return !found
	})
	return found
}

// actsAsOwner reports whether the role running the statement may do what
// only owner may (DROP, ALTER): a superuser or a role holding owner's
// privileges, as PostgreSQL's ownership checks.
func (s *Session) actsAsOwner(owner uint32) bool {
	role := s.currentRole()
	return s.isSuperuser(role) || s.memberOf(role)[owner]
}

// requireOwner fails with PostgreSQL's 42501 "must be owner of" error
// unless the role running the statement acts as owner of the object, a
// noun ("table", "view", ...) called name.
func (s *Session) requireOwner(owner uint32, noun, name string) error {
	if s.actsAsOwner(owner) {
		return nil
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of %s %s", noun, name)
}

// routineOwner is the OID of the role owning f: 0, which only a superuser
// acts as, when its owner names no role.
func (s *Session) routineOwner(f *funcDesc) uint32 {
	if r := s.roleNamed(f.owner); r != nil {
		return r.oid
	}
	return 0
}
