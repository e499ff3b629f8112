package types

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Assignment to array subscripts and slices (UPDATE t SET a[i] = v,
// INSERT INTO t (a[lo:hi]) ...): array_set_element and array_set_slice. A
// NULL array counts as empty; a one-dimensional array grows to take a
// subscript beyond its bounds, padding with NULLs; a multidimensional one
// does not.

func errSubscriptCount() error {
	return pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts")
}

func errSubscriptRange() error {
	return pgerror.New(pgerror.ArraySubscriptError, "array subscript out of range")
}

// errArraySize is the error of a shape with a negative or huge number of
// elements.
func errArraySize() error {
	return pgerror.Newf(pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", 134217727)
}

// growOneDim returns the elements and lower bound of the one-dimensional
// array (lb, elems) widened to cover subscripts lo..hi, new places NULL.
func growOneDim(lb int, elems []any, lo, hi int) (int, []any, error) {
	newLb, newUb := min(lb, lo), max(lb+len(elems)-1, hi)
	if newUb-newLb+1 > maxArrayItems {
		return 0, nil, errArraySize()
	}
	out := make([]any, newUb-newLb+1)
	copy(out[lb-newLb:], elems)
	return newLb, out, nil
}

// AssignArrayElement is a[subs...] = v on the array datum arr (nil for
// NULL) of type t.
func AssignArrayElement(t Type, arr any, subs []int, v any) (any, error) {
	dims, lower, elems := ArrayShapeOf(t, arr)
	if len(dims) == 0 {
		ones := make([]int, len(subs))
		for k := range ones {
			ones[k] = 1
		}
		return pgarray.Make(ones, append([]int(nil), subs...), []any{v}), nil
	}
	if len(subs) != len(dims) {
		return nil, errSubscriptCount()
	}
	if len(dims) == 1 {
		lb, out, err := growOneDim(lower[0], elems, subs[0], subs[0])
		if err != nil {
			return nil, err
		}
		out[subs[0]-lb] = v
		return pgarray.Make([]int{len(out)}, []int{lb}, out), nil
	}
	off := 0
	for k, s := range subs {
		i := s - lower[k]
		if i < 0 || i >= dims[k] {
			return nil, errSubscriptRange()
		}
		off = off*dims[k] + i
	}
	out := append([]any(nil), elems...)
	out[off] = v
	return pgarray.Make(dims, lower, out), nil
}

// SliceBound is one dimension of a slice in an assignment; a bound not
// given is the array's own.
type SliceBound struct {
	Lo, Hi       int
	HasLo, HasHi bool
}

// AssignArraySlice is a[lo:hi]... = src on the array datum arr (nil for
// NULL) of type t: the slice's places take the first elements of src in
// storage order. A NULL src leaves the array as it is.
func AssignArraySlice(t Type, arr any, bounds []SliceBound, src any) (any, error) {
	dims, lower, elems := ArrayShapeOf(t, arr)
	if src == nil {
		if arr == nil {
			return []any{}, nil
		}
		return arr, nil
	}
	source, _ := pgarray.Elems(src)
	if len(dims) == 0 {
		outDims, outLower := make([]int, len(bounds)), make([]int, len(bounds))
		n := 1
		for k, b := range bounds {
			if !b.HasLo || !b.HasHi {
				return nil, pgerror.New(pgerror.ArraySubscriptError, "array slice subscript must provide both boundaries").
					WithDetail("When assigning to a slice of an empty array value, slice boundaries must be fully specified.")
			}
			outDims[k], outLower[k] = b.Hi-b.Lo+1, b.Lo
			if outDims[k] < 0 || n*outDims[k] > maxArrayItems {
				return nil, errArraySize()
			}
			n *= outDims[k]
		}
		if n == 0 {
			return []any{}, nil
		}
		if len(source) < n {
			return nil, pgerror.New(pgerror.ArraySubscriptError, "source array too small")
		}
		return pgarray.Make(outDims, outLower, append([]any(nil), source[:n]...)), nil
	}
	if len(bounds) > len(dims) {
		return nil, errSubscriptCount()
	}
	los, his := make([]int, len(dims)), make([]int, len(dims))
	for k := range dims {
		los[k], his[k] = lower[k], lower[k]+dims[k]-1
		if k < len(bounds) {
			if bounds[k].HasLo {
				los[k] = bounds[k].Lo
			}
			if bounds[k].HasHi {
				his[k] = bounds[k].Hi
			}
		}
		if his[k] < los[k] {
			return nil, pgerror.New(pgerror.ArraySubscriptError, "upper bound cannot be less than lower bound")
		}
	}
	if len(dims) == 1 {
		n := his[0] - los[0] + 1
		if len(source) < n {
			return nil, pgerror.New(pgerror.ArraySubscriptError, "source array too small")
		}
		lb, out, err := growOneDim(lower[0], elems, los[0], his[0])
		if err != nil {
			return nil, err
		}
		copy(out[los[0]-lb:], source[:n])
		return pgarray.Make([]int{len(out)}, []int{lb}, out), nil
	}
	n := 1
	for k := range dims {
		if los[k] < lower[k] || his[k] > lower[k]+dims[k]-1 {
			return nil, errSubscriptRange()
		}
		n *= his[k] - los[k] + 1
	}
	if len(source) < n {
		return nil, pgerror.New(pgerror.ArraySubscriptError, "source array too small")
	}
	out := append([]any(nil), elems...)
	next := 0
	var walk func(k, off int)
	walk = func(k, off int) {
		for s := los[k]; s <= his[k]; s++ {
			o := off*dims[k] + s - lower[k]
			if k+1 == len(dims) {
				out[o] = source[next]
				next++
				continue
			}
			walk(k+1, o)
		}
	}
	walk(0, 0)
	return pgarray.Make(dims, lower, out), nil
}
