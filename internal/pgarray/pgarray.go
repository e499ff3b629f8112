// Package pgarray holds the datum of the arrays that are not one-dimensional
// with lower bound 1, shared by the executor (sqlexec/types) and the wire
// codecs, which must not depend on each other.
//
// Every array datum is one of two Go values: []any, the elements of a
// one-dimensional array with lower bound 1 (or of an empty array), which is
// what drivers send and ARRAY[...] builds; or *Array, for every other
// shape. Make chooses between them, so a shape has exactly one datum and
// code that only meets plain arrays keeps working on []any.
package pgarray

// MaxDims is PostgreSQL's MAXDIM: an array has at most six dimensions.
const MaxDims = 6

// Array is an array of one or more dimensions with explicit lower bounds:
// Elems holds Dims[0]*...*Dims[n-1] elements in row-major order (the last
// subscript varies fastest), nil for a NULL element.
type Array struct {
	Dims  []int
	Lower []int
	Elems []any
}

// Make returns the datum of an array of the given shape: []any when it is
// empty or one-dimensional with lower bound 1, *Array otherwise.
func Make(dims, lower []int, elems []any) any {
	if len(elems) == 0 {
		return []any{}
	}
	if len(dims) == 1 && lower[0] == 1 {
		return elems
	}
	return &Array{Dims: dims, Lower: lower, Elems: elems}
}

// Shape returns the dimensions, lower bounds and elements of an array
// datum; an empty array has no dimensions. ok is false for other values.
func Shape(v any) (dims, lower []int, elems []any, ok bool) {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return nil, nil, x, true
		}
		return []int{len(x)}, []int{1}, x, true
	case *Array:
		return x.Dims, x.Lower, x.Elems, true
	}
	return nil, nil, nil, false
}

// Elems returns the elements of an array datum in storage order, the order
// unnest and the containment operators see them in.
func Elems(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case *Array:
		return x.Elems, true
	}
	return nil, false
}
