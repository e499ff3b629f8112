package sqlexec

import (
	"errors"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Set-returning functions. Each is bound once from its compiled arguments
// (setFunc.bind checks and coerces them and names the columns of the rows
// it returns) and produces its rows per evaluation, one at a time to the
// operator above (so that count(*) over a billion rows of generate_series
// runs in constant memory, as in PostgreSQL). In FROM the columns are the
// item's columns; in a select list each call yields one value per output
// row (the one column, or a record of several), the calls of a select list
// advancing in lockstep as PostgreSQL's ProjectSet does.

// setFunc is a set-returning function.
type setFunc struct {
	// schema is the schema that holds the function.
	schema string
	// strict functions return no rows when an argument is NULL.
	strict bool
	// outParam says that a one-column function's column keeps its
	// declared name (an OUT parameter's) instead of taking the alias.
	outParam bool
	// volatile marks a function whose rows may differ between two calls
	// with the same arguments in one statement (a VOLATILE user function).
	volatile bool
	// bind checks and coerces the arguments in place and returns the
	// columns of the rows.
	bind func(b *binder, args []*scalar, loc int32) ([]types.Field, error)
	// each produces the rows from the arguments' values one at a time,
	// stopping at the first error yield returns; a function that computes
	// its rows at once (a user function's body) sets rows instead.
	each func(x *execCtx, args []any, yield func(row []any) error) error
	rows func(x *execCtx, args []any) ([][]any, error)
	// record marks a function returning records (json_populate_record):
	// its rows are made by recordRows for the record type the call
	// resolved (setCall.shape), and its value in a select list is the
	// record even when it has one field.
	record     bool
	recordRows func(x *execCtx, shape types.Type, args []any) ([][]any, error)
	// citextOverloads marks regexp_matches and regexp_split_to_table,
	// which the citext extension overloads (citextSetFunc).
	citextOverloads bool
}

var setFuncs map[string]*setFunc

func init() {
	setFuncs = map[string]*setFunc{
		"generate_series":     {schema: "pg_catalog", strict: true, bind: bindGenerateSeries, each: generateSeriesRows},
		"unnest":              {schema: "pg_catalog", strict: true, bind: bindUnnest, each: unnestRows},
		"string_to_table":     {schema: "pg_catalog", bind: bindStringToTable, each: unnestRows},
		"generate_subscripts": {schema: "pg_catalog", strict: true, bind: bindGenerateSubscripts, each: generateSubscriptsRows},
		"_pg_expandarray":     {schema: "information_schema", strict: true, bind: bindExpandArray, each: expandArrayRows},
		"pg_get_keywords":     {schema: "pg_catalog", bind: bindKeywords, rows: keywordRows},
		"pg_partition_ancestors": {schema: "pg_catalog", strict: true, outParam: true, rows: partitionAncestorsRows,
			bind: bindPartitionFunc("pg_partition_ancestors", []types.Field{{Name: "relid", Type: types.Regclass}})},
		"pg_partition_tree": {schema: "pg_catalog", strict: true, rows: partitionTreeRows,
			bind: bindPartitionFunc("pg_partition_tree", partitionTreeFields)},
		"pg_options_to_table":       {schema: "pg_catalog", strict: true, bind: bindOptionsToTable, rows: optionsToTableRows},
		"pg_listening_channels":     {schema: "pg_catalog", bind: bindListeningChannels, rows: listeningChannelRows},
		"pg_get_publication_tables": {schema: "pg_catalog", strict: true, outParam: true, bind: bindPublicationTables, rows: publicationTablesRows},
		"regexp_matches":            {schema: "pg_catalog", strict: true, bind: bindTextArgs("regexp_matches", 2, 3, textArrayType()), rows: regexpMatchesRows, citextOverloads: true},
		"regexp_split_to_table":     {schema: "pg_catalog", strict: true, bind: bindTextArgs("regexp_split_to_table", 2, 3, types.Text), rows: regexpSplitRows, citextOverloads: true},
	}
	for name, f := range jsonSetFuncs() {
		setFuncs[name] = f
	}
	for name, f := range jsonPathQueryFuncs() {
		setFuncs[name] = f
	}
	for name, f := range eventTriggerSetFuncs() {
		setFuncs[name] = f
	}
	addPopulateFuncs()
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
	// shape is the record type a record-returning call's rows have, or
	// the composite type a user function returns (zero for others).
	shape types.Type
	// scalar marks a call whose rows are values of one scalar type, not
	// records: in FROM, a whole-row reference to its item is that value.
	scalar bool
	// check checks a record-returning call's rows against the domains of
	// the record and of its fields; nil when none has one.
	check func(x *execCtx, row []any) error
}

// bindSetCall compiles the arguments of a call of fn in scope sc.
func (b *binder) bindSetCall(sc *scope, fn *setFunc, fc *pg_query.FuncCall) (*setCall, error) {
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.Over != nil || fc.FuncVariadic {
		return nil, b.errAt(pgerror.Unsupported("this form of a set-returning function call"), fc.Location)
	}
	call := &setCall{name: strings.ToLower(lastName(fc.Funcname)), fn: fn}
	var err error
	if call.args, err = b.builtinArgs(sc, call.name, fc.Args, fc.Location); err != nil {
		return nil, err
	}
	if fn.citextOverloads {
		if fn, err = b.citextSetFunc(call.name, fn, call.args); err != nil {
			return nil, b.withPos(err, fc.Location)
		}
		call.fn = fn
	}
	cols, err := fn.bind(b, call.args, fc.Location)
	if err != nil {
		return nil, err
	}
	call.cols = cols
	call.scalar = len(cols) == 1 && !fn.record
	if fn.record {
		call.shape = types.RecordType(cols)
		if len(call.args) > 0 && call.args[0].typ.IsComposite() {
			call.shape = call.args[0].typ
		}
		if call.check, err = b.recordDomainChecks(call); err != nil {
			return nil, err
		}
	}
	return call, nil
}

// each evaluates the arguments and passes the call's rows to yield one at
// a time.
func (c *setCall) each(x *execCtx, yield func(row []any) error) error {
	vals := make([]any, len(c.args))
	for i, a := range c.args {
		v, err := a.eval(x)
		if err != nil {
			return err
		}
		if v == nil && c.fn.strict {
			return nil
		}
		vals[i] = v
	}
	if c.fn.record {
		rows, err := c.fn.recordRows(x, c.shape, vals)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if c.check != nil {
				if err := c.check(x, r); err != nil {
					return err
				}
			}
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
	if c.fn.each != nil {
		return c.fn.each(x, vals, yield)
	}
	rows, err := c.fn.rows(x, vals)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := yield(r); err != nil {
			return err
		}
	}
	return nil
}

// valueType is the type of one row of the call as a value: its one
// column's, or a record of its columns.
func (c *setCall) valueType() types.Type {
	if c.fn.record || c.shape.Oid != 0 {
		return c.shape
	}
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
	if len(c.cols) == 1 && !c.fn.record && c.shape.Oid == 0 {
		return row[0]
	}
	return row
}

// srfScope collects the set-returning calls of a select list.
type srfScope struct {
	calls []*setCall
	// levels holds each call's ProjectSet level, as PostgreSQL's
	// split_pathtarget_at_srfs places it: 1 plus the highest level of the
	// calls in its arguments. A level's calls run in lock-step once per
	// row of the level below.
	levels []int
}

// setCallInList compiles a set-returning call inside a select list: the
// result reads the call's value for the output row being made.
func (b *binder) setCallInList(sc *scope, fn *setFunc, fc *pg_query.FuncCall) (*scalar, error) {
	nested := len(sc.srf.calls)
	call, err := b.bindSetCall(sc, fn, fc)
	if err != nil {
		return nil, err
	}
	if fn.record && call.cols == nil {
		return nil, b.errAt(pgerror.Newf(pgerror.FeatureNotSupported, "could not determine row type for result of %s", call.name).
			WithHint("Provide a non-null record argument, or call the function in the FROM clause using a column definition list."), fc.Location)
	}
	return b.listSetCall(sc, call, nested), nil
}

// listSetCall adds a compiled set-returning call to the select list's
// calls and returns the value it gives the output row being made. The
// calls from the nested-th on were compiled with its arguments: nested in
// it, they run a level below it.
func (b *binder) listSetCall(sc *scope, call *setCall, nested int) *scalar {
	k := len(sc.srf.calls)
	b.volatileCalls++
	level := 1
	for _, l := range sc.srf.levels[nested:] {
		level = max(level, l+1)
	}
	sc.srf.calls = append(sc.srf.calls, call)
	sc.srf.levels = append(sc.srf.levels, level)
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
// call returns none. The calls advance in lockstep, a row at a time. end,
// if set, runs once the calls of the outermost level have ended for a row
// of the level below, as PostgreSQL's ProjectSet evaluates the rest of its
// select list once more on the call that finds them all done (a volatile
// column's calls show it: nextval draws a value there).
func (s *srfScope) expand(x *execCtx, emit, end func() error) error {
	defer func() { x.srf = nil }()
	if end == nil {
		end = func() error { return nil }
	}
	if slices.Max(s.levels) > 1 {
		return s.expandLevels(x, emit, end)
	}
	if len(s.calls) == 1 {
		c := s.calls[0]
		err := c.each(x, func(row []any) error {
			x.srf = []any{c.value(row)}
			return emit()
		})
		if err != nil {
			return err
		}
		x.srf = []any{nil}
		return end()
	}
	ls := startLockStep(x, s.calls)
	defer ls.stop()
	for {
		vals := make([]any, len(s.calls))
		if more, err := ls.step(vals); err != nil || !more {
			if err == nil {
				x.srf = vals
				err = end()
			}
			return err
		}
		x.srf = vals
		if err := emit(); err != nil {
			return err
		}
	}
}

// pull returns the call's rows one at a time (next), and stop, which ends
// the call early.
func (c *setCall) pull(x *execCtx) (next func() ([]any, error, bool), stop func()) {
	return iter.Pull2(func(yield func([]any, error) bool) {
		err := c.each(x, func(row []any) error {
			if !yield(row, nil) {
				return errCallStopped
			}
			return nil
		})
		if err != nil && err != errCallStopped {
			yield(nil, err)
		}
	})
}

// lockStep pulls the rows of set-returning calls side by side.
type lockStep struct {
	calls []*setCall
	nexts []func() ([]any, error, bool)
	stops []func()
}

func startLockStep(x *execCtx, calls []*setCall) *lockStep {
	ls := &lockStep{calls: calls, nexts: make([]func() ([]any, error, bool), len(calls)), stops: make([]func(), len(calls))}
	for i, c := range calls {
		ls.nexts[i], ls.stops[i] = c.pull(x)
	}
	return ls
}

// stop ends the calls.
func (ls *lockStep) stop() {
	for _, stop := range ls.stops {
		stop()
	}
}

// step sets out[i] to call i's next value, leaving it NULL once the call
// has ended, and reports whether any call gave a row.
func (ls *lockStep) step(out []any) (bool, error) {
	more := false
	for i, next := range ls.nexts {
		if next == nil {
			continue
		}
		row, err, ok := next()
		if err != nil {
			return false, err
		}
		if !ok {
			ls.nexts[i] = nil
			continue
		}
		more = true
		out[i] = ls.calls[i].value(row)
	}
	return more, nil
}

// expandLevels expands nested set-returning calls a level at a time: the
// calls of each level in lock-step (the shorter ones padded with NULL),
// once per row of the levels below, whose values their arguments read.
func (s *srfScope) expandLevels(x *execCtx, emit, end func() error) error {
	vals := make([]any, len(s.calls))
	top := slices.Max(s.levels)
	var run func(level int) error
	run = func(level int) error {
		if level > top {
			x.srf = vals
			return emit()
		}
		var idx []int
		for i, l := range s.levels {
			if l == level {
				idx = append(idx, i)
			}
		}
		calls := make([]*setCall, len(idx))
		for j, i := range idx {
			calls[j] = s.calls[i]
		}
		ls := startLockStep(x, calls)
		defer ls.stop()
		for {
			x.srf = vals
			step := make([]any, len(idx))
			if more, err := ls.step(step); err != nil || !more {
				if err == nil && level == top {
					err = end()
				}
				return err
			}
			for j, i := range idx {
				vals[i] = step[j]
			}
			if err := run(level + 1); err != nil {
				return err
			}
		}
	}
	return run(1)
}

// multiUnnestArgs returns the arrays of a ROWS FROM entry (a call and its
// column definition list) that calls the unqualified unnest with several
// of them and no column definitions, nil for any other entry.
func multiUnnestArgs(entry []*pg_query.Node) []*pg_query.Node {
	fc := entry[0].GetFuncCall()
	if fc == nil || len(entry) > 1 && len(entry[1].GetList().GetItems()) > 0 || len(fc.Funcname) != 1 ||
		fc.Funcname[0].GetString_().GetSval() != "unnest" || len(fc.Args) < 2 ||
		len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.Over != nil || fc.AggStar || fc.AggDistinct || fc.FuncVariadic {
		return nil
	}
	return fc.Args
}

// errCallStopped ends a set-returning call whose rows are no longer wanted.
var errCallStopped = errors.New("set-returning call stopped")

// containsSetCall reports whether the nodes may call a set-returning
// function outside subqueries: a call of a name some set-returning
// function has, or rel.name, which is the call name(rel) when rel has no
// column name (column notation).
func (b *binder) containsSetCall(ns ...*pg_query.Node) bool {
	found := false
	for _, n := range ns {
		if callFree(n) {
			continue
		}
		walk(n, func(c *pg_query.Node) bool {
			if found || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over == nil && (b.lookupSetFunc(strs(fc.Funcname)) != nil || b.hasUserSetFunc(strs(fc.Funcname))) {
				found = true
			}
			if cr := c.GetColumnRef(); cr != nil && len(cr.Fields) == 2 && cr.Fields[1].GetString_() != nil &&
				b.hasUserSetFunc([]string{cr.Fields[1].GetString_().Sval}) {
				found = true
			}
			return !found
		})
	}
	return found
}

// callFree reports, without walking n (which costs allocations on every
// statement bound), that it calls no function: a constant, a parameter, a
// plain column name, CURRENT_TIMESTAMP and its kin, or a cast of one.
func callFree(n *pg_query.Node) bool {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	if cr := n.GetColumnRef(); cr != nil {
		return len(cr.Fields) == 1
	}
	return n.GetAConst() != nil || n.GetParamRef() != nil || n.GetSqlvalueFunction() != nil
}

// functionArgScope is the scope the arguments of a function in the FROM
// list of sc are compiled in: functions in FROM are implicitly LATERAL, so
// the columns of the FROM items before it are visible (at the slots they
// have in the row the function is called on), then the enclosing queries'.
func functionArgScope(sc *scope) *scope {
	fs := lateralScope(sc)
	fs.aggLevelClause = "functions in FROM"
	return fs
}

// lateralScope is what a LATERAL item of sc's level sees: the columns of
// the items before it, and the enclosing queries. The target of an UPDATE
// or DELETE is not among them (its columns lead sc's, sc.target of them):
// a reference to it fails as in PostgreSQL.
func lateralScope(sc *scope) *scope {
	return &scope{cols: slices.Clone(sc.cols[sc.target:]), unreachable: sc.cols[:sc.target], parent: sc.parent, ctes: sc.ctes, hiddenRels: sc.hiddenRels}
}

// setFunctionItem compiles a set-returning function in FROM, WITH
// ORDINALITY and column aliases included. Its arguments may refer to
// earlier FROM items and to enclosing queries.
func (b *binder) setFunctionItem(sc *scope, rf *pg_query.RangeFunction, fn *setFunc, fc *pg_query.FuncCall) (*fromItem, []scopeCol, error) {
	call, err := b.bindSetCall(functionArgScope(sc), fn, fc)
	if err != nil {
		return nil, nil, err
	}
	if fn.record {
		if err := b.applyColumnDefinitions(call, rf, fc.Location); err != nil {
			return nil, nil, err
		}
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
		if len(call.cols) == 1 && !call.fn.record && !call.fn.outParam {
			name = alias
		}
		cols = append(cols, scopeCol{rel: alias, name: name, typ: f.Type, scalarItem: call.scalar && !rf.Ordinality})
	}
	if rf.Ordinality {
		cols = append(cols, scopeCol{rel: alias, name: "ordinality", typ: types.Int8})
	}
	if err := applyColAliases(cols, rf.Alias); err != nil {
		return nil, nil, err
	}
	ordinality, width := rf.Ordinality, len(call.cols)
	// A volatile call that reads no other item of its level is made once
	// for each run of the level (runOnce); others give the same rows
	// again, streamed.
	once := call.fn.volatile && !slices.ContainsFunc(call.args, func(a *scalar) bool { return a.refs != 0 })
	return &fromItem{name: alias, once: once, each: func(x *execCtx, yield func(row []any) error) error {
		n := int64(0)
		return call.each(x, func(row []any) error {
			if row == nil {
				row = make([]any, width) // a NULL record: a row of NULLs
			}
			if !ordinality {
				return yield(row)
			}
			n++
			return yield(append(append(make([]any, 0, len(row)+1), row...), n))
		})
	}}, cols, nil
}

// runOnce returns the rows of it, a function item made once for each run
// of its level, as PostgreSQL's function scan keeps its rows for the
// rescans of a join: a volatile function (nextval) on the inner side of a
// join gives every outer row the same rows.
func runOnce(x *execCtx, it *fromItem) ([][]any, error) {
	if ir := x.items[it]; ir != nil {
		return ir.rows, nil
	}
	rows, err := functionRows(x, it)
	if err != nil {
		return nil, err
	}
	if x.items == nil {
		x.items = map[*fromItem]*itemRows{}
	}
	x.items[it] = &itemRows{rows: rows}
	return rows, nil
}

// bindGenerateSeries binds generate_series(start, stop [, step]) over
// smallint, integer, bigint and numeric: numeric when an argument is
// numeric (generate_series(1, 1e9) counts in numeric, as in PostgreSQL).
func bindGenerateSeries(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args)), loc)
	}
	if typ, ok := seriesTimestampType(args); ok {
		return bindTimestampSeries(b, args, typ, loc)
	}
	typ := types.Int4
	for _, e := range args {
		if !unresolved(e) && !e.null && e.typ.Oid == types.OidNumeric {
			typ = types.NumericAny
		}
	}
	for i, e := range args {
		if unresolved(e) || e.lit != nil || e.null || typ.Oid == types.OidNumeric {
			var err error
			if args[i], err = b.coerce(e, typ, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		switch args[i].typ.Oid {
		case types.OidInt2, types.OidInt4, types.OidNumeric:
		case types.OidInt8:
			typ = types.Int8
		default:
			return nil, b.errAt(pgerror.Unsupported("generate_series over "+args[i].typ.String()), loc)
		}
	}
	return []types.Field{{Name: "generate_series", Type: typ}}, nil
}

func generateSeriesRows(x *execCtx, args []any, yield func(row []any) error) error {
	switch args[0].(type) {
	case *apd.Decimal:
		return generateNumericSeries(x, args, yield)
	case time.Time:
		return timestampSeriesRows(x, args, yield)
	}
	start, stop, step := args[0].(int64), args[1].(int64), int64(1)
	if len(args) == 3 {
		step = args[2].(int64)
	}
	if step == 0 {
		return pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
	}
	n := 0
	for v := start; (step > 0 && v <= stop) || (step < 0 && v >= stop); v += step {
		if n%1024 == 0 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		n++
		if err := yield([]any{v}); err != nil {
			return err
		}
		if (step > 0 && v > v+step) || (step < 0 && v < v+step) {
			break
		}
	}
	return nil
}

// generateNumericSeries is generate_series over numeric: each value is
// the previous one plus step, so its scale is the larger of start's and
// step's as PostgreSQL prints it.
func generateNumericSeries(x *execCtx, args []any, yield func(row []any) error) error {
	start, stop, step := args[0].(*apd.Decimal), args[1].(*apd.Decimal), apd.New(1, 0)
	if len(args) == 3 {
		step = args[2].(*apd.Decimal)
	}
	for _, a := range []struct {
		d    *apd.Decimal
		what string
	}{{start, "start value"}, {stop, "stop value"}, {step, "step size"}} {
		switch a.d.Form {
		case apd.NaN, apd.NaNSignaling:
			return pgerror.Newf(pgerror.InvalidParameterValue, "%s cannot be NaN", a.what)
		case apd.Infinite:
			return pgerror.Newf(pgerror.InvalidParameterValue, "%s cannot be infinity", a.what)
		}
	}
	if step.IsZero() {
		return pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
	}
	ctx := apd.BaseContext.WithPrecision(0)
	cur := new(apd.Decimal).Set(start)
	for n := 0; ; n++ {
		if c := cur.Cmp(stop); step.Negative && c < 0 || !step.Negative && c > 0 {
			return nil
		}
		if n%1024 == 0 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		if err := yield([]any{new(apd.Decimal).Set(cur)}); err != nil {
			return err
		}
		if _, err := ctx.Add(cur, cur, step); err != nil {
			return pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
		}
	}
}

// eachValue yields one row of a single value per element of arr, checking
// the statement's context every 1024 rows.
func eachValue(x *execCtx, arr []any, yield func(row []any) error) error {
	for i, v := range arr {
		if i%1024 == 1023 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		if err := yield([]any{v}); err != nil {
			return err
		}
	}
	return nil
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
// unnestItem), unnest(anymultirange), the rows of its ranges, and
// unnest(tsvector).
func bindUnnest(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	if len(args) == 1 {
		if rt, ok := args[0].typ.MultirangeRange(); ok {
			return []types.Field{{Name: "unnest", Type: rt}}, nil
		}
		if args[0].typ.Oid == types.OidTSVector {
			return []types.Field{{Name: "lexeme", Type: types.Text}, {Name: "positions", Type: int2ArrayType()},
				{Name: "weights", Type: textArrayType()}}, nil
		}
	}
	elem, err := arrayArg(b, "unnest", args, loc)
	if err != nil {
		return nil, err
	}
	return []types.Field{{Name: "unnest", Type: elem}}, nil
}

// bindStringToTable binds string_to_table(text, text [, text]): the rows
// of the elements string_to_array would return, so its first argument
// becomes that call.
func bindStringToTable(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	call, err := b.callResolved("string_to_array", append([]*scalar(nil), args...), loc)
	if err != nil {
		return nil, err
	}
	args[0] = call
	return []types.Field{{Name: "string_to_table", Type: types.Text}}, nil
}

func unnestRows(x *execCtx, args []any, yield func(row []any) error) error {
	if m, ok := args[0].(types.Multirange); ok {
		for _, r := range m.Ranges {
			if err := yield([]any{r}); err != nil {
				return err
			}
		}
		return nil
	}
	if v, ok := args[0].(types.TSVector); ok {
		for _, row := range types.UnnestTSVector(v) {
			if err := yield(row); err != nil {
				return err
			}
		}
		return nil
	}
	arr, _ := pgarray.Elems(args[0])
	return eachValue(x, arr, yield)
}

// bindGenerateSubscripts binds generate_subscripts(anyarray, int4 [, bool
// reverse]): the subscripts of the array's dimension, which for
// int2vector and oidvector start at 0. The array argument becomes the
// lower bounds and lengths of its dimensions, what the rows need of it.
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
	args[0] = &scalar{typ: types.Int8, slot: -1, refs: arr.refs, volatile: arr.volatile, eval: func(x *execCtx) (any, error) {
		v, err := arr.eval(x)
		if v == nil || err != nil {
			return nil, err
		}
		dims, lower, _ := types.ArrayShapeOf(arr.typ, v)
		return arrayBounds{dims: dims, lower: lower}, nil
	}}
	return []types.Field{{Name: "generate_subscripts", Type: types.Int4}}, nil
}

// arrayBounds is what generate_subscripts needs of its array.
type arrayBounds struct{ dims, lower []int }

// generateSubscriptsRows lists the subscripts of a dimension: none for a
// dimension the array does not have.
func generateSubscriptsRows(x *execCtx, args []any, yield func(row []any) error) error {
	r := args[0].(arrayBounds)
	d := args[1].(int64) - 1
	if d < 0 || d >= int64(len(r.dims)) {
		return nil
	}
	first, n := int64(r.lower[d]), int64(r.dims[d])
	reverse := len(args) > 2 && args[2].(bool)
	for i := range n {
		if i%1024 == 1023 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		sub := first + i
		if reverse {
			sub = first + n - 1 - i
		}
		if err := yield([]any{sub}); err != nil {
			return err
		}
	}
	return nil
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

func expandArrayRows(x *execCtx, args []any, yield func(row []any) error) error {
	arr, _ := pgarray.Elems(args[0])
	for i, v := range arr {
		if i%1024 == 1023 {
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		if err := yield([]any{v, int64(i + 1)}); err != nil {
			return err
		}
	}
	return nil
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

// bindPartitionFunc returns the binder of a partition-tree function of
// one regclass argument (pg_partition_ancestors, pg_partition_tree)
// whose rows have fields.
func bindPartitionFunc(name string, fields []types.Field) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		if len(args) != 1 {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
		}
		var err error
		if args[0], err = b.coerce(args[0], types.Regclass, types.CastImplicit); err != nil {
			return nil, err
		}
		return fields, nil
	}
}

// rowsFromItem compiles ROWS FROM (f(...) [AS (coldefs)], ...) [WITH
// ORDINALITY]: the functions' rows side by side, row n of each in row n,
// the ones that end first padded with NULLs, as PostgreSQL's function
// scan zips them. One function is the plain function item; without an
// alias the item is named after the first function.
func (b *binder) rowsFromItem(sc *scope, rf *pg_query.RangeFunction) (*fromItem, []scopeCol, error) {
	var parts []*pg_query.RangeFunction
	for _, fn := range rf.Functions {
		fl := fn.GetList()
		if fl == nil || len(fl.Items) == 0 {
			return nil, nil, pgerror.Unsupported("this form of function in FROM")
		}
		if arrays := multiUnnestArgs(fl.Items); arrays != nil {
			// unnest(a, b, ...) is ROWS FROM (unnest(a), unnest(b), ...),
			// as PostgreSQL's transformRangeFunction expands it.
			fc := fl.Items[0].GetFuncCall()
			for _, a := range arrays {
				one := &pg_query.FuncCall{Funcname: fc.Funcname, Args: []*pg_query.Node{a}, Funcformat: fc.Funcformat, Location: fc.Location}
				parts = append(parts, &pg_query.RangeFunction{Lateral: rf.Lateral,
					Functions: []*pg_query.Node{pg_query.MakeListNode([]*pg_query.Node{{Node: &pg_query.Node_FuncCall{FuncCall: one}}})}})
			}
			continue
		}
		part := &pg_query.RangeFunction{Lateral: rf.Lateral, Functions: []*pg_query.Node{pg_query.MakeListNode(fl.Items[:1])}}
		if len(fl.Items) > 1 {
			part.Coldeflist = fl.Items[1].GetList().GetItems()
		}
		parts = append(parts, part)
	}
	if len(parts) == 1 {
		parts[0].Alias, parts[0].Ordinality = rf.Alias, rf.Ordinality
		return b.functionItem(sc, parts[0])
	}
	items := make([]*fromItem, len(parts))
	widths := make([]int, len(parts))
	var cols []scopeCol
	once := true
	for i, part := range parts {
		it, pc, err := b.functionItem(sc, part)
		if err != nil {
			return nil, nil, err
		}
		items[i], widths[i], once = it, len(pc), once && it.once
		for _, c := range pc {
			c.scalarItem = false
			cols = append(cols, c)
		}
	}
	alias := items[0].name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	if rf.Ordinality {
		cols = append(cols, scopeCol{name: "ordinality", typ: types.Int8})
	}
	for i := range cols {
		cols[i].rel = alias
	}
	if err := applyColAliases(cols, rf.Alias); err != nil {
		return nil, nil, err
	}
	width := len(cols)
	return &fromItem{name: alias, once: once, sub: func(x *execCtx) ([][]any, error) {
		var out [][]any
		at := 0
		for i, it := range items {
			// A function that reads no other item is called once, as
			// PostgreSQL's rescan keeps its rows when only the other
			// functions' arguments changed.
			var rows [][]any
			var err error
			if it.once && it.each != nil {
				rows, err = runOnce(x, it)
			} else {
				rows, err = functionRows(x, it)
			}
			if err != nil {
				return nil, err
			}
			for n, r := range rows {
				if n == len(out) {
					out = append(out, make([]any, width))
				}
				copy(out[n][at:at+widths[i]], r)
			}
			at += widths[i]
		}
		if rf.Ordinality {
			for n, r := range out {
				r[width-1] = int64(n + 1)
			}
		}
		return out, nil
	}}, cols, nil
}

// functionRows returns all the rows of a function item, copied: a
// generator may reuse its row.
func functionRows(x *execCtx, it *fromItem) ([][]any, error) {
	if it.each == nil {
		return it.sub(x)
	}
	var rows [][]any
	err := it.each(x, func(row []any) error {
		rows = append(rows, slices.Clone(row))
		return nil
	})
	return rows, err
}
