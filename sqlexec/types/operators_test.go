package types

import (
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// operand returns the type and datum of an operand of a golden case.
func operand(t *testing.T, env *Env, typ, val string) (Type, any, error) {
	t.Helper()
	if typ == "unknown" {
		if val == "NULL" {
			return Unknown, nil, nil
		}
		return Unknown, val, nil
	}
	ty := typeFromSQL(t, typ)
	if val == "NULL" {
		return ty, nil, nil
	}
	v, err := CastEnv(env, val, Unknown, ty)
	return ty, v, err
}

// TestOperatorsMatchPostgres runs testdata/operators.golden: operator
// resolution (the result type PostgreSQL's pg_typeof reports, or 42883 and
// 42725) and evaluation (the result cast to text, or the error's SQLSTATE).
// operators_random.golden holds seeded random arithmetic made by
// testdata/gen_random_cases.py.
func TestOperatorsMatchPostgres(t *testing.T) {
	rows := goldenRows(t, "testdata/operators.golden", 8)
	rows = append(rows, goldenRows(t, "testdata/operators_random.golden", 8)...)
	rows = append(rows, goldenRows(t, "testdata/operators_arrays.golden", 8)...)
	rows = append(rows, goldenRows(t, "testdata/operators_geometric.golden", 8)...)
	rows = append(rows, goldenRows(t, "testdata/operators_geometric_random.golden", 8)...)
	for _, row := range rows {
		lt, lv, op, rt, rv, zone, wantType, want := row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Location: loc}
		name := lt + " " + lv + " " + op + " " + rt + " " + rv
		gotType, got := "-", ""
		var result Type
		var v any
		rtyp, r, err := operand(t, env, rt, rv)
		if err == nil && lt == "" {
			var u *UnaryOp
			if u, err = ResolveUnaryOp(op, rtyp); err == nil {
				result = u.Result
				v, err = u.EvalEnv(env, r)
			}
		} else if err == nil {
			var ltyp Type
			var l any
			if ltyp, l, err = operand(t, env, lt, lv); err == nil {
				var b *BinaryOp
				if b, err = ResolveBinaryOp(op, ltyp, rtyp); err == nil {
					result = b.Result
					v, err = b.EvalEnv(env, l, r)
				}
			}
		}
		if err == nil {
			gotType = FormatType(result)
			if v == nil {
				got = "NULL"
			} else {
				var s any
				if s, err = CastEnv(env, v, result, Text); err == nil {
					got = s.(string)
				}
			}
		}
		if err != nil {
			gotType, got = "-", "ERROR "+string(pgerror.GetCode(err))
		}
		if gotType != wantType || got != want {
			t.Errorf("%s (%s): got %s %q (%v), want %s %q", name, zone, gotType, got, err, wantType, want)
		}
	}
}
