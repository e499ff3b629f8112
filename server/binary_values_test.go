package server

import (
	"reflect"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Enum values travel in binary as their labels' text, arrays of them with
// the enum's OID in the header, and binary input checks the labels.
func TestEnumValuesRoundTripInBinary(t *testing.T) {
	const enumOID, arrayOID = 1<<31 - 3, 1<<31 - 2
	types.RegisterEnum(enumOID, arrayOID, "binary_mood", []types.EnumLabel{{Label: "lo", Position: 1}, {Label: "hi", Position: 2}})
	if !supportsBinary(enumOID) || !supportsBinary(arrayOID) {
		t.Fatal("enum types should have a binary form")
	}
	buf, err := appendBinaryValue(nil, enumOID, "hi")
	if err != nil || string(buf) != "hi" {
		t.Fatalf("enum_send(hi) = %q, %v", buf, err)
	}
	arr := []any{"lo", nil, "hi"}
	buf, err = appendBinaryValue(nil, arrayOID, arr)
	if err != nil {
		t.Fatal(err)
	}
	if got := uint32(buf[8])<<24 | uint32(buf[9])<<16 | uint32(buf[10])<<8 | uint32(buf[11]); got != enumOID {
		t.Errorf("array header names element type %d, want %d", got, enumOID)
	}
	back, err := decodeBinaryValue(arrayOID, buf)
	if err != nil || !reflect.DeepEqual(back, arr) {
		t.Errorf("array round trip = %#v, %v", back, err)
	}
	if v, err := decodeBinaryValue(enumOID, []byte("lo")); err != nil || v != "lo" {
		t.Errorf("enum_recv(lo) = %v, %v", v, err)
	}
	if _, err := decodeBinaryValue(enumOID, []byte("nope")); pgerror.GetCode(err) != pgerror.InvalidTextRepresentation {
		t.Errorf("enum_recv(nope) error %v, want 22P02", err)
	}
	bad, _ := appendBinaryValue(nil, arrayOID, []any{"nope"})
	if _, err := decodeBinaryValue(arrayOID, bad); pgerror.GetCode(err) != pgerror.InvalidTextRepresentation {
		t.Errorf("array with a label the enum lacks: error %v, want 22P02", err)
	}
}
