package jsonpath

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Host supplies what the evaluator takes from the SQL type system, so that
// numbers and regular expressions behave as they do everywhere else.
type Host struct {
	// Arith applies +, -, *, / or % (KindAdd ... KindMod) to numerics.
	Arith func(op Kind, a, b *apd.Decimal) (*apd.Decimal, error)
	// Unary applies KindMinus, KindAbs, KindFloor or KindCeiling.
	Unary func(op Kind, a *apd.Decimal) *apd.Decimal
	// Double reads s as double precision and returns that number as a
	// numeric; ok is false when s is not a finite double.
	Double func(s string) (d *apd.Decimal, ok bool)
	// Regex compiles like_regex patterns.
	Regex RegexCompiler
	// Datetime is .datetime(): s read as a date or time through template,
	// or, when template is nil, through the first of PostgreSQL's ISO
	// formats that reads it. hard reports an error that silent mode does
	// not hide (a template that cannot be parsed).
	Datetime func(s string, template *string) (v *Value, hard bool, err error)
	// CompareDatetime orders two Datetime values; comparable is false for
	// types that do not compare (a date and a time). A comparison that
	// needs the session time zone fails unless useTz.
	CompareDatetime func(a, b *Value, useTz bool) (c int, comparable bool, err error)
}

// Options are the arguments of one evaluation.
type Options struct {
	// Vars is the object of $variables, or nil (no variables: every
	// $variable reads as null, as in the @? and @@ operators).
	Vars *Value
	// Silent suppresses the errors the jsonpath functions' silent
	// argument suppresses.
	Silent bool
	// UseTz lets datetime comparisons convert through the session time
	// zone (the jsonb_path_*_tz functions).
	UseTz bool
}

type status uint8

const (
	notFound status = iota
	ok
	failed
)

type boolResult uint8

const (
	bFalse boolResult = iota
	bTrue
	bUnknown
)

type baseObject struct {
	root *Value
	id   int64
}

// exec is the state of one evaluation (PostgreSQL's JsonPathExecContext).
type exec struct {
	host                   *Host
	vars                   *Value
	lax                    bool
	ignoreStructuralErrors bool
	throwErrors            bool
	useTz                  bool
	root, current          *Value
	base                   baseObject
	lastGeneratedID        int64
	innermostArraySize     int
	offsets                map[*Value]map[*Value]int64
}

// fail reports a suppressible error: an error when errors are thrown, the
// failed status otherwise.
func (e *exec) fail(err error) (status, error) {
	if e.throwErrors {
		return failed, err
	}
	return failed, nil
}

func newExec(h *Host, p *Path, root *Value, o Options) (*exec, error) {
	if o.Vars != nil && o.Vars.Kind != Object {
		return nil, pgerror.New(pgerror.InvalidParameterValue, `"vars" argument is not an object`).
			WithDetail("Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.")
	}
	e := &exec{host: h, vars: o.Vars, lax: p.Lax, ignoreStructuralErrors: p.Lax, throwErrors: !o.Silent, useTz: o.UseTz,
		root: root, current: root, lastGeneratedID: 1, innermostArraySize: -1}
	if o.Vars != nil {
		e.lastGeneratedID = 2
	}
	return e, nil
}

// Query returns the items p finds in root (jsonb_path_query). In silent
// mode an error ends the search and the items found before it are
// returned.
func Query(h *Host, p *Path, root *Value, o Options) ([]*Value, error) {
	e, err := newExec(h, p, root, o)
	if err != nil {
		return nil, err
	}
	var found []*Value
	if _, err := e.item(p.Expr, root, &found); err != nil {
		return nil, err
	}
	return found, nil
}

// Exists reports whether p finds any item in root (jsonb_path_exists);
// null (nil) when a suppressed error occurred.
func Exists(h *Host, p *Path, root *Value, o Options) (*bool, error) {
	e, err := newExec(h, p, root, o)
	if err != nil {
		return nil, err
	}
	var st status
	if !e.lax {
		// Strict mode must see every item to know that none fails.
		var found []*Value
		st, err = e.item(p.Expr, root, &found)
		if st != failed {
			st = notFound
			if len(found) > 0 {
				st = ok
			}
		}
	} else {
		st, err = e.item(p.Expr, root, nil)
	}
	if err != nil || st == failed {
		return nil, err
	}
	res := st == ok
	return &res, nil
}

// Match returns the single boolean p yields for root (jsonb_path_match):
// null for a null result or a suppressed error.
func Match(h *Host, p *Path, root *Value, o Options) (*bool, error) {
	e, err := newExec(h, p, root, o)
	if err != nil {
		return nil, err
	}
	var found []*Value
	if _, err := e.item(p.Expr, root, &found); err != nil {
		return nil, err
	}
	if len(found) == 1 {
		switch found[0].Kind {
		case Bool:
			return &found[0].Bool, nil
		case Null:
			return nil, nil
		}
	}
	if !o.Silent {
		return nil, pgerror.New(pgerror.SingletonSqlJsonItemRequired, "single boolean result is expected")
	}
	return nil, nil
}

func (e *exec) item(it *Item, v *Value, found *[]*Value) (status, error) {
	return e.itemUnwrap(it, v, found, e.lax)
}

// next continues with it.Next on v, or adds v to found when it is the last
// step.
func (e *exec) next(it *Item, v *Value, found *[]*Value) (status, error) {
	if it.Next != nil {
		return e.item(it.Next, v, found)
	}
	if found != nil {
		*found = append(*found, v)
	}
	return ok, nil
}

// unwrapArray runs it (nil: just collect) on every element of array v.
func (e *exec) unwrapArray(it *Item, v *Value, found *[]*Value, unwrapElems bool) (status, error) {
	return e.anyItem(it, v, found, 1, 1, 1, false, unwrapElems)
}

func (e *exec) itemUnwrap(it *Item, v *Value, found *[]*Value, unwrap bool) (status, error) {
	switch it.Kind {
	case KindAnd, KindOr, KindNot, KindIsUnknown, KindEqual, KindNotEqual, KindLess, KindGreater,
		KindLessOrEqual, KindGreaterOrEqual, KindExists, KindStartsWith, KindLikeRegex:
		b, err := e.boolItem(it, v)
		if err != nil {
			return failed, err
		}
		if it.Next == nil && found == nil {
			return ok, nil
		}
		r := &Value{Kind: Null}
		if b != bUnknown {
			r = &Value{Kind: Bool, Bool: b == bTrue}
		}
		return e.next(it, r, found)

	case KindKey:
		switch {
		case v.Kind == Object:
			if f := v.field(it.Str); f != nil {
				return e.next(it, f, found)
			}
			if !e.ignoreStructuralErrors {
				return e.fail(pgerror.Newf(pgerror.SqlJsonMemberNotFound, "JSON object does not contain key \"%s\"", it.Str))
			}
		case unwrap && v.Kind == Array:
			return e.unwrapArray(it, v, found, false)
		case !e.ignoreStructuralErrors:
			return e.fail(pgerror.New(pgerror.SqlJsonMemberNotFound, "jsonpath member accessor can only be applied to an object"))
		}
		return notFound, nil

	case KindRoot:
		saved := e.base
		e.base = baseObject{e.root, 0}
		st, err := e.next(it, e.root, found)
		e.base = saved
		return st, err

	case KindCurrent:
		return e.next(it, e.current, found)

	case KindAnyArray:
		switch {
		case v.Kind == Array:
			return e.unwrapArray(it.Next, v, found, e.lax)
		case e.lax:
			return e.next(it, v, found)
		case !e.ignoreStructuralErrors:
			return e.fail(pgerror.New(pgerror.SqlJsonArrayNotFound, "jsonpath wildcard array accessor can only be applied to an array"))
		}
		return notFound, nil

	case KindIndexArray:
		return e.indexArray(it, v, found)

	case KindLast:
		if it.Next == nil && found == nil {
			return ok, nil
		}
		return e.next(it, &Value{Kind: Numeric, Num: apd.New(int64(e.innermostArraySize-1), 0)}, found)

	case KindAnyKey:
		switch {
		case v.Kind == Object:
			return e.anyItem(it.Next, v, found, 1, 1, 1, false, e.lax)
		case unwrap && v.Kind == Array:
			return e.unwrapArray(it, v, found, false)
		case !e.ignoreStructuralErrors:
			return e.fail(pgerror.New(pgerror.SqlJsonObjectNotFound, "jsonpath wildcard member accessor can only be applied to an object"))
		}
		return notFound, nil

	case KindAdd, KindSub, KindMul, KindDiv, KindMod:
		return e.binaryArith(it, v, found)
	case KindPlus, KindMinus:
		return e.unaryArith(it, v, found)

	case KindFilter:
		if unwrap && v.Kind == Array {
			return e.unwrapArray(it, v, found, false)
		}
		b, err := e.nestedBool(it.Left, v)
		if err != nil || b != bTrue {
			return notFound, err
		}
		return e.next(it, v, found)

	case KindAny:
		st := notFound
		if it.First == 0 {
			saved := e.ignoreStructuralErrors
			e.ignoreStructuralErrors = true
			var err error
			st, err = e.next(it, v, found)
			e.ignoreStructuralErrors = saved
			if err != nil {
				return failed, err
			}
			if st == ok && found == nil {
				return st, nil
			}
		}
		if v.Kind == Array || v.Kind == Object {
			return e.anyItem(it.Next, v, found, 1, it.First, it.Last, true, e.lax)
		}
		return st, nil

	case KindNull, KindBool, KindNumeric, KindString, KindVariable:
		if it.Next == nil && found == nil && it.Kind != KindVariable {
			// A missing variable must still fail, so variables are
			// always looked up.
			return ok, nil
		}
		saved := e.base
		lit, err := e.literal(it)
		if err != nil {
			return failed, err
		}
		st, err := e.next(it, lit, found)
		e.base = saved
		return st, err
	}
	return e.method(it, v, found, unwrap)
}

// literal is the value of a literal or $variable item.
func (e *exec) literal(it *Item) (*Value, error) {
	switch it.Kind {
	case KindBool:
		return &Value{Kind: Bool, Bool: it.Bool}, nil
	case KindNumeric:
		return &Value{Kind: Numeric, Num: it.Num}, nil
	case KindString:
		return &Value{Kind: String, Str: it.Str}, nil
	case KindVariable:
		if e.vars == nil {
			return &Value{Kind: Null}, nil
		}
		v := e.vars.field(it.Str)
		if v == nil {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "could not find jsonpath variable \"%s\"", it.Str)
		}
		e.base = baseObject{e.vars, 1}
		return v, nil
	}
	return &Value{Kind: Null}, nil
}

func (e *exec) indexArray(it *Item, v *Value, found *[]*Value) (status, error) {
	if v.Kind != Array && !e.lax {
		if !e.ignoreStructuralErrors {
			return e.fail(pgerror.New(pgerror.SqlJsonArrayNotFound, "jsonpath array accessor can only be applied to an array"))
		}
		return notFound, nil
	}
	size, singleton := len(v.Elems), v.Kind != Array
	if singleton {
		size = 1
	}
	savedSize := e.innermostArraySize
	e.innermostArraySize = size
	defer func() { e.innermostArraySize = savedSize }()
	st := notFound
	for _, sub := range it.Subscripts {
		from, st2, err := e.arrayIndex(sub.From, v)
		if err != nil || st2 == failed {
			return failed, err
		}
		to := from
		if sub.To != nil {
			if to, st2, err = e.arrayIndex(sub.To, v); err != nil || st2 == failed {
				return failed, err
			}
		}
		if !e.ignoreStructuralErrors && (from < 0 || from > to || to >= int64(size)) {
			return e.fail(pgerror.New(pgerror.InvalidSqlJsonSubscript, "jsonpath array subscript is out of bounds"))
		}
		from = max(from, 0)
		to = min(to, int64(size)-1)
		st = notFound
		for i := from; i <= to; i++ {
			elem := v
			if !singleton {
				elem = v.Elems[i]
			}
			if it.Next == nil && found == nil {
				return ok, nil
			}
			if st, err = e.next(it, elem, found); err != nil || st == failed {
				return failed, err
			}
			if st == ok && found == nil {
				break
			}
		}
		if st == ok && found == nil {
			break
		}
	}
	return st, nil
}

// arrayIndex evaluates a subscript to an integer, truncating fractions.
func (e *exec) arrayIndex(it *Item, v *Value) (int64, status, error) {
	var found []*Value
	st, err := e.item(it, v, &found)
	if err != nil || st == failed {
		return 0, failed, err
	}
	if len(found) != 1 || found[0].Kind != Numeric {
		st, err := e.fail(pgerror.New(pgerror.InvalidSqlJsonSubscript, "jsonpath array subscript is not a single numeric value"))
		return 0, st, err
	}
	var t apd.Decimal
	if _, err := apd.BaseContext.WithPrecision(1000).RoundToIntegralValue(&t, truncated(found[0].Num)); err != nil {
		return 0, failed, err
	}
	n, err := t.Int64()
	if err != nil || n < -1<<31 || n > 1<<31-1 {
		st, err := e.fail(pgerror.New(pgerror.InvalidSqlJsonSubscript, "jsonpath array subscript is out of integer range"))
		return 0, st, err
	}
	return n, ok, nil
}

// truncated returns d with its fraction dropped (toward zero).
func truncated(d *apd.Decimal) *apd.Decimal {
	if d.Exponent >= 0 {
		return d
	}
	var r apd.Decimal
	c := apd.BaseContext.WithPrecision(1000)
	c.Rounding = apd.RoundDown
	_, _ = c.Quantize(&r, d, 0)
	return &r
}

// anyItem visits the members or elements of container v at depths
// level..last (.*, [*], .**), running it on each from depth first.
func (e *exec) anyItem(it *Item, v *Value, found *[]*Value, level, first, last uint32, ignoreStructural, unwrapNext bool) (status, error) {
	st := notFound
	if level > last {
		return st, nil
	}
	children := v.Elems
	if v.Kind == Object {
		children = v.Vals
	}
	for _, c := range children {
		isContainer := c.Kind == Array || c.Kind == Object
		if level >= first || (first == AnyLast && last == AnyLast && !isContainer) {
			switch {
			case it != nil:
				saved := e.ignoreStructuralErrors
				if ignoreStructural {
					e.ignoreStructuralErrors = true
				}
				var err error
				st, err = e.itemUnwrap(it, c, found, unwrapNext)
				e.ignoreStructuralErrors = saved
				if err != nil || st == failed {
					return failed, err
				}
				if st == ok && found == nil {
					return st, nil
				}
			case found != nil:
				*found = append(*found, c)
			default:
				return ok, nil
			}
		}
		if level < last && isContainer {
			var err error
			st, err = e.anyItem(it, c, found, level+1, first, last, ignoreStructural, unwrapNext)
			if err != nil || st == failed {
				return failed, err
			}
			if st == ok && found == nil {
				return st, nil
			}
		}
	}
	return st, nil
}

// itemsUnwrapped evaluates it and, in lax mode when unwrap is set, replaces
// each array in the result by its elements.
func (e *exec) itemsUnwrapped(it *Item, v *Value, unwrap bool, found *[]*Value) (status, error) {
	if !unwrap || !e.lax {
		return e.item(it, v, found)
	}
	var seq []*Value
	st, err := e.item(it, v, &seq)
	if err != nil || st == failed {
		return failed, err
	}
	for _, s := range seq {
		if s.Kind == Array {
			*found = append(*found, s.Elems...)
		} else {
			*found = append(*found, s)
		}
	}
	return ok, nil
}

// itemsNoThrow is itemsUnwrapped with errors suppressed.
func (e *exec) itemsNoThrow(it *Item, v *Value, unwrap bool, found *[]*Value) (status, error) {
	saved := e.throwErrors
	e.throwErrors = false
	st, err := e.itemsUnwrapped(it, v, unwrap, found)
	e.throwErrors = saved
	return st, err
}
