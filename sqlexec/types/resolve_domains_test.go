package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestChooseRoutineDomains pins func_select_candidate's treatment of
// parameters of a domain (whose base type the overloads hold): never an
// exact or preferred match, a coercible one where the base type is, with
// PostgreSQL 15's choices (checked against it by hand).
func TestChooseRoutineDomains(t *testing.T) {
	f := false
	d := true
	cases := []struct {
		name      string
		args      []Type
		overloads [][]Type
		domains   [][]bool
		want      int
		code      pgerror.Code
	}{
		// f(posint), f(int): an int argument matches f(int) exactly.
		{"base exact", []Type{Int4}, [][]Type{{Int4}, {Int4}}, [][]bool{{d}, {f}}, 1, ""},
		// An untyped literal fits both, neither preferred: not unique.
		{"unknown", []Type{Unknown}, [][]Type{{Int4}, {Int4}}, [][]bool{{d}, {f}}, -1, pgerror.AmbiguousFunction},
		// smallint coerces to both int and the domain over int.
		{"coercible", []Type{Int2}, [][]Type{{Int4}, {Int4}}, [][]bool{{d}, {f}}, -1, pgerror.AmbiguousFunction},
		// f(posint), f(int8): int fits both by coercion, neither exactly.
		{"no exact", []Type{Int4}, [][]Type{{Int4}, {Int8}}, [][]bool{{d}, {f}}, -1, pgerror.AmbiguousFunction},
		// f(posint) alone takes an int.
		{"alone", []Type{Int4}, [][]Type{{Int4}}, [][]bool{{d}}, 0, ""},
		// f(posint), f(text): an int does not coerce to text implicitly.
		{"other category", []Type{Int4}, [][]Type{{Int4}, {Text}}, [][]bool{{d}, {f}}, 0, ""},
		// An untyped literal prefers the string category.
		{"unknown string", []Type{Unknown}, [][]Type{{Int4}, {Text}}, [][]bool{{d}, {f}}, 1, ""},
		// f(posint, int), f(int, posint) with (int, int): one exact match each.
		{"one exact each", []Type{Int4, Int4}, [][]Type{{Int4, Int4}, {Int4, Int4}}, [][]bool{{d, f}, {f, d}}, -1, pgerror.AmbiguousFunction},
		// A domain over float8 is not float8's preferred type.
		{"not preferred", []Type{Int4}, [][]Type{{Float8}, {Numeric(-1, -1)}}, [][]bool{{d}, {f}}, -1, pgerror.AmbiguousFunction},
		{"preferred", []Type{Int4}, [][]Type{{Float8}, {Numeric(-1, -1)}}, [][]bool{{f}, {f}}, 0, ""},
		// bigint does not coerce implicitly to a domain over int.
		{"not coercible", []Type{Int8}, [][]Type{{Int4}}, [][]bool{{d}}, -1, pgerror.UndefinedFunction},
	}
	for _, c := range cases {
		got, err := ChooseRoutine("f", c.args, c.overloads, c.domains)
		if got != c.want || pgerror.GetCode(err) != c.code {
			t.Errorf("%s: got %d, %v; want %d, %s", c.name, got, err, c.want, c.code)
		}
	}
}
