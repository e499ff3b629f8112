package types

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// randomRange returns a random range of type t over subtype sub: empty,
// with infinite bounds or with random values of the subtype, inclusive or
// not, canonical as range input makes it.
func randomRange(r *rand.Rand, t, sub Type) Range {
	if r.IntN(8) == 0 {
		return Range{Empty: true}
	}
	lower := rangeBound{infinite: r.IntN(6) == 0, inclusive: r.IntN(2) == 0, lower: true}
	upper := rangeBound{infinite: r.IntN(6) == 0, inclusive: r.IntN(2) == 0}
	a, b := randomDatum(r, sub), randomDatum(r, sub)
	if r.IntN(6) == 0 {
		b = a
	}
	if compare(sub, a, b) > 0 {
		a, b = b, a
	}
	if !lower.infinite {
		lower.val = a
	}
	if !upper.infinite {
		upper.val = b
	}
	rg, err := makeRange(t, lower, upper)
	if err != nil {
		return Range{Empty: true} // a discrete bound at the subtype's end
	}
	return rg
}

// Range text input and output, as range_in and range_out read and write
// them: canonical forms, quoting, and the errors of malformed literals.
func TestRangeText(t *testing.T) {
	cases := []struct {
		typ  Oid
		in   string
		out  string
		code pgerror.Code
	}{
		{OidInt4Range, "[1,5)", "[1,5)", ""},
		{OidInt4Range, "(1,5]", "[2,6)", ""},
		{OidInt4Range, "(1,2)", "empty", ""},
		{OidInt4Range, "[3,3]", "[3,4)", ""},
		{OidInt4Range, "[3,3)", "empty", ""},
		{OidInt4Range, " eMpTy ", "empty", ""},
		{OidInt4Range, "[,]", "(,)", ""},
		{OidInt4Range, "( \"1\" , 5 )", "[2,5)", ""},
		{OidInt4Range, `[\1,5)`, "[1,5)", ""},
		{OidInt8Range, "[9223372036854775806,9223372036854775806]", "[9223372036854775806,9223372036854775807)", ""},
		{OidNumRange, "[1.50,2.5]", "[1.50,2.5]", ""},
		{OidNumRange, "(,0)", "(,0)", ""},
		{OidDateRange, "(2024-02-28,2024-03-01]", "[2024-02-29,2024-03-02)", ""},
		{OidDateRange, "(-infinity,infinity]", "(-infinity,infinity]", ""},
		{OidTsRange, "[2024-01-01 10:00,)", `["2024-01-01 10:00:00",)`, ""},
		{OidTsRange, "[-infinity,infinity)", "[-infinity,infinity)", ""},
		{OidInt4Range, "", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "1,5", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "[1,5", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "[1;5)", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "[1,5,6)", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "[1,5) x", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "empty!", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, `[1,5\`, "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, `["1,5)`, "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "[a,5)", "", pgerror.InvalidTextRepresentation},
		{OidInt4Range, "[5,1)", "", pgerror.DataException},
		{OidInt4Range, "[1,2147483647]", "", pgerror.NumericValueOutOfRange},
	}
	for _, c := range cases {
		typ := Type{c.typ, -1}
		v, err := ParseText(typ, c.in)
		if c.code != "" {
			if pgerror.GetCode(err) != c.code {
				t.Errorf("%s %q: error %v, want %s", typ, c.in, err, c.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", typ, c.in, err)
			continue
		}
		if got := FormatText(typ, v, nil); got != c.out {
			t.Errorf("%s %q prints %q, want %q", typ, c.in, got, c.out)
		}
	}
}

// Bound values print in double quotes where range input would misread
// them, with quotes and backslashes doubled.
func TestWriteRangeBound(t *testing.T) {
	for in, want := range map[string]string{
		"abc": "abc", "": `""`, "a b": `"a b"`, `a"b`: `"a""b"`, `a\b`: `"a\\b"`, "a,b": `"a,b"`, "(x]": `"(x]"`, "é": "é",
	} {
		var b strings.Builder
		writeRangeBound(&b, in)
		if got := b.String(); got != want {
			t.Errorf("writeRangeBound(%q) = %q, want %q", in, got, want)
		}
	}
}

// Adjacency of discrete ranges whose bounds are apart but leave no value
// between them, and of continuous ones that meet.
func TestRangeAdjacent(t *testing.T) {
	i4 := Type{OidInt4Range, -1}
	num := Type{OidNumRange, -1}
	two := mustNumeric(t, "2")
	cases := []struct {
		typ  Type
		a, b Range
		want bool
	}{
		{i4, Range{Lower: int64(1), Upper: int64(3), LowerInc: true}, Range{Lower: int64(3), Upper: int64(5), LowerInc: true}, true},
		{i4, Range{Lower: int64(1), Upper: int64(3), LowerInc: true}, Range{Lower: int64(4), Upper: int64(5), LowerInc: true}, false},
		{i4, Range{Lower: int64(1), Upper: int64(3), LowerInc: true, UpperInc: true}, Range{Lower: int64(3), Upper: int64(5)}, true},
		{num, Range{LowerInf: true, Upper: two}, Range{Lower: two, UpperInf: true, LowerInc: true}, true},
		{num, Range{LowerInf: true, Upper: two}, Range{Lower: two, UpperInf: true}, false},
		{num, Range{Empty: true}, Range{LowerInf: true, UpperInf: true}, false},
	}
	for _, c := range cases {
		if got := rangeAdjacent(c.typ, c.a, c.b); got != c.want {
			t.Errorf("%s %s -|- %s = %v, want %v", c.typ, formatRange(nil, c.typ, c.a), formatRange(nil, c.typ, c.b), got, c.want)
		}
	}
}
