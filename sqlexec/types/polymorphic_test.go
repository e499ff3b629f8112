package types

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestResolvePolymorphic(t *testing.T) {
	el, arr, nonArr := Type{OidAnyElement, -1}, Type{OidAnyArray, -1}, Type{OidAnyNonArray, -1}
	rng, comp, compArr := Type{OidAnyRange, -1}, Type{OidAnyCompatible, -1}, Type{OidAnyCompatibleArray, -1}
	int4Arr, _ := ArrayOf(Int4)
	numArr, _ := ArrayOf(Type{OidNumeric, -1})
	textArr, _ := ArrayOf(Text)
	num := Type{OidNumeric, -1}
	cases := []struct {
		name             string
		actual, declared []Type
		result           Type
		args             []Type
		want             Type
		code             pgerror.Code
	}{
		{"element", []Type{Int4, Int4}, []Type{el, el}, el, []Type{Int4, Int4}, Int4, ""},
		{"unknown takes the other's type", []Type{Int4, Unknown}, []Type{el, el}, arr, []Type{Int4, Int4}, Type{int4Arr.Oid, -1}, ""},
		{"array gives the element", []Type{int4Arr}, []Type{arr}, el, []Type{int4Arr}, Int4, ""},
		{"range gives the element", []Type{{OidInt4Range, -1}}, []Type{rng}, el, []Type{{OidInt4Range, -1}}, Int4, ""},
		{"only unknowns", []Type{Unknown}, []Type{el}, el, nil, Type{}, pgerror.DatatypeMismatch},
		{"not alike", []Type{Int4, Text}, []Type{el, el}, el, nil, Type{}, pgerror.DatatypeMismatch},
		{"array against element", []Type{int4Arr, Text}, []Type{arr, el}, el, nil, Type{}, pgerror.DatatypeMismatch},
		{"nonarray given an array", []Type{int4Arr}, []Type{nonArr}, el, nil, Type{}, pgerror.DatatypeMismatch},
		{"common supertype", []Type{Int4, num}, []Type{comp, comp}, compArr, []Type{num, num}, Type{numArr.Oid, -1}, ""},
		{"compatible unknowns are text", []Type{Unknown, Unknown}, []Type{comp, comp}, comp, []Type{Text, Text}, Text, ""},
		{"compatible array element", []Type{Int4, numArr}, []Type{comp, compArr}, comp, []Type{num, Type{numArr.Oid, -1}}, num, ""},
		{"no common type", []Type{Int4, Text}, []Type{comp, comp}, comp, nil, Type{}, pgerror.DatatypeMismatch},
		{"textual unknown array", []Type{Unknown}, []Type{compArr}, compArr, []Type{Type{textArr.Oid, -1}}, Type{textArr.Oid, -1}, ""},
	}
	for _, c := range cases {
		args, resolve, err := ResolvePolymorphic(c.actual, c.declared)
		var got Type
		if err == nil {
			got, err = resolve(c.result)
		}
		if c.code != "" {
			if pgerror.GetCode(err) != c.code {
				t.Errorf("%s: error %v, want %s", c.name, err, c.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !sameOids(args, c.args) || len(args) != len(c.args) || got.Oid != c.want.Oid {
			t.Errorf("%s: args %v result %v, want %v and %v", c.name, args, got, c.args, c.want)
		}
	}
}

func TestPolymorphicMatch(t *testing.T) {
	el, arr, enum := Type{OidAnyElement, -1}, Type{OidAnyArray, -1}, Type{OidAnyEnum, -1}
	int4Arr, _ := ArrayOf(Int4)
	cases := []struct {
		actual, declared []Type
		want             bool
	}{
		{[]Type{Int4, Int4}, []Type{el, el}, true},
		{[]Type{Int4, Text}, []Type{el, el}, false},
		{[]Type{int4Arr, Int4}, []Type{arr, el}, true},
		{[]Type{int4Arr, Text}, []Type{arr, el}, false},
		{[]Type{Int4}, []Type{arr}, false},
		{[]Type{Unknown, Int4}, []Type{el, el}, true},
		{[]Type{Int4}, []Type{enum}, false},
		{[]Type{Int4, Int4}, []Type{Int4, el}, true},
	}
	for _, c := range cases {
		if got := PolymorphicMatch(c.actual, c.declared); got != c.want {
			t.Errorf("PolymorphicMatch(%v, %v) = %v, want %v", c.actual, c.declared, got, c.want)
		}
	}
}

func TestCheckPolymorphicSignature(t *testing.T) {
	el, rng, comp := Type{OidAnyElement, -1}, Type{OidAnyRange, -1}, Type{OidAnyCompatible, -1}
	cases := []struct {
		result Type
		args   []Type
		ok     bool
	}{
		{el, []Type{el}, true},
		{el, []Type{Int4}, false},
		{el, []Type{rng}, true},
		{rng, []Type{el}, false},
		{comp, []Type{el}, false},
		{comp, []Type{comp}, true},
		{Int4, nil, true},
	}
	for _, c := range cases {
		err := CheckPolymorphicSignature(c.result, c.args)
		if (err == nil) != c.ok {
			t.Errorf("CheckPolymorphicSignature(%v, %v) = %v", c.result, c.args, err)
		}
		if err != nil && pgerror.GetCode(err) != pgerror.InvalidFunctionDefinition {
			t.Errorf("CheckPolymorphicSignature(%v, %v): code %s", c.result, c.args, pgerror.GetCode(err))
		}
	}
}
