package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// arrayPopulator builds an array from nested JSON arrays as PostgreSQL's
// populate_array does: the number of dimensions is fixed by the first
// path down to a non-array (or to an empty array), every sub-array of a
// dimension must have the same length, and deeper values are elements.
type arrayPopulator struct {
	env   *Env
	elem  Type
	name  string
	ndims int
	dims  []int // length of each dimension, -1 until known
	sizes []int // elements seen so far in the current sub-array of each dimension
	elems []any
}

// populateArray converts the JSON array m (of member name) to an array of
// type t.
func populateArray(env *Env, t Type, name string, m *jsonValue) (any, error) {
	elem, _ := t.Elem()
	c := &arrayPopulator{env: env, elem: elem, name: name}
	if err := c.dim(m, 1); err != nil {
		return nil, err
	}
	c.dims[0] = c.sizes[0]
	lower := make([]int, c.ndims)
	for i := range lower {
		lower[i] = 1
		if c.dims[i] == 0 {
			return []any{}, nil
		}
	}
	return pgarray.Make(c.dims, lower, c.elems), nil
}

func (c *arrayPopulator) dim(v *jsonValue, ndim int) error {
	if v.kind != jsonArray {
		return c.expectedArray(ndim - 1)
	}
	if c.ndims == 0 && (len(v.elems) == 0 || v.elems[0].kind != jsonArray) {
		if ndim > pgarray.MaxDims {
			return errTooManyDims(ndim)
		}
		c.ndims = ndim
		c.dims = make([]int, ndim)
		c.sizes = make([]int, ndim)
		for i := range c.dims {
			c.dims[i] = -1
		}
	}
	for _, e := range v.elems {
		if c.ndims > 0 && ndim >= c.ndims {
			x, err := populateField(c.env, c.elem, c.name, nil, e)
			if err != nil {
				return err
			}
			c.elems = append(c.elems, x)
			c.sizes[ndim-1]++
			continue
		}
		if err := c.dim(e, ndim+1); err != nil {
			return err
		}
		if err := c.checkDimension(ndim); err != nil {
			return err
		}
	}
	return nil
}

// checkDimension closes a sub-array of dimension ndim (0-based): its
// length must match its siblings'.
func (c *arrayPopulator) checkDimension(ndim int) error {
	switch {
	case c.dims[ndim] < 0:
		c.dims[ndim] = c.sizes[ndim]
	case c.sizes[ndim] != c.dims[ndim]:
		return pgerror.New(pgerror.InvalidTextRepresentation, "malformed JSON array").
			WithDetail("Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	c.sizes[ndim] = 0
	if ndim > 0 {
		c.sizes[ndim-1]++
	}
	return nil
}

// expectedArray is the error for a non-array where a sub-array belongs,
// naming it by its subscripts.
func (c *arrayPopulator) expectedArray(ndim int) error {
	err := pgerror.New(pgerror.InvalidTextRepresentation, "expected JSON array")
	if ndim <= 0 {
		return err.WithHint("See the value of key \"%s\".", c.name)
	}
	var idx strings.Builder
	for i := 0; i < ndim; i++ {
		idx.WriteString("[" + strconv.Itoa(c.sizes[i]) + "]")
	}
	return err.WithHint("See the array element %s of key \"%s\".", idx.String(), c.name)
}
