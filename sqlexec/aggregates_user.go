package sqlexec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// User aggregates (CREATE AGGREGATE, old and new syntax): a routine of
// kind 'a' among its schema's routines, whose aggDesc is its
// pg_aggregate row. A call compiles the transition function (sfunc) and
// the final function as calls over the state and the arguments, which
// each group's accumulator evaluates row by row: a strict sfunc skips
// rows with a NULL argument and, without an initial condition, takes the
// first row's value as its state, as in PostgreSQL. Polymorphic
// arguments and state types are resolved per call. What is not here
// refuses with 0A000: moving-aggregate and serialization functions,
// ordered-set and hypothetical aggregates, VARIADIC arguments, support
// functions that take the state or arguments by coercion, and a user
// aggregate over a window.

// aggDesc is a user aggregate's pg_aggregate row.
type aggDesc struct {
	// sfunc, finalfunc and combinefunc name the support functions,
	// qualified by the schema CREATE found them in (pg_catalog for a
	// built-in); finalfunc and combinefunc are nil when not given.
	sfunc, finalfunc, combinefunc []string
	// sfuncOID, finalOID and combineOID are their pg_proc OIDs (0 for
	// none): pg_aggregate's aggtransfn, aggfinalfn and aggcombinefn.
	sfuncOID, finalOID, combineOID uint32
	stype                          types.Type
	initcond                       *string
	// sfuncStrict and finalStrict are the support functions' STRICT.
	sfuncStrict, finalStrict bool
}

// usesSupport reports whether the aggregate (nil for another kind of
// routine) has the routine with the OID as a support function.
func (a *aggDesc) usesSupport(oid uint32) bool {
	return a != nil && (a.sfuncOID == oid || a.finalOID == oid || a.combineOID == oid)
}

// supportName is the current name of the support function with the OID
// (names as CREATE AGGREGATE found it): a user function renamed or moved
// since is called by its new name, as PostgreSQL calls it by OID.
func (b *binder) supportName(oid uint32, names []string) []string {
	if g := b.catalogNow().funcByOID(oid); g != nil {
		return []string{g.schema, g.name}
	}
	return names
}

// createAggregate runs CREATE AGGREGATE.
func (d *ddl) createAggregate(ds *pg_query.DefineStmt) error {
	names := strs(ds.Defnames)
	schema, err := d.nameCreationSchema(names)
	if err != nil {
		return err
	}
	if ds.Replace {
		return pgerror.Unsupported("CREATE OR REPLACE AGGREGATE")
	}
	f := &funcDesc{schema: schema, name: names[len(names)-1], kind: 'a', lang: "internal", volatility: 'i', owner: d.s.user(),
		src: "aggregate_dummy", agg: &aggDesc{}}
	if types.IsAggregate(f.name) || len(builtinIndex().procsByName[f.name]) > 0 {
		return pgerror.Unsupported("an aggregate with the name of a built-in function")
	}
	b := d.binder("")
	defs := map[string]*pg_query.Node{}
	var order []string
	for _, n := range ds.Definition {
		de := n.GetDefElem()
		name := de.Defname // a quoted name keeps its case, and no option has it
		defs[name] = de.Arg
		order = append(order, name)
	}
	a := f.agg
	for _, name := range order {
		arg := defs[name]
		switch name {
		case "sfunc", "sfunc1":
			a.sfunc = aggFuncName(arg)
		case "stype", "stype1":
			tn := arg.GetTypeName()
			if tn == nil {
				return pgerror.Newf(pgerror.SyntaxError, "aggregate stype must be a type name")
			}
			t, err := b.routineTypeName(tn)
			if err != nil {
				return err
			}
			if b.domainNamed(tn) != nil {
				return pgerror.Unsupported("an aggregate state of a domain type")
			}
			a.stype = t
		case "initcond", "initcond1":
			v, ok := defText(arg)
			if !ok {
				return pgerror.Newf(pgerror.SyntaxError, "%s requires a parameter", name)
			}
			a.initcond = &v
		case "finalfunc":
			a.finalfunc = aggFuncName(arg)
		case "combinefunc":
			a.combinefunc = aggFuncName(arg)
		case "parallel":
			v, _ := defText(arg)
			p, err := parallelSafety(v)
			if err != nil {
				return err
			}
			f.parallel = p
		case "basetype":
			if !ds.Oldstyle {
				return pgerror.Unsupported("CREATE AGGREGATE option basetype in the new syntax")
			}
		case "sspace":
			// The state's estimated size, which only planners read.
			if arg.GetInteger() == nil {
				return pgerror.Newf(pgerror.SyntaxError, "%s requires an integer value", name)
			}
		case "finalfunc_extra", "finalfunc_modify", "serialfunc", "deserialfunc", "msfunc", "minvfunc", "mstype",
			"msspace", "mfinalfunc", "mfinalfunc_extra", "mfinalfunc_modify", "minitcond", "sortop", "hypothetical":
			return pgerror.Unsupported("CREATE AGGREGATE option " + name)
		default:
			d.warning(pgerror.SyntaxError, "aggregate attribute \"%s\" not recognized", name)
		}
	}
	if a.stype.Oid == 0 {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "aggregate stype must be specified")
	}
	if a.sfunc == nil {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "aggregate sfunc must be specified")
	}
	if err := f.readAggregateArgs(b, ds, defs["basetype"]); err != nil {
		return err
	}
	if err := types.CheckPolymorphicSignature(a.stype, f.in); err != nil {
		pe := err.(*pgerror.Error)
		return pgerror.New(pe.Code, "cannot determine transition data type").WithDetail("%s", pe.Detail)
	}
	if err := d.aggregateSupport(f); err != nil {
		return err
	}
	// PostgreSQL's AggregateCreate checks USAGE on the state and result
	// types once it has found the support functions.
	for _, t := range []types.Type{a.stype, f.result} {
		if err := d.s.requireTypeUsage(d.cat, uint32(t.Oid)); err != nil {
			return err
		}
	}
	if err := types.CheckPolymorphicSignature(f.result, f.in); err != nil {
		return err
	}
	if a.initcond != nil && !a.stype.IsPolymorphic() {
		if _, err := types.ParseTextEnv(d.s.textEnv(), a.stype, *a.initcond); err != nil {
			return err
		}
	}
	if !f.polymorphicArgs() && !a.stype.IsPolymorphic() {
		// The support functions must be callable as fickle runs them.
		if _, err := b.compileAggregate(f, f.in); err != nil {
			return err
		}
	}
	sc := d.cat.schemas[schema]
	for _, old := range sc.funcs[f.name] {
		if sameTypes(old.in, f.in) {
			return pgerror.Newf(pgerror.DuplicateFunction, "function \"%s\" already exists with same argument types", f.name)
		}
	}
	f.oid = d.cat.newOID()
	sc.funcs[f.name] = append(slices.Clone(sc.funcs[f.name]), f)
	d.applyDefaultACL(aclFunction, f.oid, d.s.currentRole(), sc.oid)
	return nil
}

// aggFuncName is the name a support function option gives.
func aggFuncName(n *pg_query.Node) []string {
	if tn := n.GetTypeName(); tn != nil {
		return strs(tn.Names)
	}
	if v, ok := defText(n); ok {
		return []string{v}
	}
	return nil
}

// defText is a definition option's value as text.
func defText(n *pg_query.Node) (string, bool) {
	switch {
	case n == nil:
		return "", false
	case n.GetString_() != nil:
		return n.GetString_().Sval, true
	case n.GetInteger() != nil:
		return strconv.Itoa(int(n.GetInteger().Ival)), true
	case n.GetFloat() != nil:
		return n.GetFloat().Fval, true
	case n.GetTypeName() != nil:
		return strings.Join(strs(n.GetTypeName().Names), "."), true
	}
	return "", false
}

// readAggregateArgs reads the argument list (the new syntax) or basetype
// (the old one).
func (f *funcDesc) readAggregateArgs(b *binder, ds *pg_query.DefineStmt, basetype *pg_query.Node) error {
	add := func(name string, t types.Type) {
		f.params = append(f.params, funcParam{name: name, typ: t, mode: 'i', arg: true})
		f.in = append(f.in, t)
	}
	if ds.Oldstyle {
		if basetype == nil {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "aggregate input type must be specified")
		}
		if v, _ := defText(basetype); strings.EqualFold(v, "any") {
			return nil // an aggregate of no arguments, called as agg(*)
		}
		tn := basetype.GetTypeName()
		if tn == nil {
			return pgerror.Unsupported("this basetype")
		}
		t, err := b.routineTypeName(tn)
		if err != nil {
			return err
		}
		if err := b.requireTypeNameUsage(tn, uint32(t.Oid)); err != nil {
			return err
		}
		add("", t)
		return nil
	}
	if len(ds.Args) != 2 || ds.Args[1].GetInteger() == nil {
		return pgerror.Unsupported("this CREATE AGGREGATE argument list")
	}
	if ds.Args[1].GetInteger().Ival != -1 {
		return pgerror.Unsupported("ordered-set aggregates")
	}
	list := ds.Args[0].GetList()
	if list == nil {
		return nil // agg(*): no arguments
	}
	for _, n := range list.Items {
		fp := n.GetFunctionParameter()
		if fp.Mode != pg_query.FunctionParameterMode_FUNC_PARAM_DEFAULT && fp.Mode != pg_query.FunctionParameterMode_FUNC_PARAM_IN {
			return pgerror.Unsupported("VARIADIC or OUT aggregate arguments")
		}
		if fp.Defexpr != nil {
			return pgerror.Unsupported("aggregate argument defaults")
		}
		t, err := b.routineTypeName(fp.ArgType)
		if err != nil {
			return err
		}
		if err := b.requireTypeNameUsage(fp.ArgType, uint32(t.Oid)); err != nil {
			return err
		}
		if b.domainNamed(fp.ArgType) != nil {
			return pgerror.Unsupported("aggregate arguments of a domain type")
		}
		add(fp.Name, t)
	}
	return nil
}

// aggregateSupport finds f's support functions, as PostgreSQL's
// AggregateCreate does, and sets its result type.
func (d *ddl) aggregateSupport(f *funcDesc) error {
	a := f.agg
	trans, err := d.aggSupportFunc(a.sfunc, append([]types.Type{a.stype}, f.in...), f.in)
	if err != nil {
		return err
	}
	if trans.result.Oid != a.stype.Oid {
		return pgerror.Newf(pgerror.DatatypeMismatch, "return type of transition function %s is not %s", strings.Join(a.sfunc, "."), a.stype)
	}
	a.sfunc, a.sfuncOID, a.sfuncStrict = trans.names, trans.oid, trans.strict
	if a.sfuncStrict && a.initcond == nil && len(f.in) == 0 {
		return pgerror.New(pgerror.InvalidFunctionDefinition, "must not omit initial value when transition function is strict and transition type is not compatible with input type")
	}
	if a.sfuncStrict && a.initcond == nil && f.in[0].Oid != a.stype.Oid {
		if !types.CanCoerce(f.in[0], a.stype, types.CastImplicit) {
			return pgerror.New(pgerror.InvalidFunctionDefinition, "must not omit initial value when transition function is strict and transition type is not compatible with input type")
		}
		return pgerror.Unsupported("a strict transition function without an initial value over an argument of another type than the state's")
	}
	f.result = a.stype
	if a.finalfunc != nil {
		final, err := d.aggSupportFunc(a.finalfunc, []types.Type{a.stype}, f.in)
		if err != nil {
			return err
		}
		a.finalfunc, a.finalOID, a.finalStrict, f.result = final.names, final.oid, final.strict, final.result
	}
	if a.combinefunc != nil {
		comb, err := d.aggSupportFunc(a.combinefunc, []types.Type{a.stype, a.stype}, f.in)
		if err != nil {
			return err
		}
		if comb.result.Oid != a.stype.Oid {
			return pgerror.Newf(pgerror.DatatypeMismatch, "return type of combine function %s is not %s", strings.Join(a.combinefunc, "."), a.stype)
		}
		a.combinefunc, a.combineOID = comb.names, comb.oid
	}
	// As AggregateCreate: its creator must be able to execute them.
	var perms []permCheck
	for _, fn := range []struct {
		names []string
		oid   uint32
	}{{a.sfunc, a.sfuncOID}, {a.finalfunc, a.finalOID}, {a.combinefunc, a.combineOID}} {
		if fn.oid != 0 {
			perms = append(perms, permCheck{kind: aclFunction, oid: fn.oid, name: fn.names[len(fn.names)-1], what: "function", privs: "X"})
		}
	}
	return d.s.checkPrivileges(perms)
}

// aggSupport is a support function CREATE AGGREGATE found: its
// qualified name, result type (resolved for the aggregate's types) and
// STRICT.
type aggSupport struct {
	names  []string
	oid    uint32
	result types.Type
	strict bool
}

// aggSupportFunc finds the function names that takes args, the state's
// and the aggregate's types (aggArgs its declared arguments): one whose
// parameters are exactly those types, or a polymorphic one they fit
// without coercion. A function of the name that takes them only by
// coercion is refused with 0A000 (PostgreSQL accepts a binary-coercible
// one); no function of the name is 42883, as in PostgreSQL.
func (d *ddl) aggSupportFunc(names []string, args, aggArgs []types.Type) (*aggSupport, error) {
	type cand struct {
		names    []string
		oid      uint32
		declared []types.Type
		result   types.Type
		strict   bool
		retSet   bool
		// resultDomain names the domain the result is of, "" for none.
		resultDomain string
	}
	var cands []cand
	// flexible says a routine of the name takes defaults or VARIADIC
	// arguments, which a call of another number of arguments may fit.
	flexible := false
	for _, g := range d.s.lookupFuncs(d.cat, names) {
		variadic := len(g.params) > 0 && g.params[len(g.params)-1].mode == 'v'
		flexible = flexible || variadic || g.nDefaults > 0
		if g.kind == 'f' && len(g.in) == len(args) && !variadic {
			// A parameter or result of a domain is the domain's, which
			// PostgreSQL would take only by a run-time coercion.
			cands = append(cands, cand{[]string{g.schema, g.name}, g.oid, g.sigIn(), g.resultDom.sigType(g.result), g.strict, g.retSet, g.resultDom.name})
			flexible = flexible || !sameTypes(g.sigIn(), g.in)
		}
	}
	name := names[len(names)-1]
	if len(names) == 1 || names[0] == "pg_catalog" {
		for _, p := range builtinIndex().procsByName[name] {
			if p.kind != 'f' || p.namespace != oidPgCatalog || len(p.args) != len(args) {
				continue
			}
			c := cand{names: []string{"pg_catalog", name}, oid: p.oid, strict: p.strict, result: types.Type{Oid: types.Oid(p.rettype), Typmod: -1}}
			for _, o := range p.args {
				c.declared = append(c.declared, types.Type{Oid: types.Oid(o), Typmod: -1})
			}
			cands = append(cands, c)
		}
	}
	var fits []cand
	for _, c := range cands {
		if sameTypes(c.declared, args) {
			fits = []cand{c}
			break
		}
		exact := true
		for i, t := range c.declared {
			if !t.IsPolymorphic() && t.Oid != args[i].Oid || t.IsPolymorphic() && args[i].IsPolymorphic() {
				exact = false
			}
		}
		if !exact || !types.PolymorphicMatch(args, c.declared) {
			continue
		}
		// The types the call resolves to must be the arguments' own:
		// PostgreSQL refuses a run-time coercion of the state or an
		// argument (anycompatible over int8 and int4).
		if resolved, _, err := types.ResolvePolymorphic(args, c.declared); err != nil || !sameTypes(resolved, args) {
			continue
		}
		fits = append(fits, c)
	}
	sig := fmt.Sprintf("%s(%s)", strings.Join(names, "."), typeNames(args))
	possible := slices.ContainsFunc(cands, func(c cand) bool { return aggSupportPossible(args, c.declared) })
	switch {
	case len(fits) == 0 && !possible && !flexible:
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", sig)
	case len(fits) != 1:
		return nil, pgerror.Unsupported("an aggregate support function " + sig + " that does not take exactly the aggregate's types")
	}
	c := fits[0]
	if c.retSet {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "function %s returns a set", sig)
	}
	result := c.result
	if result.IsPolymorphic() && !sameTypes(c.declared, args) {
		_, resolve, err := types.ResolvePolymorphic(args, c.declared)
		if err != nil {
			return nil, err
		}
		if result, err = resolve(result); err != nil {
			return nil, err
		}
	}
	if c.resultDomain != "" {
		return nil, pgerror.Unsupported("an aggregate support function returning the domain " + c.resultDomain)
	}
	if _, ok := types.TypeByOid(result.Oid); !ok && !result.IsComposite() && !result.IsEnum() && !result.IsArray() {
		return nil, pgerror.Unsupported("an aggregate support function returning type " + result.String())
	}
	return &aggSupport{names: c.names, oid: c.oid, result: result, strict: c.strict}, nil
}

// aggSupportPossible reports whether PostgreSQL's lookup of a support
// function taking args could choose a function declaring declared: false
// when an argument cannot be coerced to its parameter (a polymorphic
// argument of the aggregate to a parameter of another type) or the
// polymorphic parameters cannot take the arguments; true when it cannot
// tell. As in check_generic_type_consistency, a polymorphic argument
// stands for its own type (anyelement for anyelement), but for anyarray
// passed as anyarray, which PostgreSQL lets through.
func aggSupportPossible(args, declared []types.Type) bool {
	poly, unsure := false, false
	for i, d := range declared {
		a := args[i]
		switch {
		case d.Oid == types.OidAnyArray && a.Oid == types.OidAnyArray:
			unsure = true
		case d.IsPolymorphic():
			poly = true
		case a.IsPolymorphic():
			return false
		case a.Oid != d.Oid && !types.CanCoerce(a, d, types.CastImplicit):
			return false
		}
	}
	return unsure || !poly || types.PolymorphicMatch(args, declared)
}

// userAggregateNamed reports whether a call's name names a user
// aggregate on the search path.
func (b *binder) userAggregateNamed(names []string) bool {
	for _, f := range b.s.lookupFuncs(b.cat, names) {
		if f.kind == 'a' {
			return true
		}
	}
	return false
}

// userAggCall is a user aggregate call compiled for its actual types:
// the transition function over the state (slot 0) and the arguments, the
// final function over the state.
type userAggCall struct {
	desc         *aggDesc
	stype        types.Type
	trans, final *scalar
}

// compileAggregate compiles aggregate f's support functions for arguments
// of types args (f's declared ones resolved).
func (b *binder) compileAggregate(f *funcDesc, args []types.Type) (*userAggCall, error) {
	a := f.agg
	stype := a.stype
	if f.polymorphicArgs() || stype.IsPolymorphic() {
		_, resolve, err := types.ResolvePolymorphic(args, f.in)
		if err != nil {
			return nil, err
		}
		if stype, err = resolve(stype); err != nil {
			return nil, err
		}
	}
	// A call checks EXECUTE on the aggregate alone: PostgreSQL checks its
	// support functions' for the aggregate's creator, at CREATE AGGREGATE.
	mark := len(b.perms)
	defer func() {
		b.perms = append(b.perms[:mark], slices.DeleteFunc(b.perms[mark:], func(p permCheck) bool { return p.kind == aclFunction })...)
	}()
	call := func(names []string, ts []types.Type) (*scalar, error) {
		sc := &scope{}
		fc := &pg_query.FuncCall{Funcname: make([]*pg_query.Node, len(names)), Location: -1}
		for i, n := range names {
			fc.Funcname[i] = pg_query.MakeStrNode(n)
		}
		for i, t := range ts {
			col := "\x00agg" + strconv.Itoa(i)
			sc.cols = append(sc.cols, scopeCol{name: col, typ: t, slot: i})
			fc.Args = append(fc.Args, &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{
				Fields: []*pg_query.Node{pg_query.MakeStrNode(col)}, Location: -1}}})
		}
		e, err := b.expr(sc, &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: fc}})
		if pgerror.GetCode(err) == pgerror.FeatureNotSupported && names[0] == "pg_catalog" {
			// A built-in function fickle has only as the operator it
			// implements (int4pl as +).
			if op := operatorOf(names[1], ts); op != nil {
				var left *pg_query.Node
				if op.kind == 'b' {
					left = fc.Args[0]
				}
				return b.expr(sc, &pg_query.Node{Node: &pg_query.Node_AExpr{AExpr: &pg_query.A_Expr{Kind: pg_query.A_Expr_Kind_AEXPR_OP,
					Name: []*pg_query.Node{pg_query.MakeStrNode("pg_catalog"), pg_query.MakeStrNode(op.name)}, Lexpr: left, Rexpr: fc.Args[len(fc.Args)-1], Location: -1}}})
			}
		}
		return e, err
	}
	trans, err := call(b.supportName(a.sfuncOID, a.sfunc), append([]types.Type{stype}, args...))
	if err != nil {
		return nil, err
	}
	if trans.typ.Oid != stype.Oid {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "return type of transition function %s is not %s", strings.Join(a.sfunc, "."), stype)
	}
	uc := &userAggCall{desc: a, stype: stype, trans: trans}
	if a.finalfunc != nil {
		if uc.final, err = call(b.supportName(a.finalOID, a.finalfunc), []types.Type{stype}); err != nil {
			return nil, err
		}
	}
	return uc, nil
}

// operatorOf is the built-in operator whose function is the built-in
// function name over args, nil if there is none.
func operatorOf(name string, args []types.Type) *builtinOper {
	codes := map[uint32]bool{}
	for _, p := range builtinIndex().procsByName[name] {
		codes[p.oid] = true
	}
	for _, ops := range builtinIndex().opersByName {
		for _, o := range ops {
			if !codes[o.code] {
				continue
			}
			if o.kind == 'b' && len(args) == 2 && o.left == uint32(args[0].Oid) && o.right == uint32(args[1].Oid) ||
				o.kind == 'l' && len(args) == 1 && o.right == uint32(args[0].Oid) {
				return o
			}
		}
	}
	return nil
}

// result is the call's result type.
func (uc *userAggCall) result() types.Type {
	if uc.final != nil {
		return uc.final.typ
	}
	return uc.stype
}

// userAggregate resolves and compiles a call of a user aggregate whose
// arguments are args: the types.Aggregate the aggregation runs (whose
// accumulators evaluate the support functions in the context the
// aggregation's run gives them, aggRun.newGroup) and the arguments
// coerced to the types it takes.
func (b *binder) userAggregate(fc *pg_query.FuncCall, args []*scalar) (*types.Aggregate, []*scalar, error) {
	names := strs(fc.Funcname)
	name := names[len(names)-1]
	var cands []*funcDesc
	for _, f := range b.s.lookupFuncs(b.cat, names) {
		switch {
		case f.kind == 'a' && len(f.in) == len(args):
			cands = append(cands, f)
		case f.kind != 'a':
			return nil, nil, b.errAt(pgerror.Unsupported("calling an aggregate that shares its name with a function"), fc.Location)
		}
	}
	if fc.FuncVariadic || slices.ContainsFunc(fc.Args, func(n *pg_query.Node) bool { return n.GetNamedArgExpr() != nil }) {
		return nil, nil, b.errAt(pgerror.Unsupported("this call of a user aggregate (VARIADIC or named arguments)"), fc.Location)
	}
	if len(args) == 0 && !fc.AggStar && len(cands) > 0 {
		return nil, nil, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "%s(*) must be used to call a parameterless aggregate function", name), fc.Location)
	}
	inputs := make([]types.Type, len(args))
	for i, a := range args {
		inputs[i] = a.typ
		if unresolved(a) || a.null {
			inputs[i] = types.Unknown
		}
	}
	declared := make([][]types.Type, len(cands))
	for i, f := range cands {
		declared[i] = f.in
	}
	noSuch := func() error {
		return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", callText(name, fc.Args, args)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
	}
	if len(cands) == 0 {
		return nil, nil, noSuch()
	}
	chosen, err := types.ChooseOverload(name, inputs, declared)
	if err != nil {
		if pgerror.GetCode(err) == pgerror.UndefinedFunction {
			return nil, nil, noSuch()
		}
		return nil, nil, b.withPos(err, fc.Location)
	}
	f := cands[chosen]
	argTypes := slices.Clone(f.in)
	if err := b.refuseDomainPolyArgs(f.in, fc.Args, args); err != nil {
		return nil, nil, b.errAt(err, fc.Location)
	}
	if f.polymorphicArgs() {
		if argTypes, _, err = types.ResolvePolymorphic(inputs, f.in); err != nil {
			return nil, nil, err
		}
	}
	out := make([]*scalar, len(args))
	for i, a := range args {
		if out[i], err = b.coerce(a, argTypes[i], types.CastImplicit); err != nil {
			return nil, nil, b.withPos(err, fc.Location)
		}
		argTypes[i] = out[i].typ
	}
	uc, err := b.compileAggregate(f, argTypes)
	if err != nil {
		return nil, nil, err
	}
	b.requireExecute(f)
	env := b.s.textEnv()
	return &types.Aggregate{Name: name, Args: argTypes, Result: uc.result(), New: func(*types.Env) types.Accumulator {
		acc := &userAcc{call: uc}
		if uc.desc.initcond != nil {
			acc.state, acc.err = types.ParseTextEnv(env, uc.stype, *uc.desc.initcond)
			acc.started = true
		}
		return acc
	}}, out, nil
}

// userAcc accumulates one group of a user aggregate.
type userAcc struct {
	call *userAggCall
	// run is the execution context of the row being aggregated.
	run   func() *execCtx
	state any
	// started says the state holds a value (the initial condition or a
	// first input): until then a strict transition function takes the
	// first row's value as the state.
	started bool
	err     error
}

// eval evaluates a support function's call over vals.
func (u *userAcc) eval(e *scalar, vals []any) (any, error) {
	x := *u.run()
	x.row = vals
	x.items, x.marks, x.epq = nil, nil, nil
	return e.eval(&x)
}

func (u *userAcc) Add(args []any) error {
	if u.err != nil {
		return u.err
	}
	if u.call.desc.sfuncStrict {
		if slices.Contains(args, nil) {
			return nil
		}
		if !u.started {
			u.state, u.started = args[0], true
			return nil
		}
		if u.state == nil {
			return nil
		}
	}
	v, err := u.eval(u.call.trans, append([]any{u.state}, args...))
	if err != nil {
		return err
	}
	u.state, u.started = v, true
	return nil
}

func (u *userAcc) Result() (any, error) {
	if u.err != nil {
		return nil, u.err
	}
	if u.call.final == nil {
		return u.state, nil
	}
	if u.call.desc.finalStrict && u.state == nil {
		return nil, nil
	}
	return u.eval(u.call.final, []any{u.state})
}

// dropAggregates runs DROP AGGREGATE.
func (d *ddl) dropAggregates(ds *pg_query.DropStmt) error {
	var fs []*funcDesc
	for _, o := range ds.Objects {
		owa := o.GetObjectWithArgs()
		names := strs(owa.Objname)
		var argTypes []types.Type
		for _, a := range owa.Objargs {
			t, err := d.binder("").routineTypeName(a.GetTypeName())
			if err != nil {
				return err
			}
			argTypes = append(argTypes, t)
		}
		var match *funcDesc
		for _, f := range d.s.lookupFuncs(d.cat, names) {
			if sameTypes(f.in, argTypes) {
				match = f
			}
		}
		label := fmt.Sprintf("%s(%s)", strings.Join(names, "."), typeNames(argTypes))
		if len(argTypes) == 0 {
			label = strings.Join(names, ".") + "(*)"
		}
		switch {
		case match == nil && ds.MissingOk:
			d.notice(pgerror.SuccessfulCompletion, "aggregate %s does not exist, skipping", routineAsWritten(owa))
			continue
		case match == nil:
			return pgerror.Newf(pgerror.UndefinedFunction, "aggregate %s does not exist", label)
		case match.kind != 'a':
			return pgerror.Newf(pgerror.WrongObjectType, "function %s is not an aggregate", match.signature())
		case !d.s.actsAsOwner(d.s.routineOwner(match)):
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of aggregate %s", match.name)
		}
		if !slices.Contains(fs, match) {
			fs = append(fs, match)
		}
	}
	return d.dropRoutines(fs, ds.Behavior == pg_query.DropBehavior_DROP_CASCADE)
}
