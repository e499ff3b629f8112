package server

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// arrayFuzzOids are the array types whose binary form FuzzArrayBinaryAgreesWithText decodes.
var arrayFuzzOids = []uint32{1000, 1005, 1007, 1016, 1009, 1015, 1022, 1231, 2951, 1185, 1182, 3807}

// FuzzArrayBinaryAgreesWithText decodes arbitrary bytes as binary arrays
// (the binary parameter path: wire's array receive, then each textual element's input function): whatever decodes must print as an array literal
// that types' array_in reads back to an equal value with the same binary
// encoding, so that the binary and text paths of a parameter agree.
func FuzzArrayBinaryAgreesWithText(f *testing.F) {
	seeds := []struct {
		oid uint32
		v   []any
	}{
		{1007, []any{int64(1), nil, int64(-3)}},
		{1009, []any{"a b", "", "NULL", `"\`}},
		{1022, []any{1.5, nil}},
		{1016, []any{}},
		{1009, []any{"a\xffb"}},
		{1009, []any{"nul\x00"}},
	}
	for _, s := range seeds {
		enc, err := wire.AppendBinary(nil, s.oid, s.v)
		if err != nil {
			f.Fatal(err)
		}
		for j, oid := range arrayFuzzOids {
			if oid == s.oid {
				f.Add(uint8(j), enc)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		oid := arrayFuzzOids[int(which)%len(arrayFuzzOids)]
		typ, v, back, text, ok := readBackAsText(t, oid, data, func(typ types.Type, v any) {
			if elems, _ := pgarray.Elems(v); hasInvalidText(elems) {
				t.Fatalf("%s: binary %x decodes to text with NUL or invalid UTF-8, which textrecv refuses (22021)", typ, data)
			}
		})
		if !ok {
			return
		}
		enc1, err1 := wire.AppendBinary(nil, oid, v)
		enc2, err2 := wire.AppendBinary(nil, oid, back)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: re-encoding %q: %v, %v", typ, text, err1, err2)
		}
		if !reflect.DeepEqual(enc1, enc2) && !hasNaN(v) {
			t.Fatalf("%s: %q encodes as %x from binary but %x from text", typ, text, enc1, enc2)
		}
	})
}

// hasInvalidText reports whether a text element holds NUL or invalid UTF-8.
func hasInvalidText(elems []any) bool {
	for _, e := range elems {
		if s, ok := e.(string); ok && (strings.ContainsRune(s, 0) || !utf8.ValidString(s)) {
			return true
		}
	}
	return false
}

// hasNaN reports whether an array holds a float NaN, whose payload bits
// the text form does not keep.
func hasNaN(v any) bool {
	elems, _ := pgarray.Elems(v)
	for _, e := range elems {
		if f, ok := e.(float64); ok && f != f {
			return true
		}
	}
	return false
}

// readBackAsText decodes data as a binary parameter of type oid, runs check
// on the value, prints it and reads the text back, failing t unless the
// text parses to an equal value. ok is false when the binary is refused, or
// the text is one fickle refuses with 0A000 (a numeric bound of 1e100000 or
// more, which binary holds).
func readBackAsText(t *testing.T, oid uint32, data []byte, check func(types.Type, any)) (typ types.Type, v, back any, text string, ok bool) {
	v, err := decodeBinaryValue(oid, data)
	if err != nil {
		return typ, nil, nil, "", false
	}
	typ, found := types.TypeByOid(types.Oid(oid))
	if !found {
		t.Fatalf("no type %d", oid)
	}
	if check != nil {
		check(typ, v)
	}
	text = types.FormatText(typ, v, nil)
	back, err = types.ParseText(typ, text)
	if pgerror.GetCode(err) == pgerror.FeatureNotSupported {
		return typ, nil, nil, "", false
	}
	if err != nil {
		t.Fatalf("%s: binary %x printed as %q, which does not parse: %v", typ, data, text, err)
	}
	if types.Compare(typ, v, back) != 0 {
		t.Fatalf("%s: binary %x printed as %q reads back as %q", typ, data, text, types.FormatText(typ, back, nil))
	}
	return typ, v, back, text, true
}
