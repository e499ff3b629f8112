package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// jsonPathQueryFuncs returns jsonb_path_query and jsonb_path_query_tz: the
// items a jsonpath finds in a document, one row each. Their arguments are
// the document, the path, vars (default '{}') and silent (default false).
func jsonPathQueryFuncs() map[string]*setFunc {
	out := map[string]*setFunc{}
	for _, name := range []string{"jsonb_path_query", "jsonb_path_query_tz"} {
		out[name] = &setFunc{schema: "pg_catalog", strict: true,
			bind: func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
				if len(args) < 2 || len(args) > 4 {
					return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
				}
				for i, t := range []types.Type{types.JSONB, types.JSONPath, types.JSONB, types.Bool}[:len(args)] {
					var err error
					if args[i], err = b.coerce(args[i], t, types.CastImplicit); err != nil {
						return nil, b.withPos(err, loc)
					}
				}
				return []types.Field{{Name: name, Type: types.JSONB}}, nil
			},
			rows: func(ec *execCtx, args []any) ([][]any, error) {
				full := append(append([]any(nil), args...), types.ArgDefaults(name)[len(args)-2:]...)
				items, err := types.JSONPathQuery(ec.env, name == "jsonb_path_query_tz", full)
				if err != nil {
					return nil, err
				}
				rows := make([][]any, len(items))
				for i, it := range items {
					rows[i] = []any{it}
				}
				return rows, nil
			}}
	}
	return out
}
