package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// CALL inside PL/pgSQL: the procedure's OUT and INOUT parameters come back
// as its result row, whose values are assigned to the variables the call
// passed for them, as PostgreSQL's exec_stmt_call does.

// call runs a CALL statement of the body and assigns its output values.
func (fr *plFrame) call(e *plExpr) error {
	c, err := fr.compile(e)
	if err != nil {
		return err
	}
	res, err := fr.s.runRoutineStatement(fr.x, c.plan, fr.vals, e.text)
	if err != nil {
		return err
	}
	if len(res.Rows) == 0 {
		return nil
	}
	row := res.Rows[0]
	for i, k := range c.outTargets {
		if k < 0 || i >= len(row) {
			continue
		}
		col := res.Columns[i]
		if err := fr.assign(k, row[i], types.Type{Oid: types.Oid(col.TypeOID), Typmod: col.TypeMod}); err != nil {
			return err
		}
	}
	return nil
}

// callTargets resolves the procedure a CALL of the body calls and returns
// the datums its output arguments name: each must be a variable of the
// body (42601 otherwise).
func (fr *plFrame) callTargets(b *binder, scope *plScope, fc *pg_query.FuncCall) ([]int, error) {
	names := strs(fc.Funcname)
	call, err := b.resolveRoutine(nil, lastName(fc.Funcname), b.s.lookupFuncs(b.cat, names), fc, 'p')
	if err != nil || call == nil {
		return nil, err
	}
	var targets []int
	for p, prm := range call.fn.inParams() {
		if !prm.isOut() {
			continue
		}
		j := -1
		for a, slot := range call.slots {
			if slot == p {
				j = a
			}
		}
		if j < 0 {
			targets = append(targets, -1)
			continue
		}
		arg := fc.Args[j]
		if na := arg.GetNamedArgExpr(); na != nil {
			arg = na.Arg
		}
		k := fr.argDatum(scope, arg)
		if k < 0 {
			return nil, pgerror.Newf(pgerror.SyntaxError, "procedure parameter \"%s\" is an output parameter but corresponding argument is not writable", prm.name)
		}
		targets = append(targets, k)
	}
	return targets, nil
}

// argDatum returns the variable an argument names (x or label.x), or -1.
func (fr *plFrame) argDatum(scope *plScope, arg *pg_query.Node) int {
	cr := arg.GetColumnRef()
	if cr == nil {
		return -1
	}
	var fields []string
	for _, f := range cr.Fields {
		s := f.GetString_()
		if s == nil {
			return -1
		}
		fields = append(fields, s.Sval)
	}
	switch len(fields) {
	case 1:
		return fr.lookupDatum(scope, fields[0])
	case 2:
		for sc := scope; sc != nil; sc = sc.outer {
			if sc.label == fields[0] {
				return fr.lookupDatum(&plScope{dnos: sc.dnos, aliases: sc.aliases}, fields[1])
			}
		}
	}
	return -1
}
