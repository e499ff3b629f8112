package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The array functions of PostgreSQL 15 over one-dimensional arrays with
// lower bound 1. Their signatures are polymorphic (anyarray,
// anycompatible), so builders resolve them from the argument types.

func init() {
	builders["array_length"] = arrayDimFunc(func(_ int64, a []any) any { return int64(len(a)) })
	builders["array_upper"] = arrayDimFunc(func(lb int64, a []any) any { return lb + int64(len(a)) - 1 })
	builders["array_lower"] = arrayDimFunc(func(lb int64, _ []any) any { return lb })
	builders["cardinality"] = arrayUnary(Int4, func(_ Type, a []any) (any, error) { return int64(len(a)), nil }, true)
	builders["array_ndims"] = arrayUnary(Int4, func(Type, []any) (any, error) { return int64(1), nil }, false)
	builders["array_dims"] = arrayUnary(Text, func(t Type, a []any) (any, error) {
		lb := t.LowerBound()
		return "[" + strconv.FormatInt(lb, 10) + ":" + strconv.FormatInt(lb+int64(len(a))-1, 10) + "]", nil
	}, false)
	builders["array_append"] = concatBuilder(true, false)
	builders["array_prepend"] = concatBuilder(false, true)
	builders["array_cat"] = concatBuilder(true, true)
	builders["array_position"] = arrayElemFunc(Int4, func(elem Type, lb int64, a []any, e any) any {
		for k, x := range a {
			if equalOrBothNull(elem, x, e) {
				return int64(k) + lb
			}
		}
		return nil
	})
	builders["array_positions"] = arrayElemFunc(Type{arrayTypes[OidInt4], -1}, func(elem Type, lb int64, a []any, e any) any {
		out := []any{}
		for k, x := range a {
			if equalOrBothNull(elem, x, e) {
				out = append(out, int64(k)+lb)
			}
		}
		return out
	})
	builders["array_remove"] = arrayElemFunc(Type{}, func(elem Type, _ int64, a []any, e any) any {
		out := []any{}
		for _, x := range a {
			if !equalOrBothNull(elem, x, e) {
				out = append(out, x)
			}
		}
		return out
	})
	builders["array_to_string"] = arrayToStringBuilder
	builders["array_to_json"] = func(args []Type) (*Func, bool, error) {
		if len(args) != 1 {
			return nil, false, nil
		}
		t, err := arrayArgType(args[0])
		if err != nil || t.Oid == 0 {
			return nil, false, err
		}
		return &Func{Args: []Type{t}, Result: JSON, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			return arrayToJSON(env, t, a[0].([]any)).src, nil
		}}, true, nil
	}
	builders["array_replace"] = arrayReplaceBuilder
	builders["string_to_array"] = stringToArrayBuilder
}

// equalOrBothNull is IS NOT DISTINCT FROM on elements, as array_position
// and array_remove compare.
func equalOrBothNull(elem Type, x, y any) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return compare(elem, x, y) == 0
}

// arrayArgType returns the array type of a polymorphic anyarray argument;
// an unknown literal cannot decide it.
func arrayArgType(t Type) (Type, error) {
	if t.Oid == OidUnknown {
		return Type{}, pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	if !t.IsArray() {
		return Type{}, nil
	}
	return t, nil
}

// arrayUnary builds f(anyarray) returning result; emptyIsValue says
// whether an empty array has a value (cardinality 0) or NULL (array_ndims).
func arrayUnary(result Type, f func(Type, []any) (any, error), emptyIsValue bool) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 1 {
			return nil, false, nil
		}
		t, err := arrayArgType(args[0])
		if err != nil || t.Oid == 0 {
			return nil, false, err
		}
		return &Func{Args: []Type{t}, Result: result, Volatility: Immutable, Eval: func(_ *Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			arr := a[0].([]any)
			if len(arr) == 0 && !emptyIsValue {
				return nil, nil
			}
			return f(t, arr)
		}}, true, nil
	}
}

// arrayDimFunc builds f(anyarray, int) for array_length, array_upper and
// array_lower: NULL for an empty array or a dimension other than 1.
func arrayDimFunc(f func(lb int64, a []any) any) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 2 || !canCoerce(args[1], Int4, CastImplicit) {
			return nil, false, nil
		}
		t, err := arrayArgType(args[0])
		if err != nil || t.Oid == 0 {
			return nil, false, err
		}
		dim, err := lookupCast(args[1], Int4, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		return &Func{Args: []Type{t, Int4}, Result: Int4, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil || a[1] == nil {
				return nil, nil
			}
			d, err := dim(env, a[1])
			if err != nil {
				return nil, err
			}
			arr := a[0].([]any)
			if d.(int64) != 1 || len(arr) == 0 {
				return nil, nil
			}
			return f(t.LowerBound(), arr), nil
		}}, true, nil
	}
}

// concatBuilder builds array_append (array, element), array_prepend
// (element, array) and array_cat (array, array) from the || operator.
func concatBuilder(leftArray, rightArray bool) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 2 {
			return nil, false, nil
		}
		for i, wantArray := range []bool{leftArray, rightArray} {
			if args[i].Oid != OidUnknown && args[i].IsArray() != wantArray {
				return nil, false, nil
			}
		}
		l, r := args[0], args[1]
		if l.Oid == OidUnknown && !leftArray && r.IsArray() {
			l, _ = r.Elem()
		}
		if r.Oid == OidUnknown && !rightArray && l.IsArray() {
			r, _ = l.Elem()
		}
		op, err := resolveArrayConcat(l, r)
		if err != nil {
			return nil, false, nil
		}
		cl, err := lookupCast(args[0], l, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		cr, err := lookupCast(args[1], r, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		return &Func{Args: []Type{op.Left, op.Right}, Result: op.Result, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
			x, y := a[0], a[1]
			var err error
			if x != nil {
				if x, err = cl(env, x); err != nil {
					return nil, err
				}
			}
			if y != nil {
				if y, err = cr(env, y); err != nil {
					return nil, err
				}
			}
			return op.EvalEnv(env, x, y)
		}}, true, nil
	}
}

// arrayElemFunc builds f(anyarray, anyelement) for array_position,
// array_positions and array_remove: the element argument is coerced to the
// array's element type; only the array NULL makes the result NULL. The
// result is of type result, or of the array's type when result is zero.
func arrayElemFunc(result Type, f func(elem Type, lb int64, a []any, e any) any) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 2 {
			return nil, false, nil
		}
		t, err := arrayArgType(args[0])
		if err != nil || t.Oid == 0 {
			return nil, false, err
		}
		elem, _ := Type{t.Oid, -1}.Elem()
		if !canCoerce(args[1], elem, CastImplicit) {
			return nil, false, nil
		}
		ce, err := lookupCast(args[1], elem, CastImplicit)
		if err != nil {
			return nil, false, err
		}
		res := result
		if res.Oid == 0 {
			res = t
		}
		return &Func{Args: []Type{t, elem}, Result: res, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			e := a[1]
			if e != nil {
				var err error
				if e, err = ce(env, e); err != nil {
					return nil, err
				}
			}
			return f(elem, t.LowerBound(), a[0].([]any), e), nil
		}}, true, nil
	}
}

// arrayReplaceBuilder builds array_replace(anyarray, anyelement,
// anyelement): every element not distinct from the second argument
// replaced by the third.
func arrayReplaceBuilder(args []Type) (*Func, bool, error) {
	if len(args) != 3 {
		return nil, false, nil
	}
	t, err := arrayArgType(args[0])
	if err != nil || t.Oid == 0 {
		return nil, false, err
	}
	elem, _ := Type{t.Oid, -1}.Elem()
	casts := make([]EnvCastFunc, 3)
	for i := 1; i < 3; i++ {
		if !canCoerce(args[i], elem, CastImplicit) {
			return nil, false, nil
		}
		if casts[i], err = lookupCast(args[i], elem, CastImplicit); err != nil {
			return nil, false, err
		}
	}
	return &Func{Args: []Type{t, elem, elem}, Result: t, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		conv := make([]any, 3)
		for i := 1; i < 3; i++ {
			if a[i] == nil {
				continue
			}
			var err error
			if conv[i], err = casts[i](env, a[i]); err != nil {
				return nil, err
			}
		}
		out := make([]any, 0, len(a[0].([]any)))
		for _, x := range a[0].([]any) {
			if equalOrBothNull(elem, x, conv[1]) {
				x = conv[2]
			}
			out = append(out, x)
		}
		return out, nil
	}}, true, nil
}

// arrayToStringBuilder builds array_to_string(anyarray, text [, text]):
// the elements' text joined by the delimiter, NULLs skipped or replaced.
func arrayToStringBuilder(args []Type) (*Func, bool, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, false, nil
	}
	t, err := arrayArgType(args[0])
	if err != nil || t.Oid == 0 {
		return nil, false, err
	}
	casts := make([]EnvCastFunc, len(args))
	for i := 1; i < len(args); i++ {
		if !canCoerce(args[i], Text, CastImplicit) {
			return nil, false, nil
		}
		if casts[i], err = lookupCast(args[i], Text, CastImplicit); err != nil {
			return nil, false, err
		}
	}
	elem, _ := t.Elem()
	declared := append([]Type{t}, repeatType(Text, len(args)-1)...)
	return &Func{Args: declared, Result: Text, Volatility: Stable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil || a[1] == nil {
			return nil, nil
		}
		delim, err := casts[1](env, a[1])
		if err != nil {
			return nil, err
		}
		var nullText any
		if len(a) == 3 && a[2] != nil {
			if nullText, err = casts[2](env, a[2]); err != nil {
				return nil, err
			}
		}
		var b strings.Builder
		first := true
		for i, e := range a[0].([]any) {
			if i%interruptEvery == interruptEvery-1 {
				if err := env.Interrupt(); err != nil {
					return nil, err
				}
			}
			var s string
			switch {
			case e != nil:
				s = formatText(env, elem, e)
			case nullText != nil:
				s = nullText.(string)
			default:
				continue
			}
			if !first {
				b.WriteString(delim.(string))
			}
			first = false
			b.WriteString(s)
		}
		return b.String(), nil
	}}, true, nil
}

// stringToArrayBuilder builds string_to_array(text, text [, text]): the
// string split at each delimiter (a NULL delimiter splits into characters,
// an empty one yields the whole string), fields equal to the third
// argument becoming NULL.
func stringToArrayBuilder(args []Type) (*Func, bool, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, false, nil
	}
	casts := make([]EnvCastFunc, len(args))
	for i := range args {
		if !canCoerce(args[i], Text, CastImplicit) {
			return nil, false, nil
		}
		var err error
		if casts[i], err = lookupCast(args[i], Text, CastImplicit); err != nil {
			return nil, false, err
		}
	}
	textArray, _ := ArrayOf(Text)
	return &Func{Args: repeatType(Text, len(args)), Result: textArray, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		conv := make([]any, len(a))
		for i, v := range a {
			if v == nil {
				continue
			}
			x, err := casts[i](env, v)
			if err != nil {
				return nil, err
			}
			conv[i] = x
		}
		s := conv[0].(string)
		if s == "" {
			return []any{}, nil
		}
		var fields []string
		switch {
		case conv[1] == nil:
			for _, r := range s {
				fields = append(fields, string(r))
			}
		case conv[1].(string) == "":
			fields = []string{s}
		default:
			fields = strings.Split(s, conv[1].(string))
		}
		if err := env.Interrupt(); err != nil {
			return nil, err
		}
		out := make([]any, len(fields))
		for i, f := range fields {
			if i%interruptEvery == interruptEvery-1 {
				if err := env.Interrupt(); err != nil {
					return nil, err
				}
			}
			if len(conv) == 3 && conv[2] != nil && f == conv[2].(string) {
				continue
			}
			out[i] = f
		}
		return out, nil
	}}, true, nil
}

// arrayAggAcc is array_agg over a non-array type: the rows' values, NULLs
// included, in input order; NULL over no rows.
type arrayAggAcc struct {
	cast  EnvCastFunc
	elems []any
	any   bool
}

func (a *arrayAggAcc) Add(args []any) error {
	a.any = true
	v := args[0]
	if v != nil && a.cast != nil {
		var err error
		if v, err = a.cast(nil, v); err != nil {
			return err
		}
	}
	a.elems = append(a.elems, v)
	return nil
}

func (a *arrayAggAcc) Result() (any, error) {
	if !a.any {
		return nil, nil
	}
	return a.elems, nil
}

// arrayAggregate resolves array_agg(x): an unknown argument is text, an
// array argument (which would build a multidimensional array) is 0A000.
func arrayAggregate(args []Type) (*Aggregate, error) {
	if len(args) != 1 {
		return nil, funcError("array_agg", args, false)
	}
	in := args[0]
	if in.IsArray() {
		return nil, errMultiDim()
	}
	elem := in
	var cast EnvCastFunc
	if in.Oid == OidUnknown {
		elem = Text
		var err error
		if cast, err = lookupCast(in, Text, CastImplicit); err != nil {
			return nil, err
		}
	}
	arr, ok := ArrayOf(elem)
	if !ok {
		return nil, unsupportedType(in)
	}
	return &Aggregate{Name: "array_agg", Args: []Type{elem}, Result: arr, New: func() Accumulator { return &arrayAggAcc{cast: cast} }}, nil
}

// arrayToJSON is array_to_json: a JSON array of the elements' to_json
// values, printed without spaces (json keeps that text when embedded).
func arrayToJSON(env *Env, t Type, elems []any) *jsonValue {
	elem, _ := t.Elem()
	arr := &jsonValue{kind: jsonArray}
	src := []byte{'['}
	for i, e := range elems {
		v := toJSONValue(env, elem, e)
		arr.elems = append(arr.elems, v)
		if i > 0 {
			src = append(src, ',')
		}
		src = appendJSONBuilt(src, v)
	}
	arr.src = string(append(src, ']'))
	return arr
}
