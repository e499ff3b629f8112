package types

import (
	"bytes"
	"testing"
)

// The OIDs the hstore tests register the type under.
const testHstoreOid, testHstoreArrayOid Oid = 1<<31 - 9, 1<<31 - 8

func testHstoreType() Type {
	RegisterHstore(testHstoreOid, testHstoreArrayOid, "hstore")
	return Type{testHstoreOid, -1}
}

// FuzzParseHstore reads hstore text, which applications store from
// untrusted input: any input is accepted or refused with an error; what
// is accepted prints back to itself, its pairs are sorted and unique, its
// key decodes to an equal value and keys order as hstore_cmp does.
func FuzzParseHstore(f *testing.F) {
	ht := testHstoreType()
	for _, s := range []string{`a=>1, b=>NULL, "c d"=>"e\"f\\g"`, "a=>1, a=>2", "", " ", "=>", "a=>", `"a`, `\`, "a,b=>c=d",
		"aa=>null, b=>NuLl, c=>\"NULL\"", "é=>ü, ab=>\"\"", "a=>1 x", "\t a \t=>\t b \t", "a=>1,"} {
		f.Add(s, "b=>1, a=>2")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		roundTrip(t, ht, s)
		v, err := ParseHstore(s)
		if err != nil {
			return
		}
		for i := 1; i < len(v); i++ {
			if hstoreKeyCompare(v[i-1].Key, v[i].Key) >= 0 {
				t.Fatalf("%q: pairs out of order: %q", s, FormatHstore(v))
			}
		}
		key := AppendKey(nil, ht, v)
		back, _, err := DecodeKey(ht, key)
		if err != nil || Compare(ht, v, back) != 0 || FormatHstore(back.(Hstore)) != FormatHstore(v) {
			t.Fatalf("%q: key decodes to %v, %v", s, back, err)
		}
		w, err := ParseHstore(other)
		if err != nil {
			return
		}
		if c := bytes.Compare(key, AppendKey(nil, ht, w)); c != Compare(ht, v, w) {
			t.Fatalf("%q vs %q: key order %d, compare %d", s, other, c, Compare(ht, v, w))
		}
		if cat := HstoreConcat(v, w); !HstoreContains(cat, w) || len(HstoreDeletePairs(cat, cat)) != 0 {
			t.Fatalf("%q || %q = %q", s, other, FormatHstore(cat))
		}
	})
}

// TestParseHstore pins hstore_in's reading of quoting, escapes, NULL and
// duplicate keys.
func TestParseHstore(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{in: "a=>1, a=>2, b=>3, a=>4", out: `"a"=>"1", "b"=>"3"`},
		{in: `\=a=>q=w`, out: `"=a"=>"q=w"`},
		{in: `"\"a"=>q>w`, out: `"\"a"=>"q>w"`},
		{in: `\"a=>q"w`, out: `"\"a"=>"q\"w"`},
		{in: "aa=>NuLl, b=>\"null\", c=>nulls", out: `"b"=>"null", "c"=>"nulls", "aa"=>NULL`},
		{in: "a=>1,b", err: "Unexpected end of string"},
		{in: "=>1", err: `Syntax error near "=" at position 0`},
		{in: "a=>1 é", err: `Syntax error near "é" at position 5`},
	} {
		h, err := ParseHstore(c.in)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%q: error %v, want %q", c.in, err, c.err)
		case c.err == "" && (err != nil || FormatHstore(h) != c.out):
			t.Errorf("%q: %q, %v, want %q", c.in, FormatHstore(h), err, c.out)
		}
	}
}
