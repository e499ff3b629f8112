package types

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The array functions of PostgreSQL 15. Their signatures are polymorphic
// (anyarray, anycompatible), so builders resolve them from the argument
// types.

func init() {
	builders["array_length"] = arrayDimFunc(func(length, _ int) int { return length })
	builders["array_upper"] = arrayDimFunc(func(length, lb int) int { return lb + length - 1 })
	builders["array_lower"] = arrayDimFunc(func(_, lb int) int { return lb })
	builders["cardinality"] = arrayUnary(Int4, func(_ Type, a any) (any, error) {
		elems, _ := pgarray.Elems(a)
		return int64(len(elems)), nil
	}, true)
	builders["array_ndims"] = arrayUnary(Int4, func(t Type, a any) (any, error) {
		dims, _, _ := ArrayShapeOf(t, a)
		return int64(len(dims)), nil
	}, false)
	builders["array_dims"] = arrayUnary(Text, func(t Type, a any) (any, error) {
		dims, lower, _ := ArrayShapeOf(t, a)
		var b strings.Builder
		for k := range dims {
			b.WriteString("[" + strconv.Itoa(lower[k]) + ":" + strconv.Itoa(lower[k]+dims[k]-1) + "]")
		}
		return b.String(), nil
	}, false)
	builders["array_append"] = concatBuilder(true, false)
	builders["array_prepend"] = concatBuilder(false, true)
	builders["array_cat"] = concatBuilder(true, true)
	builders["array_positions"] = arrayElemFunc(Type{arrayTypes[OidInt4], -1}, func(elem Type, t Type, a, e any) (any, error) {
		lb, elems, err := searchableArray(t, a, "searching for elements in")
		if err != nil {
			return nil, err
		}
		out := []any{}
		for k, x := range elems {
			if equalOrBothNull(elem, x, e) {
				out = append(out, int64(k+lb))
			}
		}
		return out, nil
	})
	builders["array_remove"] = arrayElemFunc(Type{}, func(elem Type, t Type, a, e any) (any, error) {
		_, elems, err := searchableArray(t, a, "removing elements from")
		if err != nil {
			return nil, err
		}
		out := []any{}
		for _, x := range elems {
			if !equalOrBothNull(elem, x, e) {
				out = append(out, x)
			}
		}
		// The datum's own lower bound: a vector's 0 is its type's.
		dims, lower, _, _ := pgarray.Shape(a)
		if len(dims) == 0 {
			return out, nil
		}
		return pgarray.Make([]int{len(out)}, []int{lower[0]}, out), nil
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
			return arrayToJSON(env, t, a[0]).src, nil
		}}, true, nil
	}
	builders["array_replace"] = arrayReplaceBuilder
	builders["string_to_array"] = stringToArrayBuilder
}

// flatElems returns the elements of an array datum in storage order.
func flatElems(v any) []any {
	elems, _ := pgarray.Elems(v)
	return elems
}

// equalOrBothNull is IS NOT DISTINCT FROM on elements, as array_position
// and array_remove compare.
func equalOrBothNull(elem Type, x, y any) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return compare(elem, x, y) == 0
}

// anyCompatibleArray resolves the arguments of a function declared with
// anycompatiblearray (the positions arrays says) and anycompatible (the
// others), as PostgreSQL's enforce_generic_type_consistency: the element
// type is the common type of the arrays' elements and the other arguments,
// unknown ones left out (text when all are), and the array type is the
// array over it. ok is false when no function matches: an argument at an
// array position is no array, or the types have no common type.
func anyCompatibleArray(args []Type, arrays ...int) (array, elem Type, declared []Type, ok bool) {
	var actual []Type
	for i, t := range args {
		switch {
		case t.Oid == OidUnknown:
		case slices.Contains(arrays, i):
			e, isArray := t.Elem()
			if !isArray {
				return Type{}, Type{}, nil, false
			}
			actual = append(actual, Type{e.Oid, -1})
		default:
			actual = append(actual, Type{t.Oid, -1})
		}
	}
	elem = Text
	if len(actual) > 0 {
		var err error
		if elem, err = commonType("anycompatible", actual); err != nil {
			return Type{}, Type{}, nil, false
		}
		elem.Typmod = -1
	}
	if array, ok = ArrayOf(elem); !ok {
		return Type{}, Type{}, nil, false
	}
	declared = make([]Type, len(args))
	for i := range args {
		declared[i] = elem
		if slices.Contains(arrays, i) {
			declared[i] = array
		}
	}
	return array, elem, declared, true
}

// anyCompatibleCall resolves a call whose first argument is
// anycompatiblearray and whose others are anycompatible, with the casts of
// the arguments to the types resolved.
func anyCompatibleCall(args []Type) (array, elem Type, declared []Type, casts []EnvCastFunc, ok bool, err error) {
	if array, elem, declared, ok = anyCompatibleArray(args, 0); !ok {
		return
	}
	casts, ok, err = implicitCasts(args, declared)
	return
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

// ArrayShapeOf returns the dimensions, lower bounds and elements of an
// array datum of type t: a one-dimensional int2vector or oidvector counts
// from 0.
func ArrayShapeOf(t Type, v any) (dims, lower []int, elems []any) {
	dims, lower, elems, _ = pgarray.Shape(v)
	if len(dims) == 1 && lower[0] == 1 {
		lower = []int{int(t.LowerBound())}
	}
	return dims, lower, elems
}

// searchableArray returns the lower bound and the elements of a
// one-dimensional array for array_position, array_positions and
// array_remove, which refuse more dimensions as PostgreSQL does.
func searchableArray(t Type, a any, what string) (int, []any, error) {
	dims, lower, elems := ArrayShapeOf(t, a)
	if len(dims) > 1 {
		return 0, nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s multidimensional arrays is not supported", what)
	}
	if len(dims) == 0 {
		return 1, elems, nil
	}
	return lower[0], elems, nil
}

// arrayUnary builds f(anyarray) returning result; emptyIsValue says
// whether an empty array has a value (cardinality 0) or NULL (array_ndims).
func arrayUnary(result Type, f func(Type, any) (any, error), emptyIsValue bool) funcBuilder {
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
			if elems, _ := pgarray.Elems(a[0]); len(elems) == 0 && !emptyIsValue {
				return nil, nil
			}
			return f(t, a[0])
		}}, true, nil
	}
}

// arrayDimFunc builds f(anyarray, int) for array_length, array_upper and
// array_lower from the length and lower bound of the dimension: NULL for a
// dimension the array does not have.
func arrayDimFunc(f func(length, lb int) int) funcBuilder {
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
			dims, lower, _ := ArrayShapeOf(t, a[0])
			k := d.(int64) - 1
			if k < 0 || k >= int64(len(dims)) {
				return nil, nil
			}
			return int64(f(dims[k], lower[k])), nil
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

// arrayElemFunc builds f(anycompatiblearray, anycompatible) for
// array_positions and array_remove: both arguments are coerced to their
// common type; only the array NULL makes the result NULL. The result is of type
// result, or of the array's type when result is zero.
func arrayElemFunc(result Type, f func(elem, t Type, a, e any) (any, error)) funcBuilder {
	return func(args []Type) (*Func, bool, error) {
		if len(args) != 2 {
			return nil, false, nil
		}
		t, elem, declared, casts, ok, err := anyCompatibleCall(args)
		if !ok || err != nil {
			return nil, false, err
		}
		res := result
		if res.Oid == 0 {
			res = t
		}
		return &Func{Args: declared, Result: res, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
			if a[0] == nil {
				return nil, nil
			}
			a, err := applyCasts(env, casts, a)
			if err != nil {
				return nil, err
			}
			return f(elem, t, a[0], a[1])
		}}, true, nil
	}
}

// arrayReplaceBuilder builds array_replace(anycompatiblearray,
// anycompatible, anycompatible): every element not distinct from the second argument
// replaced by the third.
func arrayReplaceBuilder(args []Type) (*Func, bool, error) {
	if len(args) != 3 {
		return nil, false, nil
	}
	t, elem, declared, casts, ok, err := anyCompatibleCall(args)
	if !ok || err != nil {
		return nil, false, err
	}
	return &Func{Args: declared, Result: t, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		conv, err := applyCasts(env, casts, a)
		if err != nil {
			return nil, err
		}
		dims, lower, elems, _ := pgarray.Shape(conv[0])
		out := make([]any, 0, len(elems))
		for _, x := range elems {
			if equalOrBothNull(elem, x, conv[1]) {
				x = conv[2]
			}
			out = append(out, x)
		}
		return pgarray.Make(dims, lower, out), nil
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
		elems, _ := pgarray.Elems(a[0])
		for i, e := range elems {
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

// arrayToJSON is array_to_json: a JSON array of the elements' to_json
// values, printed without spaces (json keeps that text when embedded).
// A multidimensional array is a JSON array of the JSON arrays of its
// sub-arrays.
func arrayToJSON(env *Env, t Type, v any) *jsonValue {
	elem, _ := t.Elem()
	dims, _, elems, _ := pgarray.Shape(v)
	next := 0
	var level func(d int) *jsonValue
	level = func(d int) *jsonValue {
		arr := &jsonValue{kind: jsonArray}
		src := []byte{'['}
		n := 0
		if d < len(dims) {
			n = dims[d]
		}
		for i := range n {
			var v *jsonValue
			if d+1 < len(dims) {
				v = level(d + 1)
			} else {
				v = toJSONValue(env, elem, elems[next])
				next++
			}
			arr.elems = append(arr.elems, v)
			if i > 0 {
				src = append(src, ',')
			}
			src = appendJSONBuilt(src, v)
		}
		arr.src = string(append(src, ']'))
		return arr
	}
	return level(0)
}
