package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Routines whose parameters or result are of a domain. The body sees a
// domain parameter with its base type, as every expression sees a domain's
// values (ddl_domains.go); the domain is the type of the routine's
// signature (pg_proc.proargtypes, prorettype, the overload's identity),
// and its constraints are checked where PostgreSQL coerces to it: the
// call's argument, a PL/pgSQL assignment to the parameter, the value
// returned.
//
// A call resolves as PostgreSQL's func_get_detail does: an argument of
// the domain matches a parameter of the domain exactly (before anything
// else), and func_select_candidate then compares the arguments' base
// types, a domain parameter taking what its base type takes without ever
// counting as an exact or preferred match (types.ChooseRoutine). A table
// column, a routine's parameter or a user function's call is of its
// declared domain or of none; an expression that may give a value of a
// domain without fickle knowing which (a subquery's or a view's column, a
// CASE) is refused where the choice depends on it.

// argDomainUnknown marks an argument that may be of a domain over its
// type, fickle not knowing which.
const argDomainUnknown = ^uint32(0)

// argDomain is the domain argument e (written as n) is of: the domain's
// OID, 0 for none, argDomainUnknown when it may be of one.
func (b *binder) argDomain(n *pg_query.Node, e *scalar) uint32 {
	if na := n.GetNamedArgExpr(); na != nil {
		n = na.Arg
	}
	switch {
	case e.domain != nil:
		return e.domain.oid
	case untyped(e), e.plain:
		return 0
	case b.mayBeOfDomain(n) && b.catalogNow().hasDomainOver(e.typ):
		return argDomainUnknown
	}
	return 0
}

// chooseCandidate picks among the candidates keep (indexes of the call's
// candidates, whose parameters' domains doms and base types declared are,
// per argument) the one the arguments call, as an index in keep:
// func_get_detail's exact match of a candidate that declares a domain,
// else types.ChooseRoutine on the arguments' base types (inputs). An
// argument that may be of a domain fickle does not know is tried as of
// each domain an overload declares there and as of none; a choice that
// depends on it is refused.
func (b *binder) chooseCandidate(name string, argNodes []*pg_query.Node, args []*scalar, inputs []types.Type, keep []int, doms [][]routineDomain, declared [][]types.Type) (int, error) {
	argDoms := make([]uint32, len(args))
	var unsure []int
	var options [][]uint32
	combos := 1
	for j, e := range args {
		argDoms[j] = b.argDomain(argNodes[j], e)
		if argDoms[j] != argDomainUnknown {
			continue
		}
		argDoms[j] = 0
		opts := []uint32{0}
		for _, k := range keep {
			if d := doms[k][j]; d.oid != 0 && declared[k][j].Oid == e.typ.Oid && !slices.Contains(opts, d.oid) {
				opts = append(opts, d.oid)
			}
		}
		if len(opts) > 1 {
			unsure, options, combos = append(unsure, j), append(options, opts), combos*len(opts)
		}
	}
	declaredKept := make([][]types.Type, len(keep))
	domainsKept := make([][]bool, len(keep))
	for i, k := range keep {
		declaredKept[i] = declared[k]
		domainsKept[i] = make([]bool, len(args))
		for j, d := range doms[k] {
			domainsKept[i][j] = d.oid != 0
		}
	}
	choose := func() (int, error) {
		if i := domainExactMatch(args, argDoms, keep, doms, declared); i >= 0 {
			return i, nil
		}
		return types.ChooseRoutine(name, inputs, declaredKept, domainsKept)
	}
	chosen, err := choose()
	if len(unsure) == 0 {
		return chosen, err
	}
	refusal := pgerror.Unsupported("a call choosing between routines by whether an argument is of a domain type, where fickle does not know the argument's domain")
	if combos > 256 {
		return -1, refusal
	}
	for c := 1; c < combos; c++ {
		n := c
		for i, j := range unsure {
			argDoms[j] = options[i][n%len(options[i])]
			n /= len(options[i])
		}
		other, otherErr := choose()
		if other != chosen || pgerror.GetCode(otherErr) != pgerror.GetCode(err) {
			return -1, refusal
		}
	}
	return chosen, err
}

// domainExactMatch is func_get_detail's exact match among the candidates
// keep that declare a domain, for arguments of the domains argDoms (0
// for none): the index in keep of the one whose signature the arguments'
// types are, domains included, -1 for none.
func domainExactMatch(args []*scalar, argDoms []uint32, keep []int, doms [][]routineDomain, declared [][]types.Type) int {
	for i, k := range keep {
		hasDomain, exact := false, true
		for j, e := range args {
			d := doms[k][j]
			hasDomain = hasDomain || d.oid != 0
			switch {
			case untyped(e):
				exact = false
			case argDoms[j] != 0:
				exact = exact && d.oid == argDoms[j]
			default:
				exact = exact && d.oid == 0 && declared[k][j].Oid == e.typ.Oid
			}
		}
		if hasDomain && exact {
			return i
		}
	}
	return -1
}

// untyped reports whether e is an untyped literal, NULL or parameter, of
// type unknown to call resolution.
func untyped(e *scalar) bool {
	return unresolved(e) || e.null || e.typ.Oid == types.OidUnknown
}

// toRoutineDomain is argument e (coerced from arg to the base type of
// parameter domain dom) coerced to the domain: checked against its
// constraints, unless arg is of the domain already, which PostgreSQL
// passes as it is.
func (b *binder) toRoutineDomain(e, arg *scalar, dom routineDomain) (*scalar, error) {
	if dom.oid == 0 || arg.domain != nil && arg.domain.oid == dom.oid {
		return e, nil
	}
	t := b.domainByOid(dom.oid)
	if t == nil || t.domain == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "type with OID %d does not exist", dom.oid)
	}
	return b.withDomainCheck(e, t)
}

// resultDomains are the domains f's result columns are declared of (a
// RETURNS domain or a lone OUT parameter's, else the OUT parameters'), nil
// when none is.
func (f *funcDesc) resultDomains() []routineDomain {
	if f.resultDom.oid != 0 {
		return []routineDomain{f.resultDom}
	}
	if len(f.outCols) == 0 || !f.hasOutParams() {
		return nil
	}
	var out []routineDomain
	some := false
	for _, p := range f.params {
		if p.isOut() {
			out = append(out, p.dom)
			some = some || p.dom.oid != 0
		}
	}
	if !some {
		return nil
	}
	return out
}

// resultChecks compiles the checks of the domains of f's result columns,
// nil for a column of none: the coercion to the declared result type that
// PostgreSQL applies to the value returned.
func (b *binder) resultChecks(f *funcDesc) ([]domainCheck, error) {
	doms := f.resultDomains()
	if doms == nil {
		return nil, nil
	}
	checks := make([]domainCheck, len(doms))
	for i, d := range doms {
		if d.oid == 0 {
			continue
		}
		t := b.domainByOid(d.oid)
		if t == nil || t.domain == nil {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "type with OID %d does not exist", d.oid)
		}
		var err error
		if checks[i], err = b.domainCheckFor(t); err != nil {
			return nil, err
		}
	}
	return checks, nil
}

// checkResultRows checks the result rows of f against checks (its
// resultChecks): each column against its domain's, or, for a function
// returning a domain over a composite type, each row as a value of it.
func checkResultRows(x *execCtx, f *funcDesc, checks []domainCheck, rows [][]any) error {
	if f.resultDom.oid != 0 && f.result.IsComposite() {
		for _, row := range rows {
			if err := checks[0](x, row); err != nil {
				return err
			}
		}
		return nil
	}
	for _, row := range rows {
		for i, check := range checks {
			if check != nil && i < len(row) {
				if err := check(x, row[i]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// commonDomain is the domain of the common type PostgreSQL's
// select_common_type gives the expressions args (written as nodes): the
// domain every one of them is of, else none, as a domain is smashed to its
// base type once the inputs' types differ. plain says the result is of no
// domain; both are zero when that depends on an input fickle does not know
// the domain of.
func (b *binder) commonDomain(nodes []*pg_query.Node, args []*scalar) (*typeDesc, bool) {
	var first *typeDesc
	unsure := false
	for j, e := range args {
		d := b.argDomain(nodes[j], e)
		switch {
		case d == argDomainUnknown:
			unsure = true
		case d == 0 || untyped(e):
			return nil, true
		case first == nil:
			first = e.domain
		case first.oid != d:
			return nil, true
		}
	}
	if unsure {
		return nil, false
	}
	return first, first == nil
}
