package sqlexec

import (
	"math"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Ordered-set aggregates: percentile_cont(f), percentile_disc(f) and mode()
// WITHIN GROUP (ORDER BY x). The group's values of x reach the accumulator
// sorted by the WITHIN GROUP clause (the machinery of array_agg(x ORDER BY
// y)), NULLs skipped; the direct argument f (a fraction, or an array of
// them) is evaluated once per group over its aggregation row, as
// PostgreSQL does, so it may name grouped columns only.

// orderedSetAggregate compiles an aggregate call with WITHIN GROUP.
func (b *binder) orderedSetAggregate(agg *aggScope, fc *pg_query.FuncCall, key, name string) (*scalar, error) {
	from := agg.from
	from.noAgg = "aggregate function calls"
	defer func() { from.noAgg = "" }()
	// The direct arguments compile here for their types, and below over
	// the aggregation row, where they are evaluated once per group.
	subplans, checks := len(b.subplans), len(b.constChecks)
	direct := make([]*scalar, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.expr(from, a)
		if err != nil {
			return nil, err
		}
		direct[i] = e
	}
	b.subplans, b.constChecks = b.subplans[:subplans], b.constChecks[:checks]
	orderBy, order, err := b.sortClause(from, fc.AggOrder, true)
	if err != nil {
		return nil, err
	}
	var filter *scalar
	if fc.AggFilter != nil {
		if filter, err = b.filterClause(from, fc.AggFilter); err != nil {
			return nil, err
		}
	}
	// The aggregated arguments' collations are the call's inputs' too: the
	// result of percentile_disc or mode has the ORDER BY's collation.
	if b.collCtx != nil {
		for i, e := range orderBy {
			if err := b.collCtx.merge(e.coll); err != nil {
				return nil, b.errAt(err, exprLocation(fc.AggOrder[i]))
			}
		}
	}
	all := append(append([]*scalar(nil), direct...), orderBy...)
	noSuchFunction := func() *pgerror.Error {
		argTypes := make([]string, 0, len(all))
		for _, e := range all {
			argTypes = append(argTypes, types.FormatType(e.typ))
		}
		return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(argTypes, ", ")).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), fc.Location)
	}
	wantDirect := 1
	switch {
	case isHypotheticalSet(name):
		wantDirect = len(orderBy)
	case name == "mode":
		wantDirect = 0
	case name == "percentile_cont" || name == "percentile_disc":
	case types.IsAggregate(name):
		ts := make([]types.Type, len(all))
		for i, e := range all {
			ts[i] = e.typ
		}
		if _, err := types.ResolveAggregate(name, ts, fc.AggStar); err == nil {
			return nil, b.errAt(pgerror.Newf(pgerror.WrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", name), fc.Location)
		}
		return nil, noSuchFunction()
	default:
		return nil, noSuchFunction()
	}
	if isHypotheticalSet(name) && len(direct) != len(orderBy) {
		return nil, noSuchFunction().WithHint(
			"To use the hypothetical-set aggregate %s, the number of hypothetical direct arguments (here %d) must match the number of ordering columns (here %d).",
			name, len(direct), len(orderBy))
	}
	if len(direct) != wantDirect || len(orderBy) != 1 && !isHypotheticalSet(name) {
		return nil, noSuchFunction()
	}
	dsc := &scope{cols: from.cols, parent: from.parent, ctes: from.ctes, agg: agg, noAgg: "aggregate function calls"}
	ungrouped := agg.ungrouped
	for i, a := range fc.Args {
		e, err := b.expr(dsc, a)
		if err == nil && agg.ungrouped != ungrouped {
			// Kept until the level is known to aggregate.
			agg.ungrouped = directArgsDetail(agg.ungrouped)
		}
		if err != nil {
			return nil, directArgsDetail(err)
		}
		direct[i] = e
	}
	if isHypotheticalSet(name) {
		return b.hypotheticalSetAggregate(agg, fc, key, name, direct, orderBy, order, filter)
	}
	value := orderBy[0]
	if name != "percentile_cont" {
		if err := polymorphicKnown(value); err != nil {
			return nil, err // mode and percentile_disc sort anyelement
		}
	}
	acc := &orderedSetAgg{name: name, typ: value.typ}
	if name == "percentile_cont" && value.typ.Oid != types.OidInterval {
		if value, err = b.coerce(value, types.Float8, types.CastImplicit); err != nil {
			return nil, noSuchFunction()
		}
		acc.typ = types.Float8
		order[0].typ = types.Float8
	}
	result := acc.typ
	args := []*scalar{value}
	var fraction []*scalar
	if name != "mode" {
		f := direct[0]
		fracType := types.Float8
		if f.typ.IsArray() {
			fracType, _ = types.ArrayOf(types.Float8)
			acc.array = true
			result, _ = types.ArrayOf(acc.typ)
		}
		if f, err = b.coerce(f, fracType, types.CastImplicit); err != nil {
			return nil, b.withPos(err, exprLocation(fc.Args[0]))
		}
		fraction = []*scalar{f}
	}
	if acc.typ.Oid == types.OidInterval {
		if acc.minus, err = types.ResolveBinaryOp("-", acc.typ, acc.typ); err == nil {
			if acc.times, err = types.ResolveBinaryOp("*", acc.typ, types.Float8); err == nil {
				acc.plus, err = types.ResolveBinaryOp("+", acc.typ, acc.typ)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	fn := &types.Aggregate{Name: name, Result: result, New: func(*types.Env) types.Accumulator {
		a := *acc
		return &a
	}}
	for _, a := range args {
		fn.Args = append(fn.Args, a.typ)
	}
	agg.aggs = append(agg.aggs, &aggEntry{key: key, fn: fn, args: args, direct: fraction, filter: filter, orderBy: []*scalar{value}, order: order})
	return aggSlot(len(agg.groups)+len(agg.aggs)-1, result, name), nil
}

// directArgsAcc is the accumulator of an ordered-set aggregate, which
// takes the direct arguments' values of its group before its result.
type directArgsAcc interface {
	setDirect(vals []any)
}

// orderedSetAgg accumulates one group of an ordered-set aggregate: the
// non-NULL values in the WITHIN GROUP order, and the direct argument.
type orderedSetAgg struct {
	name  string
	typ   types.Type // the values' type (float8 or interval for percentile_cont)
	array bool       // the direct argument is an array of fractions
	// minus, times and plus interpolate intervals (percentile_cont).
	minus, times, plus *types.BinaryOp

	vals     []any
	fraction any
}

func (a *orderedSetAgg) setDirect(vals []any) {
	if len(vals) > 0 {
		a.fraction = vals[0]
	}
}

func (a *orderedSetAgg) Add(args []any) error {
	if args[0] != nil {
		a.vals = append(a.vals, args[0])
	}
	return nil
}

func (a *orderedSetAgg) Result() (any, error) {
	if len(a.vals) == 0 {
		return nil, nil
	}
	if a.name == "mode" {
		return a.mode(), nil
	}
	if a.fraction == nil {
		return nil, nil
	}
	if !a.array {
		return a.percentile(a.fraction.(float64))
	}
	return a.percentiles(a.fraction)
}

// percentiles maps an array of fractions, of any shape, to the array of
// their percentiles in that shape, NULL for NULL.
func (a *orderedSetAgg) percentiles(fractions any) (any, error) {
	dims, lower, fs, ok := pgarray.Shape(fractions)
	if !ok {
		return nil, pgerror.Unsupported("percentiles of this array of fractions")
	}
	out := make([]any, len(fs))
	for i, f := range fs {
		if f == nil {
			continue
		}
		v, err := a.percentile(f.(float64))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return pgarray.Make(dims, lower, out), nil
}

// percentile is percentile_disc's first value whose place in the order
// reaches fraction f of the values, or percentile_cont's interpolation
// between the two values around place f·(n-1).
func (a *orderedSetAgg) percentile(f float64) (any, error) {
	if f < 0 || f > 1 || math.IsNaN(f) {
		return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", types.FormatText(types.Float8, f, nil))
	}
	n := len(a.vals)
	if a.name == "percentile_disc" {
		row := int(math.Ceil(f * float64(n)))
		return a.vals[max(row, 1)-1], nil
	}
	pos := f * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	if lo == hi {
		return a.vals[lo], nil
	}
	frac := pos - float64(lo)
	if a.typ.Oid != types.OidInterval {
		l, h := a.vals[lo].(float64), a.vals[hi].(float64)
		return l + (h-l)*frac, nil
	}
	diff, err := a.minus.Eval(a.vals[hi], a.vals[lo])
	if err != nil {
		return nil, err
	}
	if diff, err = a.times.Eval(diff, frac); err != nil {
		return nil, err
	}
	return a.plus.Eval(a.vals[lo], diff)
}

// mode is the most frequent value, the first in the order among equals.
func (a *orderedSetAgg) mode() any {
	best, bestRun := a.vals[0], 0
	for i := 0; i < len(a.vals); {
		j := i + 1
		for j < len(a.vals) && types.Compare(a.typ, a.vals[i], a.vals[j]) == 0 {
			j++
		}
		if j-i > bestRun {
			best, bestRun = a.vals[i], j-i
		}
		i = j
	}
	return best
}

// withinGroupRequired reports whether a call of name with n arguments and
// no WITHIN GROUP matches an ordered-set or hypothetical-set aggregate by
// its arguments' count (direct and aggregated ones together), which
// PostgreSQL answers with 42809; another count matches no function.
func withinGroupRequired(name string, n int) bool {
	switch name {
	case "percentile_cont", "percentile_disc":
		return n == 2
	case "mode":
		return n == 1
	}
	return isHypotheticalSet(name) && n > 0
}

// directArgsDetail is err with PostgreSQL's detail when it is the error of
// an ungrouped column in an ordered-set aggregate's direct arguments.
func directArgsDetail(err error) error {
	if pe, ok := err.(*pgerror.Error); ok && pe.Code == pgerror.GroupingError && strings.HasSuffix(pe.Message, "must appear in the GROUP BY clause or be used in an aggregate function") {
		return pe.WithDetail("Direct arguments of an ordered-set aggregate must use only grouped columns.")
	}
	return err
}
