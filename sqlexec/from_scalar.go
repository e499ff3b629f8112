package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
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
	asc := functionArgScope(sc)
	args := make([]*scalar, len(fc.Args))
	for i, a := range fc.Args {
		if a.GetNamedArgExpr() != nil {
			return nil, nil, false, nil
		}
		if args[i], err = b.expr(asc, a); err != nil {
			return nil, nil, true, err
		}
	}
	e, err := b.callResolved(name, args, fc.Location)
	if err != nil {
		if pgerror.GetCode(err) == pgerror.UndefinedFunction {
			return nil, nil, false, nil
		}
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
