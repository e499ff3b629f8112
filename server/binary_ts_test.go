package server

import (
	"encoding/hex"
	"testing"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// TestTextSearchBinary holds tsvectorsend's and tsquerysend's bytes, as
// PostgreSQL 15 sent them, and reads each back to the same text.
func TestTextSearchBinary(t *testing.T) {
	checkBinaryGolden(t, []binaryGolden{
		{types.TSVectorType, "'a':1 'b':2A,3 'c' 'x y':1B", "0000000461000001000162000002c0020003630000007820790000018001"},
		{types.TSVectorType, "", "00000000"},
		{types.TSVectorType, "'z' 'é':1", "000000027a000000c3a90000010001"},
		{types.TSQueryType, "'a' & 'b' | !'c' <-> 'd'", "00000008020302040001010000640002010100006300020201000062000100006100"},
		{types.TSQueryType, "'a':*AB <3> ( 'b' | !'c' )", "00000006020400030203020101000063000100006200010c016100"},
	})
	checkBinaryRefused(t, types.TSQueryType.Oid, "00000000", "000000010203", "0000000101100061")
	checkBinaryRefused(t, types.TSVectorType.Oid, "0000000261000000610000", "0000000161000002000200010", "00000005")
}

// FuzzTextSearchBinary decodes arbitrary bytes as binary tsvector and
// tsquery parameters: whatever decodes prints as text and encodes back to
// the same bytes.
func FuzzTextSearchBinary(f *testing.F) {
	for _, s := range []string{"0000000461000001000162000002c0020003630000007820790000018001", "00000008020302040001010000640002010100006300020201000062000100006100"} {
		b, _ := hex.DecodeString(s)
		f.Add(false, b)
		f.Add(true, b)
	}
	f.Fuzz(func(t *testing.T, query bool, data []byte) {
		typ := types.TSVectorType
		if query {
			typ = types.TSQueryType
		}
		v, err := decodeBinaryValue(uint32(typ.Oid), data)
		if err != nil {
			return
		}
		types.FormatText(typ, v, nil)
		b, err := appendBinaryValue(nil, uint32(typ.Oid), v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeBinaryValue(uint32(typ.Oid), b); err != nil {
			t.Fatalf("%x re-encodes as %x, which does not decode: %v", data, b, err)
		}
	})
}
