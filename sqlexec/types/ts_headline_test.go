package types

import (
	"reflect"
	"testing"
)

func TestParseHeadlineOptions(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []HeadlineOption
		err  bool
	}{
		{in: "", want: nil},
		{in: " , ,", want: nil},
		{in: "MaxWords=5, MinWords=1", want: []HeadlineOption{{"MaxWords", "5"}, {"MinWords", "1"}}},
		{in: "a=1 b = 2,c= 3", want: []HeadlineOption{{"a", "1"}, {"b", "2"}, {"c", "3"}}},
		{in: `"Start""Sel" = x`, want: []HeadlineOption{{`Start"Sel`, "x"}}},
		{in: `s='it''s', t=E'a\\b\c', u="x ""y"""`, want: []HeadlineOption{{"s", "it's"}, {"t", `a\b\c`}, {"u", `x "y"`}}},
		{in: "a,b=1", want: []HeadlineOption{{"a,b", "1"}}},
		{in: "a=x=y", want: []HeadlineOption{{"a", "x=y"}}},
		{in: "a=", err: true},
		{in: "a", err: true},
		{in: "a b=1", err: true},
		{in: "a='x", err: true},
		{in: `"a`, err: true},
	} {
		got, err := ParseHeadlineOptions(tc.in)
		if (err != nil) != tc.err || !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseHeadlineOptions(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestPgStrtoint32(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
		err  bool
	}{
		{in: "5", want: 5},
		{in: " -12 ", want: -12},
		{in: "+7", want: 7},
		{in: "2147483647", want: 2147483647},
		{in: "-2147483648", want: -2147483648},
		{in: "2147483648", err: true},
		{in: "-2147483649", err: true},
		{in: "", err: true},
		{in: "-", err: true},
		{in: "1e3", err: true},
		{in: "0x10", err: true},
		{in: "1_000", err: true},
	} {
		got, err := pgStrtoint32(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("pgStrtoint32(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
