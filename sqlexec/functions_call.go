package sqlexec

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Calls of user routines. A call resolves among the routines of its name
// on the search path (or in its schema) by PostgreSQL's rules: the
// candidates whose parameters the call's positional and named arguments
// and the defaults can fill, then an exact match of the argument types or
// func_select_candidate (types.ChooseOverload). A name no user routine
// matches falls through to the built-in functions, so a call of a built-in
// by a name a user routine shares still reaches the built-in.

// maxRoutineDepth bounds nested routine calls, as PostgreSQL's
// max_stack_depth does (54001).
const maxRoutineDepth = 200

// routineCall is a resolved call: the routine and its input arguments, one
// per IN parameter, coerced to the declared types (defaults filled in).
type routineCall struct {
	fn   *funcDesc
	args []*scalar
	// slots are, for each argument of the call as written, the index of
	// the parameter (of fn.inParams) it fills.
	slots []int
}

// userFuncCall compiles fc as a call of a user function in a scalar
// context; ok is false when no user routine of the name fits the call.
func (b *binder) userFuncCall(sc *scope, fc *pg_query.FuncCall) (*scalar, bool, error) {
	names := strs(fc.Funcname)
	cands := b.s.lookupFuncs(b.cat, names)
	if len(cands) == 0 || b.coercionCall(fc) {
		return nil, false, nil
	}
	nested := 0 // the set-returning calls of the select list before the arguments'
	if sc != nil && sc.srf != nil {
		nested = len(sc.srf.calls)
	}
	call, err := b.resolveRoutine(sc, lastName(fc.Funcname), cands, fc, 'f')
	if err == nil && call == nil {
		if proc, perr := b.resolveRoutine(sc, lastName(fc.Funcname), cands, fc, 'p'); perr == nil {
			return nil, true, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "%s is a procedure", b.callSignature(proc.fn.name, fc.Args)).
				WithHint("To call a procedure, use CALL."), fc.Location)
		}
	}
	if err != nil || call == nil {
		return nil, err != nil, err
	}
	if len(names) == 1 && b.shadowsBuiltin(call) {
		if len(fc.Args) > 0 || len(call.fn.in) > 0 || fc.AggStar || !builtinWithoutParams(call.fn.name) {
			return nil, true, b.errAt(pgerror.Unsupported("calling a user function that has the name of a built-in function fitting the same arguments without its schema"), fc.Location)
		}
		if b.s.catalogBefore(call.fn.schema) {
			return nil, false, nil
		}
	}
	if fc.AggStar || fc.AggDistinct || fc.AggWithinGroup || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.Over != nil {
		return nil, true, b.errAt(aggregateSyntaxError(fc, call.fn.name), fc.Location)
	}
	f := call.fn
	if f.lang == "c" {
		bound, err := b.boundExtensionCall(f, call.args)
		if err != nil {
			return nil, true, err
		}
		f = bound
	}
	if f.retSet {
		if err := b.srfAllowed(sc, fc); err != nil {
			return nil, true, err
		}
		return b.listSetCall(sc, call.setCall(), nested), true, nil
	}
	var refs uint64
	for _, a := range call.args {
		refs |= a.refs
	}
	b.noteCallCost(fc, f.procost())
	b.routineCalls++
	if f.volatility != 'i' {
		b.volatileCalls++
		b.mutableCalls++
		if f.lang != "sql" {
			b.mutableOpaqueCalls++
		}
	}
	var dom *typeDesc
	if f.resultDom.oid != 0 && !f.result.IsComposite() {
		dom = b.domainByOid(f.resultDom.oid) // the call's value is of the domain
	}
	return &scalar{typ: f.result, slot: -1, refs: refs, volatile: f.volatility != 'i', name: f.name, domain: dom, plain: f.resultDom.oid == 0,
		eval: func(x *execCtx) (any, error) {
			vals, err := call.values(x)
			if err != nil {
				return nil, err
			}
			rows, err := x.s.invoke(x, f, vals)
			if err != nil || len(rows) == 0 {
				return nil, err
			}
			return f.rowValue(rows[0]), nil
		}}, true, nil
}

// resultRow is a value of f's declared result as a row of its results:
// the row of a composite value's fields (a NULL as a row of NULLs), or
// one column holding v.
func (f *funcDesc) resultRow(v any) []any {
	if len(f.outCols) == 0 {
		return []any{v}
	}
	if row, ok := v.([]any); ok {
		return row
	}
	return make([]any, len(f.outCols))
}

// rowValue is a result row as the function's value: its one column, or
// the record of its OUT columns.
func (f *funcDesc) rowValue(row []any) any {
	if len(f.outCols) == 0 {
		return row[0]
	}
	return row
}

// resultCols are the columns a call returns in FROM.
func (f *funcDesc) resultCols() []types.Field {
	if len(f.outCols) > 0 {
		return f.outCols
	}
	name := f.name
	for _, p := range f.params {
		if p.isOut() && p.name != "" {
			name = p.name // a lone OUT parameter names the column
		}
	}
	return []types.Field{{Name: name, Type: f.result}}
}

// values evaluates the call's arguments.
func (c *routineCall) values(x *execCtx) ([]any, error) {
	vals := make([]any, len(c.args))
	for i, a := range c.args {
		v, err := a.eval(x)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// setCall wraps the call as a set-returning call, for FROM and for a
// select list.
func (c *routineCall) setCall() *setCall {
	f := c.fn
	cols := f.resultCols()
	_, composite := f.result.Fields()
	var shape types.Type
	if f.result.IsComposite() {
		shape = f.result
	}
	return &setCall{name: f.name, cols: cols, args: c.args, shape: shape, scalar: len(cols) == 1 && !composite && f.result.Oid != types.OidRecord,
		fn: &setFunc{schema: f.schema, strict: f.strict && f.retSet, volatile: f.volatility == 'v', outParam: len(f.outCols) > 0 || cols[0].Name != f.name,
			rows: func(x *execCtx, args []any) ([][]any, error) {
				rows, err := x.s.invoke(x, f, args)
				return f.fromRows(len(cols), rows, err)
			}}}
}

// fromRows are the rows of width columns a call of f gives in FROM: a
// function that does not return a set gives one row, of NULLs when its
// body gave none (or a strict one was called with a NULL), as its value is
// NULL then.
func (f *funcDesc) fromRows(width int, rows [][]any, err error) ([][]any, error) {
	if err != nil || f.retSet || len(rows) > 0 {
		return rows, err
	}
	return [][]any{make([]any, width)}, nil
}

// userFunctionItem compiles a user function in FROM.
func (b *binder) userFunctionItem(sc *scope, rf *pg_query.RangeFunction, fc *pg_query.FuncCall) (*fromItem, []scopeCol, bool, error) {
	cands := b.s.lookupFuncs(b.cat, strs(fc.Funcname))
	if len(cands) == 0 {
		return nil, nil, false, nil
	}
	call, err := b.resolveRoutine(functionArgScope(sc), lastName(fc.Funcname), cands, fc, 'f')
	if err != nil || call == nil {
		return nil, nil, err != nil, err
	}
	if call.fn.lang == "c" {
		if call.fn, err = b.boundExtensionCall(call.fn, call.args); err != nil {
			return nil, nil, true, err
		}
	}
	set, err := b.recordCall(rf, fc, call)
	if err != nil {
		return nil, nil, true, err
	}
	it, cols, err := setCallItem(rf, set)
	return it, cols, true, err
}

// hasUserSetFunc reports whether a user set-returning function has the
// name, for the select list's check for set-returning calls.
func (b *binder) hasUserSetFunc(names []string) bool {
	for _, f := range b.s.lookupFuncs(b.cat, names) {
		if f.retSet {
			return true
		}
	}
	return false
}

// resolveRoutine picks the routine of kind ('f' or 'p') among cands that
// the arguments call. It returns nil and no error when none fits a
// function call, so that built-ins are tried next; for a procedure that
// is 42883.
func (b *binder) resolveRoutine(sc *scope, name string, cands []*funcDesc, fc *pg_query.FuncCall, kind byte) (*routineCall, error) {
	argNodes, loc := fc.Args, fc.Location
	args := make([]*scalar, len(argNodes))
	var argNames []string
	for i, n := range argNodes {
		if na := n.GetNamedArgExpr(); na != nil {
			if slices.Contains(argNames, na.Name) {
				return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "argument name \"%s\" used more than once", na.Name), na.Location)
			}
			n = na.Arg
			argNames = append(argNames, na.Name)
		} else if argNames != nil {
			return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "positional argument cannot follow named argument"), loc)
		}
		e, err := b.expr(sc, n)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	positional := len(args) - len(argNames)
	// slots[k][j] is the index of candidate k's parameter that the call's
	// argument j fills; expanded[k] says candidate k gathers the trailing
	// arguments into its VARIADIC array.
	var fits []*funcDesc
	var slots [][]int
	var declared [][]types.Type
	var expanded []bool
	for _, f := range cands {
		if f.kind != kind {
			continue
		}
		s, spread, ok := f.bindCall(positional, argNames, fc.FuncVariadic)
		if !ok {
			continue
		}
		ts := make([]types.Type, len(args))
		for j, p := range s {
			ts[j] = f.in[p]
			if spread && p == len(f.in)-1 {
				if e, ok := types.PolymorphicElem(f.in[p]); ok {
					ts[j] = e
				} else {
					ts[j], _ = f.in[p].Elem()
				}
			}
		}
		fits, slots, declared, expanded = append(fits, f), append(slots, s), append(declared, ts), append(expanded, spread)
	}
	if len(fits) == 0 {
		if kind == 'p' {
			return nil, b.errAt(b.noRoutine(name, argNodes, args, kind), loc)
		}
		return nil, nil
	}
	inputs := make([]types.Type, len(args))
	for i, a := range args {
		inputs[i] = a.typ
		if unresolved(a) || a.null {
			inputs[i] = types.Unknown
		}
	}
	// doms[k][j] is the domain candidate k declares the parameter argument
	// j fills of; sigs[k] are the types as its signature has them.
	doms := make([][]routineDomain, len(fits))
	sigs := make([][]types.Type, len(fits))
	for k, f := range fits {
		ins := f.inParams()
		doms[k], sigs[k] = make([]routineDomain, len(args)), make([]types.Type, len(args))
		for j, p := range slots[k] {
			doms[k][j] = ins[p].dom
			sigs[k][j] = ins[p].dom.sigType(declared[k][j])
		}
	}
	keep, ambiguous := sameArgumentCandidates(fits, sigs, expanded)
	chosen, err := b.chooseCandidate(name, argNodes, args, inputs, keep, doms, declared)
	if err != nil {
		if pe, ok := err.(*pgerror.Error); ok && pe.Code == pgerror.UndefinedFunction {
			if kind == 'p' {
				return nil, b.errAt(b.noRoutine(name, argNodes, args, kind), loc)
			}
			return nil, nil
		}
		if pe, ok := err.(*pgerror.Error); !ok || pe.Code != pgerror.AmbiguousFunction {
			return nil, b.withPos(err, loc)
		}
	}
	if err != nil || ambiguous[chosen] {
		what := "function"
		if kind == 'p' {
			what = "procedure"
		}
		return nil, b.errAt(pgerror.Newf(pgerror.AmbiguousFunction, "%s %s is not unique", what, callText(name, argNodes, args)).
			WithHint("Could not choose a best candidate %s. You might need to add explicit type casts.", what), loc)
	}
	k := keep[chosen]
	f := fits[k]
	argTypes := declared[k]
	argDoms := doms[k]
	if f.isPolymorphic() {
		pd, perr := b.domainPolyArgs(declared[k], argNodes, args)
		if perr != nil {
			return nil, b.errAt(perr, loc)
		}
		poly := f
		if f, argTypes, err = b.resolvePolymorphicCall(f, inputs, declared[k], slots[k]); err != nil {
			return nil, err // PostgreSQL reports no position
		}
		if f, err = b.s.withPolyDomains(poly, f, pd); err != nil {
			return nil, b.withPos(err, loc)
		}
		ins := f.inParams()
		argDoms = make([]routineDomain, len(args))
		for j, p := range slots[k] {
			argDoms[j] = ins[p].dom
		}
	}
	full := make([]*scalar, len(f.in))
	var spread []*scalar
	for j, p := range slots[k] {
		e, err := args[j], error(nil)
		if _, isRow := args[j].typ.Fields(); !isRow || argTypes[j].Oid != types.OidRecord || f.lang != "c" {
			// A C function's record parameter takes a row as its own
			// type, which it reads (hstore(record)).
			e, err = b.coerce(args[j], argTypes[j], types.CastImplicit)
		}
		if err == nil {
			e, err = b.toRoutineDomain(e, args[j], argDoms[j])
		}
		if err != nil {
			return nil, b.withPos(err, loc)
		}
		if expanded[k] && p == len(f.in)-1 {
			spread = append(spread, e)
			continue
		}
		full[p] = e
	}
	if expanded[k] {
		full[len(f.in)-1] = arrayOfScalars(f.in[len(f.in)-1], spread)
	}
	ins := f.inParams()
	for p := range full {
		if full[p] != nil {
			continue
		}
		e, err := b.expr(nil, ins[p].def)
		if err == nil {
			e, err = b.coerce(e, f.in[p], types.CastAssignment)
		}
		if err == nil {
			e, err = b.toRoutineDomain(e, e, ins[p].dom)
		}
		if err != nil {
			return nil, b.withPos(err, loc)
		}
		full[p] = e
	}
	if f.volatility == 'v' {
		b.pgVolatileCalls++
	}
	b.requireExecute(f)
	return &routineCall{fn: f, args: full, slots: slots[k]}, nil
}

// sameArgumentCandidates merges the candidates that take the call's
// arguments as the same types, as PostgreSQL's FuncnameGetCandidates does
// (so that defaults or a VARIADIC expansion cannot hide an ambiguity): of
// two such, the one of the schema earlier on the search path stays, else
// the one without a VARIADIC expansion, else the first stays marked
// ambiguous (a call that picks it is 42725). keep are the indexes of the
// candidates that stay, in order; ambiguous is indexed like keep.
func sameArgumentCandidates(fits []*funcDesc, declared [][]types.Type, expanded []bool) (keep []int, ambiguous []bool) {
	for k := range fits {
		i := slices.IndexFunc(keep, func(j int) bool { return sameTypes(declared[j], declared[k]) })
		if i < 0 {
			keep, ambiguous = append(keep, k), append(ambiguous, false)
			continue
		}
		j := keep[i]
		switch {
		case fits[j].schema != fits[k].schema || expanded[k] && !expanded[j]:
		case expanded[j] && !expanded[k]:
			keep[i], ambiguous[i] = k, false
		default:
			ambiguous[i] = true
		}
	}
	return keep, ambiguous
}

// noRoutine is the 42883 error of a call no routine fits.
func (b *binder) noRoutine(name string, argNodes []*pg_query.Node, args []*scalar, kind byte) *pgerror.Error {
	what := "function"
	if kind == 'p' {
		what = "procedure"
	}
	return pgerror.Newf(pgerror.UndefinedFunction, "%s %s does not exist", what, callText(name, argNodes, args)).
		WithHint("No %s matches the given name and argument types. You might need to add explicit type casts.", what)
}

// callSignature is name(argument types) of a call, as messages print it.
func (b *binder) callSignature(name string, argNodes []*pg_query.Node) string {
	args := make([]*scalar, len(argNodes))
	for i, n := range argNodes {
		if na := n.GetNamedArgExpr(); na != nil {
			n = na.Arg
		}
		e, err := b.expr(nil, n)
		if err != nil {
			e = &scalar{typ: types.Unknown}
		}
		args[i] = e
	}
	return callText(name, argNodes, args)
}

func callText(name string, argNodes []*pg_query.Node, args []*scalar) string {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.typ.String()
		if a.domain != nil {
			ts[i] = types.QuoteIdent(a.domain.name)
		}
		if unresolved(a) || a.null || a.typ.Oid == types.OidUnknown {
			ts[i] = "unknown"
		}
		if na := argNodes[i].GetNamedArgExpr(); na != nil {
			ts[i] = na.Name + " => " + ts[i]
		}
	}
	return name + "(" + strings.Join(ts, ", ") + ")"
}

// inParams are the parameters a call passes arguments for, in order.
func (f *funcDesc) inParams() []funcParam {
	var out []funcParam
	for _, p := range f.params {
		if p.arg {
			out = append(out, p)
		}
	}
	return out
}

// bindCall maps a call's positional arguments and named ones (after them)
// to f's input parameters: the index of the parameter each fills, or false
// when some parameter without default stays unfilled or a name fits none.
// A VARIADIC routine called with positional arguments only and without
// the VARIADIC keyword gathers its last arguments (at least one) into its
// variadic array: spread says so, and those arguments all map to the
// variadic parameter; without them the variadic parameter takes its
// default. With the keyword (variadicArg), only a VARIADIC routine fits,
// its array passed as the last argument.
func (f *funcDesc) bindCall(positional int, names []string, variadicArg bool) (slots []int, spread bool, ok bool) {
	ins := f.inParams()
	isVariadic := len(ins) > 0 && ins[len(ins)-1].mode == 'v'
	if variadicArg && !isVariadic {
		return nil, false, false
	}
	if isVariadic && !variadicArg {
		if len(names) > 0 || positional < len(ins) && f.nDefaults == 0 {
			return nil, false, false
		}
	}
	if isVariadic && !variadicArg && positional >= len(ins) {
		slots = make([]int, positional)
		for i := range slots {
			slots[i] = min(i, len(ins)-1)
		}
		return slots, true, true
	}
	if positional+len(names) > len(ins) || positional > len(ins) {
		return nil, false, false
	}
	filled := make([]bool, len(ins))
	slots = make([]int, 0, positional+len(names))
	for i := range positional {
		filled[i] = true
		slots = append(slots, i)
	}
	for _, n := range names {
		found := -1
		for i, p := range ins {
			if p.name == n {
				found = i
			}
		}
		if found < 0 || filled[found] {
			return nil, false, false
		}
		filled[found] = true
		slots = append(slots, found)
	}
	for i, ok := range filled {
		if !ok && i < len(ins)-f.nDefaults {
			return nil, false, false
		}
	}
	if variadicArg && slots[len(slots)-1] != len(ins)-1 {
		return nil, false, false
	}
	return slots, false, true
}

// arrayOfScalars is the array of type arr whose elements are the values
// of elems: a VARIADIC routine's gathered arguments.
func arrayOfScalars(arr types.Type, elems []*scalar) *scalar {
	var refs uint64
	volatile := false
	for _, e := range elems {
		refs |= e.refs
		volatile = volatile || e.volatile
	}
	return &scalar{typ: arr, slot: -1, refs: refs, volatile: volatile, eval: func(x *execCtx) (any, error) {
		out := make([]any, len(elems))
		for i, e := range elems {
			v, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}}
}

// invoke runs routine f with the input values vals in the caller's
// transaction and returns its result rows.
func (s *Session) invoke(x *execCtx, f *funcDesc, vals []any) ([][]any, error) {
	if f.strict {
		for _, v := range vals {
			if v == nil {
				return nil, nil
			}
		}
	}
	if s.routineDepth >= maxRoutineDepth {
		return nil, pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded").
			WithHint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.")
	}
	s.routineDepth++
	s.routineNames = append(s.routineNames, f.kindName()+" "+f.name)
	defer func() {
		s.routineDepth--
		s.routineNames = s.routineNames[:len(s.routineNames)-1]
	}()
	leave, err := s.enterRoutine(f)
	if err != nil {
		return nil, err
	}
	defer leave()
	x = x.routineCtx(f)
	if f.lang == "c" {
		return invokeExtension(x, f, vals)
	}
	if f.lang == "plpgsql" {
		return s.invokePlpgsql(x, f, vals)
	}
	return s.invokeSQL(x, f, vals)
}

// enterRoutine sets up what f runs with: its owner as current_user when
// it is SECURITY DEFINER, and its SET options, as SET LOCAL would. The
// function it returns restores the caller's user and the settings'
// values, but for a setting the routine's body changed with a plain SET,
// which, as in PostgreSQL, outlasts the routine.
func (s *Session) enterRoutine(f *funcDesc) (func(), error) {
	outer := s.definer
	if f.secDef {
		s.definer = f.owner
	}
	saved := make([]string, len(f.config))
	plainSets := make([]int, len(f.config))
	restore := func(n int) {
		for i := n - 1; i >= 0; i-- {
			if name := f.config[i].name; s.settings.plainSets[name] == plainSets[i] {
				s.settings.put(name, saved[i], true)
			}
		}
		s.definer = outer
	}
	for i, c := range f.config {
		saved[i], _ = s.settings.get(c.name)
		plainSets[i] = s.settings.plainSets[c.name]
		if err := s.settings.set(c.name, c.value, true); err != nil {
			restore(i)
			return nil, err
		}
	}
	return func() { restore(len(f.config)) }, nil
}

// callPlan plans CALL: a procedure's INOUT parameters come back as one
// row.
func (b *binder) callPlan(cs *pg_query.CallStmt) (*stmtPlan, error) {
	fc := cs.Funccall
	names := strs(fc.Funcname)
	cands := b.s.lookupFuncs(b.cat, names)
	call, err := b.resolveRoutine(nil, strings.Join(names, "."), cands, fc, 'p')
	if err != nil {
		notProcedure := func(signature string) error {
			return b.errAt(pgerror.Newf(pgerror.WrongObjectType, "%s is not a procedure", signature).
				WithHint("To call a function, use SELECT."), fc.Location)
		}
		if fn, ferr := b.resolveRoutine(nil, strings.Join(names, "."), cands, fc, 'f'); ferr == nil && fn != nil {
			return nil, notProcedure(fn.fn.signature())
		}
		if sig, ok := b.builtinFunctionSignature(names, fc); ok {
			return nil, notProcedure(sig)
		}
		return nil, err
	}
	f := call.fn
	for i, p := range f.inParams() {
		if p.mode == 'o' {
			// An OUT argument is checked against its parameter, never
			// evaluated: the procedure sees NULL.
			call.args[i] = &scalar{typ: call.args[i].typ, slot: -1, eval: constEval(nil)}
		}
	}
	var cols []outCol
	for _, c := range f.outCols {
		cols = append(cols, outCol{Name: c.Name, typ: c.Type})
	}
	batch := inBatch(b.full)
	return &stmtPlan{cols: cols, exec: func(x *execCtx) (*Result, error) {
		vals, err := call.values(x)
		if err != nil {
			return nil, err
		}
		rows, err := x.s.invokeCalled(x, f, vals, batch)
		if err != nil {
			return nil, err
		}
		if len(cols) == 0 {
			rows = nil
		} else if len(rows) == 0 {
			rows = [][]any{make([]any, len(cols))}
		}
		return &Result{Tag: "CALL", Rows: rows}, nil
	}}, nil
}

// builtinFunctionSignature is a call of a built-in function as
// PostgreSQL names it when it is no procedure: its name as written and
// its arguments' types (pg_catalog.lower(unknown)); ok is false when the
// call resolves to no built-in function.
func (b *binder) builtinFunctionSignature(names []string, fc *pg_query.FuncCall) (string, bool) {
	if len(names) > 2 || len(names) == 2 && names[0] != "pg_catalog" {
		return "", false
	}
	name := names[len(names)-1]
	args, err := b.builtinArgs(nil, name, fc.Args, fc.Location)
	if err != nil {
		return "", false
	}
	ts := make([]types.Type, len(args))
	sig := make([]string, len(args))
	for i, a := range args {
		ts[i], sig[i] = a.typ, types.FormatType(a.typ)
	}
	resolves := b.lookupSetFunc(names) != nil
	if overloads, ok := sysFuncs[name]; ok && !resolves {
		sigs := make([][]types.Type, len(overloads))
		for i, o := range overloads {
			sigs[i] = o.args
		}
		_, err := types.ChooseOverload(name, ts, sigs)
		resolves = err == nil
	} else if !resolves {
		_, err := types.ResolveFunc(name, ts)
		resolves = err == nil
	}
	return strings.Join(names, ".") + "(" + strings.Join(sig, ", ") + ")", resolves
}

// builtinWithoutParams reports whether pg_catalog has a function of the
// name without parameters, which fickle implements: a call without
// arguments fits it and a user function without parameters of the name
// alike, so PostgreSQL takes the one whose schema comes first in the
// search path (pgcrypto's gen_random_uuid beside the built-in one, say).
func builtinWithoutParams(name string) bool {
	if _, err := types.ResolveFunc(name, nil); err != nil {
		return false
	}
	return slices.ContainsFunc(builtinIndex().procsByName[name], func(p *builtinProc) bool {
		return p.namespace == oidPgCatalog && len(p.args) == 0
	})
}

// catalogBefore reports whether pg_catalog comes before schema in the
// search path.
func (s *Session) catalogBefore(schema string) bool {
	for _, p := range s.searchPath() {
		switch p {
		case "pg_catalog":
			return true
		case schema:
			return false
		}
	}
	return true
}

// shadowsBuiltin reports whether a built-in function of the call's name
// also takes its arguments: PostgreSQL would weigh both (and prefer
// pg_catalog's at an exact tie), which fickle does not, so such calls are
// refused rather than answered by the wrong function.
func (b *binder) shadowsBuiltin(call *routineCall) bool {
	name := call.fn.name
	if _, ok := sysFuncs[name]; ok || types.IsAggregate(name) || setFuncs[name] != nil {
		return true
	}
	ts := make([]types.Type, len(call.args))
	for i, a := range call.args {
		ts[i] = a.typ
	}
	_, err := types.ResolveFunc(name, ts)
	return err == nil
}
