package types

import (
	"bytes"
	"testing"
)

// citext compares, keys and orders values lower-cased (ASCII letters only,
// as lower() under the C collation), and keeps the value as written.
func TestCitextCompareAndKeys(t *testing.T) {
	const oid, array Oid = 1<<31 - 7, 1<<31 - 6
	RegisterCitext(oid, array, "citext")
	ct := Type{oid, -1}
	cases := []struct {
		a, b string
		want int
	}{
		{"Foo", "foo", 0},
		{"a", "B", -1},
		{"Z", "a", 1},
		{"É", "é", -1}, // not an ASCII letter: compared as written
		{"a_", "A[", 1},
	}
	for _, c := range cases {
		if got := Compare(ct, c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		ka, kb := AppendKey(nil, ct, c.a), AppendKey(nil, ct, c.b)
		if got := bytes.Compare(ka, kb); got != c.want {
			t.Errorf("keys of %q and %q compare %d, want %d", c.a, c.b, got, c.want)
		}
	}
	v, err := ParseText(ct, "MiXed")
	if err != nil || v != "MiXed" || FormatText(ct, v, nil) != "MiXed" {
		t.Errorf("citext input and output of MiXed = %v, %v", v, err)
	}
	if elem, ok := (Type{array, -1}).Elem(); !ok || elem.Oid != oid {
		t.Errorf("citext[]'s element = %v, %v", elem, ok)
	}
	if !ct.IsCitext() || (Type{array, -1}).IsCitext() || ct.Category() != CategoryString || ct.Preferred() {
		t.Error("citext is a non-preferred string type, its array is no citext")
	}
}
