package types

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// array_position, width_bucket over a thresholds array, array_fill and
// trim_array.

func init() {
	builders["array_position"] = arrayPositionBuilder
	builders["width_bucket"] = widthBucketArrayBuilder
	builders["array_fill"] = arrayFillBuilder
	builders["trim_array"] = trimArrayBuilder
}

// implicitCasts returns the casts of the arguments to the declared types, or
// ok false when one cannot be coerced implicitly.
func implicitCasts(args, declared []Type) ([]EnvCastFunc, bool, error) {
	casts := make([]EnvCastFunc, len(args))
	for i := range args {
		if !canCoerce(args[i], declared[i], CastImplicit) {
			return nil, false, nil
		}
		var err error
		if casts[i], err = lookupCast(args[i], declared[i], CastImplicit); err != nil {
			return nil, false, err
		}
	}
	return casts, true, nil
}

// applyCasts converts the non-NULL arguments.
func applyCasts(env *Env, casts []EnvCastFunc, a []any) ([]any, error) {
	out := make([]any, len(a))
	for i, v := range a {
		if v == nil {
			continue
		}
		x, err := casts[i](env, v)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// arrayPositionBuilder builds array_position(anycompatiblearray,
// anycompatible [, int]): the subscript of the first element not distinct
// from the second argument, searching from the third, or NULL.
func arrayPositionBuilder(args []Type) (*Func, bool, error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, false, nil
	}
	t, elem, declared, ok := anyCompatibleArray(args[:2], 0)
	if !ok {
		return nil, false, nil
	}
	declared = append(declared, Int4)[:len(args)]
	casts, ok, err := implicitCasts(args, declared)
	if !ok || err != nil {
		return nil, false, err
	}
	return &Func{Args: declared, Result: Int4, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil {
			return nil, nil
		}
		if len(a) == 3 && a[2] == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "initial position must not be null")
		}
		a, err := applyCasts(env, casts, a)
		if err != nil {
			return nil, err
		}
		lb, elems, err := searchableArray(t, a[0], "searching for elements in")
		if err != nil {
			return nil, err
		}
		from := 0
		if len(a) == 3 {
			from = max(int(a[2].(int64))-lb, 0)
		}
		for k := from; k < len(elems); k++ {
			if equalOrBothNull(elem, elems[k], a[1]) {
				return int64(k + lb), nil
			}
		}
		return nil, nil
	}}, true, nil
}

// widthBucketArrayBuilder builds width_bucket(anycompatible,
// anycompatiblearray): the number of thresholds at or below the operand,
// found by binary search in the (sorted) one-dimensional thresholds array.
func widthBucketArrayBuilder(args []Type) (*Func, bool, error) {
	if len(args) != 2 || (!args[1].IsArray() && args[1].Oid != OidUnknown) {
		return nil, false, nil
	}
	elemOf := args[0]
	if args[1].IsArray() {
		e, _ := args[1].Elem()
		elemOf = Type{e.Oid, -1}
	}
	elem, err := commonType("width_bucket", []Type{args[0], elemOf})
	if err != nil {
		return nil, false, nil
	}
	arr, ok := ArrayOf(elem)
	if !ok {
		return nil, false, nil
	}
	declared := []Type{elem, arr}
	casts, ok, err := implicitCasts(args, declared)
	if !ok || err != nil {
		return nil, false, err
	}
	return &Func{Args: declared, Result: Int4, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil || a[1] == nil {
			return nil, nil
		}
		a, err := applyCasts(env, casts, a)
		if err != nil {
			return nil, err
		}
		dims, _, elems, _ := pgarray.Shape(a[1])
		if len(dims) > 1 {
			return nil, pgerror.New(pgerror.ArraySubscriptError, "thresholds must be one-dimensional array")
		}
		for _, e := range elems {
			if e == nil {
				return nil, pgerror.New(pgerror.NullValueNotAllowed, "thresholds array must not contain NULLs")
			}
		}
		lo, hi := 0, len(elems)
		for lo < hi {
			mid := (lo + hi) / 2
			if compare(elem, a[0], elems[mid]) < 0 {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return int64(lo), nil
	}}, true, nil
}

// arrayFillBuilder builds array_fill(anyelement, int[] [, int[]]): an array
// of the given dimensions (and lower bounds, 1 by default) whose every
// element is the value.
func arrayFillBuilder(args []Type) (*Func, bool, error) {
	if len(args) != 2 && len(args) != 3 {
		return nil, false, nil
	}
	if args[0].Oid == OidUnknown {
		return nil, false, pgerror.New(pgerror.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	arr, ok := ArrayOf(args[0])
	if !ok || args[0].IsArray() {
		return nil, false, nil
	}
	intArray := Type{arrayTypes[OidInt4], -1}
	declared := []Type{args[0], intArray, intArray}[:len(args)]
	casts, ok, err := implicitCasts(args, declared)
	if !ok || err != nil {
		return nil, false, err
	}
	return &Func{Args: declared, Result: arr, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[1] == nil || len(a) == 3 && a[2] == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "dimension array or low bound array cannot be null")
		}
		a, err := applyCasts(env, casts, a)
		if err != nil {
			return nil, err
		}
		dims, err := fillBounds(a[1], "Dimension array must be one dimensional.")
		if err != nil {
			return nil, err
		}
		lower := make([]int, len(dims))
		for k := range lower {
			lower[k] = 1
		}
		if len(a) == 3 {
			if lower, err = fillBounds(a[2], "Dimension array must be one dimensional."); err != nil {
				return nil, err
			}
			if len(lower) != len(dims) {
				return nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts").
					WithDetail("Low bound array has different size than dimensions array.")
			}
		}
		if len(dims) > pgarray.MaxDims {
			return nil, errTooManyDims(len(dims))
		}
		n := 1
		for _, d := range dims {
			if d < 0 || n*d > maxArrayItems {
				return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayItems)
			}
			n *= d
		}
		if len(dims) == 0 || n == 0 {
			return []any{}, nil
		}
		elems := make([]any, n)
		for k := range elems {
			elems[k] = a[0]
		}
		return pgarray.Make(dims, lower, elems), nil
	}}, true, nil
}

// maxArrayItems bounds the elements of an array fickle builds from a size
// (array_fill, subscript assignment): PostgreSQL's MaxArraySize, far more
// than fits in memory, so fickle refuses at a million elements.
const maxArrayItems = 1 << 20

// fillBounds reads array_fill's dimensions or lower bounds: a
// one-dimensional array of non-NULL integers.
func fillBounds(v any, detail string) ([]int, error) {
	dims, _, elems, _ := pgarray.Shape(v)
	if len(dims) > 1 {
		return nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts").WithDetail("%s", detail)
	}
	out := make([]int, len(elems))
	for k, e := range elems {
		if e == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "dimension values cannot be null")
		}
		out[k] = int(e.(int64))
	}
	return out, nil
}

// trimArrayBuilder builds trim_array(anyarray, int): the array without its
// last n elements along the first dimension, as a slice with lower bounds
// 1.
func trimArrayBuilder(args []Type) (*Func, bool, error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	t, err := arrayArgType(args[0])
	if err != nil || t.Oid == 0 {
		return nil, false, err
	}
	declared := []Type{t, Int4}
	casts, ok, err := implicitCasts(args, declared)
	if !ok || err != nil {
		return nil, false, err
	}
	return &Func{Args: declared, Result: t, Volatility: Immutable, Eval: func(env *Env, a []any) (any, error) {
		if a[0] == nil || a[1] == nil {
			return nil, nil
		}
		a, err := applyCasts(env, casts, a)
		if err != nil {
			return nil, err
		}
		dims, _, elems := ArrayShapeOf(t, a[0])
		length := 0
		if len(dims) > 0 {
			length = dims[0]
		}
		n := a[1].(int64)
		if n < 0 || n > int64(length) {
			return nil, pgerror.Newf(pgerror.ArraySubscriptError, "number of elements to trim must be between 0 and %d", length)
		}
		if length == 0 {
			return a[0], nil
		}
		keep := length - int(n)
		per := len(elems) / length
		out := append([]any{}, elems[:keep*per]...)
		ones := make([]int, len(dims))
		for k := range ones {
			ones[k] = 1
		}
		return pgarray.Make(append([]int{keep}, dims[1:]...), ones, out), nil
	}}, true, nil
}
