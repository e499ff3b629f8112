package sqlexec

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// arrayLiteral prints elems (nil for NULL) as ARRAY[...]::int[].
func arrayLiteral(elems []any) string {
	parts := make([]string, len(elems))
	for i, e := range elems {
		parts[i] = "NULL"
		if e != nil {
			parts[i] = fmt.Sprint(e)
		}
	}
	return "ARRAY[" + strings.Join(parts, ", ") + "]::int[]"
}

// TestAnyAllAgreeWithTheirExpansion checks, on seeded random arrays with
// NULL elements and a possibly NULL left side, that x op ANY (array) equals
// the OR of x op e over the elements (false when empty) and x op ALL
// (array) the AND (true when empty), with the array as a literal and as a
// parameter; and that subscripts and unnest see the elements in order.
func TestAnyAllAgreeWithTheirExpansion(t *testing.T) {
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "prop"})
	ctx := context.Background()
	query := func(sql string, params ...any) []any {
		t.Helper()
		sts, err := s.Parse(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		p, err := s.Prepare(sts[0], nil)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		res, err := s.Execute(ctx, p, params)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("%s: %d rows", sql, len(res.Rows))
		}
		return res.Rows[0]
	}
	rng := rand.New(rand.NewSource(7))
	ops := []string{"=", "<>", "<", ">="}
	for range 300 {
		elems := make([]any, rng.Intn(5))
		for i := range elems {
			if rng.Intn(4) > 0 {
				elems[i] = int64(rng.Intn(5))
			}
		}
		var x any
		if rng.Intn(6) > 0 {
			x = int64(rng.Intn(5))
		}
		xs := "NULL::int"
		if x != nil {
			xs = fmt.Sprint(x)
		}
		op := ops[rng.Intn(len(ops))]
		or, and := "false", "true"
		for _, e := range elems {
			es := "NULL::int"
			if e != nil {
				es = fmt.Sprint(e)
			}
			or += fmt.Sprintf(" OR %s %s %s", xs, op, es)
			and += fmt.Sprintf(" AND %s %s %s", xs, op, es)
		}
		arr := arrayLiteral(elems)
		got := query(fmt.Sprintf("SELECT %s %s ANY(%s), %s %s ALL(%s), (%s), (%s)", xs, op, arr, xs, op, arr, or, and))
		if got[0] != got[2] || got[1] != got[3] {
			t.Fatalf("%s %s ANY/ALL %s = %v, %v; expansions give %v, %v", xs, op, arr, got[0], got[1], got[2], got[3])
		}
		withParams := query(fmt.Sprintf("SELECT $1::int %s ANY($2), $1::int %s ALL($2)", op, op), x, elems)
		if withParams[0] != got[0] || withParams[1] != got[1] {
			t.Fatalf("$1 %s ANY/ALL($2) with %v, %v = %v, %v; literal gives %v, %v", op, x, elems, withParams[0], withParams[1], got[0], got[1])
		}
		for i := 0; i <= len(elems)+1; i++ {
			var want any
			if i >= 1 && i <= len(elems) {
				want = elems[i-1]
			}
			if v := query(fmt.Sprintf("SELECT (%s)[%d]", arr, i))[0]; v != want {
				t.Fatalf("%s[%d] = %v, want %v", arr, i, v, want)
			}
		}
		n := query(fmt.Sprintf("SELECT count(*) FROM unnest(%s)", arr))[0]
		if n != int64(len(elems)) {
			t.Fatalf("unnest(%s) has %v rows, want %d", arr, n, len(elems))
		}
	}
}
