package types

import (
	"slices"
	"time"
)

// opFunc evaluates an operator on non-NULL datums of its declared types.
type opFunc func(env *Env, l, r any) (any, error)

// binaryOperator is a row of pg_operator for a binary operator.
type binaryOperator struct {
	candidate
	eval opFunc
	// nullable operators see NULL operands themselves (none of
	// PostgreSQL's binary operators are, but the registry allows it).
	nullable bool
}

// unaryOperator is a row of pg_operator for a prefix operator.
type unaryOperator struct {
	candidate
	eval func(env *Env, v any) (any, error)
}

var (
	binaryOperators = map[string][]binaryOperator{}
	unaryOperators  = map[string][]unaryOperator{}
)

func addBinary(op string, l, r, result Type, eval opFunc) {
	global.addBinary(op, l, r, result, eval)
}

// addBinaryPolymorphic registers an overload of a polymorphic operator for
// one set of concrete types, which inputs must have exactly.
func addBinaryPolymorphic(op string, l, r, result Type, eval opFunc) {
	global.addBinaryPolymorphic(op, l, r, result, eval)
}

func addUnary(op string, arg, result Type, eval func(env *Env, v any) (any, error)) {
	unaryOperators[op] = append(unaryOperators[op], unaryOperator{
		candidate: candidate{args: []Type{arg}, result: result}, eval: eval,
	})
}

func resolveBinaryOp(op string, l, r Type) (*BinaryOp, error) {
	if polymorphicArrayOp(op, l, r) {
		return resolveArrayOp(op, l, r)
	}
	if o, found, err := recordComparison(op, l, r); found {
		return o, err
	}
	if o, found := enumComparison(op, l, r); found {
		return o, nil
	}
	if err := hstorePopulateOp(op, r); err != nil {
		return nil, err
	}
	ops := binaryOperators[op]
	for _, ft := range userRangeTables("", []Type{l, r}) {
		if more := ft.binaryOperators[op]; len(more) > 0 {
			ops = append(append([]binaryOperator(nil), ops...), more...)
		}
	}
	if len(ops) == 0 {
		return nil, operatorError(op, &l, &r, false)
	}
	// binary_oper_exact: an unknown operand is assumed to have the other's
	// type.
	el, er := l, r
	if el.Oid == OidUnknown {
		el = er
	} else if er.Oid == OidUnknown {
		er = el
	}
	chosen := -1
	for i, o := range ops {
		if o.args[0].Oid == el.Oid && o.args[1].Oid == er.Oid {
			chosen = i
			break
		}
	}
	if chosen < 0 {
		cands := make([]candidate, len(ops))
		for i, o := range ops {
			cands[i] = o.candidate
		}
		var ambiguous bool
		if chosen, ambiguous = selectCandidate([]Type{l, r}, cands); chosen < 0 {
			return nil, operatorError(op, &l, &r, ambiguous)
		}
	}
	o := ops[chosen]
	fns, err := coerceArgs([]Type{l, r}, o.args)
	if err != nil {
		return nil, err
	}
	cl, cr, eval, nullable := fns[0], fns[1], o.eval, o.nullable
	evalEnv := func(env *Env, a, b any) (any, error) {
		if !nullable && (a == nil || b == nil) {
			return nil, nil
		}
		var err error
		if cl != nil && a != nil {
			if a, err = cl(env, a); err != nil {
				return nil, err
			}
		}
		if cr != nil && b != nil {
			if b, err = cr(env, b); err != nil {
				return nil, err
			}
		}
		return eval(env, a, b)
	}
	return &BinaryOp{
		Name: op, Left: o.args[0], Right: o.args[1], Result: o.result,
		Eval:    func(a, b any) (any, error) { return evalEnv(nil, a, b) },
		EvalEnv: evalEnv,
	}, nil
}

func resolveUnaryOp(op string, t Type) (*UnaryOp, error) {
	ops := unaryOperators[op]
	if more := hstoreUnary(op, t); more != nil {
		ops = append(slices.Clip(ops), more...)
	}
	if len(ops) == 0 {
		return nil, operatorError(op, nil, &t, false)
	}
	chosen := -1
	for i, o := range ops {
		if o.args[0].Oid == t.Oid {
			chosen = i
			break
		}
	}
	if chosen < 0 {
		cands := make([]candidate, len(ops))
		for i, o := range ops {
			cands[i] = o.candidate
		}
		var ambiguous bool
		if chosen, ambiguous = selectCandidate([]Type{t}, cands); chosen < 0 {
			return nil, operatorError(op, nil, &t, ambiguous)
		}
	}
	o := ops[chosen]
	fns, err := coerceArgs([]Type{t}, o.args)
	if err != nil {
		return nil, err
	}
	conv, eval := fns[0], o.eval
	evalEnv := func(env *Env, v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		if conv != nil {
			var err error
			if v, err = conv(env, v); err != nil {
				return nil, err
			}
		}
		return eval(env, v)
	}
	return &UnaryOp{
		Name: op, Arg: o.args[0], Result: o.result,
		Eval:    func(v any) (any, error) { return evalEnv(nil, v) },
		EvalEnv: evalEnv,
	}, nil
}

// comparisonOps are the six comparison operators and their meaning as a
// test of Compare's result.
var comparisonOps = map[string]func(c int) bool{
	"=":  func(c int) bool { return c == 0 },
	"<>": func(c int) bool { return c != 0 },
	"<":  func(c int) bool { return c < 0 },
	"<=": func(c int) bool { return c <= 0 },
	">":  func(c int) bool { return c > 0 },
	">=": func(c int) bool { return c >= 0 },
}

// addComparisons registers the six comparison operators for l and r, with
// cmp ordering non-NULL datums of the two types.
func addComparisons(l, r Type, cmp func(env *Env, a, b any) int) {
	global.addComparisons(l, r, cmp)
}

func init() {
	same := func(t Type) func(*Env, any, any) int {
		return func(_ *Env, a, b any) int { return compare(t, a, b) }
	}
	for _, t := range []Type{Bool, Int2, Int4, Int8, Float4, Float8, NumericAny, Text, BpcharAny, Name, Char,
		Bytea, UUID, Date, Time, Timestamp, Timestamptz, Interval, JSONB, OidType} {
		addComparisons(t, t, same(t))
	}
	ints := []Type{Int2, Int4, Int8}
	for _, l := range ints {
		for _, r := range ints {
			if l != r {
				addComparisons(l, r, same(Int8))
			}
		}
	}
	addComparisons(Float4, Float8, same(Float8))
	addComparisons(Float8, Float4, same(Float8))
	addComparisons(Name, Text, same(Text))
	addComparisons(Text, Name, same(Text))
	// Mixed date and time comparisons convert to the wider type, in the
	// session time zone where timestamptz is involved.
	asTz := func(t Type) func(*Env, any) time.Time {
		return func(env *Env, v any) time.Time {
			if t.Oid == OidTimestamptz {
				return v.(time.Time)
			}
			x, _ := timestampToTimestamptz(env, v)
			return x.(time.Time)
		}
	}
	for _, pair := range [][2]Type{{Date, Timestamp}, {Timestamp, Date}} {
		addComparisons(pair[0], pair[1], same(Timestamp))
	}
	for _, pair := range [][2]Type{{Date, Timestamptz}, {Timestamptz, Date}, {Timestamp, Timestamptz}, {Timestamptz, Timestamp}} {
		la, ra := asTz(pair[0]), asTz(pair[1])
		addComparisons(pair[0], pair[1], func(env *Env, a, b any) int { return la(env, a).Compare(ra(env, b)) })
	}
	registerArithmetic()
	registerDateTimeOperators()
	registerStringOperators()
	registerJSONOperators()
	registerJSONPathOperators()
}
