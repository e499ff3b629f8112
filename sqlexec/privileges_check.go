package sqlexec

import (
	"slices"

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
// from (Session.hasPrivilege). A role without SELECT, INSERT, UPDATE or
// REFERENCES on a relation may still hold it through column privileges,
// as PostgreSQL's ExecCheckRTEPerms: on every column the statement reads,
// inserts or updates (columnUse), or on some column when it names none
// (count(*), DEFAULT VALUES, FOR UPDATE).

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
	// columns, when set, lets column privileges stand for the relation's
	// privilege: the columns the statement uses it on.
	columns *columnUse
	// planErr, when set, fails the statement as it starts, before any
	// privilege is checked, as PostgreSQL's planner fails it: it reads or
	// writes a foreign table (ddl_foreign_table.go).
	planErr error
}

// columnUse is what a statement uses of a relation's columns for one
// privilege, filled in as the statement is compiled: the binder marks
// the columns it reads (scopeCol.read) or lists those it writes.
type columnUse struct {
	// attnums are the relation's columns by attribute number; used marks
	// those used, all of them when nil.
	attnums []int16
	used    []bool
	// system marks a read of a system column, on which fickle grants no
	// column privilege: only the relation's privilege allows it.
	system bool
	// ifUsed makes the privilege needed only when some column is used, as
	// PostgreSQL needs SELECT only for a column an expression reads.
	ifUsed bool
}

// trackedColumns is a columnUse for the columns of relation whose reads
// the binder marks, numbered from 1 in cols' order for a view.
func trackedColumns(t *tableDesc, n int) *columnUse {
	u := &columnUse{attnums: make([]int16, n), used: make([]bool, n)}
	for i := range u.attnums {
		u.attnums[i] = int16(i + 1)
		if t != nil {
			u.attnums[i] = t.cols[i].attnum
		}
	}
	return u
}

// track makes the columns of a table item's scope mark their reads in u:
// the table's columns (the first len(u.used)), then its system columns.
func (u *columnUse) track(cols []scopeCol) {
	for i := range cols {
		if i < len(u.used) {
			cols[i].read = &u.used[i]
		} else {
			cols[i].read = &u.system
		}
	}
}

// markArbiter marks the columns of table t that the arbiter of an ON
// CONFLICT clause names, in its columns, expressions or WHERE clause, or
// the columns of the constraint it names, as read: PostgreSQL needs
// SELECT on them.
func (u *columnUse) markArbiter(t *tableDesc, oc *pg_query.OnConflictClause) {
	if oc == nil || oc.Infer == nil {
		return
	}
	if name := oc.Infer.Conname; name != "" {
		cols := slices.Clone(t.pk)
		if name != t.pkName {
			cols = nil
			for _, ix := range t.indexes {
				if ix.name != name {
					continue
				}
				for i, c := range ix.cols {
					if !ix.isExprKey(i) {
						cols = append(cols, c)
					}
				}
				for i, col := range t.cols {
					if ix.readsIndexColumn(col.name) { // an exclusion constraint's expressions and WHERE
						cols = append(cols, i)
					}
				}
			}
		}
		for _, c := range cols {
			u.used[c] = true
		}
		return
	}
	mark := func(name string) {
		if i := t.colIndex(name); i >= 0 {
			u.used[i] = true
		}
	}
	nodes := []*pg_query.Node{oc.Infer.WhereClause}
	for _, e := range oc.Infer.IndexElems {
		ie := e.GetIndexElem()
		if ie.Expr == nil {
			mark(ie.Name)
		}
		nodes = append(nodes, ie.Expr)
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		walk(n, func(m *pg_query.Node) bool {
			if cr := m.GetColumnRef(); cr != nil {
				if f := cr.Fields; len(f) > 0 {
					mark(f[len(f)-1].GetString_().GetSval())
				}
			}
			return true
		})
	}
}

// needed lists the columns used.
func (u *columnUse) needed() []int16 {
	if u.used == nil {
		return u.attnums
	}
	var out []int16
	for i, used := range u.used {
		if used {
			out = append(out, u.attnums[i])
		}
	}
	return out
}

// unused reports whether no column is used, so that an ifUsed privilege
// is not needed.
func (u *columnUse) unused() bool {
	anyUsed := len(u.attnums) > 0
	if u.used != nil {
		anyUsed = slices.Contains(u.used, true)
	}
	return u.ifUsed && !u.system && !anyUsed
}

// requireColumnsAs notes that the statement needs priv on relation oid,
// or on the columns use lists, checked for role as (0: the role running
// the statement).
func (b *binder) requireColumnsAs(as, oid uint32, name, what string, priv byte, use *columnUse) {
	b.perms = append(b.perms, permCheck{kind: aclTable, oid: oid, name: name, what: what, privs: string(priv), as: as, columns: use})
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
// the one the target of an UPDATE or DELETE got as a FROM item. It
// returns the columns that check tracks, for the SELECT the statement
// needs when it reads them.
func (b *binder) dropPrivilegeSince(mark int, oid uint32) *columnUse {
	for i := mark; i < len(b.perms); i++ {
		if b.perms[i].oid == oid && b.perms[i].privs == "r" {
			use := b.perms[i].columns
			b.perms = append(b.perms[:i:i], b.perms[i+1:]...)
			return use
		}
	}
	return nil
}

// checkPrivileges fails with 42501 on the first privilege of perms that
// its role does not hold.
func (s *Session) checkPrivileges(perms []permCheck) error {
	for _, p := range perms {
		if p.planErr != nil {
			return p.planErr
		}
	}
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
		if p.planErr != nil {
			continue
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
		if p.columns != nil && p.columns.unused() {
			continue
		}
		if !s.hasPrivilege(role, p.kind, p.oid, []byte(p.privs)) && !s.columnsAllow(role, p) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for %s %s", p.what, p.name)
		}
	}
	return nil
}

// columnsAllow reports whether role holds the privilege of check p on
// every column it uses, or on some column of the relation when it uses
// none, as PostgreSQL's ExecCheckRTEPerms.
func (s *Session) columnsAllow(role uint32, p permCheck) bool {
	if p.columns == nil || p.columns.system {
		return false
	}
	privs := []byte(p.privs)
	needed := p.columns.needed()
	if len(needed) == 0 {
		return s.hasAnyColumnPrivilege(role, p.oid, privs)
	}
	for _, attnum := range needed {
		if !s.hasColumnPrivilege(role, p.oid, attnum, privs) {
			return false
		}
	}
	return true
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
