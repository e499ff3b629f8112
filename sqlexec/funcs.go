package sqlexec

import (
	"crypto/rand"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// cryptoRand supplies gen_random_uuid() and random() with randomness.
type cryptoRand struct{}

func (cryptoRand) Read(p []byte) (int, error) { return rand.Read(p) }

// versionString is what version() returns; drivers parse its second word.
const versionString = "PostgreSQL 15.0 (fickle) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"

// srfAllowed reports, as PostgreSQL's 0A000, a set-returning call where
// it may not be: outside a select list (and ORDER BY), or inside a CASE or
// COALESCE there.
func (b *binder) srfAllowed(sc *scope, fc *pg_query.FuncCall) error {
	switch {
	case sc != nil && sc.srf != nil && sc.srfBarred != "":
		return b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "set-returning functions are not allowed in %s", sc.srfBarred).
			WithHint("You might be able to move the set-returning function into a LATERAL FROM item."), fc.Location)
	case sc != nil && sc.srf != nil:
		return nil
	case sc != nil && sc.noAgg == "aggregate function calls":
		return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "aggregate function calls cannot contain set-returning function calls").
			WithHint("You might be able to move the set-returning function into a LATERAL FROM item."), fc.Location)
	case sc != nil && sc.noAgg != "":
		return b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "set-returning functions are not allowed in %s", sc.noAgg), fc.Location)
	case sc != nil && sc.noAggWin == "GROUP BY":
		// PostgreSQL groups the rows the call expands to.
		return b.errAt(pgerror.Unsupported("set-returning functions in GROUP BY"), fc.Location)
	}
	return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "set-returning functions are not allowed in this context"), fc.Location)
}

// barringSRFs compiles with sc.srfBarred set to what, for the arguments
// of a CASE or COALESCE.
func barringSRFs(sc *scope, what string, compile func() (*scalar, error)) (*scalar, error) {
	if sc == nil {
		return compile()
	}
	saved := sc.srfBarred
	sc.srfBarred = what
	defer func() { sc.srfBarred = saved }()
	return compile()
}

// undefinedQualifiedFunction is PostgreSQL's error for a call of a routine
// of schema names[len-2] that has none of the name: 3F000 when no such
// schema exists (pg_temp before the session made its temporary schema
// too), else 42883 with the arguments' types.
func (b *binder) undefinedQualifiedFunction(sc *scope, names []string, fc *pg_query.FuncCall) error {
	schema, resolved := names[len(names)-2], names[len(names)-2]
	if schema == "pg_temp" {
		resolved = b.s.tempSchemaIfAny()
	}
	if b.cat.schemas[resolved] == nil && schema != "information_schema" {
		return b.errAt(pgerror.Newf(pgerror.InvalidSchemaName, "schema \"%s\" does not exist", schema), fc.Location)
	}
	args, err := b.builtinArgs(sc, names[len(names)-1], fc.Args, fc.Location)
	if err != nil {
		return err
	}
	return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", callText(strings.Join(names, "."), fc.Args, args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
}

func (b *binder) funcCall(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	names := strs(fc.Funcname)
	name := strings.ToLower(names[len(names)-1])
	if name == "satisfies_hash_partition" && (len(names) == 1 || names[0] == "pg_catalog") && fc.Over == nil && !fc.AggStar && len(fc.Args) > 3 {
		return b.satisfiesHashPartition(sc, fc)
	}
	if fn := b.lookupSetFunc(names); fn != nil && fc.Over == nil {
		if err := b.srfAllowed(sc, fc); err != nil {
			return nil, err
		}
		return b.setCallInList(sc, fn, fc)
	}
	userAgg := b.userAggregateNamed(names)
	if e, ok, err := b.userFuncCall(sc, fc); ok {
		return e, err
	}
	if rt, ok := types.RangeConstructorType(name); ok && (len(names) == 1 || names[0] != "pg_catalog") {
		// A user range type's constructor, which only a session that
		// sees the type, in the schema it names, may call.
		if !b.rangeConstructorVisible(names, rt) {
			args, err := b.builtinArgs(sc, name, fc.Args, fc.Location)
			if err != nil {
				return nil, err
			}
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", callText(strings.Join(names, "."), fc.Args, args)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
		}
	} else if len(names) > 1 && names[len(names)-2] != "pg_catalog" {
		return nil, b.undefinedQualifiedFunction(sc, names, fc)
	}
	if fc.Over != nil {
		if sc != nil && sc.win != nil {
			return b.windowCall(sc, fc)
		}
		if sc != nil && sc.noAgg == "aggregate function calls" {
			return nil, b.windowInAggregateError(sc, fc.Location)
		}
		if sc != nil && sc.noAgg != "" {
			return nil, b.errAt(pgerror.Newf(pgerror.WindowingError, "window functions are not allowed in %s", sc.noAgg), fc.Location)
		}
		if sc != nil && sc.noAggWin != "" {
			return nil, b.errAt(pgerror.Newf(pgerror.WindowingError, "window functions are not allowed in %s", sc.noAggWin), fc.Location)
		}
		return nil, b.errAt(pgerror.Unsupported("window functions here (only in the select list and ORDER BY of a query without GROUP BY)"), fc.Location)
	}
	if name == "pg_typeof" && len(fc.Args) == 1 && fc.Over == nil && !fc.AggStar {
		return b.pgTypeof(sc, fc)
	}
	if fc.AggWithinGroup && sc != nil {
		// An ordered-set or hypothetical-set aggregate (rank(x) WITHIN
		// GROUP is not the window function) outside grouping.
		return b.aggregateOutsideGrouping(sc, fc)
	}
	if withinGroupRequired(name, len(fc.Args)) {
		return nil, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", name), fc.Location)
	}
	if _, ok := windowFuncs[name]; ok {
		return nil, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "window function %s requires an OVER clause", name), fc.Location)
	}
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || types.IsAggregate(name) || userAgg {
		clause := "this context"
		switch {
		case sc != nil && sc.noAgg != "":
			clause = sc.noAgg
		case sc != nil && sc.noAggWin != "":
			clause = sc.noAggWin
		}
		if !types.IsAggregate(name) && !userAgg && builtinAggregateNamed(name) {
			return nil, b.errAt(pgerror.Unsupported("aggregate function "+name), fc.Location)
		}
		if !types.IsAggregate(name) && !userAgg {
			// A function that is no aggregate: PostgreSQL first looks
			// it up by its arguments (none for f(*)).
			args := fc.Args
			if fc.AggStar {
				args = nil
			}
			if _, err := b.callBuiltin(sc, name, args, fc.Location); err != nil {
				return nil, err
			}
			return nil, b.errAt(aggregateSyntaxError(fc, name), fc.Location)
		}
		if sc != nil {
			return b.aggregateOutsideGrouping(sc, fc)
		}
		return nil, b.errAt(pgerror.Newf(pgerror.GroupingError, "aggregate functions are not allowed in %s", clause), fc.Location)
	}
	if fc.FuncVariadic {
		return b.variadicBuiltinCall(sc, name, fc)
	}
	if name == "fickle_check" {
		return nil, b.errAt(pgerror.Unsupported("fickle_check() outside FROM").WithHint("Use SELECT * FROM fickle_check()."), fc.Location)
	}
	if tc := b.functionStyleCast(fc); tc != nil {
		e, err := b.typeCast(sc, tc)
		if err == nil {
			// Named as the call it is written as, a strong name that a
			// cast around it keeps (PostgreSQL's FigureColname).
			names := strs(fc.Funcname)
			e.name, e.weakName = names[len(names)-1], false
		}
		return e, err
	}
	if overloads, ok := sysFuncs[name]; ok {
		return b.sysCall(sc, name, overloads, fc)
	}
	args, err := b.builtinArgs(sc, name, fc.Args, fc.Location)
	if err != nil {
		return nil, err
	}
	e, err := b.callResolved(name, args, fc.Location)
	if err == nil || len(args) != 1 || fc.Args[0].GetNamedArgExpr() != nil {
		return e, err
	}
	if code := pgerror.GetCode(err); code != pgerror.UndefinedFunction && code != pgerror.FeatureNotSupported {
		return e, err
	}
	if ce, ok, cerr := b.castFunctionCall(fc, args[0]); ok {
		return ce, cerr
	}
	if pe, ok := err.(*pgerror.Error); ok && pe.Code == pgerror.UndefinedFunction && len(names) == 1 {
		if sel := b.functionNotationField(sc, name, fc.Args[0]); sel != nil {
			return sel, nil
		}
	}
	return e, err
}

// functionNotationField compiles name(arg), which no function fits, as the
// field selection (arg).name when arg is of a composite type with such a
// field, as PostgreSQL takes functional notation for a column; nil when
// it is not.
func (b *binder) functionNotationField(sc *scope, name string, argNode *pg_query.Node) *scalar {
	if argNode.GetNamedArgExpr() != nil {
		return nil
	}
	arg, err := b.expr(sc, argNode)
	if err != nil {
		return nil
	}
	fields, ok := arg.typ.Fields()
	if !ok || arg.typ.ShapeHidden() {
		return nil
	}
	sel, err := fieldSelection(plainValue(arg), fields, name)
	if err != nil {
		return nil
	}
	return sel
}

// functionStyleCast is the cast a call typename('literal') (or
// typename(NULL)) is, as PostgreSQL's func_get_detail takes a call of a
// type's name with one untyped literal; nil for any other call.
func (b *binder) functionStyleCast(fc *pg_query.FuncCall) *pg_query.TypeCast {
	if len(fc.Args) != 1 {
		return nil
	}
	c := fc.Args[0].GetAConst()
	if c == nil || c.GetSval() == nil && !c.Isnull {
		return nil
	}
	tn := &pg_query.TypeName{Names: fc.Funcname, Typemod: -1, Location: fc.Location}
	if _, err := b.typeName(tn); err != nil {
		return nil
	}
	return &pg_query.TypeCast{Arg: fc.Args[0], TypeName: tn, Location: fc.Location}
}

// callAsOperator compiles a call of a built-in function of two arguments
// that fickle has only as the binary operator it implements (int4mul as
// integer * integer), resolved among the function's overloads as
// PostgreSQL resolves the call; ok is false when there is no such
// operator.
func (b *binder) callAsOperator(name string, args []*scalar, ts []types.Type, loc int32) (*scalar, bool, error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	var overloads [][]types.Type
	for _, p := range builtinIndex().procsByName[name] {
		if p.namespace != oidPgCatalog || p.kind != 'f' || len(p.args) != 2 {
			continue
		}
		l, lok := types.TypeByOid(types.Oid(p.args[0]))
		r, rok := types.TypeByOid(types.Oid(p.args[1]))
		if lok && rok && !l.IsPolymorphic() && !r.IsPolymorphic() && l.Oid != types.Oid(oidAnyPseudoType) && r.Oid != types.Oid(oidAnyPseudoType) {
			overloads = append(overloads, []types.Type{l, r})
		}
	}
	i, err := types.ChooseOverload(name, ts, overloads)
	if err != nil {
		return nil, false, nil
	}
	op := operatorOf(name, overloads[i])
	if op == nil || op.kind != 'b' {
		return nil, false, nil
	}
	l, err := b.coerce(args[0], overloads[i][0], types.CastImplicit)
	if err != nil {
		return nil, true, err
	}
	r, err := b.coerce(args[1], overloads[i][1], types.CastImplicit)
	if err != nil {
		return nil, true, err
	}
	out, err := b.binary(op.name, l, r, loc)
	if err != nil {
		return nil, true, err
	}
	out.name = name
	return out, true, nil
}

// callBuiltin resolves a function of package types.
func (b *binder) callBuiltin(sc *scope, name string, argNodes []*pg_query.Node, loc int32) (*scalar, error) {
	args, err := b.builtinArgs(sc, name, argNodes, loc)
	if err != nil {
		return nil, err
	}
	return b.callResolved(name, args, loc)
}

func (b *binder) callResolved(name string, args []*scalar, loc int32) (*scalar, error) {
	ts := make([]types.Type, len(args))
	pending := false
	for i, a := range args {
		ts[i] = a.typ
		if unresolved(a) {
			pending = true
		}
	}
	if ct, ok := b.visibleCitext(); ok && types.IsCitextFunc(name) {
		// The extension's functions take citext only: an untyped
		// argument is one.
		for i := range ts {
			if ts[i].Oid == types.OidUnknown {
				ts[i] = ct
			}
		}
	}
	fn, err := types.ResolveFunc(name, ts)
	if err != nil {
		if out, ok, err := b.callAsOperator(name, args, ts, loc); ok || err != nil {
			return out, err
		}
		return nil, b.lackedBuiltinAt(name, ts, err, loc)
	}
	if pending {
		for i, a := range args {
			if unresolved(a) && i < len(fn.Args) {
				b.fix(a, fn.Args[i])
				ts[i] = a.typ
			}
		}
		if fn, err = types.ResolveFunc(name, ts); err != nil {
			return nil, b.withPos(err, loc)
		}
	}
	if err := b.citextOutOfPath(fn.Args...); err != nil {
		return nil, b.errAt(err, loc)
	}
	for i, a := range args {
		if i < len(fn.Args) {
			if err := b.readLiteralOperand(a, fn.Args[i]); err != nil {
				return nil, err
			}
		}
	}
	var refs uint64
	volatile := fn.Volatility == types.Volatile
	if volatile {
		b.volatileCalls++
		b.pgVolatileCalls++
	}
	if fn.Volatility != types.Immutable {
		b.mutableCalls++
	}
	for _, a := range args {
		refs |= a.refs
		volatile = volatile || a.volatile
	}
	ev := fn.Eval
	out := &scalar{typ: fn.Result, slot: -1, refs: refs, volatile: volatile, name: name}
	out.eval = func(x *execCtx) (any, error) {
		vals := make([]any, len(args))
		for i, a := range args {
			v, err := a.eval(x)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return ev(x.env, vals)
	}
	return out, nil
}

func (b *binder) sqlValueFunction(sc *scope, f *pg_query.SQLValueFunction) (*scalar, error) {
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return b.callResolved("current_date", nil, f.Location)
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return b.currentTime("current_timestamp", f)
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return b.currentTime("localtimestamp", f)
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return b.currentTime("localtime", f)
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return b.currentTime("current_time", f)
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg_query.SQLValueFunctionOp_SVFOP_USER,
		pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE, pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		name := map[pg_query.SQLValueFunctionOp]string{
			pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER: "current_user", pg_query.SQLValueFunctionOp_SVFOP_USER: "current_user",
			pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE: "current_role", pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER: "session_user"}[f.Op]
		if name == "session_user" {
			return &scalar{typ: types.Name, slot: -1, name: name, eval: func(x *execCtx) (any, error) { return x.s.sessionUser(), nil }}, nil
		}
		return &scalar{typ: types.Name, slot: -1, name: name, eval: func(x *execCtx) (any, error) { return x.s.user(), nil }}, nil
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return &scalar{typ: types.Name, slot: -1, name: "current_catalog", eval: func(x *execCtx) (any, error) { return x.s.database(), nil }}, nil
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return b.sysCall(sc, "current_schema", sysFuncs["current_schema"], &pg_query.FuncCall{Location: f.Location})
	}
	return nil, b.errAt(pgerror.Unsupported("this SQL value function"), f.Location)
}

// currentTime is CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_TIME and LOCALTIME, rounded
// to the precision written as CURRENT_TIMESTAMP(p) (more than 6 is 6).
func (b *binder) currentTime(name string, f *pg_query.SQLValueFunction) (*scalar, error) {
	s, err := b.callResolved(name, nil, f.Location)
	if err != nil || f.Typmod < 0 {
		return s, err
	}
	return b.coerce(s, types.Type{Oid: s.typ.Oid, Typmod: min(f.Typmod, 6)}, types.CastExplicit)
}

func (s *Session) database() string { return s.engine.Name() }

// aggregateSyntaxError is PostgreSQL's 42809 for a call of name, which is
// no aggregate, written with an aggregate's syntax: the first of *,
// DISTINCT, WITHIN GROUP, ORDER BY, FILTER and OVER it has.
func aggregateSyntaxError(fc *pg_query.FuncCall, name string) *pgerror.Error {
	clause := ""
	switch {
	case fc.AggStar:
		return pgerror.Newf(pgerror.WrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name)
	case fc.AggDistinct:
		clause = "DISTINCT"
	case fc.AggWithinGroup:
		clause = "WITHIN GROUP"
	case len(fc.AggOrder) > 0:
		clause = "ORDER BY"
	case fc.AggFilter != nil:
		clause = "FILTER"
	default:
		return pgerror.Newf(pgerror.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
	}
	return pgerror.Newf(pgerror.WrongObjectType, "%s specified, but %s is not an aggregate function", clause, name)
}
