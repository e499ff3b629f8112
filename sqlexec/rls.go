package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Row-level security, as PostgreSQL 15 applies it. A table with ENABLE
// ROW LEVEL SECURITY shows a role only the rows its policies let through:
// the permissive policies for the command that apply to the role are
// OR-ed, the restrictive ones AND-ed with them, and no permissive policy
// means no row. Superusers, BYPASSRLS roles and the table's owner (unless
// FORCE ROW LEVEL SECURITY) are exempt; with row_security off a query that
// policies would filter fails instead. Policies are compiled into every
// plan that reads or writes the table, and which of them apply is decided
// each time the plan runs, for the role running it (or the owner of the
// view it reads through), so that SET ROLE never reuses another role's
// filter.

// Policy commands, as pg_policy.polcmd spells them.
const (
	polAll    = '*'
	polSelect = 'r'
	polInsert = 'a'
	polUpdate = 'w'
	polDelete = 'd'
)

// policyDesc is one CREATE POLICY.
type policyDesc struct {
	name       string
	oid        uint32
	cmd        byte
	permissive bool
	// roles are the roles the policy applies to; empty means PUBLIC.
	roles []uint32
	// using and check are the USING and WITH CHECK expressions, nil when
	// absent.
	using, check *pg_query.Node
	// deps are the OIDs of the tables and views using and check read, as
	// CREATE or ALTER POLICY found them: dropping one drops the policy
	// (CASCADE) or is refused.
	deps []uint32
}

// forCommand reports whether the policy applies to command cmd.
func (p *policyDesc) forCommand(cmd byte) bool { return p.cmd == polAll || p.cmd == cmd }

// appliesTo reports whether the policy applies to a role holding the
// privileges of the roles in held.
func (p *policyDesc) appliesTo(held map[uint32]bool) bool {
	if len(p.roles) == 0 {
		return true
	}
	for _, r := range p.roles {
		if r == 0 || held[r] {
			return true
		}
	}
	return false
}

// policy returns t's policy named name, nil if none.
func (t *tableDesc) policy(name string) *policyDesc {
	for _, p := range t.policies {
		if p.name == name {
			return p
		}
	}
	return nil
}

// rowSecurityActive reports whether t's policies filter what role reads
// and writes; with row_security off, where they would, it fails as
// PostgreSQL does.
func (s *Session) rowSecurityActive(t *tableDesc, role uint32) (bool, error) {
	if !t.rowSecurity || s.isSuperuser(role) {
		return false, nil
	}
	for _, r := range s.roles() {
		if r.oid == role && r.bypassRLS {
			return false, nil
		}
	}
	owner := t.owner
	if owner == 0 {
		owner = oidBootstrapSuperuser
	}
	isOwner := s.memberOf(role)[owner]
	if isOwner && !t.forceRowSecurity {
		return false, nil
	}
	if v, _ := s.setting("row_security"); v == "off" {
		err := pgerror.Newf(pgerror.InsufficientPrivilege, "query would be affected by row-level security policy for table \"%s\"", t.name)
		if isOwner {
			err = err.WithHint("To disable the policy for the table's owner, use ALTER TABLE NO FORCE ROW LEVEL SECURITY.")
		}
		return false, err
	}
	return true, nil
}

// compiledPolicy is one policy's expression compiled for a plan.
type compiledPolicy struct {
	p *policyDesc
	e *scalar
}

// rowSecurity is what a plan checks of one table's policies for one
// command: which ones apply is decided when it runs.
type rowSecurity struct {
	t *tableDesc
	// as is the role the policies are chosen for; 0 is the role running
	// the statement.
	as uint32
	// recursive marks a table reached again from its own policies: it
	// fails where the policies apply.
	recursive bool
}

// active reports whether the policies apply to the statement running in
// x, and the roles whose privileges its role holds.
func (r *rowSecurity) active(x *execCtx) (bool, map[uint32]bool, error) {
	role := r.as
	if role == 0 {
		role = x.s.currentRole()
	}
	type memoKey struct {
		r    *rowSecurity
		role uint32
	}
	type memoVal struct {
		on   bool
		held map[uint32]bool
	}
	kept, _ := x.memoGet(memoKey{r, role})
	if v, ok := kept.(memoVal); ok {
		return v.on, v.held, nil
	}
	on, err := x.s.rowSecurityActive(r.t, role)
	if err != nil {
		return false, nil, err
	}
	if on && r.recursive {
		return false, nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "infinite recursion detected in policy for relation \"%s\"", r.t.name)
	}
	v := memoVal{on: on}
	if on {
		v.held = x.s.memberOf(role)
	}
	x.memoSet(memoKey{r, role}, v)
	return v.on, v.held, nil
}

// rowSecurityScope is the scope a table's policy expressions are compiled
// in: the table's columns under its own name at the slots cols occupy.
// System columns (tableoid) are left out: policies name the table's own
// columns, which an alias may have renamed in cols.
func rowSecurityScope(t *tableDesc, cols []scopeCol) *scope {
	sc := &scope{}
	for _, c := range cols {
		if c.system {
			continue
		}
		c.rel, c.name = t.name, t.cols[len(sc.cols)].name
		sc.cols = append(sc.cols, c)
	}
	return sc
}

// compilePolicies compiles, for the policies of t for cmd, their USING
// expressions (withCheck false) or their WITH CHECK expressions, a
// policy without one using its USING expression.
func (b *binder) compilePolicies(t *tableDesc, sc *scope, cmd byte, withCheck bool) ([]compiledPolicy, error) {
	var out []compiledPolicy
	for _, p := range t.policies {
		if !p.forCommand(cmd) {
			continue
		}
		n := p.using
		if withCheck && p.check != nil {
			n = p.check
		}
		if n == nil {
			continue
		}
		e, err := b.cond(sc, n, "POLICY")
		if err != nil {
			return nil, err
		}
		out = append(out, compiledPolicy{p: p, e: e})
	}
	return out, nil
}

// combine evaluates the policies that apply (held): true when one
// permissive policy holds and every restrictive one does. failed is the
// restrictive policy that did not hold, nil when the permissive ones
// failed.
func combine(x *execCtx, ps []compiledPolicy, held map[uint32]bool) (ok bool, failed *policyDesc, err error) {
	permitted := false
	for _, cp := range ps {
		if !cp.p.permissive || !cp.p.appliesTo(held) {
			continue
		}
		v, err := cp.e.eval(x)
		if err != nil {
			return false, nil, err
		}
		if v == true {
			permitted = true
			break
		}
	}
	if !permitted {
		return false, nil, nil
	}
	for _, cp := range ps {
		if cp.p.permissive || !cp.p.appliesTo(held) {
			continue
		}
		v, err := cp.e.eval(x)
		if err != nil {
			return false, nil, err
		}
		if v != true {
			return false, cp.p, nil
		}
	}
	return true, nil, nil
}
