package sqlexec

import (
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The set-returning functions over text: regexp_matches,
// regexp_split_to_table and string_to_table.

// bindTextArgs returns a bind function for a set-returning function of
// min to max text arguments whose rows have one column col of type typ.
func bindTextArgs(name string, min, max int, col types.Type) func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
	return func(b *binder, args []*scalar, loc int32) ([]types.Field, error) {
		if len(args) < min || len(args) > max {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args)), loc)
		}
		for i := range args {
			var err error
			if args[i], err = b.coerce(args[i], types.Text, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		return []types.Field{{Name: name, Type: col}}, nil
	}
}

func regexpMatchesRows(x *execCtx, args []any) ([][]any, error) {
	ms, err := types.RegexpMatches(x.env, args)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, len(ms))
	for i, m := range ms {
		rows[i] = []any{m}
	}
	return rows, nil
}

func regexpSplitRows(x *execCtx, args []any) ([][]any, error) {
	parts, err := types.RegexpSplit(x.env, "regexp_split_to_table()", args)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, len(parts))
	for i, p := range parts {
		rows[i] = []any{p}
	}
	return rows, nil
}

func textArrayType() types.Type {
	t, _ := types.ArrayOf(types.Text)
	return t
}

func int2ArrayType() types.Type {
	t, _ := types.ArrayOf(types.Int2)
	return t
}
