package types

import (
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The functions, operators and aggregates of the multirange types, as
// multirangetypes.c defines them over anymultirange, anyrange and
// anyelement, registered for each multirange type with its range type and
// subtype.

func init() {
	for mrOid, rOid := range multirangeRanges {
		rt := Type{rOid, -1}
		sub, _ := rt.RangeSubtype()
		addMultirangeFuncsTo(global, Type{mrOid, -1}, rt, sub)
	}
}

// multirangeOpFuncs names the functions behind the operators between two
// multiranges, a multirange and a range, and a range and a multirange.
var multirangeOpFuncs = map[string][3]string{
	"&&":  {"multirange_overlaps_multirange", "multirange_overlaps_range", "range_overlaps_multirange"},
	"@>":  {"multirange_contains_multirange", "multirange_contains_range", "range_contains_multirange"},
	"<@":  {"multirange_contained_by_multirange", "multirange_contained_by_range", "range_contained_by_multirange"},
	"<<":  {"multirange_before_multirange", "multirange_before_range", "range_before_multirange"},
	">>":  {"multirange_after_multirange", "multirange_after_range", "range_after_multirange"},
	"&<":  {"multirange_overleft_multirange", "multirange_overleft_range", "range_overleft_multirange"},
	"&>":  {"multirange_overright_multirange", "multirange_overright_range", "range_overright_multirange"},
	"-|-": {"multirange_adjacent_multirange", "multirange_adjacent_range", "range_adjacent_multirange"},
}

// asMultirange is the multirange of one range, for the operators whose
// answer for a range is their answer for its multirange.
func asMultirange(r Range) Multirange {
	if r.Empty {
		return Multirange{}
	}
	return Multirange{Ranges: []Range{r}}
}

// addMultirangeFuncsTo registers in ft the constructors, functions,
// operators and aggregates of multirange type mt over range type rt and
// subtype sub.
func addMultirangeFuncsTo(ft *funcTable, mt, rt, sub Type) {
	addFunc, addFuncPolymorphic := ft.addFunc, ft.addFuncPolymorphic
	addBinary, addBinaryPolymorphic, addComparisons, addAgg, addCast := ft.addBinary, ft.addBinaryPolymorphic, ft.addComparisons, ft.addAgg, ft.addCast
	addComparisons(mt, mt, func(_ *Env, a, b any) int { return compareMultiranges(mt, a.(Multirange), b.(Multirange)) })
	cmpNames := map[string]string{"=": "multirange_eq", "<>": "multirange_ne", "<": "multirange_lt", "<=": "multirange_le",
		">": "multirange_gt", ">=": "multirange_ge"}
	for op, test := range comparisonOps {
		addFunc(cmpNames[op], Immutable, Bool, func(_ *Env, args []any) (any, error) {
			return test(compareMultiranges(mt, args[0].(Multirange), args[1].(Multirange))), nil
		}, mt, mt)
	}
	addFunc("multirange_cmp", Immutable, Int4, func(_ *Env, args []any) (any, error) {
		return int64(compareMultiranges(mt, args[0].(Multirange), args[1].(Multirange))), nil
	}, mt, mt)

	tests := map[string]func(a, b Multirange) bool{
		"&&":  func(a, b Multirange) bool { return multirangeOverlaps(sub, a, b) },
		"@>":  func(a, b Multirange) bool { return multirangeContains(sub, a, b) },
		"<@":  func(a, b Multirange) bool { return multirangeContains(sub, b, a) },
		"<<":  func(a, b Multirange) bool { return multirangeBefore(sub, a, b) },
		">>":  func(a, b Multirange) bool { return multirangeBefore(sub, b, a) },
		"&<":  func(a, b Multirange) bool { return multirangeOverLeft(sub, a, b) },
		"&>":  func(a, b Multirange) bool { return multirangeOverRight(sub, a, b) },
		"-|-": func(a, b Multirange) bool { return multirangeAdjacent(rt, a, b) },
	}
	for op, test := range tests {
		names := multirangeOpFuncs[op]
		mm := func(_ *Env, a, b any) (any, error) { return test(a.(Multirange), b.(Multirange)), nil }
		mr := func(_ *Env, a, b any) (any, error) { return test(a.(Multirange), asMultirange(b.(Range))), nil }
		rm := func(_ *Env, a, b any) (any, error) { return test(asMultirange(a.(Range)), b.(Multirange)), nil }
		for i, pair := range []struct {
			l, r Type
			eval opFunc
		}{{mt, mt, mm}, {mt, rt, mr}, {rt, mt, rm}} {
			eval := pair.eval
			addBinary(op, pair.l, pair.r, Bool, eval)
			addFunc(names[i], Immutable, Bool, func(env *Env, args []any) (any, error) { return eval(env, args[0], args[1]) }, pair.l, pair.r)
		}
	}
	containsElem := func(_ *Env, a, b any) (any, error) { return multirangeContainsElem(sub, a.(Multirange), b), nil }
	elemContained := func(_ *Env, a, b any) (any, error) { return multirangeContainsElem(sub, b.(Multirange), a), nil }
	addBinaryPolymorphic("@>", mt, sub, Bool, containsElem)
	addBinaryPolymorphic("<@", sub, mt, Bool, elemContained)
	addFuncPolymorphic("multirange_contains_elem", Immutable, Bool, func(env *Env, args []any) (any, error) {
		return containsElem(env, args[0], args[1])
	}, mt, sub)
	addFuncPolymorphic("elem_contained_by_multirange", Immutable, Bool, func(env *Env, args []any) (any, error) {
		return elemContained(env, args[0], args[1])
	}, sub, mt)

	setOps := map[string]struct {
		name string
		eval func(a, b Multirange) (Multirange, error)
	}{
		"+": {"multirange_union", func(a, b Multirange) (Multirange, error) {
			return makeMultirange(rt, append(append([]Range(nil), a.Ranges...), b.Ranges...))
		}},
		"-": {"multirange_minus", func(a, b Multirange) (Multirange, error) { return multirangeMinus(rt, a, b) }},
		"*": {"multirange_intersect", func(a, b Multirange) (Multirange, error) { return multirangeIntersect(rt, a, b) }},
	}
	for op, so := range setOps {
		eval := func(_ *Env, a, b any) (any, error) { return so.eval(a.(Multirange), b.(Multirange)) }
		addBinary(op, mt, mt, mt, eval)
		addFunc(so.name, Immutable, mt, func(env *Env, args []any) (any, error) { return eval(env, args[0], args[1]) }, mt, mt)
	}

	first := func(m Multirange) Range { return m.Ranges[0] }
	last := func(m Multirange) Range { return m.Ranges[len(m.Ranges)-1] }
	// property registers a function of the first or last range, whose
	// answer for an empty multirange is onEmpty.
	property := func(name string, result Type, onEmpty any, fn func(m Multirange) any) {
		addFunc(name, Immutable, result, func(_ *Env, args []any) (any, error) {
			if m := args[0].(Multirange); len(m.Ranges) > 0 {
				return fn(m), nil
			}
			return onEmpty, nil
		}, mt)
	}
	property("lower", sub, nil, func(m Multirange) any { return first(m).Lower })
	property("upper", sub, nil, func(m Multirange) any { return last(m).Upper })
	property("isempty", Bool, true, func(Multirange) any { return false })
	property("lower_inc", Bool, false, func(m Multirange) any { return first(m).LowerInc })
	property("upper_inc", Bool, false, func(m Multirange) any { return last(m).UpperInc })
	property("lower_inf", Bool, false, func(m Multirange) any { return first(m).LowerInf })
	property("upper_inf", Bool, false, func(m Multirange) any { return last(m).UpperInf })
	addFunc("range_merge", Immutable, rt, func(_ *Env, args []any) (any, error) {
		m := args[0].(Multirange)
		if len(m.Ranges) == 0 {
			return Range{Empty: true}, nil
		}
		lower, _ := first(m).bounds()
		_, upper := last(m).bounds()
		return makeRange(rt, lower, upper)
	}, mt)
	fromRange := func(_ *Env, args []any) (any, error) { return makeMultirange(rt, []Range{args[0].(Range)}) }
	addFuncPolymorphic("multirange", Immutable, mt, fromRange, rt)

	// The constructors: mt() and mt(VARIADIC rt[]), whose members must
	// not be NULL, and the strict mt(rt) that is also the cast.
	name := mt.Name()
	addFunc(name, Immutable, mt, fromRange, rt)
	addCast(rt.Oid, mt.Oid, CastExplicit, func(_ *Env, v any) (any, error) { return makeMultirange(rt, []Range{v.(Range)}) })
	ft.builders[name] = func(args []Type) (*Func, bool, error) {
		if len(args) == 1 {
			return nil, false, nil
		}
		casts := make([]EnvCastFunc, len(args))
		for i, a := range args {
			if !canCoerce(a, rt, CastImplicit) {
				return nil, false, nil
			}
			var err error
			if casts[i], err = lookupCast(a, rt, CastImplicit); err != nil {
				return nil, false, err
			}
		}
		return &Func{Args: args, Result: mt, Volatility: Immutable, Eval: func(env *Env, vals []any) (any, error) {
			ranges := make([]Range, len(vals))
			for i, v := range vals {
				if v == nil {
					return nil, pgerror.New(pgerror.NullValueNotAllowed, "multirange values cannot contain null members")
				}
				r, err := casts[i](env, v)
				if err != nil {
					return nil, err
				}
				ranges[i] = r.(Range)
			}
			return makeMultirange(rt, ranges)
		}}, true, nil
	}

	addAgg("range_agg", mt, func() Accumulator { return &rangeAggAcc{rt: rt} }, rt)
	addAgg("range_agg", mt, func() Accumulator { return &rangeAggAcc{rt: rt} }, mt)
	addAgg("range_intersect_agg", mt, func() Accumulator {
		return &intersectAcc{intersect: func(a, b any) (any, error) { return multirangeIntersect(rt, a.(Multirange), b.(Multirange)) }}
	}, mt)
}

// rangeAggAcc is range_agg over ranges or multiranges: the union of the
// non-NULL inputs, NULL over none; an empty multirange input makes the
// result empty rather than NULL.
type rangeAggAcc struct {
	rt     Type
	ranges []Range
	any    bool
}

func (a *rangeAggAcc) Add(args []any) error {
	switch v := args[0].(type) {
	case Range:
		a.ranges, a.any = append(a.ranges, v), true
	case Multirange:
		a.ranges, a.any = append(a.ranges, v.Ranges...), true
	}
	return nil
}

func (a *rangeAggAcc) Result() (any, error) {
	if !a.any {
		return nil, nil
	}
	return makeMultirange(a.rt, a.ranges)
}

// multirangeContainsElem is multirange_contains_elem_internal.
func multirangeContainsElem(sub Type, m Multirange, v any) bool {
	for _, r := range m.Ranges {
		if rangeContainsElem(sub, r, v) {
			return true
		}
	}
	return false
}

// multirangeOverlaps is multirange_overlaps_multirange_internal: some
// range of a overlaps some range of b; empties overlap nothing.
func multirangeOverlaps(sub Type, a, b Multirange) bool {
	for _, ra := range a.Ranges {
		for _, rb := range b.Ranges {
			if rangeOverlaps(sub, ra, rb) {
				return true
			}
		}
	}
	return false
}

// multirangeContains is multirange_contains_multirange_internal: every
// range of b lies within one range of a; an empty b is contained by
// anything, a non-empty one by no empty a.
func multirangeContains(sub Type, a, b Multirange) bool {
	for _, rb := range b.Ranges {
		found := false
		for _, ra := range a.Ranges {
			if rangeContains(sub, ra, rb) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// multirangeBefore is multirange_before_multirange_internal (<<): a
// ends before b starts.
func multirangeBefore(sub Type, a, b Multirange) bool {
	if len(a.Ranges) == 0 || len(b.Ranges) == 0 {
		return false
	}
	_, au := a.Ranges[len(a.Ranges)-1].bounds()
	bl, _ := b.Ranges[0].bounds()
	return cmpRangeBounds(sub, au, bl) < 0
}

// multirangeOverLeft is &<: a does not extend to the right of b.
func multirangeOverLeft(sub Type, a, b Multirange) bool {
	if len(a.Ranges) == 0 || len(b.Ranges) == 0 {
		return false
	}
	_, au := a.Ranges[len(a.Ranges)-1].bounds()
	_, bu := b.Ranges[len(b.Ranges)-1].bounds()
	return cmpRangeBounds(sub, au, bu) <= 0
}

// multirangeOverRight is &>: a does not extend to the left of b.
func multirangeOverRight(sub Type, a, b Multirange) bool {
	if len(a.Ranges) == 0 || len(b.Ranges) == 0 {
		return false
	}
	al, _ := a.Ranges[0].bounds()
	bl, _ := b.Ranges[0].bounds()
	return cmpRangeBounds(sub, al, bl) >= 0
}

// multirangeAdjacent is multirange_adjacent_multirange (-|-): the last
// range of one meets the first range of the other.
func multirangeAdjacent(rt Type, a, b Multirange) bool {
	if len(a.Ranges) == 0 || len(b.Ranges) == 0 {
		return false
	}
	_, au := a.Ranges[len(a.Ranges)-1].bounds()
	bl, _ := b.Ranges[0].bounds()
	if boundsAdjacent(rt, au, bl) {
		return true
	}
	al, _ := a.Ranges[0].bounds()
	_, bu := b.Ranges[len(b.Ranges)-1].bounds()
	return boundsAdjacent(rt, bu, al)
}

// multirangeIntersect is multirange_intersect_internal (*).
func multirangeIntersect(rt Type, a, b Multirange) (Multirange, error) {
	sub, _ := rt.RangeSubtype()
	var out []Range
	for _, ra := range a.Ranges {
		for _, rb := range b.Ranges {
			if !rangeOverlaps(sub, ra, rb) {
				continue
			}
			r, err := rangeIntersect(rt, ra, rb)
			if err != nil {
				return Multirange{}, err
			}
			out = append(out, r.(Range))
		}
	}
	return makeMultirange(rt, out)
}

// multirangeMinus is multirange_minus_internal (-): the points of a in no
// range of b.
func multirangeMinus(rt Type, a, b Multirange) (Multirange, error) {
	if len(a.Ranges) == 0 || len(b.Ranges) == 0 {
		return a, nil
	}
	sub, _ := rt.RangeSubtype()
	var out []Range
	i2 := 0
	for _, r1 := range a.Ranges {
		for i2 < len(b.Ranges) && rangeBefore(sub, b.Ranges[i2], r1) {
			i2++
		}
		for i2 < len(b.Ranges) {
			r2 := b.Ranges[i2]
			if left, right, split, err := rangeSplit(rt, r1, r2); err != nil {
				return Multirange{}, err
			} else if split {
				out = append(out, left)
				r1 = right
				i2++
				continue
			}
			if !rangeOverlaps(sub, r1, r2) {
				break
			}
			v, err := rangeMinus(rt, r1, r2)
			if err != nil {
				return Multirange{}, err
			}
			r1 = v.(Range)
			if r1.Empty || rangeBefore(sub, r1, r2) {
				break
			}
			i2++
		}
		out = append(out, r1)
	}
	return makeMultirange(rt, out)
}

// rangeSplit is range_split_internal: when b lies strictly inside a, the
// parts of a before and after it.
func rangeSplit(rt Type, a, b Range) (left, right Range, split bool, err error) {
	if a.Empty || b.Empty {
		return Range{}, Range{}, false, nil
	}
	sub, _ := rt.RangeSubtype()
	al, au := a.bounds()
	bl, bu := b.bounds()
	if cmpRangeBounds(sub, al, bl) >= 0 || cmpRangeBounds(sub, au, bu) <= 0 {
		return Range{}, Range{}, false, nil
	}
	bl.inclusive, bl.lower = !bl.inclusive, false
	if left, err = makeRange(rt, al, bl); err != nil {
		return Range{}, Range{}, false, err
	}
	bu.inclusive, bu.lower = !bu.inclusive, true
	if right, err = makeRange(rt, bu, au); err != nil {
		return Range{}, Range{}, false, err
	}
	return left, right, true, nil
}
