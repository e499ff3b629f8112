package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// assignStep is one link of an assignment target's indirection with a
// field in it (INSERT INTO t (c.f1, c.f2[1]), UPDATE t SET c[2].f = ...):
// a field of a composite value, or subscripts of an array value. typ is
// the type of the value the step goes into.
type assignStep struct {
	typ   types.Type
	field int // the field's index; -1 for subscripts
	name  string
	subs  []arraySubscript
	slice bool
	// check checks the value a field step assigns against the domain the
	// composite type declares the field with; nil for none.
	check domainCheck
}

// bindFieldAssign compiles an indirection that names a field into a's
// steps and sets a.valType to the type of the innermost target, with
// PostgreSQL's errors for a field of a non-composite type (42804) and an
// unknown field (42703).
func (b *binder) bindFieldAssign(sc *scope, a *arrayAssign, ind []*pg_query.Node) error {
	cur := a.col.typ
	for k := 0; k < len(ind); {
		if s := ind[k].GetString_(); s != nil {
			fields, ok := cur.Fields()
			if !ok || !cur.IsComposite() {
				return b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "cannot assign to field \"%s\" of column \"%s\" because its type %s is not a composite type", s.Sval, a.col.name, cur), a.loc)
			}
			i := -1
			for j, f := range fields {
				if f.Name == s.Sval {
					i = j
				}
			}
			if i < 0 {
				return b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "cannot assign to field \"%s\" of column \"%s\" because there is no such column in data type %s", s.Sval, a.col.name, cur), a.loc)
			}
			checks, err := compositeFieldChecks(b, cur)
			if err != nil {
				return err
			}
			st := assignStep{typ: cur, field: i, name: s.Sval}
			if i < len(checks) {
				st.check = checks[i]
			}
			a.steps = append(a.steps, st)
			cur = fields[i].Type
			k++
			continue
		}
		n := k
		for n < len(ind) && ind[n].GetAIndices() != nil {
			n++
		}
		elem, isArray := cur.Elem()
		if !isArray {
			return b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", cur), a.loc)
		}
		subs, slice, _, _, err := b.bindSubscripts(sc, ind[k:n])
		if err != nil {
			return err
		}
		if slice && n < len(ind) {
			return b.errAt(pgerror.Unsupported("assignment to a field of an array slice"), a.loc)
		}
		a.steps = append(a.steps, assignStep{typ: cur, field: -1, subs: subs, slice: slice})
		cur = elem
		if slice {
			cur = a.steps[len(a.steps)-1].typ
		}
		k = n
	}
	a.valType = cur
	return nil
}

// applySteps returns cur (the value at step k of the target) with v
// assigned at the rest of the steps: a NULL composite becomes a record of
// NULL fields, and a NULL array an empty one, before the assignment, as in
// PostgreSQL.
func (a *arrayAssign) applySteps(x *execCtx, k int, cur, v any) (any, error) {
	if k == len(a.steps) {
		return v, nil
	}
	st := a.steps[k]
	if st.field >= 0 {
		fields, _ := st.typ.Fields()
		rec := make([]any, len(fields))
		if cur != nil {
			copy(rec, cur.([]any))
		}
		inner, err := a.applySteps(x, k+1, rec[st.field], v)
		if err != nil {
			return nil, err
		}
		if st.check != nil {
			if err := st.check(x, inner); err != nil {
				return nil, err
			}
		}
		rec[st.field] = inner
		return rec, nil
	}
	elemAssign := &arrayAssign{col: &columnDesc{name: a.col.name, typ: st.typ}, subs: st.subs, slice: st.slice, loc: a.loc}
	if k+1 == len(a.steps) {
		return elemAssign.apply(x, cur, v)
	}
	var elem any
	if cur != nil {
		dims, lower, elems := types.ArrayShapeOf(st.typ, cur)
		_, his, ok, err := evalSubscripts(x, st.subs, false, dims, lower)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "array subscript in assignment must not be null")
		}
		elem = arrayElement(dims, lower, elems, his)
	}
	inner, err := a.applySteps(x, k+1, elem, v)
	if err != nil {
		return nil, err
	}
	return elemAssign.apply(x, cur, inner)
}

// stepsMismatch is PostgreSQL's 42804 error for a value of type from
// assigned through a's steps: named after the innermost field on the way.
func (a *arrayAssign) stepsMismatch(from types.Type) *pgerror.Error {
	name := a.col.name
	for _, st := range a.steps {
		if st.field >= 0 {
			name = st.name
		}
	}
	if last := a.steps[len(a.steps)-1]; last.field >= 0 {
		return pgerror.Newf(pgerror.DatatypeMismatch, "subfield \"%s\" is of type %s but expression is of type %s", name, a.valType, from)
	}
	return pgerror.Newf(pgerror.DatatypeMismatch, "subscripted assignment to \"%s\" requires type %s but expression is of type %s", name, a.valType, from)
}
