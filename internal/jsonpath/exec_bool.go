package jsonpath

import (
	"strings"
)

// boolItem evaluates a predicate to true, false or unknown. Errors in its
// operands are suppressed into unknown; only errors no silent mode hides
// (a missing variable, an unsupported feature) come back as errors.
func (e *exec) boolItem(it *Item, v *Value) (boolResult, error) {
	switch it.Kind {
	case KindAnd, KindOr:
		l, err := e.boolItem(it.Left, v)
		if err != nil {
			return bUnknown, err
		}
		stop := bFalse
		if it.Kind == KindOr {
			stop = bTrue
		}
		if l == stop {
			return l, nil
		}
		// Unknown on the left still looks at the right, as SQL/JSON says.
		r, err := e.boolItem(it.Right, v)
		if err != nil {
			return bUnknown, err
		}
		if r == 1-stop {
			return l, nil
		}
		return r, nil
	case KindNot:
		r, err := e.boolItem(it.Left, v)
		switch {
		case err != nil || r == bUnknown:
			return bUnknown, err
		case r == bTrue:
			return bFalse, nil
		}
		return bTrue, nil
	case KindIsUnknown:
		r, err := e.boolItem(it.Left, v)
		if r == bUnknown {
			return bTrue, err
		}
		return bFalse, err
	case KindEqual, KindNotEqual, KindLess, KindGreater, KindLessOrEqual, KindGreaterOrEqual:
		return e.predicate(it.Left, it.Right, v, true, func(l, r *Value) (boolResult, error) { return e.compare(it.Kind, l, r) })
	case KindStartsWith:
		return e.predicate(it.Left, it.Right, v, false, func(whole, initial *Value) (boolResult, error) {
			if whole.Kind != String || initial.Kind != String {
				return bUnknown, nil
			}
			if strings.HasPrefix(whole.Str, initial.Str) {
				return bTrue, nil
			}
			return bFalse, nil
		})
	case KindLikeRegex:
		match, err := e.host.Regex(it.Str, it.Flags)
		if err != nil {
			return bUnknown, err
		}
		return e.predicate(it.Left, nil, v, false, func(s, _ *Value) (boolResult, error) {
			if s.Kind != String {
				return bUnknown, nil
			}
			if match(s.Str) {
				return bTrue, nil
			}
			return bFalse, nil
		})
	case KindExists:
		if !e.lax {
			var found []*Value
			st, err := e.itemsNoThrow(it.Left, v, false, &found)
			switch {
			case err != nil || st == failed:
				return bUnknown, err
			case len(found) == 0:
				return bFalse, nil
			}
			return bTrue, nil
		}
		st, err := e.itemsNoThrow(it.Left, v, false, nil)
		switch {
		case err != nil || st == failed:
			return bUnknown, err
		case st == ok:
			return bTrue, nil
		}
		return bFalse, nil
	}
	return bUnknown, nil
}

// nestedBool evaluates a filter's predicate with @ bound to v.
func (e *exec) nestedBool(it *Item, v *Value) (boolResult, error) {
	saved := e.current
	e.current = v
	r, err := e.boolItem(it, v)
	e.current = saved
	return r, err
}

// predicate applies test to every pair of items of the left and right
// operands (or every left item when right is nil): true when some pair is
// true. Lax mode stops at the first true pair; strict mode looks at every
// pair and answers unknown if any is unknown.
func (e *exec) predicate(left, right *Item, v *Value, unwrapRight bool, test func(l, r *Value) (boolResult, error)) (boolResult, error) {
	var lseq, rseq []*Value
	st, err := e.itemsNoThrow(left, v, true, &lseq)
	if err != nil || st == failed {
		return bUnknown, err
	}
	if right != nil {
		st, err := e.itemsNoThrow(right, v, unwrapRight, &rseq)
		if err != nil || st == failed {
			return bUnknown, err
		}
	} else {
		rseq = []*Value{nil}
	}
	sawError, sawTrue := false, false
	for _, l := range lseq {
		for _, r := range rseq {
			res, err := test(l, r)
			if err != nil {
				return bUnknown, err
			}
			switch res {
			case bUnknown:
				if !e.lax {
					return bUnknown, nil
				}
				sawError = true
			case bTrue:
				if e.lax {
					return bTrue, nil
				}
				sawTrue = true
			}
		}
	}
	switch {
	case sawTrue:
		return bTrue, nil
	case sawError:
		return bUnknown, nil
	}
	return bFalse, nil
}

// compare is a comparison of two items: nulls equal only nulls, other
// items of different kinds and arrays and objects are not comparable.
// Datetimes compare through the host, which fails a comparison that needs
// the time zone outside the _tz functions.
func (e *exec) compare(op Kind, a, b *Value) (boolResult, error) {
	if a.Kind != b.Kind {
		if a.Kind == Null || b.Kind == Null {
			if op == KindNotEqual {
				return bTrue, nil
			}
			return bFalse, nil
		}
		return bUnknown, nil
	}
	var c int
	switch a.Kind {
	case Null:
	case Bool:
		switch {
		case a.Bool == b.Bool:
		case a.Bool:
			c = 1
		default:
			c = -1
		}
	case Numeric:
		c = a.Num.Cmp(b.Num)
	case String:
		c = strings.Compare(a.Str, b.Str)
	case Datetime:
		cmp, comparable, err := e.host.CompareDatetime(a, b, e.useTz)
		if err != nil || !comparable {
			return bUnknown, err
		}
		c = cmp
	default:
		return bUnknown, nil
	}
	var r bool
	switch op {
	case KindEqual:
		r = c == 0
	case KindNotEqual:
		r = c != 0
	case KindLess:
		r = c < 0
	case KindGreater:
		r = c > 0
	case KindLessOrEqual:
		r = c <= 0
	case KindGreaterOrEqual:
		r = c >= 0
	}
	if r {
		return bTrue, nil
	}
	return bFalse, nil
}
