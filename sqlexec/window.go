package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// winScope collects the window function calls of a query level and the
// windows its WINDOW clause defines.
type winScope struct {
	calls []*winCall
	named map[string]*winDef
	// inCall is set while a call's arguments are bound: window calls do not
	// nest.
	inCall bool
	// inDef is set while a window's definition is bound, which may not
	// call window functions either.
	inDef bool
	// defs are the windows bound, in the order PostgreSQL lists them
	// (the WINDOW clause's, then those of OVER clauses as they come), and
	// leading the texts of the query's ORDER BY and GROUP BY expressions,
	// which take their sort group references before the windows': both
	// decide the order PostgreSQL's planner evaluates windows in.
	defs    []*winDef
	leading []string
}

// winDef is a window, resolved: how rows are partitioned and ordered, and
// the frame each row's aggregate or value function looks at.
type winDef struct {
	name      string
	partition []*scalar
	orderBy   []*scalar
	order     []sortKey
	frame     winFrame
	// keys name the window's sort: its PARTITION BY then ORDER BY
	// expressions, by their text.
	keys []winKey
}

// winKey is one sort key of a window as PostgreSQL's SortGroupClause
// identifies it: the expression, the direction and where NULLs go.
type winKey struct {
	expr             string
	desc, nullsFirst bool
}

// winFrame is a frame clause: PostgreSQL's FRAMEOPTION_* bits and the
// offsets of n PRECEDING / n FOLLOWING bounds (int8 for ROWS and GROUPS, a
// type of types.InRangeOffsetTypes for RANGE).
type winFrame struct {
	options    int32
	start, end *scalar
}

// PostgreSQL's FRAMEOPTION_* bits of a WindowDef (parsenodes.h).
const (
	frameNonDefault              = 0x00001
	frameRange                   = 0x00002
	frameRows                    = 0x00004
	frameGroups                  = 0x00008
	frameBetween                 = 0x00010
	frameStartUnboundedPreceding = 0x00020
	frameEndUnboundedPreceding   = 0x00040
	frameStartUnboundedFollowing = 0x00080
	frameEndUnboundedFollowing   = 0x00100
	frameStartCurrentRow         = 0x00200
	frameEndCurrentRow           = 0x00400
	frameStartOffsetPreceding    = 0x00800
	frameEndOffsetPreceding      = 0x01000
	frameStartOffsetFollowing    = 0x02000
	frameEndOffsetFollowing      = 0x04000
	frameExcludeCurrentRow       = 0x08000
	frameExcludeGroup            = 0x10000
	frameExcludeTies             = 0x20000

	frameStartOffset = frameStartOffsetPreceding | frameStartOffsetFollowing
	frameEndOffset   = frameEndOffsetPreceding | frameEndOffsetFollowing
	frameExclusion   = frameExcludeCurrentRow | frameExcludeGroup | frameExcludeTies
	frameDefaults    = frameRange | frameStartUnboundedPreceding | frameEndCurrentRow
)

// winFunc is what a window call computes.
type winFunc int

const (
	winAggregate winFunc = iota
	winRowNumber
	winRank
	winDenseRank
	winPercentRank
	winCumeDist
	winNtile
	winLag
	winLead
	winFirstValue
	winLastValue
	winNthValue
)

// windowFuncs are PostgreSQL's built-in window functions (windowfuncs.c).
var windowFuncs = map[string]winFunc{
	"row_number": winRowNumber, "rank": winRank, "dense_rank": winDenseRank,
	"percent_rank": winPercentRank, "cume_dist": winCumeDist, "ntile": winNtile,
	"lag": winLag, "lead": winLead,
	"first_value": winFirstValue, "last_value": winLastValue, "nth_value": winNthValue,
}

type winCall struct {
	fn     winFunc
	agg    *types.Aggregate // for winAggregate
	filter *scalar          // an aggregate's FILTER (WHERE ...)
	args   []*scalar
	win    *winDef
}

// containsWindow reports whether the nodes call a window function outside
// subqueries.
func containsWindow(ns ...*pg_query.Node) bool {
	found := false
	for _, n := range ns {
		walk(n, func(c *pg_query.Node) bool {
			if found || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over != nil {
				found = true
			}
			return !found
		})
	}
	return found
}

// windowClause binds the windows of a query's WINDOW clause, in order: each
// may refer to an earlier one.
func (b *binder) windowClause(sc *scope, ws *winScope, defs []*pg_query.Node) error {
	ws.named = map[string]*winDef{}
	for _, n := range defs {
		w := n.GetWindowDef()
		if _, dup := ws.named[w.Name]; dup {
			return b.errAt(pgerror.Newf(pgerror.WindowingError, "window \"%s\" is already defined", w.Name), w.Location)
		}
		d, err := b.windowDef(sc, ws, w)
		if err != nil {
			return err
		}
		ws.named[w.Name] = d
	}
	return nil
}

// windowDef binds one window specification, copying the window it refers
// to by the rules of SQL:2008 (PostgreSQL's transformWindowDefinitions).
func (b *binder) windowDef(sc *scope, ws *winScope, w *pg_query.WindowDef) (*winDef, error) {
	ws.inDef = true
	defer func() { ws.inDef = false }()
	d := &winDef{name: w.Name}
	var ref *winDef
	if w.Refname != "" {
		if ref = ws.named[w.Refname]; ref == nil {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedObject, "window \"%s\" does not exist", w.Refname), w.Location)
		}
	}
	for _, p := range w.PartitionClause {
		e, err := b.expr(sc, p)
		if err != nil {
			return nil, err
		}
		if unresolved(e) || e.lit != nil || e.null {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		if err := types.EqualityOperatorError(e.typ); err != nil {
			return nil, b.errAt(err, exprLocation(p))
		}
		if types.OrderingOperatorError(e.typ) != nil {
			// The planner's error: PostgreSQL sorts partitions.
			return nil, pgerror.New(pgerror.FeatureNotSupported, "could not implement window PARTITION BY").
				WithDetail("Window partitioning columns must be of sortable datatypes.")
		}
		d.partition = append(d.partition, e)
		d.keys = append(d.keys, winKey{expr: deparseExpr(p)})
	}
	var err error
	if d.orderBy, d.order, err = b.sortClause(sc, w.OrderClause, false); err != nil {
		return nil, err
	}
	var orderKeys []winKey
	for i, o := range w.OrderClause {
		orderKeys = append(orderKeys, winKey{expr: deparseExpr(o.GetSortBy().Node), desc: d.order[i].desc, nullsFirst: d.order[i].nullsFirst})
	}
	if ref != nil {
		if len(d.partition) > 0 {
			return nil, b.errAt(pgerror.Newf(pgerror.WindowingError, "cannot override PARTITION BY clause of window \"%s\"", w.Refname), w.Location)
		}
		d.partition = ref.partition
		d.keys = ref.keys[:len(ref.partition):len(ref.partition)]
		if len(d.order) > 0 && len(ref.order) > 0 {
			return nil, b.errAt(pgerror.Newf(pgerror.WindowingError, "cannot override ORDER BY clause of window \"%s\"", w.Refname), w.Location)
		}
		if len(d.order) == 0 {
			d.orderBy, d.order = ref.orderBy, ref.order
			orderKeys = ref.keys[len(ref.partition):]
		}
		if ref.frame.options != frameDefaults {
			err := pgerror.Newf(pgerror.WindowingError, "cannot copy window \"%s\" because it has a frame clause", w.Refname)
			if w.Name == "" && len(w.OrderClause) == 0 && w.FrameOptions == frameDefaults {
				err = err.WithHint("Omit the parentheses in this OVER clause.")
			}
			return nil, b.errAt(err, w.Location)
		}
	}
	d.keys = append(d.keys, orderKeys...)
	d.frame.options = w.FrameOptions
	if d.frame.options&frameRange != 0 && d.frame.options&(frameStartOffset|frameEndOffset) != 0 && len(d.order) != 1 {
		return nil, b.errAt(pgerror.New(pgerror.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"), w.Location)
	}
	if d.frame.options&frameGroups != 0 && len(d.order) == 0 {
		return nil, b.errAt(pgerror.New(pgerror.WindowingError, "GROUPS mode requires an ORDER BY clause"), w.Location)
	}
	if d.frame.start, err = b.frameOffset(sc, d, w.StartOffset); err != nil {
		return nil, err
	}
	if d.frame.end, err = b.frameOffset(sc, d, w.EndOffset); err != nil {
		return nil, err
	}
	ws.defs = append(ws.defs, d)
	return d, nil
}

// sortGroupTexts are the texts of a query's ORDER BY and GROUP BY
// expressions, in order, an output column's number or an ORDER BY's output
// column name standing for the column's expression.
func sortGroupTexts(st *pg_query.SelectStmt, targets []*pg_query.Node) []string {
	var out []string
	text := func(n *pg_query.Node, byName bool) string {
		if c := n.GetAConst(); c != nil && c.GetIval() != nil {
			if k := int(c.GetIval().Ival); k >= 1 && k <= len(targets) && targets[k-1].GetResTarget() != nil {
				return deparseExpr(targets[k-1].GetResTarget().Val)
			}
		}
		if cr := n.GetColumnRef(); byName && cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			for _, t := range targets {
				if rt := t.GetResTarget(); rt != nil && rt.Name == cr.Fields[0].GetString_().Sval {
					return deparseExpr(rt.Val)
				}
			}
		}
		return deparseExpr(n)
	}
	for _, o := range st.SortClause {
		if sb := o.GetSortBy(); sb != nil {
			out = append(out, text(sb.Node, true))
		}
	}
	for _, g := range st.GroupClause {
		out = append(out, text(g, false))
	}
	return out
}

// routineParamRef reports whether cr names a routine's parameter or
// variable rather than a column: PostgreSQL passes those as parameters,
// which a frame offset may read, as it may not a column.
func (b *binder) routineParamRef(sc *scope, cr *pg_query.ColumnRef) bool {
	for _, f := range cr.Fields {
		if f.GetString_() == nil {
			return false
		}
	}
	fields := strs(cr.Fields)
	if sc != nil {
		if _, err := b.resolveCol(sc, fields, cr.Location); err == nil {
			return false
		}
	}
	_, ok := b.routineVar(fields, cr.Location)
	return ok
}

// frameOffset binds the n of n PRECEDING / n FOLLOWING: an int8 for ROWS
// and GROUPS; for RANGE, a value of the type PostgreSQL's in_range support
// function for the ORDER BY column takes (transformFrameOffset).
func (b *binder) frameOffset(sc *scope, d *winDef, n *pg_query.Node) (*scalar, error) {
	if n == nil {
		return nil, nil
	}
	construct := "ROWS"
	switch {
	case d.frame.options&frameRange != 0:
		construct = "RANGE"
	case d.frame.options&frameGroups != 0:
		construct = "GROUPS"
	}
	var varErr error
	walk(n, func(c *pg_query.Node) bool {
		if cr := c.GetColumnRef(); cr != nil && varErr == nil && !b.routineParamRef(sc, cr) {
			varErr = b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "argument of %s must not contain variables", construct), cr.Location)
		}
		return varErr == nil && c.GetSubLink() == nil
	})
	if varErr != nil {
		return nil, varErr
	}
	e, err := b.expr(sc, n)
	if err != nil {
		return nil, err
	}
	if construct != "RANGE" {
		return b.coerce(e, types.Int8, types.CastAssignment)
	}
	from := e.typ
	if unresolved(e) || e.lit != nil || e.null {
		from = types.Unknown
	}
	chosen, perr := rangeOffsetType(d.order[0].typ, from)
	if perr != nil {
		return nil, b.errAt(perr, leftmostLocation(n))
	}
	return b.coerce(e, chosen, types.CastImplicit)
}

// rangeOffsetType is the type a RANGE frame's offset of type from
// (unknown for an untyped literal) is taken as over an ORDER BY key of
// type col, as transformFrameOffset chooses among the in_range support
// functions of col's type: the one matching exactly, or the only one the
// offset converts to implicitly, or for a literal col's own type.
func rangeOffsetType(col, from types.Type) (types.Type, *pgerror.Error) {
	if col.Oid == types.OidVarchar || col.Oid == types.OidBpchar || col.Oid == types.OidName {
		col = types.Text
	}
	col.Typmod = -1
	cands := types.InRangeOffsetTypes(col)
	if cands == nil {
		return types.Type{}, pgerror.Newf(pgerror.FeatureNotSupported,
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", col)
	}
	preferred := from
	if from == types.Unknown {
		preferred = col
	}
	var chosen types.Type
	matches := 0
	for _, t := range cands {
		if from != types.Unknown && !types.CanImplicitCast(from, t) {
			continue
		}
		matches++
		if chosen != preferred {
			chosen = t
		}
	}
	switch {
	case matches == 0:
		return types.Type{}, pgerror.Newf(pgerror.FeatureNotSupported,
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", col, from).
			WithHint("Cast the offset value to an appropriate type.")
	case matches > 1 && chosen != preferred:
		return types.Type{}, pgerror.Newf(pgerror.FeatureNotSupported,
			"RANGE with offset PRECEDING/FOLLOWING has multiple interpretations for column type %s and offset type %s", col, from).
			WithHint("Cast the offset value to the exact intended type.")
	}
	return chosen, nil
}

// leftmostLocation is where PostgreSQL's exprLocation places a bound
// expression: the leftmost of an operator's, a cast's or a subquery's own
// location and its operands'.
func leftmostLocation(n *pg_query.Node) int32 {
	loc := exprLocation(n)
	var left *pg_query.Node
	switch {
	case n.GetTypeCast() != nil:
		left = n.GetTypeCast().Arg
	case n.GetAExpr() != nil:
		left = n.GetAExpr().Lexpr
	case n.GetSubLink() != nil:
		loc, left = n.GetSubLink().Location, n.GetSubLink().Testexpr
	}
	if left != nil {
		if l := leftmostLocation(left); l >= 0 && (loc < 0 || l < loc) {
			loc = l
		}
	}
	return loc
}

// windowCall compiles fn(...) OVER (...) in the scope sc of the query's
// rows; the result reads the value computed for the current row.
func (b *binder) windowCall(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	ws := sc.win
	if ws.inCall {
		return nil, b.errAt(pgerror.New(pgerror.WindowingError, "window function calls cannot be nested"), fc.Location)
	}
	if ws.inDef {
		return nil, b.errAt(pgerror.New(pgerror.WindowingError, "window functions are not allowed in window definitions"), fc.Location)
	}
	name := strings.ToLower(lastName(fc.Funcname))
	fn, isWindowFunc := windowFuncs[name]
	switch {
	case fc.AggDistinct:
		return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "DISTINCT is not implemented for window functions"), fc.Location)
	case len(fc.AggOrder) > 0:
		return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions"), fc.Location)
	case fc.AggFilter != nil && isWindowFunc:
		return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "FILTER is not implemented for non-aggregate window functions"), fc.Location)
	}
	call := &winCall{fn: fn}
	ws.inCall = true
	for _, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			ws.inCall = false
			return nil, err
		}
		call.args = append(call.args, e)
	}
	if fc.AggFilter != nil {
		f, err := b.cond(sc, fc.AggFilter, "FILTER")
		if err != nil {
			ws.inCall = false
			return nil, err
		}
		call.filter = f
	}
	ws.inCall = false
	var result types.Type
	var err error
	if isWindowFunc {
		result, err = b.windowFuncArgs(call, name, fc)
	} else {
		result, err = b.windowAggregate(call, name, fc)
	}
	if err != nil {
		return nil, err
	}
	if fc.Over.Name != "" {
		if call.win = ws.named[fc.Over.Name]; call.win == nil {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedObject, "window \"%s\" does not exist", fc.Over.Name), fc.Over.Location)
		}
	} else if call.win, err = b.windowDef(sc, ws, fc.Over); err != nil {
		return nil, err
	}
	slot := len(ws.calls)
	ws.calls = append(ws.calls, call)
	return &scalar{typ: result, slot: -1, name: name, eval: func(x *execCtx) (any, error) { return x.win[slot], nil }}, nil
}

// windowAggregate resolves an aggregate called as a window function.
func (b *binder) windowAggregate(call *winCall, name string, fc *pg_query.FuncCall) (types.Type, error) {
	if b.userAggregateNamed(strs(fc.Funcname)) {
		agg, args, err := b.userAggregate(fc, call.args)
		if err != nil {
			return types.Type{}, err
		}
		call.args, call.agg = args, agg
		return agg.Result, nil
	}
	ts := make([]types.Type, len(call.args))
	for i, a := range call.args {
		if (unresolved(a) || a.lit != nil || a.null) && !types.AggregateIsPolymorphic(name) {
			e, err := b.coerce(a, types.Text, types.CastImplicit)
			if err != nil {
				return types.Type{}, err
			}
			call.args[i] = e
		}
		ts[i] = call.args[i].typ
	}
	if !types.IsAggregate(name) {
		if _, err := types.ResolveFunc(name, ts); err == nil || b.lookupSetFunc(strs(fc.Funcname)) != nil {
			return types.Type{}, b.errAt(aggregateSyntaxError(fc, name), fc.Location)
		}
	}
	agg, err := types.ResolveAggregate(name, ts, fc.AggStar)
	if err != nil {
		return types.Type{}, b.lackedBuiltinAt(name, ts, err, fc.Location)
	}
	call.agg = agg
	return agg.Result, nil
}

// windowFuncArgs checks and coerces the arguments of a built-in window
// function to its signature (pg_proc's) and returns its result type.
func (b *binder) windowFuncArgs(call *winCall, name string, fc *pg_query.FuncCall) (types.Type, error) {
	args := call.args
	noSuchFunction := func() (types.Type, error) {
		ts := make([]string, len(args))
		for i, a := range args {
			t := a.typ
			if unresolved(a) || a.lit != nil || a.null {
				t = types.Unknown
			}
			ts[i] = t.String()
		}
		return types.Type{}, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", ")).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
	}
	if fc.AggStar {
		return noSuchFunction()
	}
	// toInt4 coerces argument i as the int4 parameter of the signature.
	toInt4 := func(i int) bool {
		a := args[i]
		if !(unresolved(a) || a.lit != nil || a.null) && !types.CanImplicitCast(a.typ, types.Int4) {
			return false
		}
		e, err := b.coerce(a, types.Int4, types.CastImplicit)
		if err != nil {
			return false
		}
		args[i] = e
		return true
	}
	// toValue gives untyped arguments the type text, as anyelement does.
	toValue := func(i int) error {
		a := args[i]
		if unresolved(a) || a.lit != nil || a.null {
			e, err := b.coerce(a, types.Text, types.CastImplicit)
			if err != nil {
				return err
			}
			args[i] = e
		}
		return nil
	}
	switch call.fn {
	case winRowNumber, winRank, winDenseRank:
		if len(args) != 0 {
			return noSuchFunction()
		}
		return types.Int8, nil
	case winPercentRank, winCumeDist:
		if len(args) != 0 {
			return noSuchFunction()
		}
		return types.Float8, nil
	case winNtile:
		if len(args) != 1 || !toInt4(0) {
			return noSuchFunction()
		}
		return types.Int4, nil
	case winFirstValue, winLastValue:
		if len(args) != 1 {
			return noSuchFunction()
		}
		if err := polymorphicKnown(args[0]); err != nil {
			return types.Type{}, err
		}
		return args[0].typ, toValue(0)
	case winNthValue:
		if len(args) != 2 || !toInt4(1) {
			return noSuchFunction()
		}
		if err := polymorphicKnown(args[0]); err != nil {
			return types.Type{}, err
		}
		if err := toValue(0); err != nil {
			return types.Type{}, err
		}
		return args[0].typ, nil
	}
	// lag and lead: (anycompatible [, int4 [, anycompatible]]).
	if len(args) < 1 || len(args) > 3 || len(args) >= 2 && !toInt4(1) {
		return noSuchFunction()
	}
	if len(args) < 3 {
		if err := polymorphicKnown(args[0]); err != nil {
			return types.Type{}, err
		}
		return args[0].typ, toValue(0)
	}
	ts := []types.Type{args[0].typ, args[2].typ}
	for i, a := range []*scalar{args[0], args[2]} {
		if unresolved(a) || a.lit != nil || a.null {
			ts[i] = types.Unknown
		}
	}
	t, err := types.CommonType("lag", ts...)
	if err != nil {
		return noSuchFunction()
	}
	for _, i := range []int{0, 2} {
		if args[i], err = b.coerce(args[i], t, types.CastImplicit); err != nil {
			return types.Type{}, err
		}
	}
	return t, nil
}

// polymorphicKnown fails, as PostgreSQL's enforce_generic_type_consistency
// does, when e, the argument an anyelement parameter takes its type from,
// has none: an untyped literal, NULL or parameter.
func polymorphicKnown(e *scalar) error {
	if e.typ.Oid == types.OidUnknown {
		return pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	return nil
}

// sortClause compiles the ORDER BY of a window or an aggregate call: the
// expressions, and the keys that sort rows of their values. An untyped
// literal, NULL or parameter is sorted as text, unless keepUnknown leaves
// it to the caller (an ordered-set aggregate's argument, which its
// signature types).
func (b *binder) sortClause(sc *scope, clause []*pg_query.Node, keepUnknown bool) ([]*scalar, []sortKey, error) {
	var exprs []*scalar
	var keys []sortKey
	for i, o := range clause {
		sb := o.GetSortBy()
		if sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
			return nil, nil, b.errAt(pgerror.Unsupported("ORDER BY ... USING"), sb.Location)
		}
		e, err := b.exprAlone(sc, sb.Node)
		if err != nil {
			return nil, nil, err
		}
		untyped := e.typ.Oid == types.OidUnknown
		if (unresolved(e) || e.lit != nil || e.null) && !(untyped && keepUnknown) {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, nil, err
			}
			untyped = false
		}
		if err := types.OrderingOperatorError(e.typ); err != nil && !untyped {
			return nil, nil, b.errAt(err, exprLocation(sb.Node))
		}
		if e.coll.strength == collConflict {
			return nil, nil, b.errAt(e.coll.conflictError(), exprLocation(sb.Node))
		}
		exprs = append(exprs, e)
		k := sortKeyOf(sb, i, e.typ)
		k.noCollation = e.coll.indeterminate
		keys = append(keys, k)
	}
	return exprs, keys, nil
}

// compareKeys orders rows a and b by the sort keys: negative when a sorts
// first, 0 for peers.
func compareKeys(a, b []any, keys []sortKey) int {
	for _, k := range keys {
		x, y := a[k.col], b[k.col]
		var c int
		switch {
		case x == nil && y == nil:
		case x == nil:
			c = 1
			if k.nullsFirst {
				c = -1
			}
		case y == nil:
			c = -1
			if k.nullsFirst {
				c = 1
			}
		default:
			c = types.Compare(k.typ, x, y)
			if k.desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
