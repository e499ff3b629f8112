package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// jsonSetFuncs returns the set-returning functions that take a json or
// jsonb document apart: json(b)_each, json(b)_each_text,
// json(b)_object_keys, json(b)_array_elements and
// json(b)_array_elements_text.
func jsonSetFuncs() map[string]*setFunc {
	out := map[string]*setFunc{}
	for _, t := range []types.Type{types.JSON, types.JSONB} {
		isB := t.Oid == types.OidJSONB
		prefix := "json"
		if isB {
			prefix = "jsonb"
		}
		valueType := func(asText bool) types.Type {
			if asText {
				return types.Text
			}
			return t
		}
		for _, asText := range []bool{false, true} {
			name := prefix + "_each"
			elems := prefix + "_array_elements"
			if asText {
				name += "_text"
				elems += "_text"
			}
			out[name] = &setFunc{schema: "pg_catalog", strict: true,
				bind: bindJSONArg(name, t, []types.Field{{Name: "key", Type: types.Text}, {Name: "value", Type: valueType(asText)}}),
				rows: func(_ *execCtx, args []any) ([][]any, error) {
					return types.JSONEach(name, args[0].(string), isB, asText)
				}}
			out[elems] = &setFunc{schema: "pg_catalog", strict: true, outParam: true,
				bind: bindJSONArg(elems, t, []types.Field{{Name: "value", Type: valueType(asText)}}),
				rows: func(_ *execCtx, args []any) ([][]any, error) {
					return types.JSONArrayElements(args[0].(string), isB, asText)
				}}
		}
		keys := prefix + "_object_keys"
		out[keys] = &setFunc{schema: "pg_catalog", strict: true,
			bind: bindJSONArg(keys, t, []types.Field{{Name: keys, Type: types.Text}}),
			rows: func(_ *execCtx, args []any) ([][]any, error) {
				return types.JSONObjectKeys(keys, args[0].(string), isB)
			}}
	}
	return out
}

// bindJSONArg binds a set-returning function of one json or jsonb
// argument whose rows have the columns cols.
func bindJSONArg(name string, t types.Type, cols []types.Field) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		if len(args) != 1 {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
		}
		var err error
		if args[0], err = b.coerce(args[0], t, types.CastImplicit); err != nil {
			return nil, b.withPos(err, loc)
		}
		return cols, nil
	}
}
