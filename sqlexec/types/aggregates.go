package types

import (
	"math"
	"slices"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// aggDef is one overload of an aggregate: its pg_aggregate row reduced to a
// constructor of accumulators for the declared argument types.
type aggDef struct {
	candidate
	newAcc func() Accumulator
}

var aggregates = map[string][]aggDef{}

func addAgg(name string, result Type, newAcc func() Accumulator, args ...Type) {
	global.addAgg(name, result, newAcc, args...)
}

func isAggregate(name string) bool {
	name = normalizeFuncName(name)
	_, ok := aggregates[name]
	return ok || name == "count" || name == "min" || name == "max" || name == "array_agg" || isJSONAggregate(name)
}

func resolveAggregate(name string, args []Type, star bool) (*Aggregate, error) {
	name = normalizeFuncName(name)
	if star {
		if name != "count" {
			// PostgreSQL looks f(*) up as f(): an aggregate or a missing
			// function is not found, a function without arguments is
			// no aggregate.
			if _, err := resolveFunc(name, nil); err != nil || isAggregate(name) {
				return nil, funcError(name, nil, false)
			}
			return nil, pgerror.Newf(pgerror.WrongObjectType, "%s(*) specified, but %s is not an aggregate function", name, name)
		}
		return &Aggregate{Name: name, Result: Int8, New: func(*Env) Accumulator { return &countAcc{star: true} }}, nil
	}
	switch name {
	case "count":
		if len(args) == 0 {
			// pg_proc's count() is count(*), which must be called so.
			return nil, pgerror.New(pgerror.WrongObjectType, "count(*) must be used to call a parameterless aggregate function")
		}
		if len(args) != 1 {
			return nil, funcError(name, args, false)
		}
		return &Aggregate{Name: name, Args: args, Result: Int8, New: func(*Env) Accumulator { return &countAcc{} }}, nil
	case "min", "max":
		return minMaxAggregate(name, args)
	case "array_agg":
		return arrayAggregate(args)
	case "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg":
		return jsonAggregate(name, args)
	}
	defs := aggregates[name]
	for _, ft := range userRangeTables("", args) {
		if more := ft.aggregates[name]; len(more) > 0 {
			defs = append(append([]aggDef(nil), defs...), more...)
		}
	}
	if len(defs) == 0 {
		return nil, funcError(name, args, false)
	}
	cands := make([]candidate, len(defs))
	for i, d := range defs {
		cands[i] = d.candidate
	}
	chosen, err := chooseOverload(name, args, cands)
	if err != nil {
		return nil, err
	}
	d := defs[chosen]
	fns, err := coerceArgs(args, d.args)
	if err != nil {
		return nil, err
	}
	newAcc := d.newAcc
	return &Aggregate{Name: name, Args: d.args, Result: d.result, New: func(*Env) Accumulator {
		return &coercingAcc{fns: fns, inner: newAcc()}
	}}, nil
}

// coercingAcc converts each row's arguments to the declared types and skips
// rows whose first argument is NULL, as the transition functions do
// (string_agg treats a NULL delimiter as empty).
type coercingAcc struct {
	fns   []EnvCastFunc
	inner Accumulator
}

func (a *coercingAcc) Add(args []any) error {
	conv := args
	if len(args) == 0 || args[0] == nil {
		return nil
	}
	for i, v := range args {
		if v != nil && i < len(a.fns) && a.fns[i] != nil {
			if &conv[0] == &args[0] {
				conv = append([]any(nil), args...)
			}
			c, err := a.fns[i](nil, v)
			if err != nil {
				return err
			}
			conv[i] = c
		}
	}
	return a.inner.Add(conv)
}

func (a *coercingAcc) Result() (any, error) { return a.inner.Result() }

func init() {
	for _, t := range []Type{Int2, Int4} {
		addAgg("sum", Int8, func() Accumulator { return &intSumAcc{} }, t)
		addAgg("avg", NumericAny, func() Accumulator { return &numericSumAcc{avg: true} }, t)
	}
	addAgg("sum", NumericAny, func() Accumulator { return &numericSumAcc{} }, Int8)
	addAgg("avg", NumericAny, func() Accumulator { return &numericSumAcc{avg: true} }, Int8)
	addAgg("sum", NumericAny, func() Accumulator { return &numericSumAcc{} }, NumericAny)
	addAgg("avg", NumericAny, func() Accumulator { return &numericSumAcc{avg: true} }, NumericAny)
	addAgg("sum", Float4, func() Accumulator { return &floatSumAcc{f4: true} }, Float4)
	addAgg("sum", Float8, func() Accumulator { return &floatSumAcc{} }, Float8)
	addAgg("avg", Float8, func() Accumulator { return &floatSumAcc{avg: true} }, Float4)
	addAgg("avg", Float8, func() Accumulator { return &floatSumAcc{avg: true} }, Float8)
	addAgg("sum", Interval, func() Accumulator { return &intervalSumAcc{} }, Interval)
	addAgg("avg", Interval, func() Accumulator { return &intervalSumAcc{avg: true} }, Interval)
	for _, name := range []string{"bool_and", "every"} {
		addAgg(name, Bool, func() Accumulator { return &boolAcc{and: true} }, Bool)
	}
	addAgg("bool_or", Bool, func() Accumulator { return &boolAcc{} }, Bool)
	addAgg("string_agg", Text, func() Accumulator { return &stringAggAcc{} }, Text, Text)
	addAgg("string_agg", Bytea, func() Accumulator { return &stringAggAcc{bytea: true} }, Bytea, Bytea)
}

// minMaxAggregate resolves min and max over any type with an ordering.
func minMaxAggregate(name string, args []Type) (*Aggregate, error) {
	if len(args) != 1 {
		return nil, funcError(name, args, false)
	}
	t := args[0]
	if t.IsCitext() {
		return citextMinMax(name, t), nil
	}
	switch {
	case t.IsArray():
		t = Type{t.Oid, -1}
	case t.Oid == OidUnknown || t.Oid == OidVarchar || t.Oid == OidName:
		t = Text
	case slices.Contains([]Oid{OidInt2, OidInt4, OidInt8, OidOid, OidFloat4, OidFloat8, OidNumeric, OidText, OidBpchar,
		OidDate, OidTime, OidTimestamp, OidTimestamptz, OidInterval, OidXID8, OidMoney, OidTimetz, OidTID, OidPGLSN}, t.Oid), t.IsEnum():
	default:
		// PostgreSQL 15 has no min/max for bool, bytea, uuid, json, jsonb.
		return nil, funcError(name, args, false)
	}
	sign := 1
	if name == "min" {
		sign = -1
	}
	result := t
	if t.Oid == OidBpchar {
		result = BpcharAny
	}
	return &Aggregate{Name: name, Args: []Type{t}, Result: result, New: func(*Env) Accumulator {
		return &minMaxAcc{t: t, sign: sign}
	}}, nil
}

type countAcc struct {
	star bool
	n    int64
}

func (a *countAcc) Add(args []any) error {
	if a.star || (len(args) > 0 && args[0] != nil) {
		a.n++
	}
	return nil
}

func (a *countAcc) Result() (any, error) { return a.n, nil }

type minMaxAcc struct {
	t    Type
	sign int
	best any
}

func (a *minMaxAcc) Add(args []any) error {
	v := args[0]
	if v == nil {
		return nil
	}
	c := 1
	if a.best != nil {
		c = compare(a.t, v, a.best) * a.sign
	}
	// array_smaller and array_larger keep the new value when the two
	// compare equal, which arrays of citext show.
	if c > 0 || c == 0 && a.t.IsArray() {
		a.best = v
	}
	return nil
}

func (a *minMaxAcc) Result() (any, error) { return a.best, nil }

// intSumAcc is sum(int2/int4): an int8 result.
type intSumAcc struct {
	sum  int64
	seen bool
}

func (a *intSumAcc) Add(args []any) error {
	s, err := intAdd(OidInt8, a.sum, args[0].(int64))
	if err != nil {
		return err
	}
	a.sum, a.seen = s.(int64), true
	return nil
}

func (a *intSumAcc) Result() (any, error) {
	if !a.seen {
		return nil, nil
	}
	return a.sum, nil
}

// numericSumAcc is sum(int8), sum(numeric) and avg over integers and
// numeric: exact sums, and the average with numeric division's scale.
type numericSumAcc struct {
	avg   bool
	sum   *apd.Decimal
	count int64
}

// numericArg is an aggregate's integer or numeric argument as a numeric.
func numericArg(v any) *apd.Decimal {
	if i, ok := v.(int64); ok {
		return apd.New(i, 0)
	}
	return v.(*apd.Decimal)
}

func (a *numericSumAcc) Add(args []any) error {
	d := numericArg(args[0])
	a.count++
	if a.sum == nil {
		a.sum = d
		return nil
	}
	s, err := numericAdd(a.sum, d, false)
	if err != nil {
		return err
	}
	a.sum = s.(*apd.Decimal)
	return nil
}

func (a *numericSumAcc) Result() (any, error) {
	if a.count == 0 {
		return nil, nil
	}
	if !a.avg {
		return a.sum, nil
	}
	return numericDiv(a.sum, apd.New(a.count, 0))
}

// floatSumAcc is sum and avg over floats.
type floatSumAcc struct {
	f4, avg bool
	sum     float64
	count   int64
}

func (a *floatSumAcc) Add(args []any) error {
	x := args[0].(float64)
	s := a.sum + x
	if math.IsInf(s, 0) && !math.IsInf(a.sum, 0) && !math.IsInf(x, 0) {
		return pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
	}
	a.sum = s
	a.count++
	return nil
}

func (a *floatSumAcc) Result() (any, error) {
	switch {
	case a.count == 0:
		return nil, nil
	case a.avg:
		return a.sum / float64(a.count), nil
	case a.f4:
		return float64(float32(a.sum)), nil
	}
	return a.sum, nil
}

type intervalSumAcc struct {
	avg   bool
	sum   pgtype.Interval
	count int64
}

func (a *intervalSumAcc) Add(args []any) error {
	s, err := intervalAdd(a.sum, args[0].(pgtype.Interval))
	if err != nil {
		return err
	}
	a.sum = s.(pgtype.Interval)
	a.count++
	return nil
}

func (a *intervalSumAcc) Result() (any, error) {
	switch {
	case a.count == 0:
		return nil, nil
	case a.avg:
		return intervalMul(a.sum, 1/float64(a.count))
	}
	a.sum.Valid = true
	return a.sum, nil
}

type boolAcc struct {
	and  bool
	val  any
	seen bool
}

func (a *boolAcc) Add(args []any) error {
	if !a.seen {
		a.val, a.seen = args[0], true
		return nil
	}
	if a.and {
		a.val = and3(a.val, args[0])
	} else {
		a.val = or3(a.val, args[0])
	}
	return nil
}

func (a *boolAcc) Result() (any, error) { return a.val, nil }

// stringAggAcc is string_agg: the delimiter before every value but the
// first; a NULL value is skipped, a NULL delimiter counts as empty.
type stringAggAcc struct {
	bytea bool
	buf   []byte
	seen  bool
}

func (a *stringAggAcc) Add(args []any) error {
	if args[0] == nil {
		return nil
	}
	if a.seen && len(args) > 1 && args[1] != nil {
		a.buf = appendDatumBytes(a.buf, args[1])
	}
	a.buf = appendDatumBytes(a.buf, args[0])
	a.seen = true
	return nil
}

func appendDatumBytes(buf []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return append(buf, x...)
	case []byte:
		return append(buf, x...)
	}
	return buf
}

func (a *stringAggAcc) Result() (any, error) {
	switch {
	case !a.seen:
		return nil, nil
	case a.bytea:
		return append([]byte(nil), a.buf...), nil
	}
	return string(a.buf), nil
}
