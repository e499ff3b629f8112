package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Set-returning functions. Each is bound once from its compiled arguments
// (setFunc.bind checks and coerces them and names the columns of the rows
// it returns) and produces its rows per evaluation. In FROM the columns are
// the item's columns; in a select list each call yields one value per
// output row (the one column, or a record of several), the calls of a
// select list advancing in lockstep as PostgreSQL's ProjectSet does.

// setFunc is a set-returning function.
type setFunc struct {
	// schema is the schema that holds the function.
	schema string
	// strict functions return no rows when an argument is NULL.
	strict bool
	// outParam says that a one-column function's column keeps its
	// declared name (an OUT parameter's) instead of taking the alias.
	outParam bool
	// bind checks and coerces the arguments in place and returns the
	// columns of the rows.
	bind func(b *binder, args []*scalar, loc int32) ([]types.Field, error)
	// rows computes the rows from the arguments' values.
	rows func(x *execCtx, args []any) ([][]any, error)
}

var setFuncs map[string]*setFunc

func init() {
	setFuncs = map[string]*setFunc{
		"generate_series":        {schema: "pg_catalog", strict: true, bind: bindGenerateSeries, rows: generateSeriesRows},
		"unnest":                 {schema: "pg_catalog", strict: true, bind: bindUnnest, rows: unnestRows},
		"generate_subscripts":    {schema: "pg_catalog", strict: true, bind: bindGenerateSubscripts, rows: generateSubscriptsRows},
		"_pg_expandarray":        {schema: "information_schema", strict: true, bind: bindExpandArray, rows: expandArrayRows},
		"pg_get_keywords":        {schema: "pg_catalog", bind: bindKeywords, rows: keywordRows},
		"pg_partition_ancestors": {schema: "pg_catalog", strict: true, bind: bindPartitionAncestors, rows: noRows},
		"regexp_matches":         {schema: "pg_catalog", strict: true, bind: bindTextArgs("regexp_matches", 2, 3, textArrayType()), rows: regexpMatchesRows},
		"regexp_split_to_table":  {schema: "pg_catalog", strict: true, bind: bindTextArgs("regexp_split_to_table", 2, 3, types.Text), rows: regexpSplitRows},
		"string_to_table":        {schema: "pg_catalog", bind: bindTextArgs("string_to_table", 2, 3, types.Text), rows: stringToTableRows},
	}
	for name, f := range jsonSetFuncs() {
		setFuncs[name] = f
	}
}

// lookupSetFunc returns the set-returning function a possibly qualified
// name calls, nil when it names none.
func (b *binder) lookupSetFunc(names []string) *setFunc {
	name := strings.ToLower(names[len(names)-1])
	f := setFuncs[name]
	if f == nil {
		return nil
	}
	if len(names) > 1 {
		if names[len(names)-2] != f.schema {
			return nil
		}
		return f
	}
	for _, p := range b.s.searchPath() {
		if p == f.schema {
			return f
		}
	}
	return nil
}

// setCall is a compiled call of a set-returning function.
type setCall struct {
	name string
	fn   *setFunc
	cols []types.Field
	args []*scalar
}

// bindSetCall compiles the arguments of a call of fn in scope sc.
func (b *binder) bindSetCall(sc *scope, fn *setFunc, fc *pg_query.FuncCall) (*setCall, error) {
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.Over != nil || fc.FuncVariadic {
		return nil, b.errAt(pgerror.Unsupported("this form of a set-returning function call"), fc.Location)
	}
	call := &setCall{name: strings.ToLower(lastName(fc.Funcname)), fn: fn}
	for _, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		call.args = append(call.args, e)
	}
	cols, err := fn.bind(b, call.args, fc.Location)
	if err != nil {
		return nil, err
	}
	call.cols = cols
	return call, nil
}

// run evaluates the arguments and returns the call's rows.
func (c *setCall) run(x *execCtx) ([][]any, error) {
	vals := make([]any, len(c.args))
	for i, a := range c.args {
		v, err := a.eval(x)
		if err != nil {
			return nil, err
		}
		if v == nil && c.fn.strict {
			return nil, nil
		}
		vals[i] = v
	}
	return c.fn.rows(x, vals)
}

// valueType is the type of one row of the call as a value: its one
// column's, or a record of its columns.
func (c *setCall) valueType() types.Type {
	if len(c.cols) == 1 {
		return c.cols[0].Type
	}
	return types.RecordType(c.cols)
}

// value turns a row of the call into its value in a select list.
func (c *setCall) value(row []any) any {
	if row == nil {
		return nil
	}
	if len(c.cols) == 1 {
		return row[0]
	}
	return row
}

// srfScope collects the set-returning calls of a select list.
type srfScope struct {
	calls []*setCall
}

// setCallInList compiles a set-returning call inside a select list: the
// result reads the call's value for the output row being made.
func (b *binder) setCallInList(sc *scope, fn *setFunc, fc *pg_query.FuncCall) (*scalar, error) {
	call, err := b.bindSetCall(sc, fn, fc)
	if err != nil {
		return nil, err
	}
	return b.listSetCall(sc, call), nil
}

// listSetCall adds a compiled set-returning call to the select list's
// calls and returns the value it gives the output row being made.
func (b *binder) listSetCall(sc *scope, call *setCall) *scalar {
	k := len(sc.srf.calls)
	sc.srf.calls = append(sc.srf.calls, call)
	var refs uint64
	for _, a := range call.args {
		refs |= a.refs
	}
	return &scalar{typ: call.valueType(), slot: -1, refs: refs, volatile: true, name: call.name,
		eval: func(x *execCtx) (any, error) { return x.srf[k], nil }}
}

// expand runs the calls for the current row and calls emit once per
// output row with x.srf holding the calls' values: as many rows as the
// longest call returns, the shorter ones padded with NULL, none when every
// call returns none.
func (s *srfScope) expand(x *execCtx, emit func() error) error {
	results := make([][][]any, len(s.calls))
	n := 0
	for i, c := range s.calls {
		rows, err := c.run(x)
		if err != nil {
			return err
		}
		results[i] = rows
		n = max(n, len(rows))
	}
	for r := range n {
		vals := make([]any, len(s.calls))
		for i, c := range s.calls {
			if r < len(results[i]) {
				vals[i] = c.value(results[i][r])
			}
		}
		x.srf = vals
		if err := emit(); err != nil {
			return err
		}
	}
	x.srf = nil
	return nil
}

// containsSetCall reports whether the nodes call a set-returning function
// outside subqueries.
func (b *binder) containsSetCall(ns ...*pg_query.Node) bool {
	found := false
	for _, n := range ns {
		walk(n, func(c *pg_query.Node) bool {
			if found || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && (b.lookupSetFunc(strs(fc.Funcname)) != nil || b.hasUserSetFunc(strs(fc.Funcname))) {
				found = true
			}
			return !found
		})
	}
	return found
}

// functionArgScope is the scope the arguments of a function in the FROM
// list of sc are compiled in: the enclosing queries' columns are visible,
// at their depth, but not the FROM items of sc's own level (no LATERAL).
func functionArgScope(sc *scope) *scope {
	return &scope{parent: sc.parent, ctes: sc.ctes}
}

// setFunctionItem compiles a set-returning function in FROM, WITH
// ORDINALITY and column aliases included. Its arguments may refer to
// enclosing queries but not to earlier FROM items (no LATERAL).
func (b *binder) setFunctionItem(sc *scope, rf *pg_query.RangeFunction, fn *setFunc, fc *pg_query.FuncCall) (*fromItem, []scopeCol, error) {
	call, err := b.bindSetCall(functionArgScope(sc), fn, fc)
	if err != nil {
		return nil, nil, err
	}
	return setCallItem(rf, call)
}

// setCallItem is the FROM item of a compiled set-returning call.
func setCallItem(rf *pg_query.RangeFunction, call *setCall) (*fromItem, []scopeCol, error) {
	alias := call.name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	var cols []scopeCol
	for _, f := range call.cols {
		name := f.Name
		if len(call.cols) == 1 && !call.fn.outParam {
			name = alias
		}
		cols = append(cols, scopeCol{rel: alias, name: name, typ: f.Type})
	}
	if rf.Ordinality {
		cols = append(cols, scopeCol{rel: alias, name: "ordinality", typ: types.Int8})
	}
	if err := applyColAliases(cols, rf.Alias); err != nil {
		return nil, nil, err
	}
	ordinality := rf.Ordinality
	return &fromItem{name: alias, sub: func(x *execCtx) ([][]any, error) {
		rows, err := call.run(x)
		if err != nil || !ordinality {
			return rows, err
		}
		out := make([][]any, len(rows))
		for i, r := range rows {
			out[i] = append(append(make([]any, 0, len(r)+1), r...), int64(i+1))
		}
		return out, nil
	}}, cols, nil
}

// bindGenerateSeries binds generate_series(start, stop [, step]) over
// smallint, integer and bigint.
func bindGenerateSeries(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args)), loc)
	}
	typ := types.Int4
	for i, e := range args {
		if unresolved(e) || e.lit != nil || e.null {
			var err error
			if args[i], err = b.coerce(e, types.Int4, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		switch args[i].typ.Oid {
		case types.OidInt2, types.OidInt4:
		case types.OidInt8:
			typ = types.Int8
		default:
			return nil, b.errAt(pgerror.Unsupported("generate_series over "+args[i].typ.String()), loc)
		}
	}
	return []types.Field{{Name: "generate_series", Type: typ}}, nil
}

func generateSeriesRows(x *execCtx, args []any) ([][]any, error) {
	start, stop, step := args[0].(int64), args[1].(int64), int64(1)
	if len(args) == 3 {
		step = args[2].(int64)
	}
	if step == 0 {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
	}
	var rows [][]any
	for v := start; (step > 0 && v <= stop) || (step < 0 && v >= stop); v += step {
		if len(rows)%4096 == 0 {
			if err := x.checkCancel(); err != nil {
				return nil, err
			}
		}
		rows = append(rows, []any{v})
		if (step > 0 && v > v+step) || (step < 0 && v < v+step) {
			break
		}
	}
	return rows, nil
}

// arrayArg checks that args is one array (anyarray).
func arrayArg(b *binder, name string, args []*scalar, loc int32) (types.Type, error) {
	if len(args) != 1 {
		return types.Type{}, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
	}
	e := args[0]
	if !e.typ.IsArray() {
		if unresolved(e) || e.lit != nil || e.null {
			return types.Type{}, b.errAt(pgerror.New(pgerror.IndeterminateDatatype, "could not determine polymorphic type because input has type unknown"), loc)
		}
		return types.Type{}, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, e.typ), loc)
	}
	elem, _ := e.typ.Elem()
	return elem, nil
}

// bindUnnest binds unnest(anyarray) (FROM's unnest of several arrays is
// unnestItem).
func bindUnnest(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	elem, err := arrayArg(b, "unnest", args, loc)
	if err != nil {
		return nil, err
	}
	return []types.Field{{Name: "unnest", Type: elem}}, nil
}

func unnestRows(_ *execCtx, args []any) ([][]any, error) {
	arr := args[0].([]any)
	rows := make([][]any, len(arr))
	for i, v := range arr {
		rows[i] = []any{v}
	}
	return rows, nil
}

// bindGenerateSubscripts binds generate_subscripts(anyarray, int4 [, bool
// reverse]): the subscripts of the array's dimension, which for
// int2vector and oidvector start at 0. The array argument becomes its
// first subscript and length, what the rows need of it.
func bindGenerateSubscripts(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function generate_subscripts with %d arguments does not exist", len(args)), loc)
	}
	if _, err := arrayArg(b, "generate_subscripts", args[:1], loc); err != nil {
		return nil, err
	}
	want := []types.Type{types.Int4, types.Bool}
	for i := 1; i < len(args); i++ {
		c, err := b.coerce(args[i], want[i-1], types.CastImplicit)
		if err != nil {
			return nil, err
		}
		args[i] = c
	}
	arr := *args[0]
	lb := arr.typ.LowerBound()
	args[0] = &scalar{typ: types.Int8, slot: -1, refs: arr.refs, volatile: arr.volatile, eval: func(x *execCtx) (any, error) {
		v, err := arr.eval(x)
		if v == nil || err != nil {
			return nil, err
		}
		return subscriptRange{first: lb, n: int64(len(v.([]any)))}, nil
	}}
	return []types.Field{{Name: "generate_subscripts", Type: types.Int4}}, nil
}

// subscriptRange is what generate_subscripts needs of its array.
type subscriptRange struct{ first, n int64 }

// generateSubscriptsRows lists the subscripts of dimension 1, the only one
// fickle's arrays have: none for any other dimension or an empty array.
func generateSubscriptsRows(_ *execCtx, args []any) ([][]any, error) {
	r := args[0].(subscriptRange)
	if args[1].(int64) != 1 {
		return nil, nil
	}
	reverse := len(args) > 2 && args[2].(bool)
	rows := make([][]any, r.n)
	for i := range rows {
		sub := r.first + int64(i)
		if reverse {
			sub = r.first + r.n - 1 - int64(i)
		}
		rows[i] = []any{sub}
	}
	return rows, nil
}

// bindExpandArray binds information_schema._pg_expandarray(anyarray):
// each element x with its position n counted from 1.
func bindExpandArray(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	elem, err := arrayArg(b, "_pg_expandarray", args, loc)
	if err != nil {
		return nil, err
	}
	return []types.Field{{Name: "x", Type: elem}, {Name: "n", Type: types.Int4}}, nil
}

func expandArrayRows(_ *execCtx, args []any) ([][]any, error) {
	arr := args[0].([]any)
	rows := make([][]any, len(arr))
	for i, v := range arr {
		rows[i] = []any{v, int64(i + 1)}
	}
	return rows, nil
}

// bindKeywords binds pg_get_keywords(): PostgreSQL 15's SQL keywords.
func bindKeywords(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) != 0 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function pg_get_keywords with %d arguments does not exist", len(args)), loc)
	}
	return keywordFields, nil
}

var keywordFields = []types.Field{{Name: "word", Type: types.Text}, {Name: "catcode", Type: types.Char},
	{Name: "barelabel", Type: types.Bool}, {Name: "catdesc", Type: types.Text}, {Name: "baredesc", Type: types.Text}}

var keywordRowsOnce = builtinRows(pgdata.Keywords, []vcol{{"word", types.Text}, {"catcode", types.Char},
	{"barelabel", types.Bool}, {"catdesc", types.Text}, {"baredesc", types.Text}})

func keywordRows(*execCtx, []any) ([][]any, error) { return keywordRowsOnce(), nil }

// bindPartitionAncestors binds pg_partition_ancestors(regclass): fickle
// has no partitions, so no relation has ancestors and the function
// returns no rows, as PostgreSQL's does for a relation outside any
// partition tree.
func bindPartitionAncestors(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) != 1 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function pg_partition_ancestors with %d arguments does not exist", len(args)), loc)
	}
	var err error
	if args[0], err = b.coerce(args[0], types.Regclass, types.CastImplicit); err != nil {
		return nil, err
	}
	return []types.Field{{Name: "relid", Type: types.Regclass}}, nil
}

func noRows(*execCtx, []any) ([][]any, error) { return nil, nil }
