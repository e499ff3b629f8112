package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// fixedArraySubscript compiles p[i] on a type PostgreSQL subscripts as a
// fixed-length array (point, line, lseg, box: types.FixedArrayOf): the
// element from 0, NULL out of range, for a NULL subscript or for more
// than one subscript (such an array has one dimension); slices are not
// implemented, in PostgreSQL as here.
func (b *binder) fixedArraySubscript(sc *scope, arg *scalar, ind []*pg_query.Node) (*scalar, error) {
	elem, _, _ := types.FixedArrayOf(arg.typ)
	subs, slice, refs, volatile, err := b.bindSubscripts(sc, ind)
	if err != nil {
		return nil, err
	}
	if slice {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "slices of fixed-length arrays not implemented")
	}
	inner, idx, many := arg.eval, subs[0].hi.eval, len(subs) > 1
	return &scalar{typ: elem, slot: -1, refs: arg.refs | refs, volatile: arg.volatile || volatile, name: arg.name, eval: func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil || v == nil || many {
			return nil, err
		}
		i, err := idx(x)
		if err != nil || i == nil {
			return nil, err
		}
		return types.FixedArrayElement(v, i.(int64)), nil
	}}, nil
}

// bindFixedArrayAssign compiles an assignment to col[i] for a column of a
// fixed-length array type.
func (b *binder) bindFixedArrayAssign(sc *scope, col *columnDesc, ind []*pg_query.Node, loc int32) (*arrayAssign, error) {
	elem, _, _ := types.FixedArrayOf(col.typ)
	subs, slice, _, _, err := b.bindSubscripts(sc, ind)
	if err != nil {
		return nil, err
	}
	a := &arrayAssign{col: col, subs: subs, slice: slice, valType: elem, loc: loc, fixed: true}
	if slice {
		a.valType = col.typ // the value assigned to a slice is of the column's type
	}
	return a, nil
}

// applyFixed is array_subscript_assign and array_set_element for a
// fixed-length array: a NULL subscript fails; a NULL value or a NULL
// column leaves the column as it is; one subscript, in range, replaces
// that element. Updates of slices are not implemented, in PostgreSQL as
// here.
func (a *arrayAssign) applyFixed(x *execCtx, cur, v any) (any, error) {
	idx := make([]int64, len(a.subs))
	for k, s := range a.subs {
		for _, e := range []*scalar{s.lo, s.hi} {
			if e == nil {
				continue
			}
			sub, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			if sub == nil {
				return nil, pgerror.New(pgerror.NullValueNotAllowed, "array subscript in assignment must not be null")
			}
			idx[k] = sub.(int64)
		}
	}
	if a.slice {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "updates on slices of fixed-length arrays not implemented")
	}
	if cur == nil || v == nil {
		return cur, nil
	}
	if len(idx) != 1 {
		return nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts")
	}
	if _, n, _ := types.FixedArrayOf(a.col.typ); idx[0] < 0 || idx[0] >= int64(n) {
		return nil, pgerror.New(pgerror.ArraySubscriptError, "array subscript out of range")
	}
	return types.WithFixedArrayElement(cur, idx[0], v), nil
}
