package types

import (
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// evalOutcome renders a resolved result as the golden files do: the result
// type, then the value cast to text (NULL for nil), or "-" and the error.
func evalOutcome(env *Env, result Type, v any, err error) (string, string) {
	if err == nil && v == nil {
		return FormatType(result), "NULL"
	}
	if err == nil {
		var s any
		if s, err = CastEnv(env, v, result, Text); err == nil {
			return FormatType(result), strings.ReplaceAll(s.(string), "\n", `\n`)
		}
	}
	return "-", "ERROR " + string(pgerror.GetCode(err))
}

// TestFunctionsMatchPostgres runs testdata/functions.golden: overload
// resolution (the result type, or 42883/42725/42804) and evaluation.
// functions_random.golden holds seeded random calls made by
// testdata/gen_random_cases.py.
func TestFunctionsMatchPostgres(t *testing.T) {
	rows := goldenRows(t, "testdata/functions.golden", 5)
	rows = append(rows, goldenRows(t, "testdata/functions_random.golden", 5)...)
	rows = append(rows, goldenRows(t, "testdata/functions_arrays.golden", 5)...)
	rows = append(rows, goldenRows(t, "testdata/functions_geometric.golden", 5)...)
	for _, row := range rows {
		zone, name, list, wantType, want := row[0], row[1], row[2], row[3], row[4]
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Location: loc}
		var types []Type
		var vals []any
		var argErr error
		if list != "" {
			for _, item := range strings.Split(list, " ; ") {
				typ, val, _ := strings.Cut(item, "=")
				ty, v, err := operand(t, env, typ, val)
				if err != nil && argErr == nil {
					argErr = err // PostgreSQL fails on the literal too
				}
				types, vals = append(types, ty), append(vals, v)
			}
		}
		var result Type
		var v any
		f, err := ResolveFunc(name, types)
		if argErr != nil {
			err = argErr
		}
		if err == nil {
			result = f.Result
			v, err = f.Eval(env, vals)
		}
		gotType, got := evalOutcome(env, result, v, err)
		if gotType != wantType || got != want {
			t.Errorf("%s(%s) in %s: got %s %q (%v), want %s %q", name, list, zone, gotType, got, err, wantType, want)
		}
	}
}
