package wire

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// arrayBytes builds a binary array from its header fields as a client may
// send them, true or not, and the element encodings (nil for NULL).
func arrayBytes(ndim, flags int32, elem uint32, dims [][2]int32, elems ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(ndim))
	b = binary.BigEndian.AppendUint32(b, uint32(flags))
	b = binary.BigEndian.AppendUint32(b, elem)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d[0]))
		b = binary.BigEndian.AppendUint32(b, uint32(d[1]))
	}
	for _, e := range elems {
		if e == nil {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func int4(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// TestDecodeBinaryRefusesAsPostgreSQL pins the SQLSTATE and message of each
// binary value PostgreSQL 15's receive functions refuse (checked against a
// server by integration's TestBinaryInputRefusedAsPostgreSQLDoes).
func TestDecodeBinaryRefusesAsPostgreSQL(t *testing.T) {
	tests := []struct {
		name    string
		oid     uint32
		src     []byte
		code    pgerror.Code
		message string
	}{
		{"text with 0xff", pgtype.TextOID, []byte("a\xffb"), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xff`},
		{"text with NUL", pgtype.TextOID, []byte("a\x00"), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0x00`},
		{"varchar with a bad three-byte character", pgtype.VarcharOID, []byte("\xe2\x28\xa1"), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xe2 0x28 0xa1`},
		{"bpchar with a surrogate", pgtype.BPCharOID, []byte("\xed\xa0\x80"), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xed 0xa0 0x80`},
		{"name with a truncated character", pgtype.NameOID, []byte("ab\xe2\x82"), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xe2 0x82`},
		{"json with NUL", pgtype.JSONOID, []byte("\"\x00\""), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0x00`},
		{"jsonb with 0xc3 at the end", pgtype.JSONBOID, []byte("\x01\"\xc3"), pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xc3`},
		{"text array element with 0xff", pgtype.TextArrayOID, arrayBytes(1, 0, pgtype.TextOID, [][2]int32{{1, 1}}, []byte("\xff")),
			pgerror.CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0xff`},
		{"array header cut short", pgtype.Int4ArrayOID, []byte{0, 0, 0, 1}, pgerror.ProtocolViolation, "insufficient data left in message"},
		{"negative number of dimensions", pgtype.Int4ArrayOID, arrayBytes(-1, 0, pgtype.Int4OID, nil),
			pgerror.InvalidBinaryRepresentation, "invalid number of dimensions: -1"},
		{"seven dimensions", pgtype.Int4ArrayOID, arrayBytes(7, 0, pgtype.Int4OID, nil),
			pgerror.ProgramLimitExceeded, "number of array dimensions (7) exceeds the maximum allowed (6)"},
		{"has-null flag 2", pgtype.Int4ArrayOID, arrayBytes(1, 2, pgtype.Int4OID, [][2]int32{{1, 1}}, int4(1)),
			pgerror.InvalidBinaryRepresentation, "invalid array flags"},
		{"built-in element type other than expected", pgtype.Int4ArrayOID, arrayBytes(1, 0, pgtype.TextOID, [][2]int32{{1, 1}}, []byte("1")),
			pgerror.DatatypeMismatch, "binary data has array element type 25 (text) instead of expected 23 (integer)"},
		{"dimensions missing", pgtype.Int4ArrayOID, arrayBytes(2, 0, pgtype.Int4OID, [][2]int32{{1, 1}}),
			pgerror.ProtocolViolation, "insufficient data left in message"},
		{"negative dimension", pgtype.Int4ArrayOID, arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{-1, 1}}),
			pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (134217727)"},
		{"element count overflows int32", pgtype.Int4ArrayOID, arrayBytes(2, 0, pgtype.Int4OID, [][2]int32{{1 << 16, 1}, {1 << 16, 1}}),
			pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (134217727)"},
		{"element count above MaxArraySize", pgtype.Int4ArrayOID, arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{1 << 27, 1}}),
			pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (134217727)"},
		{"upper bound overflows", pgtype.Int4ArrayOID, arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{2, 0x7fffffff}}, int4(1), int4(2)),
			pgerror.ProgramLimitExceeded, "array lower bound is too large: 2147483647"},
		{"more elements claimed than sent", pgtype.Int4ArrayOID, arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{3, 1}}, int4(1)),
			pgerror.ProtocolViolation, "insufficient data left in message"},
		{"element length past the data", pgtype.Int4ArrayOID, append(arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{1, 1}}), 0, 0, 0, 9, 1),
			pgerror.InvalidBinaryRepresentation, "insufficient data left in message"},
		{"element of the wrong size", pgtype.Int4ArrayOID, arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{2, 1}}, int4(1), []byte{1, 2, 3, 4, 5}),
			pgerror.InvalidBinaryRepresentation, "improper binary format in array element 2"},
		{"date before 4714 BC", pgtype.DateOID, int4(-2451546), pgerror.DatetimeFieldOverflow, "date out of range"},
		{"date after 5874897 AD", pgtype.DateOID, int4(0x7fda970d), pgerror.DatetimeFieldOverflow, "date out of range"},
		{"date from 294277 AD", pgtype.DateOID, int4(0x30303030), pgerror.FeatureNotSupported, "dates from 294277 AD on is not supported by fickle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := DecodeBinary(tt.oid, tt.src)
			e := pgerror.Flatten(err)
			if err == nil || e.Code != tt.code || e.Message != tt.message {
				t.Fatalf("DecodeBinary(%d, %x) = %#v, %v; want %s %q", tt.oid, tt.src, v, err, tt.code, tt.message)
			}
		})
	}
}

// TestDecodeBinaryArrayAcceptsWhatPostgreSQLAccepts pins the headers
// array_recv takes although they look odd: the has-null flag does not have
// to agree with the elements, an empty dimension may have any lower bound,
// and an element type outside the built-in range is not compared.
func TestDecodeBinaryArrayAcceptsWhatPostgreSQLAccepts(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		want any
	}{
		{"has-null flag set without NULLs", arrayBytes(1, 1, pgtype.Int4OID, [][2]int32{{2, 1}}, int4(1), int4(2)), []any{int64(1), int64(2)}},
		{"has-null flag clear with a NULL", arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{2, 1}}, int4(1), nil), []any{int64(1), nil}},
		{"empty dimension with lower bound 5", arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{0, 5}}), []any{}},
		{"empty second dimension", arrayBytes(2, 0, pgtype.Int4OID, [][2]int32{{3, 1}, {0, 1}}), []any{}},
		{"zero dimensions", arrayBytes(0, 0, pgtype.Int4OID, nil), []any{}},
		{"element type outside the built-in range", arrayBytes(1, 0, 70000, [][2]int32{{1, 1}}, int4(3)), []any{int64(3)}},
		{"lower bound 0", arrayBytes(1, 0, pgtype.Int4OID, [][2]int32{{2, 0}}, int4(1), int4(2)),
			&pgarray.Array{Dims: []int{2}, Lower: []int{0}, Elems: []any{int64(1), int64(2)}}},
		{"two dimensions with a negative lower bound", arrayBytes(2, 0, pgtype.Int4OID, [][2]int32{{1, 1}, {2, -3}}, int4(7), nil),
			&pgarray.Array{Dims: []int{1, 2}, Lower: []int{1, -3}, Elems: []any{int64(7), nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeBinary(pgtype.Int4ArrayOID, tt.src)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("DecodeBinary(int4[], %x) = %#v, %v; want %#v", tt.src, got, err, tt.want)
			}
		})
	}
}

// TestAppendArrayWritesEveryDimension pins the binary output of arrays of
// each shape: decoding what appendArray wrote gives the array back.
func TestAppendArrayWritesEveryDimension(t *testing.T) {
	for _, v := range []any{
		[]any{},
		[]any{int64(1), nil},
		&pgarray.Array{Dims: []int{3}, Lower: []int{-1}, Elems: []any{int64(1), int64(2), int64(3)}},
		&pgarray.Array{Dims: []int{2, 2}, Lower: []int{1, 1}, Elems: []any{int64(1), int64(2), nil, int64(4)}},
		&pgarray.Array{Dims: []int{1, 1, 2}, Lower: []int{0, 5, 1}, Elems: []any{int64(8), int64(9)}},
	} {
		buf, err := appendArray(nil, pgtype.Int4OID, v)
		if err != nil {
			t.Fatalf("appendArray(%#v): %v", v, err)
		}
		got, err := DecodeBinary(pgtype.Int4ArrayOID, buf)
		if err != nil || !reflect.DeepEqual(got, v) {
			t.Fatalf("DecodeBinary(appendArray(%#v)) = %#v, %v", v, got, err)
		}
	}
}
