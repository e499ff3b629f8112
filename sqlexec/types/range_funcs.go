package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The functions and operators of the range types, as rangetypes.c defines
// them over anyrange and anyelement, registered for each built-in range
// type and its subtype.

func init() {
	for rangeOid, subOid := range rangeSubtypes {
		addRangeFuncsTo(global, Type{rangeOid, -1}, Type{subOid, -1})
	}
}

// addRangeFuncsTo registers in ft the constructors, functions and
// operators of range type t over subtype sub.
func addRangeFuncsTo(ft *funcTable, t, sub Type) {
	addFunc, addFuncPolymorphic, addFuncNullable := ft.addFunc, ft.addFuncPolymorphic, ft.addFuncNullable
	addBinary, addBinaryPolymorphic, addComparisons, addAgg := ft.addBinary, ft.addBinaryPolymorphic, ft.addComparisons, ft.addAgg
	addComparisons(t, t, func(_ *Env, a, b any) int { return compareRanges(t, a.(Range), b.(Range)) })
	rangeOps := map[string]func(a, b Range) bool{
		"@>":  func(a, b Range) bool { return rangeContains(sub, a, b) },
		"<@":  func(a, b Range) bool { return rangeContains(sub, b, a) },
		"&&":  func(a, b Range) bool { return rangeOverlaps(sub, a, b) },
		"<<":  func(a, b Range) bool { return rangeBefore(sub, a, b) },
		">>":  func(a, b Range) bool { return rangeBefore(sub, b, a) },
		"&<":  func(a, b Range) bool { return rangeOverLeft(sub, a, b) },
		"&>":  func(a, b Range) bool { return rangeOverRight(sub, a, b) },
		"-|-": func(a, b Range) bool { return rangeAdjacent(t, a, b) },
	}
	for op, test := range rangeOps {
		eval := func(_ *Env, a, b any) (any, error) { return test(a.(Range), b.(Range)), nil }
		addBinary(op, t, t, Bool, eval)
		addFunc(rangeOpFuncs[op], Immutable, Bool, func(env *Env, args []any) (any, error) { return eval(env, args[0], args[1]) }, t, t)
	}
	for op, test := range comparisonOps {
		addFunc(rangeOpFuncs[op], Immutable, Bool, func(_ *Env, args []any) (any, error) {
			return test(compareRanges(t, args[0].(Range), args[1].(Range))), nil
		}, t, t)
	}
	addFunc("range_cmp", Immutable, Int4, func(_ *Env, args []any) (any, error) {
		return int64(compareRanges(t, args[0].(Range), args[1].(Range))), nil
	}, t, t)
	containsElem := func(_ *Env, a, b any) (any, error) { return rangeContainsElem(sub, a.(Range), b), nil }
	elemContained := func(_ *Env, a, b any) (any, error) { return rangeContainsElem(sub, b.(Range), a), nil }
	addBinaryPolymorphic("@>", t, sub, Bool, containsElem)
	addBinaryPolymorphic("<@", sub, t, Bool, elemContained)
	addFuncPolymorphic("range_contains_elem", Immutable, Bool, func(env *Env, args []any) (any, error) {
		return containsElem(env, args[0], args[1])
	}, t, sub)
	addFuncPolymorphic("elem_contained_by_range", Immutable, Bool, func(env *Env, args []any) (any, error) {
		return elemContained(env, args[0], args[1])
	}, sub, t)
	setOps := map[string]opFunc{
		"+": func(_ *Env, a, b any) (any, error) { return rangeUnion(t, a.(Range), b.(Range), true) },
		"*": func(_ *Env, a, b any) (any, error) { return rangeIntersect(t, a.(Range), b.(Range)) },
		"-": func(_ *Env, a, b any) (any, error) { return rangeMinus(t, a.(Range), b.(Range)) },
	}
	for op, eval := range setOps {
		addBinary(op, t, t, t, eval)
		addFunc(rangeOpFuncs[op], Immutable, t, func(env *Env, args []any) (any, error) { return eval(env, args[0], args[1]) }, t, t)
	}
	addAgg("range_intersect_agg", t, func() Accumulator {
		return &intersectAcc{intersect: func(a, b any) (any, error) { return rangeIntersect(t, a.(Range), b.(Range)) }}
	}, t)

	construct := func(_ *Env, args []any) (any, error) {
		lower := rangeBound{val: args[0], infinite: args[0] == nil, inclusive: true, lower: true}
		upper := rangeBound{val: args[1], infinite: args[1] == nil}
		if len(args) == 3 {
			if args[2] == nil {
				return nil, pgerror.New(pgerror.DataException, "range constructor flags argument must not be null")
			}
			var err error
			if lower.inclusive, upper.inclusive, err = parseRangeFlags(args[2].(string)); err != nil {
				return nil, err
			}
		}
		return makeRange(t, lower, upper)
	}
	addFuncNullable(t.Name(), Immutable, t, construct, sub, sub)
	addFuncNullable(t.Name(), Immutable, t, construct, sub, sub, Text)

	property := func(name string, result Type, fn func(r Range) any) {
		addFunc(name, Immutable, result, func(_ *Env, args []any) (any, error) { return fn(args[0].(Range)), nil }, t)
	}
	property("lower", sub, func(r Range) any { return r.Lower })
	property("upper", sub, func(r Range) any { return r.Upper })
	property("isempty", Bool, func(r Range) any { return r.Empty })
	property("lower_inc", Bool, func(r Range) any { return r.LowerInc })
	property("upper_inc", Bool, func(r Range) any { return r.UpperInc })
	property("lower_inf", Bool, func(r Range) any { return r.LowerInf })
	property("upper_inf", Bool, func(r Range) any { return r.UpperInf })
	addFunc("range_merge", Immutable, t, func(_ *Env, args []any) (any, error) {
		return rangeUnion(t, args[0].(Range), args[1].(Range), false)
	}, t, t)
}

// rangeOpFuncs are the functions behind the range operators, which
// PostgreSQL lets a query call by name too.
var rangeOpFuncs = map[string]string{
	"=": "range_eq", "<>": "range_ne", "<": "range_lt", "<=": "range_le", ">": "range_gt", ">=": "range_ge",
	"@>": "range_contains", "<@": "range_contained_by", "&&": "range_overlaps", "<<": "range_before",
	">>": "range_after", "&<": "range_overleft", "&>": "range_overright", "-|-": "range_adjacent",
	"+": "range_union", "*": "range_intersect", "-": "range_minus",
}

// intersectAcc is range_intersect_agg: the intersection of the non-NULL
// ranges or multiranges, NULL over none.
type intersectAcc struct {
	val       any
	intersect func(a, b any) (any, error)
}

func (a *intersectAcc) Add(args []any) error {
	switch {
	case args[0] == nil:
		return nil
	case a.val == nil:
		a.val = args[0]
		return nil
	}
	v, err := a.intersect(a.val, args[0])
	a.val = v
	return err
}

func (a *intersectAcc) Result() (any, error) { return a.val, nil }

// parseRangeFlags reads the third argument of a range constructor: "[]",
// "[)", "(]" or "()" (range_parse_flags).
func parseRangeFlags(s string) (lowerInc, upperInc bool, err error) {
	if len(s) != 2 || (s[0] != '[' && s[0] != '(') || (s[1] != ']' && s[1] != ')') {
		return false, false, pgerror.New(pgerror.SyntaxError, "invalid range bound flags").
			WithHint(`Valid values are "[]", "[)", "(]", and "()".`)
	}
	return s[0] == '[', s[1] == ']', nil
}

// rangeContainsElem is range_contains_elem: v lies within r's bounds.
func rangeContainsElem(sub Type, r Range, v any) bool {
	if r.Empty {
		return false
	}
	if !r.LowerInf {
		c := compare(sub, r.Lower, v)
		if c > 0 || (c == 0 && !r.LowerInc) {
			return false
		}
	}
	if !r.UpperInf {
		c := compare(sub, r.Upper, v)
		if c < 0 || (c == 0 && !r.UpperInc) {
			return false
		}
	}
	return true
}

// rangeContains is range_contains_internal: every point of b lies in a.
func rangeContains(sub Type, a, b Range) bool {
	if b.Empty {
		return true
	}
	if a.Empty {
		return false
	}
	al, au := a.bounds()
	bl, bu := b.bounds()
	return cmpRangeBounds(sub, al, bl) <= 0 && cmpRangeBounds(sub, au, bu) >= 0
}

// rangeOverlaps is range_overlaps_internal: a and b share a point.
func rangeOverlaps(sub Type, a, b Range) bool {
	if a.Empty || b.Empty {
		return false
	}
	al, au := a.bounds()
	bl, bu := b.bounds()
	return (cmpRangeBounds(sub, al, bl) >= 0 && cmpRangeBounds(sub, al, bu) <= 0) ||
		(cmpRangeBounds(sub, bl, al) >= 0 && cmpRangeBounds(sub, bl, au) <= 0)
}

// rangeBefore is range_before_internal (<<): a ends before b starts.
func rangeBefore(sub Type, a, b Range) bool {
	if a.Empty || b.Empty {
		return false
	}
	_, au := a.bounds()
	bl, _ := b.bounds()
	return cmpRangeBounds(sub, au, bl) < 0
}

// rangeOverLeft is range_overleft_internal (&<): a does not extend to the
// right of b.
func rangeOverLeft(sub Type, a, b Range) bool {
	if a.Empty || b.Empty {
		return false
	}
	_, au := a.bounds()
	_, bu := b.bounds()
	return cmpRangeBounds(sub, au, bu) <= 0
}

// rangeOverRight is range_overright_internal (&>): a does not extend to
// the left of b.
func rangeOverRight(sub Type, a, b Range) bool {
	if a.Empty || b.Empty {
		return false
	}
	al, _ := a.bounds()
	bl, _ := b.bounds()
	return cmpRangeBounds(sub, al, bl) >= 0
}

// rangeAdjacent is range_adjacent_internal (-|-): one range ends where
// the other starts, with no point between them and none shared.
func rangeAdjacent(t Type, a, b Range) bool {
	if a.Empty || b.Empty {
		return false
	}
	al, au := a.bounds()
	bl, bu := b.bounds()
	return boundsAdjacent(t, au, bl) || boundsAdjacent(t, bu, al)
}

// boundsAdjacent is bounds_adjacent: upper bound a meets lower bound b.
// For a discrete subtype, values apart may still leave no point between
// them, which the range between them being empty shows.
func boundsAdjacent(t Type, a, b rangeBound) bool {
	sub, _ := t.RangeSubtype()
	c := cmpRangeBoundValues(sub, a, b)
	switch {
	case c == 0:
		return a.inclusive != b.inclusive
	case c > 0:
		return false
	}
	if t.Oid != OidInt4Range && t.Oid != OidInt8Range && t.Oid != OidDateRange {
		return false
	}
	a.inclusive, b.inclusive = !a.inclusive, !b.inclusive
	a.lower, b.lower = true, false
	r, err := makeRange(t, a, b)
	return err == nil && r.Empty
}

// rangeUnion is range_union_internal (+, and range_merge without the
// check that no gap lies between a and b).
func rangeUnion(t Type, a, b Range, strict bool) (any, error) {
	sub, _ := t.RangeSubtype()
	if strict && !a.Empty && !b.Empty && !rangeOverlaps(sub, a, b) && !rangeAdjacent(t, a, b) {
		return nil, pgerror.New(pgerror.DataException, "result of range union would not be contiguous")
	}
	if a.Empty {
		return b, nil
	}
	if b.Empty {
		return a, nil
	}
	al, au := a.bounds()
	bl, bu := b.bounds()
	lower, upper := al, au
	if cmpRangeBounds(sub, bl, al) < 0 {
		lower = bl
	}
	if cmpRangeBounds(sub, bu, au) > 0 {
		upper = bu
	}
	return makeRange(t, lower, upper)
}

// rangeIntersect is range_intersect_internal (*).
func rangeIntersect(t Type, a, b Range) (any, error) {
	sub, _ := t.RangeSubtype()
	if a.Empty || b.Empty || !rangeOverlaps(sub, a, b) {
		return Range{Empty: true}, nil
	}
	al, au := a.bounds()
	bl, bu := b.bounds()
	lower, upper := al, au
	if cmpRangeBounds(sub, bl, al) > 0 {
		lower = bl
	}
	if cmpRangeBounds(sub, bu, au) < 0 {
		upper = bu
	}
	return makeRange(t, lower, upper)
}

// rangeMinus is range_minus_internal (-): the points of a not in b, which
// must be one range.
func rangeMinus(t Type, a, b Range) (any, error) {
	if a.Empty || b.Empty {
		return a, nil
	}
	sub, _ := t.RangeSubtype()
	al, au := a.bounds()
	bl, bu := b.bounds()
	l1l2, l1u2 := cmpRangeBounds(sub, al, bl), cmpRangeBounds(sub, al, bu)
	u1l2, u1u2 := cmpRangeBounds(sub, au, bl), cmpRangeBounds(sub, au, bu)
	switch {
	case l1l2 < 0 && u1u2 > 0:
		return nil, pgerror.New(pgerror.DataException, "result of range difference would not be contiguous")
	case l1u2 > 0 || u1l2 < 0:
		return a, nil
	case l1l2 >= 0 && u1u2 <= 0:
		return Range{Empty: true}, nil
	case l1l2 <= 0 && u1l2 >= 0 && u1u2 <= 0:
		bl.inclusive, bl.lower = !bl.inclusive, false
		return makeRange(t, al, bl)
	default:
		bu.inclusive, bu.lower = !bu.inclusive, true
		return makeRange(t, bu, au)
	}
}
