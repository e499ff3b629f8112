package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// How plans apply row-level security (rls.go). A table read in FROM gets
// its policies' USING expressions as the first condition of its item: its
// SELECT policies, or, for the target of an UPDATE or DELETE, that
// command's policies and, when the statement reads the rows (WHERE, SET
// from a column, RETURNING), the SELECT ones too. A row an INSERT or
// UPDATE writes must pass the command's WITH CHECK expressions, and the
// SELECT policies when the statement reads the rows, as PostgreSQL's
// WITH CHECK OPTIONs do.

// rowSecurityTarget tells the binder the commands whose policies filter
// the target rv of the UPDATE or DELETE it compiles next.
type rowSecurityTarget struct {
	rv   *pg_query.RangeVar
	cmds []byte
}

// policyCommands returns the commands whose policies filter the rows of
// rv as a FROM item.
func (b *binder) policyCommands(rv *pg_query.RangeVar) []byte {
	if b.rlsTarget.rv == rv && rv != nil {
		return b.rlsTarget.cmds
	}
	return []byte{polSelect}
}

// targetCommands returns the commands whose policies apply to the target
// of command cmd: cmd's, and SELECT's when the statement reads the rows.
func targetCommands(cmd byte, reads bool) []byte {
	if reads {
		return []byte{cmd, polSelect}
	}
	return []byte{cmd}
}

// rowSecurityFor returns the row security of t for the statement being
// compiled, nil when t has it disabled, and notes the check that fails
// with row_security off.
func (b *binder) rowSecurityFor(t *tableDesc) *rowSecurity {
	if !t.rowSecurity {
		return nil
	}
	rs := &rowSecurity{t: t, as: b.privRole, recursive: b.rlsCompiling[t.oid]}
	b.perms = append(b.perms, permCheck{oid: t.oid, name: t.name, as: b.privRole, rls: rs})
	return rs
}

// compileEach compiles t's policies for each command of cmds, in scope sc,
// marking t as compiling so that a policy reaching t again is found.
func (b *binder) compileEach(t *tableDesc, sc *scope, cmds []byte, withCheck bool) ([][]compiledPolicy, error) {
	if b.rlsCompiling == nil {
		b.rlsCompiling = map[uint32]bool{}
	}
	was := b.rlsCompiling[t.oid]
	b.rlsCompiling[t.oid] = true
	defer func() { b.rlsCompiling[t.oid] = was }()
	// A policy reads the table's columns without the statement needing
	// SELECT on them, as PostgreSQL's security quals: its reads are not
	// marked (columnUse).
	psc := *sc
	psc.cols = slices.Clone(sc.cols)
	for i := range psc.cols {
		psc.cols[i].read = nil
	}
	defer func(sc *scope) { sc.pending |= psc.pending }(sc) // the policies' subqueries' references to the level
	sc = &psc
	var out [][]compiledPolicy
	for i, cmd := range cmds {
		// The SELECT policies a writing statement adds are checked with
		// their USING expressions.
		ps, err := b.compilePolicies(t, sc, cmd, withCheck && i == 0)
		if err != nil {
			return nil, err
		}
		out = append(out, ps)
	}
	return out, nil
}

// rowSecurityConj compiles the condition the policies of it's table put
// on its rows; cols are the item's columns at their slots. It is nil when
// the table has row security disabled.
func (b *binder) rowSecurityConj(it *fromItem, cols []scopeCol) (*conj, error) {
	rs := b.rowSecurityFor(it.table)
	if rs == nil || rs.recursive {
		if rs != nil {
			return &conj{eqSlot: -1, inSlot: -1, anySlot: -1, policy: true, e: &scalar{typ: types.Bool, slot: -1, eval: func(x *execCtx) (any, error) {
				_, _, err := rs.active(x)
				return true, err
			}}}, nil
		}
		return nil, nil
	}
	sc := rowSecurityScope(it.table, cols)
	lists, err := b.compileEach(it.table, sc, it.policyCmds, false)
	if err != nil {
		return nil, err
	}
	// SELECT ... FOR UPDATE / SHARE (the locking clause is compiled after
	// the items) also needs the UPDATE policies' USING. Those reading other
	// tables are not compiled for every SELECT: they would add reads and
	// privilege checks a plain SELECT does not make; a locking SELECT they
	// apply to is refused.
	var locking []compiledPolicy
	lockingRefused := false
	if slices.Equal(it.policyCmds, []byte{polSelect}) && !it.target {
		for _, p := range it.table.policies {
			lockingRefused = lockingRefused || p.forCommand(polUpdate) && containsSubLink(p.using)
		}
		if !lockingRefused {
			l, err := b.compileEach(it.table, sc, []byte{polUpdate}, false)
			if err != nil {
				return nil, err
			}
			locking = l[0]
		}
	}
	deferred := false
	refs := itemBit(cols[0].item)
	for _, ps := range lists {
		for _, cp := range ps {
			deferred = deferred || containsSubLink(policyExpr(cp.p, false))
			refs |= cp.e.refs
		}
	}
	e := &scalar{typ: types.Bool, slot: -1, refs: refs, name: "policy", eval: func(x *execCtx) (any, error) {
		on, held, err := rs.active(x)
		if err != nil || !on {
			return true, err
		}
		for _, ps := range lists {
			ok, _, err := combine(x, ps, held)
			if err != nil || !ok {
				return false, err
			}
		}
		if it.lock == isolation.RowLockNone {
			return true, nil
		}
		if lockingRefused {
			return false, pgerror.Unsupported("SELECT ... FOR UPDATE or SHARE of a table whose UPDATE policies hold subqueries")
		}
		ok, _, err := combine(x, locking, held)
		return ok, err
	}}
	return &conj{e: e, eqSlot: -1, inSlot: -1, anySlot: -1, deferred: deferred, policy: true}, nil
}

// policyExpr is the expression of p a check or a filter evaluates.
func policyExpr(p *policyDesc, withCheck bool) *pg_query.Node {
	if withCheck && p.check != nil {
		return p.check
	}
	return p.using
}

// copyFromRowSecurity refuses COPY FROM into t where its policies apply,
// as PostgreSQL does.
func copyFromRowSecurity(s *Session, t *tableDesc) error {
	on, err := s.rowSecurityActive(t, s.currentRole())
	if err == nil && on {
		err = pgerror.New(pgerror.FeatureNotSupported, "COPY FROM not supported with row-level security").WithHint("Use INSERT statements instead.")
	}
	return err
}

// rowSecurityCheck checks the rows an INSERT or UPDATE writes against the
// policies of their table.
type rowSecurityCheck struct {
	rs    *rowSecurity
	lists [][]compiledPolicy
	// existing marks the check of the row ON CONFLICT DO UPDATE found,
	// against USING expressions, whose errors say so.
	existing bool
}

// rowSecurityCheckFor compiles the checks of the rows command cmd writes
// to t, nil when t has row security disabled.
func (b *binder) rowSecurityCheckFor(t *tableDesc, cmd byte, reads bool) (*rowSecurityCheck, error) {
	rs := b.rowSecurityFor(t)
	if rs == nil {
		return nil, nil
	}
	lists, err := b.compileEach(t, tableScope(t, t.name), targetCommands(cmd, reads), true)
	if err != nil {
		return nil, err
	}
	return &rowSecurityCheck{rs: rs, lists: lists}, nil
}

// conflictRowSecurity compiles the row-level security checks of ON
// CONFLICT DO UPDATE's path, as PostgreSQL's WCO_RLS_CONFLICT_CHECK and
// WCO_RLS_UPDATE_CHECK options: the conflicting row must pass the UPDATE
// policies' USING expressions, and the SELECT ones' when the statement
// reads the rows, and the row it becomes their WITH CHECK expressions as an
// UPDATE's does. The INSERT policies' WITH CHECK apply to the proposed row
// whichever path it takes.
func (b *binder) conflictRowSecurity(cp *conflictPlan, reads bool) error {
	if cp == nil || !cp.update {
		return nil
	}
	t := cp.t
	rs := b.rowSecurityFor(t)
	if rs == nil {
		return nil
	}
	lists, err := b.compileEach(t, tableScope(t, t.name), targetCommands(polUpdate, reads), false)
	if err != nil {
		return err
	}
	cp.existingPolicies = &rowSecurityCheck{rs: rs, lists: lists, existing: true}
	cp.updatePolicies, err = b.rowSecurityCheckFor(t, polUpdate, reads)
	return err
}

// check fails with 42501 when row, a row of the table, violates the
// policies that apply.
func (c *rowSecurityCheck) check(x *execCtx, row []any) error {
	if c == nil {
		return nil
	}
	on, held, err := c.rs.active(x)
	if err != nil || !on {
		return err
	}
	saved := x.row
	x.row = row
	defer func() { x.row = saved }()
	for _, ps := range c.lists {
		ok, failed, err := combine(x, ps, held)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		using := ""
		if c.existing {
			using = " (USING expression)"
		}
		if failed != nil {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "new row violates row-level security policy \"%s\"%s for table \"%s\"", failed.name, using, c.rs.t.name)
		}
		return pgerror.Newf(pgerror.InsufficientPrivilege, "new row violates row-level security policy%s for table \"%s\"", using, c.rs.t.name)
	}
	return nil
}
