package types

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Building arrays from arrays: concatenation (array_cat, array_append,
// array_prepend and ||), and stacking sub-arrays into an array of one more
// dimension (ARRAY[...] of arrays, ARRAY(subquery) and array_agg of
// arrays).

// errIncompatibleConcat is array_cat's 2202E error.
func errIncompatibleConcat(detail string, args ...any) error {
	return pgerror.New(pgerror.ArraySubscriptError, "cannot concatenate incompatible arrays").WithDetail(detail, args...)
}

// concatArrays is array_cat: an empty (or NULL) operand gives the other;
// arrays of one number of dimensions join along the first when their other
// dimensions match; an array of one dimension less becomes a new first or
// last sub-array of the other.
func concatArrays(a, b any) (any, error) {
	da, la, ea, _ := pgarray.Shape(a)
	db, lb, eb, _ := pgarray.Shape(b)
	if len(ea) == 0 {
		if b == nil {
			return []any{}, nil
		}
		return b, nil
	}
	if len(eb) == 0 {
		return a, nil
	}
	elems := append(append(make([]any, 0, len(ea)+len(eb)), ea...), eb...)
	sameInner := func(x, lx, y, ly []int) bool {
		for k := range x {
			if x[k] != y[k] || lx[k] != ly[k] {
				return false
			}
		}
		return true
	}
	switch {
	case len(da) == len(db):
		if !sameInner(da[1:], la[1:], db[1:], lb[1:]) {
			return nil, errIncompatibleConcat("Arrays with differing element dimensions are not compatible for concatenation.")
		}
		dims := append([]int{da[0] + db[0]}, da[1:]...)
		return pgarray.Make(dims, append([]int(nil), la...), elems), nil
	case len(da) == len(db)+1:
		if !sameInner(da[1:], la[1:], db, lb) {
			return nil, errIncompatibleConcat("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims := append([]int{da[0] + 1}, da[1:]...)
		return pgarray.Make(dims, append([]int(nil), la...), elems), nil
	case len(da)+1 == len(db):
		if !sameInner(da, la, db[1:], lb[1:]) {
			return nil, errIncompatibleConcat("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims := append([]int{db[0] + 1}, db[1:]...)
		return pgarray.Make(dims, append([]int(nil), lb...), elems), nil
	}
	return nil, errIncompatibleConcat("Arrays of %d and %d dimensions are not compatible for concatenation.", len(da), len(db))
}

// pushElem is array_append (atEnd) and array_prepend: a NULL array is
// empty; the array must have at most one dimension, whose lower bound the
// result keeps.
func pushElem(arr, e any, atEnd bool) (any, error) {
	dims, lower, elems, _ := pgarray.Shape(arr)
	if len(dims) > 1 {
		return nil, pgerror.New(pgerror.DataException, "argument must be empty or one-dimensional array")
	}
	lb := 1
	if len(dims) == 1 {
		lb = lower[0]
	}
	out := make([]any, 0, len(elems)+1)
	if atEnd {
		out = append(append(out, elems...), e)
	} else {
		out = append(append(out, e), elems...)
	}
	return pgarray.Make([]int{len(out)}, []int{lb}, out), nil
}

// stackArrays builds the array whose sub-arrays are subs, all of one shape
// (dimensions and lower bounds); the new first dimension counts from 1.
// mismatch is the error for sub-arrays of different shapes; an empty
// sub-array is mismatch unless all are, which gives the empty array.
func stackArrays(subs []any, mismatch func() error) (any, error) {
	if len(subs) == 0 {
		return []any{}, nil
	}
	dims, lower, _, _ := pgarray.Shape(subs[0])
	if len(dims)+1 > pgarray.MaxDims {
		return nil, errTooManyDims(len(dims) + 1)
	}
	var elems []any
	for _, s := range subs {
		d, l, e, _ := pgarray.Shape(s)
		if len(d) != len(dims) {
			return nil, mismatch()
		}
		for k := range d {
			if d[k] != dims[k] || l[k] != lower[k] {
				return nil, mismatch()
			}
		}
		elems = append(elems, e...)
	}
	if len(dims) == 0 {
		return []any{}, nil
	}
	return pgarray.Make(append([]int{len(subs)}, dims...), append([]int{1}, lower...), elems), nil
}

// StackArrayExprs is ARRAY[sub, ...] over arrays: NULL sub-arrays count as
// empty.
func StackArrayExprs(subs []any) (any, error) {
	return stackArrays(subs, func() error {
		return pgerror.New(pgerror.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
	})
}

// StackArrayRows is ARRAY(subquery) and array_agg over arrays: a NULL or
// empty sub-array is an error.
func StackArrayRows(subs []any) (any, error) {
	for _, s := range subs {
		if s == nil {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "cannot accumulate null arrays")
		}
		if e, _ := pgarray.Elems(s); len(e) == 0 {
			return nil, pgerror.New(pgerror.ArraySubscriptError, "cannot accumulate empty arrays")
		}
	}
	return stackArrays(subs, func() error {
		return pgerror.New(pgerror.ArraySubscriptError, "cannot accumulate arrays of different dimensionality")
	})
}

// arrayAggAcc is array_agg: the rows' values, NULLs included, in input
// order, stacked into an array of one more dimension when they are arrays;
// NULL over no rows.
type arrayAggAcc struct {
	arrays bool
	elems  []any
	any    bool
}

func (a *arrayAggAcc) Add(args []any) error {
	a.any = true
	v := args[0]
	if a.arrays {
		// Checked as it comes, as PostgreSQL's transition function does.
		if _, err := StackArrayRows([]any{v}); err != nil {
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
	if a.arrays {
		return StackArrayRows(a.elems)
	}
	return a.elems, nil
}

// arrayAggregate resolves array_agg(x). An unknown literal fits both of
// its overloads (anynonarray, anyarray), which is 42725 as in PostgreSQL.
func arrayAggregate(args []Type) (*Aggregate, error) {
	if len(args) != 1 || args[0].Oid == OidUnknown {
		return nil, funcError("array_agg", args, len(args) == 1)
	}
	in := args[0]
	elem := in
	arr, ok := ArrayOf(elem)
	if isVector(in.Oid) {
		return nil, pgerror.Unsupported("arrays of " + formatType(in))
	}
	if !ok {
		return nil, unsupportedType(in)
	}
	arrays := in.IsArray()
	if arrays {
		elem = Type{in.Oid, -1}
	}
	return &Aggregate{Name: "array_agg", Args: []Type{elem}, Result: arr, New: func(*Env) Accumulator { return &arrayAggAcc{arrays: arrays} }}, nil
}
