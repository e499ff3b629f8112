package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// scalarFunctionItem compiles a built-in function that returns one scalar
// value, called in FROM: a one-row table whose one column is named after
// the function (or the alias), as PostgreSQL treats such calls. ok is
// false when fc is not such a call.
func (b *binder) scalarFunctionItem(sc *scope, rf *pg_query.RangeFunction, fc *pg_query.FuncCall) (it *fromItem, cols []scopeCol, ok bool, err error) {
	if fc.AggStar || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.Over != nil || fc.FuncVariadic {
		return nil, nil, false, nil
	}
	name := strings.ToLower(lastName(fc.Funcname))
	if len(fc.Funcname) > 1 && strings.ToLower(strs(fc.Funcname)[0]) != "pg_catalog" {
		return nil, nil, false, nil
	}
	// The call compiles as in a select list, so that the functions the
	// binder answers itself (current_schema(), current_setting(...),
	// named arguments) work here too.
	e, err := b.expr(functionArgScope(sc), &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: fc}})
	if err != nil {
		return nil, nil, true, err
	}
	if _, composite := e.typ.Fields(); composite || e.typ.Oid == types.OidRecord {
		return nil, nil, false, nil
	}
	call := &setCall{name: name, cols: []types.Field{{Name: name, Type: e.typ}}, scalar: true, fn: &setFunc{
		rows: func(x *execCtx, _ []any) ([][]any, error) {
			v, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			return [][]any{{v}}, nil
		},
	}}
	it, cols, err = setCallItem(rf, call)
	return it, cols, true, err
}
