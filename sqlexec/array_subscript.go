package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// arraySubscript is one [lo:hi] or [i] of a subscripted array: nil bounds
// were omitted ([:hi], [lo:]); a plain [i] has only hi.
type arraySubscript struct {
	lo, hi *scalar
	slice  bool
}

// bindSubscripts compiles the subscripts of an indirection to int4
// expressions. An array has at most six dimensions, so more subscripts are
// an error, as in PostgreSQL.
func (b *binder) bindSubscripts(sc *scope, ind []*pg_query.Node) (subs []arraySubscript, slice bool, refs uint64, volatile bool, err error) {
	if len(ind) > pgarray.MaxDims {
		return nil, false, 0, false, pgerror.Newf(pgerror.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(ind), pgarray.MaxDims)
	}
	subs = make([]arraySubscript, len(ind))
	for i, n := range ind {
		idx := n.GetAIndices()
		if idx == nil {
			return nil, false, 0, false, pgerror.Unsupported("field selection on arrays")
		}
		subs[i].slice = idx.IsSlice
		slice = slice || idx.IsSlice
		for _, p := range []struct {
			node *pg_query.Node
			dst  **scalar
		}{{idx.Lidx, &subs[i].lo}, {idx.Uidx, &subs[i].hi}} {
			if p.node == nil {
				continue
			}
			e, err := b.expr(sc, p.node)
			if err != nil {
				return nil, false, 0, false, err
			}
			if e, err = b.coerce(e, types.Int4, types.CastAssignment); err != nil {
				if pgerror.GetCode(err) == pgerror.CannotCoerce || pgerror.GetCode(err) == pgerror.DatatypeMismatch {
					return nil, false, 0, false, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "array subscript must have type integer"), exprLocation(p.node))
				}
				return nil, false, 0, false, err
			}
			*p.dst = e
			refs |= e.refs
			volatile = volatile || e.volatile
		}
	}
	return subs, slice, refs, volatile, nil
}

// evalSubscripts evaluates the subscripts into their lower and upper
// bounds: when any is a slice, a plain [i] means [1:i], and omitted bounds
// are the array's own (dims and lower describe it; a dimension it lacks
// has none). ok is false when a bound is NULL.
func evalSubscripts(x *execCtx, subs []arraySubscript, slice bool, dims, lower []int) (los, his []int, ok bool, err error) {
	los, his = make([]int, len(subs)), make([]int, len(subs))
	for k, s := range subs {
		dimLo, dimHi := 1, 0
		if k < len(dims) {
			dimLo, dimHi = lower[k], lower[k]+dims[k]-1
		}
		los[k], his[k] = dimLo, dimHi
		if slice && !s.slice {
			los[k] = 1
		}
		for _, p := range []struct {
			e   *scalar
			dst *int
		}{{s.lo, &los[k]}, {s.hi, &his[k]}} {
			if p.e == nil {
				continue
			}
			v, err := p.e.eval(x)
			if err != nil || v == nil {
				return nil, nil, false, err
			}
			*p.dst = int(v.(int64))
		}
	}
	return los, his, true, nil
}

// arrayElement is a[i][j]...: the element, or NULL when the number of
// subscripts is not the array's number of dimensions or one is out of
// range.
func arrayElement(dims, lower []int, elems []any, subs []int) any {
	if len(subs) != len(dims) {
		return nil
	}
	off := 0
	for k, s := range subs {
		i := s - lower[k]
		if i < 0 || i >= dims[k] {
			return nil
		}
		off = off*dims[k] + i
	}
	return elems[off]
}

// arraySlice is a[lo:hi]...: the elements within the bounds (clamped to
// the array's), as an array with lower bounds 1; empty when a range is
// empty or there are more subscripts than dimensions. Dimensions without
// a subscript are taken whole.
func arraySlice(dims, lower []int, elems []any, los, his []int) any {
	if len(los) > len(dims) {
		return []any{}
	}
	n := len(dims)
	from, outDims := make([]int, n), make([]int, n)
	for k := range n {
		lo, hi := lower[k], lower[k]+dims[k]-1
		if k < len(los) {
			lo, hi = max(los[k], lo), min(his[k], hi)
		}
		if lo > hi {
			return []any{}
		}
		from[k], outDims[k] = lo-lower[k], hi-lo+1
	}
	var out []any
	var walk func(k, off int)
	walk = func(k, off int) {
		for i := range outDims[k] {
			o := off*dims[k] + from[k] + i
			if k+1 == n {
				out = append(out, elems[o])
				continue
			}
			walk(k+1, o)
		}
	}
	walk(0, 0)
	ones := make([]int, n)
	for k := range ones {
		ones[k] = 1
	}
	return pgarray.Make(outDims, ones, out)
}

// hiddenShapeError is PostgreSQL's error for a field of a record whose
// shape its parser does not know (an element of a record[]): 42809 when
// the record is a column of a subquery, whose expression it then fails to
// resolve, 42703 when it is the expression itself.
func hiddenShapeError(arg *scalar, field string) error {
	if arg.slot >= 0 {
		return errRecordNotRegistered
	}
	return pgerror.Newf(pgerror.UndefinedColumn, "could not identify column \"%s\" in record data type", field)
}

var errRecordNotRegistered = pgerror.New(pgerror.WrongObjectType, "record type has not been registered")

// indirection compiles subscripts and slices of an array value: a[i][j]
// is the element or NULL out of range, a[i:j] (either bound optional) the
// elements between, as a new array with lower bounds 1. Subscripts count
// from the array's lower bounds (0 for int2vector and oidvector).
func (b *binder) indirection(sc *scope, ind *pg_query.A_Indirection) (*scalar, error) {
	arg, err := b.expr(sc, ind.Arg)
	if err != nil {
		return nil, err
	}
	return b.applyIndirection(sc, arg, ind.Indirection)
}

// applyIndirection compiles the subscripts and field selections list
// applied to arg, left to right: a chain mixing them (a[1].f, r.f[2].g)
// applies each run of subscripts and each field selection to the value of
// what comes before it, as PostgreSQL does.
func (b *binder) applyIndirection(sc *scope, arg *scalar, list []*pg_query.Node) (*scalar, error) {
	if k := firstIndirectionStep(list); k < len(list) {
		head, err := b.applyIndirection(sc, arg, list[:k])
		if err != nil {
			return nil, err
		}
		return b.applyIndirection(sc, head, list[k:])
	}
	if fields, ok := arg.typ.Fields(); ok && len(list) == 1 && list[0].GetString_() != nil {
		if arg.typ.ShapeHidden() {
			return nil, hiddenShapeError(arg, list[0].GetString_().Sval)
		}
		return fieldSelection(arg, fields, list[0].GetString_().Sval)
	}
	if jsonbSubscripts(arg.typ, list) {
		return b.jsonbSubscript(sc, arg, list)
	}
	if arg.typ.IsHstore() && list[0].GetAIndices() != nil {
		return b.hstoreSubscript(sc, arg, list)
	}
	if arg.typ.Oid == types.OidName && len(list) == 1 && list[0].GetAIndices() != nil {
		return b.nameSubscript(sc, arg, list)
	}
	if _, _, ok := types.FixedArrayOf(arg.typ); ok && list[0].GetAIndices() != nil {
		return b.fixedArraySubscript(sc, arg, list)
	}
	if !arg.typ.IsArray() {
		if len(list) > 0 && list[0].GetAIndices() != nil {
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", arg.typ)
		}
		if f := list[0].GetString_(); f != nil && arg.typ.Oid != types.OidRecord {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column notation .%s applied to type %s, which is not a composite type", f.Sval, arg.typ)
		}
		return nil, pgerror.Unsupported("field selection")
	}
	subs, slice, refs, volatile, err := b.bindSubscripts(sc, list)
	if err != nil {
		return nil, err
	}
	typ := arg.typ
	if !slice {
		typ, _ = arg.typ.Elem()
	}
	// An element of an array of a domain is of the domain, a slice of it
	// of the array type again.
	var dom *typeDesc
	if arg.domain != nil && arg.domain.domain.elem != 0 {
		dom = arg.domain
		if !slice {
			dom = b.domainByOid(arg.domain.domain.elem)
		}
	}
	inner, argType := arg.eval, arg.typ
	return &scalar{typ: typ, domain: dom, slot: -1, refs: arg.refs | refs, volatile: arg.volatile || volatile, name: arg.name, eval: func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil || v == nil {
			return nil, err
		}
		dims, lower, elems := types.ArrayShapeOf(argType, v)
		los, his, ok, err := evalSubscripts(x, subs, slice, dims, lower)
		if err != nil || !ok {
			return nil, err
		}
		if !slice {
			return arrayElement(dims, lower, elems, his), nil
		}
		return arraySlice(dims, lower, elems, los, his), nil
	}}, nil
}

// firstIndirectionStep is the length of the first step of an indirection
// list: one field selection, or a run of subscripts; len(list) when the
// list is one step (or holds anything else, such as a star).
func firstIndirectionStep(list []*pg_query.Node) int {
	if len(list) < 2 {
		return len(list)
	}
	if list[0].GetString_() != nil {
		return 1
	}
	for k, n := range list {
		if n.GetAIndices() == nil {
			if n.GetString_() == nil {
				return len(list)
			}
			return k
		}
	}
	return len(list)
}

// nameMaxBytes is the size of a name value in PostgreSQL (NAMEDATALEN),
// the fixed length of the "char" array it subscripts as.
const nameMaxBytes = 64

// nameSubscript compiles name[i]: PostgreSQL subscripts a name as a
// fixed-length array of 64 "char" from 0, giving a byte past the text as
// the zero "char" and NULL outside the array (pg_dump's typname[0] = '_').
// Slices of it are not implemented, in PostgreSQL as here.
func (b *binder) nameSubscript(sc *scope, arg *scalar, ind []*pg_query.Node) (*scalar, error) {
	subs, slice, refs, volatile, err := b.bindSubscripts(sc, ind)
	if err != nil {
		return nil, err
	}
	if slice {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "slices of fixed-length arrays not implemented")
	}
	inner, idx := arg.eval, subs[0].hi.eval
	return &scalar{typ: types.Char, slot: -1, refs: arg.refs | refs, volatile: arg.volatile || volatile, name: arg.name, eval: func(x *execCtx) (any, error) {
		v, err := inner(x)
		if err != nil || v == nil {
			return nil, err
		}
		i, err := idx(x)
		if err != nil || i == nil {
			return nil, err
		}
		n, text := i.(int64), v.(string)
		switch {
		case n < 0 || n >= nameMaxBytes:
			return nil, nil
		case n >= int64(len(text)):
			return "", nil
		}
		return text[n : n+1], nil
	}}, nil
}
