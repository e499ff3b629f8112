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
