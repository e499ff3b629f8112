package sqlexec

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Polymorphic user routines: parameters and results declared anyelement,
// anyarray, anynonarray, anyenum, anyrange and the anycompatible family.
// A call resolves the actual types by PostgreSQL's rules
// (types.ResolvePolymorphic) and runs a copy of the routine whose
// declarations carry them (specialize): its body is planned or compiled
// per actual types, as PostgreSQL's SQL functions and PL/pgSQL do.

// routineTypeName resolves a type in a routine's or aggregate's
// declaration, where the polymorphic pseudo-types are allowed.
func (b *binder) routineTypeName(tn *pg_query.TypeName) (types.Type, error) {
	if !tn.PctType && !tn.Setof && len(tn.ArrayBounds) == 0 && len(tn.Typmods) == 0 {
		if t, ok := types.PolymorphicByName(strs(tn.Names)); ok {
			return t, nil
		}
	}
	return b.typeName(tn)
}

// isPolymorphic reports whether f declares a polymorphic parameter or
// result.
func (f *funcDesc) isPolymorphic() bool {
	if f.result.IsPolymorphic() {
		return true
	}
	for _, p := range f.params {
		if p.typ.IsPolymorphic() {
			return true
		}
	}
	return false
}

// checkPolymorphic is CREATE FUNCTION's check of a polymorphic result and
// OUT parameters (42P13), and of a body that cannot take polymorphic
// arguments.
func (f *funcDesc) checkPolymorphic(cs *pg_query.CreateFunctionStmt) error {
	in := f.inputTypes()
	if f.kind != 'p' {
		if err := types.CheckPolymorphicSignature(f.result, in); err != nil {
			return err
		}
	}
	for _, p := range f.params {
		if p.isOut() {
			if err := types.CheckPolymorphicSignature(p.typ, in); err != nil {
				return err
			}
		}
	}
	if !f.isPolymorphic() {
		return nil
	}
	if f.lang == "plpgsql" && f.result.IsPolymorphic() && !f.hasOutParams() && strings.HasPrefix(strings.TrimSpace(f.src), "#") &&
		strings.Contains(f.src, "$0") {
		// withResultVar nests the body, where its options may not go.
		return pgerror.Unsupported("$0 in a PL/pgSQL body with compile options (#...)")
	}
	if cs.SqlBody != nil {
		for _, t := range in {
			if t.IsPolymorphic() {
				return pgerror.New(pgerror.InvalidFunctionDefinition, "SQL function with unquoted function body cannot have polymorphic arguments")
			}
		}
	}
	return nil
}

// withResultVar returns a PL/pgSQL body that names $0, the variable
// PostgreSQL declares for a polymorphic result (of the call's result
// type), with the variable declared: the body becomes the block of a
// block declaring "$0", and each $0 names it. PostgreSQL's parser as
// fickle runs it declares no $0. ok is false when the body does not name
// $0.
func withResultVar(src string, result types.Type) (string, bool) {
	res, err := pg_query.Scan(src)
	if err != nil {
		return src, false
	}
	var b strings.Builder
	last, found := 0, false
	for _, t := range res.Tokens {
		if t.Token == pg_query.Token_PARAM && src[t.Start:t.End] == "$0" {
			b.WriteString(src[last:t.Start])
			b.WriteString(`"$0"`)
			last, found = int(t.End), true
		}
	}
	if !found {
		return src, false
	}
	body := b.String() + src[last:]
	if n := len(res.Tokens); n > 0 && res.Tokens[n-1].Token == pg_query.Token_ASCII_59 && int(res.Tokens[n-1].End) > last {
		// The body's block may end with a semicolon, which a nested block
		// must not repeat.
		cut := int(res.Tokens[n-1].Start) - len(src) + len(body)
		body = body[:cut] + body[cut+1:]
	}
	return "DECLARE \"$0\" " + result.String() + "; BEGIN " + body + "\n; END", true
}

// specialize returns f with every polymorphic type it declares replaced
// by the type resolve gives it.
func (f *funcDesc) specialize(resolve func(types.Type) (types.Type, error)) (*funcDesc, error) {
	nf := *f
	nf.params = make([]funcParam, len(f.params))
	nf.in = nil
	nf.outCols = nil
	for i, p := range f.params {
		if p.typ.IsPolymorphic() {
			t, err := resolve(p.typ)
			if err != nil {
				return nil, err
			}
			p.typ = t
		}
		nf.params[i] = p
		if p.arg {
			nf.in = append(nf.in, p.typ)
		}
	}
	for _, c := range f.outCols {
		if c.Type.IsPolymorphic() {
			t, err := resolve(c.Type)
			if err != nil {
				return nil, err
			}
			c.Type = t
		}
		nf.outCols = append(nf.outCols, c)
	}
	switch {
	case f.result.IsPolymorphic():
		t, err := resolve(f.result)
		if err != nil {
			return nil, err
		}
		nf.result = t
		if t.IsComposite() {
			nf.outCols, _ = t.Fields()
		}
	case f.result.Oid == types.OidRecord && len(nf.outCols) > 1:
		nf.result = types.RecordType(nf.outCols)
	}
	if f.lang == "plpgsql" && f.result.IsPolymorphic() && !f.hasOutParams() {
		nf.src, _ = withResultVar(f.src, nf.result)
	}
	return &nf, nil
}

// polyKey names a specialization of a routine.
type polyKey struct {
	f   *funcDesc
	sig string
}

// specialized returns f specialized by resolve: one copy per routine and
// actual types in the session, so that its compiled body is kept across
// calls.
func (s *Session) specialized(f *funcDesc, resolve func(types.Type) (types.Type, error)) (*funcDesc, error) {
	var sig strings.Builder
	for _, t := range append(f.inputTypes(), f.result) {
		if t.IsPolymorphic() {
			r, err := resolve(t)
			if err != nil {
				return nil, err
			}
			t = r
		}
		sig.WriteString(strconv.FormatUint(uint64(t.Oid), 10))
		sig.WriteByte(',')
	}
	key := polyKey{f, sig.String()}
	if g := s.polyRoutines[key]; g != nil {
		return g, nil
	}
	g, err := f.specialize(resolve)
	if err != nil {
		return nil, err
	}
	if s.polyRoutines == nil || len(s.polyRoutines) >= planCacheLimit {
		s.polyRoutines = map[polyKey]*funcDesc{}
	}
	s.polyRoutines[key] = g
	return g, nil
}

// validatorCopy is f as PostgreSQL's validators check it at CREATE: a
// PL/pgSQL body compiled with integer for anyelement, integer[] for
// anyarray, int4range for anyrange.
func (f *funcDesc) validatorCopy() *funcDesc {
	g, _ := f.specialize(func(t types.Type) (types.Type, error) { return types.ResolveValidatorType(t), nil })
	return g
}

// polymorphicArgs reports whether any input parameter of f is
// polymorphic.
func (f *funcDesc) polymorphicArgs() bool {
	for _, t := range f.in {
		if t.IsPolymorphic() {
			return true
		}
	}
	return false
}

// polyDomains are the domains polymorphic parameters resolve to in a
// call, PostgreSQL's enforce_generic_type_consistency: anyelement,
// anynonarray and anyenum resolve to the domain when every argument they
// take is of it, anycompatible and anycompatiblenonarray when every
// argument of their family is (an array's or range's element, which
// PostgreSQL takes from the domain's base type, is not); elem and compat
// are 0 when they resolve to a plain type.
type polyDomains struct{ elem, compat uint32 }

// domainPolyArgs reads the domains of the arguments a call passes for
// polymorphic parameters (declared, per argument). A value that may be of
// a domain fickle does not know is refused, as is a domain argument where
// PostgreSQL would find the arguments not all alike (the candidate would
// not match there, so the call might resolve to another).
func (b *binder) domainPolyArgs(declared []types.Type, argNodes []*pg_query.Node, args []*scalar) (polyDomains, *pgerror.Error) {
	var out polyDomains
	const unset = ^uint32(0)
	elem, compat := unset, unset
	mixed := false
	merge := func(have *uint32, d uint32) {
		if *have != unset && *have != d {
			mixed = true
		}
		*have = d
	}
	for j, t := range declared {
		if !t.IsPolymorphic() {
			continue
		}
		e := args[j]
		d := b.argDomain(argNodes[j], e)
		if d == argDomainUnknown {
			return out, pgerror.Unsupported("a value that may be of a domain type as a polymorphic argument")
		}
		if untyped(e) {
			continue
		}
		switch t.Oid {
		case types.OidAnyElement, types.OidAnyNonArray, types.OidAnyEnum:
			merge(&elem, d)
		case types.OidAnyCompatible, types.OidAnyCompatibleNonArray:
			if compat != unset && compat != d {
				compat = 0 // a common type of the base types
			} else {
				compat = d
			}
		case types.OidAnyCompatibleArray, types.OidAnyCompatibleRange, types.OidAnyCompatibleMultirange:
			compat = 0
		default:
			// anyarray, anyrange, anymultirange: their element is the
			// base type's, not of a domain.
			merge(&elem, 0)
		}
	}
	if mixed && elem != unset {
		return out, pgerror.Unsupported("polymorphic arguments of a domain type and of other types together")
	}
	if elem != unset {
		out.elem = elem
	}
	if compat != unset {
		out.compat = compat
	}
	return out, nil
}

// refuseDomainPolyArgs refuses a call of a user aggregate passing a value
// that is or may be of a domain type for a polymorphic parameter, which
// PostgreSQL resolves anyelement to (and aggregates here do not).
func (b *binder) refuseDomainPolyArgs(declared []types.Type, argNodes []*pg_query.Node, args []*scalar) *pgerror.Error {
	for j, t := range declared {
		if t.IsPolymorphic() && b.argDomain(argNodes[j], args[j]) != 0 {
			return pgerror.Unsupported("a value that may be of a domain type as a polymorphic argument")
		}
	}
	return nil
}

// withPolyDomains is g, f specialized for a call, with the parameters and
// result f declares anyelement (and the like) or anycompatible (and the
// like) of the domains doms resolves them to: one copy per specialization
// and domains in the session.
func (s *Session) withPolyDomains(f, g *funcDesc, doms polyDomains) (*funcDesc, error) {
	if doms == (polyDomains{}) {
		return g, nil
	}
	key := polyKey{g, "domains " + strconv.FormatUint(uint64(doms.elem), 10) + " " + strconv.FormatUint(uint64(doms.compat), 10)}
	if h := s.polyRoutines[key]; h != nil {
		return h, nil
	}
	for _, t := range append(f.inputTypes(), f.result) {
		if t.IsPolymorphic() && t.Oid != types.OidAnyElement && t.Oid != types.OidAnyNonArray && t.Oid != types.OidAnyEnum &&
			t.Oid != types.OidAnyCompatible && t.Oid != types.OidAnyCompatibleNonArray {
			// PostgreSQL's anyarray is then an array of the domain.
			return nil, pgerror.Unsupported("a polymorphic array or range type resolved from a domain type")
		}
	}
	for _, p := range f.params {
		if p.isOut() && p.typ.IsPolymorphic() && p.typ.Oid != types.OidAnyElement && p.typ.Oid != types.OidAnyNonArray &&
			p.typ.Oid != types.OidAnyEnum && p.typ.Oid != types.OidAnyCompatible && p.typ.Oid != types.OidAnyCompatibleNonArray {
			return nil, pgerror.Unsupported("a polymorphic array or range type resolved from a domain type")
		}
	}
	cat, _ := s.catalog()
	domOf := func(t types.Type) routineDomain {
		var oid uint32
		switch t.Oid {
		case types.OidAnyElement, types.OidAnyNonArray, types.OidAnyEnum:
			oid = doms.elem
		case types.OidAnyCompatible, types.OidAnyCompatibleNonArray:
			oid = doms.compat
		}
		if oid == 0 {
			return routineDomain{}
		}
		name, _ := catalogNames{s: s, cat: cat}.typeName(oid, -1)
		return routineDomain{oid: oid, name: name}
	}
	h := *g
	h.params = append([]funcParam(nil), g.params...)
	for i, p := range f.params {
		if d := domOf(p.typ); d.oid != 0 {
			h.params[i].dom = d
		}
	}
	if d := domOf(f.result); d.oid != 0 {
		h.resultDom = d
	}
	for _, p := range f.params {
		if p.isOut() && len(f.outCols) == 0 {
			h.resultDom = domOf(p.typ) // a lone OUT parameter's
		}
	}
	if s.polyRoutines == nil || len(s.polyRoutines) >= planCacheLimit {
		s.polyRoutines = map[polyKey]*funcDesc{}
	}
	s.polyRoutines[key] = &h
	return &h, nil
}

// resolvePolymorphicCall resolves the actual types of a call of the
// polymorphic routine f whose arguments have the types inputs (Unknown
// for untyped literals and NULLs) and fill the parameters slots, declared
// the types declared (a VARIADIC array's element for each argument it
// gathers): f specialized for them, and the types the arguments are
// coerced to. Defaults the call leaves to f count as arguments, as in
// PostgreSQL.
func (b *binder) resolvePolymorphicCall(f *funcDesc, inputs, declared []types.Type, slots []int) (*funcDesc, []types.Type, error) {
	actual := append([]types.Type(nil), inputs...)
	decl := append([]types.Type(nil), declared...)
	filled := make([]bool, len(f.in))
	for _, p := range slots {
		filled[p] = true
	}
	ins := f.inParams()
	for p, ok := range filled {
		if ok || !f.in[p].IsPolymorphic() {
			continue
		}
		e, err := b.expr(nil, ins[p].def)
		if err != nil {
			return nil, nil, err
		}
		t := e.typ
		if unresolved(e) || e.null {
			t = types.Unknown
		}
		actual, decl = append(actual, t), append(decl, f.in[p])
	}
	resolved, resolve, err := types.ResolvePolymorphic(actual, decl)
	if err != nil {
		return nil, nil, err
	}
	g, err := b.s.specialized(f, resolve)
	if err != nil {
		return nil, nil, err
	}
	return g, resolved[:len(inputs)], nil
}
