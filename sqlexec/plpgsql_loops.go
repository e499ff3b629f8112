package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// CASE and the loops of PL/pgSQL: LOOP, WHILE, FOR over integers and
// queries, FOREACH over arrays; EXIT and CONTINUE end or skip them.

func (fr *plFrame) caseStmt(st *plStmt) (plFlow, error) {
	if st.expr != nil {
		v, t, err := fr.value(st.expr)
		if err != nil {
			return plFlow{}, err
		}
		fr.vals[st.varno], fr.typs[st.varno] = v, t
	}
	for _, c := range st.elsifs {
		ok, err := fr.condition(c.cond)
		if err != nil {
			return plFlow{}, err
		}
		if ok {
			return fr.execList(c.body)
		}
	}
	if !st.hasElse {
		return plFlow{}, pgerror.New(pgerror.CaseNotFound, "case not found").WithHint("CASE statement is missing ELSE part.")
	}
	return fr.execList(st.elseBody)
}

// iterate runs a loop body once; done says the loop ends.
func (fr *plFrame) iterate(st *plStmt) (flow plFlow, done bool, err error) {
	flow, err = fr.execList(st.body)
	if err != nil {
		return plFlow{}, true, err
	}
	switch flow.sig {
	case plExit:
		if flow.label == "" || flow.label == st.label {
			return plFlow{}, true, nil
		}
		return flow, true, nil
	case plContinue:
		if flow.label == "" || flow.label == st.label {
			return plFlow{}, false, nil
		}
		return flow, true, nil
	case plReturn:
		return flow, true, nil
	}
	return plFlow{}, false, nil
}

func (fr *plFrame) loop(st *plStmt) (plFlow, error) {
	if st.kind == "fori" {
		return fr.forInt(st)
	}
	for {
		if st.kind == "while" {
			ok, err := fr.condition(st.cond)
			if err != nil || !ok {
				return plFlow{}, err
			}
		}
		if err := fr.x.ctx.Err(); err != nil {
			return plFlow{}, cancelError(err)
		}
		flow, done, err := fr.iterate(st)
		if done || err != nil {
			return flow, err
		}
	}
}

func (fr *plFrame) intValue(e *plExpr, what string) (int64, error) {
	v, t, err := fr.value(e)
	if err != nil {
		return 0, err
	}
	if v == nil {
		return 0, pgerror.Newf(pgerror.NullValueNotAllowed, "%s of FOR loop cannot be null", what)
	}
	iv, err := fr.cast(v, t, types.Int8)
	if err != nil {
		return 0, err
	}
	return iv.(int64), nil
}

func (fr *plFrame) forInt(st *plStmt) (plFlow, error) {
	lo, err := fr.intValue(st.lower, "lower bound")
	if err != nil {
		return plFlow{}, err
	}
	hi, err := fr.intValue(st.upper, "upper bound")
	if err != nil {
		return plFlow{}, err
	}
	step := int64(1)
	if st.step != nil {
		if step, err = fr.intValue(st.step, "BY value"); err != nil {
			return plFlow{}, err
		}
		if step <= 0 {
			return plFlow{}, pgerror.New(pgerror.InvalidParameterValue, "BY value of FOR loop must be greater than zero")
		}
	}
	if st.reverse {
		lo, hi = -lo, -hi
	}
	ran := false
	var out plFlow
	for i := lo; i <= hi; i += step {
		ran = true
		v := i
		if st.reverse {
			v = -i
		}
		if err := fr.assign(st.varno, v, types.Int8); err != nil {
			return plFlow{}, err
		}
		flow, done, err := fr.iterate(st)
		if err != nil {
			return plFlow{}, err
		}
		if done {
			out = flow
			break
		}
	}
	fr.setFound(ran)
	return out, nil
}

func (fr *plFrame) forQuery(st *plStmt) (plFlow, error) {
	var res *Result
	var err error
	if st.kind == "dynfors" {
		res, err = fr.dynamic(st.expr, st.params)
	} else {
		res, err = fr.query(st.expr)
	}
	if err != nil {
		return plFlow{}, err
	}
	var out plFlow
	for _, row := range res.Rows {
		if err := fr.assignRow(st.target, row, res.Columns); err != nil {
			return plFlow{}, err
		}
		flow, done, err := fr.iterate(st)
		if err != nil {
			return plFlow{}, err
		}
		if done {
			out = flow
			break
		}
	}
	fr.setFound(len(res.Rows) > 0)
	return out, nil
}

func (fr *plFrame) forEach(st *plStmt) (plFlow, error) {
	v, t, err := fr.value(st.expr)
	if err != nil {
		return plFlow{}, err
	}
	if v == nil {
		return plFlow{}, pgerror.New(pgerror.NullValueNotAllowed, "FOREACH expression must not be null")
	}
	elem, ok := t.Elem()
	if !ok {
		return plFlow{}, pgerror.Newf(pgerror.DatatypeMismatch, "FOREACH expression must yield an array, not type %s", t)
	}
	dims, lower, elems, ok := pgarray.Shape(v)
	if !ok {
		return plFlow{}, pgerror.Unsupported("FOREACH over this array")
	}
	if st.slice < 0 || st.slice > len(dims) {
		return plFlow{}, pgerror.Newf(pgerror.ArraySubscriptError, "slice dimension (%d) is out of the valid range 0..%d", st.slice, len(dims))
	}
	if st.slice > 0 {
		if !fr.typs[st.target].IsArray() {
			return plFlow{}, pgerror.New(pgerror.DatatypeMismatch, "FOREACH ... SLICE loop variable must be of an array type")
		}
		elem = t
	}
	// Each iteration takes the next slice of the last st.slice
	// dimensions (one element without SLICE), which keeps their lower
	// bounds.
	size := 1
	for _, d := range dims[len(dims)-min(st.slice, len(dims)):] {
		size *= d
	}
	for i := 0; i+size <= len(elems); i += size {
		var item any = elems[i]
		if st.slice > 0 {
			n := len(dims) - st.slice
			item = pgarray.Make(dims[n:], lower[n:], elems[i:i+size])
		}
		if err := fr.assign(st.target, item, elem); err != nil {
			return plFlow{}, err
		}
		flow, done, err := fr.iterate(st)
		if err != nil || done {
			return flow, err
		}
	}
	return plFlow{}, nil
}
