package sqlexec

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// jsonbSubscripts reports whether an indirection is a chain of jsonb
// subscripts (j['a'][0]), which jsonbSubscript and jsonbAssignment compile.
func jsonbSubscripts(t types.Type, ind []*pg_query.Node) bool {
	if t.Oid != types.OidJSONB || len(ind) == 0 {
		return false
	}
	for _, n := range ind {
		if n.GetAIndices() == nil {
			return false
		}
	}
	return true
}

// jsonbPath compiles the subscripts of a jsonb subscripting: each must be
// coercible to integer or text (an unknown literal is text); slices are
// refused. It returns an evaluator of the path as text steps (nil for a
// NULL subscript), whether the first subscript is an integer, and the
// subscripts' references.
func (b *binder) jsonbPath(sc *scope, ind []*pg_query.Node) (func(x *execCtx) ([]any, error), bool, uint64, bool, error) {
	steps := make([]*scalar, len(ind))
	isInt := make([]bool, len(ind))
	var refs uint64
	volatile := false
	for i, n := range ind {
		idx := n.GetAIndices()
		if idx.IsSlice || idx.Uidx == nil {
			at := idx.Uidx
			if at == nil {
				at = idx.Lidx
			}
			err := pgerror.New(pgerror.DatatypeMismatch, "jsonb subscript does not support slices")
			if at == nil {
				return nil, false, 0, false, err
			}
			return nil, false, 0, false, b.errAt(err, exprLocation(at))
		}
		e, err := b.expr(sc, idx.Uidx)
		if err != nil {
			return nil, false, 0, false, err
		}
		if e.typ.Oid == types.OidUnknown {
			e, err = b.coerce(e, types.Text, types.CastImplicit)
		} else if c, ierr := b.coerce(e, types.Int4, types.CastImplicit); ierr == nil {
			e, isInt[i] = c, true
		} else if c, terr := b.coerce(e, types.Text, types.CastImplicit); terr == nil {
			e = c
		} else {
			return nil, false, 0, false, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "subscript type %s is not supported", e.typ).
				WithHint("jsonb subscript must be coercible to either integer or text."), exprLocation(idx.Uidx))
		}
		if err != nil {
			return nil, false, 0, false, err
		}
		steps[i] = e
		refs |= e.refs
		volatile = volatile || e.volatile
	}
	eval := func(x *execCtx) ([]any, error) {
		path := make([]any, len(steps))
		for i, s := range steps {
			v, err := s.eval(x)
			if err != nil {
				return nil, err
			}
			if v != nil && isInt[i] {
				v = strconv.FormatInt(v.(int64), 10)
			}
			path[i] = v
		}
		return path, nil
	}
	return eval, isInt[0], refs, volatile, nil
}

// jsonbSubscript compiles j[...]...: the value at the path, NULL when a
// subscript is NULL or the path finds nothing.
func (b *binder) jsonbSubscript(sc *scope, arg *scalar, ind []*pg_query.Node) (*scalar, error) {
	path, _, refs, volatile, err := b.jsonbPath(sc, ind)
	if err != nil {
		return nil, err
	}
	inner := arg.eval
	return &scalar{typ: types.JSONB, slot: -1, refs: arg.refs | refs, volatile: arg.volatile || volatile, name: arg.name, eval: func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil || v == nil {
			return nil, err
		}
		p, err := path(x)
		if err != nil {
			return nil, err
		}
		for _, s := range p {
			if s == nil {
				return nil, nil
			}
		}
		return types.JSONBSubscript(v.(string), p), nil
	}}, nil
}

// jsonbAssignment compiles UPDATE ... SET col[...] = val of a jsonb column
// c of t: the column's new value is its current value (in scope sc) with
// the path set to val, as PostgreSQL's jsonb subscript assignment does.
func (b *binder) jsonbAssignment(t *tableDesc, sc *scope, c int, rt *pg_query.ResTarget) (setTarget, error) {
	cur := -1
	for _, sccol := range sc.cols {
		if sccol.item == 0 && sccol.name == t.cols[c].name {
			cur = sccol.slot
			break
		}
	}
	if cur < 0 {
		return setTarget{}, b.errAt(pgerror.Unsupported("assignment to subscripts or fields"), rt.Location)
	}
	path, firstIsInt, refs, volatile, err := b.jsonbPath(sc, rt.Indirection)
	if err != nil {
		return setTarget{}, err
	}
	val, err := b.expr(sc, rt.Val)
	if err != nil {
		return setTarget{}, err
	}
	orig := val
	if val, err = b.coerce(val, types.JSONB, types.CastAssignment); err != nil {
		return setTarget{}, b.assignError(err, t.cols[c], orig, rt.Val)
	}
	e := &scalar{typ: types.JSONB, slot: -1, refs: refs | val.refs | itemBit(0), volatile: volatile || val.volatile, eval: func(x *execCtx) (any, error) {
		p, err := path(x)
		if err != nil {
			return nil, err
		}
		nv, err := val.eval(x)
		if err != nil {
			return nil, err
		}
		return types.JSONBSubscriptAssign(x.row[cur], p, firstIsInt, nv)
	}}
	return setTarget{col: c, e: e}, nil
}
