package types

import (
	"strings"
	"testing"
)

// TestAggregatesMatchPostgres runs testdata/aggregates.golden: the result
// type and value of an aggregate over a few rows (untyped literals are
// resolved as text, as in the UNION that gen.sh builds);
// aggregates_arrays.golden holds array_agg and min/max over arrays.
func TestAggregatesMatchPostgres(t *testing.T) {
	rows := goldenRows(t, "testdata/aggregates.golden", 6)
	rows = append(rows, goldenRows(t, "testdata/aggregates_arrays.golden", 6)...)
	for _, row := range rows {
		name, typ, list, delim, wantType, want := row[0], row[1], row[2], row[3], row[4], row[5]
		if typ == "unknown" {
			typ = "text"
		}
		argType := typeFromSQL(t, typ)
		args := []Type{argType}
		if name == "string_agg" {
			args = append(args, argType)
		}
		agg, err := ResolveAggregate(name, args, false)
		var v any
		var result Type
		if err == nil {
			result = agg.Result
			acc := agg.New(nil)
			if list != "" {
				for _, item := range strings.Split(list, " ; ") {
					_, val, err := operand(t, nil, typ, item)
					if err != nil {
						t.Fatal(err)
					}
					rowArgs := []any{val}
					if name == "string_agg" {
						_, d, _ := operand(t, nil, typ, delim)
						rowArgs = append(rowArgs, d)
					}
					if err := acc.Add(rowArgs); err != nil {
						t.Fatalf("%s: Add: %v", name, err)
					}
				}
			}
			v, err = acc.Result()
		}
		gotType, got := evalOutcome(nil, result, v, err)
		if gotType != wantType || got != want {
			t.Errorf("%s(%s) over %q: got %s %q (%v), want %s %q", name, typ, list, gotType, got, err, wantType, want)
		}
	}
}

func TestCountStarCountsNullRows(t *testing.T) {
	agg, err := ResolveAggregate("count", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	acc := agg.New(nil)
	for range 3 {
		if err := acc.Add(nil); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := acc.Result(); v != int64(3) || agg.Result != Int8 {
		t.Errorf("count(*) = %v of type %s", v, FormatType(agg.Result))
	}
	if _, err := ResolveAggregate("sum", nil, true); err == nil {
		t.Error("sum(*) resolved")
	}
	if !IsAggregate("pg_catalog.sum") || !IsAggregate("string_agg") || IsAggregate("lower") {
		t.Error("IsAggregate is wrong")
	}
}
