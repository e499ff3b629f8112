package sqlexec

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// arrayAssign is a subscripted assignment target, col[i] or col[lo:hi]
// (UPDATE ... SET, INSERT INTO t (col[...])): it combines the column's
// current value with the assigned value. Several targets on one column
// apply in turn, each to the result of the one before.
type arrayAssign struct {
	col     *columnDesc
	subs    []arraySubscript
	slice   bool
	valType types.Type // the element type, or the array type for a slice
	loc     int32      // the target's position, for errors
	// steps, when the indirection names a field, replace subs
	// (composite_assign.go).
	steps []assignStep
	// hstoreKey, for an hstore column, replaces subs: the key the value
	// is set at (extension_hstore.go).
	hstoreKey *scalar
	// fixed marks a point, line, lseg or box column, which subscripts
	// as a fixed-length array (fixed_subscript.go).
	fixed bool
}

// bindArrayAssign compiles the subscripts of an assignment to col; sc is
// the scope the subscripts may refer to.
func (b *binder) bindArrayAssign(sc *scope, col *columnDesc, ind []*pg_query.Node, loc int32) (*arrayAssign, error) {
	for _, n := range ind {
		if n.GetAIndices() == nil {
			a := &arrayAssign{col: col, loc: loc}
			return a, b.bindFieldAssign(sc, a, ind)
		}
	}
	elem, isArray := col.typ.Elem()
	if col.typ.Oid == types.OidJSONB {
		return nil, b.errAt(pgerror.Unsupported("assignment to jsonb subscripts"), loc)
	}
	if col.typ.IsHstore() {
		return b.bindHstoreAssign(sc, col, ind, loc)
	}
	if _, _, ok := types.FixedArrayOf(col.typ); ok {
		return b.bindFixedArrayAssign(sc, col, ind, loc)
	}
	if !isArray {
		return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", col.typ), loc)
	}
	subs, slice, _, _, err := b.bindSubscripts(sc, ind)
	if err != nil {
		return nil, err
	}
	a := &arrayAssign{col: col, subs: subs, slice: slice, valType: elem, loc: loc}
	if slice {
		a.valType = col.typ
	}
	return a, nil
}

// coerceAssignValue coerces the assigned expression e to the element or
// array type, with PostgreSQL's message on a mismatch.
func (b *binder) coerceAssignValue(a *arrayAssign, e *scalar) (*scalar, error) {
	c, err := b.coerce(e, a.valType, types.CastAssignment)
	var pe *pgerror.Error
	if err != nil && errors.As(err, &pe) && (pe.Code == pgerror.CannotCoerce || pe.Code == pgerror.DatatypeMismatch) {
		return nil, b.assignMismatch(a, e.typ)
	}
	if err != nil || a.steps != nil || a.hstoreKey != nil || a.fixed {
		return c, err
	}
	// An element assigned to an array of a domain (or a domain over one)
	// becomes of the domain, a slice of the array type.
	if at := b.catalogNow().domainArrayUnder(b.domainByOid(a.col.domain)); at != nil {
		if a.slice {
			return b.withDomainCheck(c, at)
		}
		if dom := b.domainByOid(at.domain.elem); dom != nil {
			return b.withDomainCheck(c, dom)
		}
	}
	return c, nil
}

// assignMismatch is the 42804 error of a value of type from assigned to a.
func (b *binder) assignMismatch(a *arrayAssign, from types.Type) error {
	if a.steps != nil {
		return b.errAt(a.stepsMismatch(from).WithHint("You will need to rewrite or cast the expression."), a.loc)
	}
	return b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "subscripted assignment to \"%s\" requires type %s but expression is of type %s", a.col.name, a.valType, from).
		WithHint("You will need to rewrite or cast the expression."), a.loc)
}

// defaultTargetError is PostgreSQL's refusal of DEFAULT as the value of a
// target at loc with indirection, which starts with a field when
// subfield is true and with subscripts otherwise.
func (b *binder) defaultTargetError(subfield bool, loc int32) error {
	if subfield {
		return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "cannot set a subfield to DEFAULT"), loc)
	}
	return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "cannot set an array element to DEFAULT"), loc)
}

// apply returns cur (the column's value so far) with v assigned at the
// subscripts, evaluated in x.
func (a *arrayAssign) apply(x *execCtx, cur, v any) (any, error) {
	if a.steps != nil {
		return a.applySteps(x, 0, cur, v)
	}
	if a.hstoreKey != nil {
		return hstoreAssign(x, a.hstoreKey, cur, v)
	}
	if a.fixed {
		return a.applyFixed(x, cur, v)
	}
	bounds := make([]types.SliceBound, len(a.subs))
	for k, s := range a.subs {
		bounds[k].Lo, bounds[k].HasLo = 1, a.slice && !s.slice
		for _, p := range []struct {
			e   *scalar
			dst *int
			has *bool
		}{{s.lo, &bounds[k].Lo, &bounds[k].HasLo}, {s.hi, &bounds[k].Hi, &bounds[k].HasHi}} {
			if p.e == nil {
				continue
			}
			sub, err := p.e.eval(x)
			if err != nil {
				return nil, err
			}
			if sub == nil {
				return nil, pgerror.New(pgerror.NullValueNotAllowed, "array subscript in assignment must not be null")
			}
			*p.dst, *p.has = int(sub.(int64)), true
		}
	}
	if a.slice {
		return types.AssignArraySlice(a.col.typ, cur, bounds, v)
	}
	subs := make([]int, len(bounds))
	for k := range bounds {
		subs[k] = bounds[k].Hi
	}
	return types.AssignArrayElement(a.col.typ, cur, subs, v)
}

// placeInserted puts one inserted row's values into row at their target
// columns, through the targets' field and subscript assignments (assigns,
// nil or per target), and marks them in given. A DEFAULT item, and a column
// skip names (nil: none), stay unset for the defaults.
func placeInserted(x *execCtx, row []any, given []bool, target []int, vals []any, isDefault []bool, assigns []*arrayAssign, skip func(col int) bool) error {
	for i, c := range target {
		if isDefault != nil && isDefault[i] || skip != nil && skip(c) {
			continue
		}
		v := vals[i]
		if assigns != nil && assigns[i] != nil {
			var err error
			if v, err = assigns[i].apply(x, row[c], v); err != nil {
				return err
			}
		}
		row[c], given[c] = v, true
	}
	return nil
}
