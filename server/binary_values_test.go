package server

import (
	"encoding/hex"
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

// citext values travel in binary as text's (citextsend, citextrecv), with
// their case, arrays of them with citext's OID in the header.
func TestCitextValuesRoundTripInBinary(t *testing.T) {
	const citextOID, arrayOID = 1<<31 - 5, 1<<31 - 4
	types.RegisterCitext(citextOID, arrayOID, "citext")
	if !supportsBinary(citextOID) || !supportsBinary(arrayOID) {
		t.Fatal("citext should have a binary form")
	}
	buf, err := appendBinaryValue(nil, citextOID, "MiXed")
	if err != nil || string(buf) != "MiXed" {
		t.Fatalf("citextsend(MiXed) = %q, %v", buf, err)
	}
	arr := []any{"A", nil, "b"}
	buf, err = appendBinaryValue(nil, arrayOID, arr)
	if err != nil {
		t.Fatal(err)
	}
	if got := uint32(buf[8])<<24 | uint32(buf[9])<<16 | uint32(buf[10])<<8 | uint32(buf[11]); got != citextOID {
		t.Errorf("array header names element type %d, want %d", got, citextOID)
	}
	back, err := decodeBinaryValue(arrayOID, buf)
	if err != nil || !reflect.DeepEqual(back, arr) {
		t.Errorf("array round trip = %#v, %v", back, err)
	}
	if v, err := decodeBinaryValue(citextOID, []byte("AbC")); err != nil || v != "AbC" {
		t.Errorf("citextrecv(AbC) = %v, %v", v, err)
	}
}

// inet and cidr travel in binary as inet_send writes them: family, mask
// bits, the cidr flag, the address length, the address.
func TestNetworkValuesInBinary(t *testing.T) {
	cases := []struct {
		oid  types.Oid
		text string
		wire []byte
	}{
		{types.OidInet, "192.168.1.5/24", []byte{2, 24, 0, 4, 192, 168, 1, 5}},
		{types.OidCidr, "10.0.0.0/8", []byte{2, 8, 1, 4, 10, 0, 0, 0}},
		{types.OidInet, "::1", append([]byte{3, 128, 0, 16}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)},
	}
	for _, c := range cases {
		checkBinaryRoundTrip(t, c.oid, c.text, c.wire)
	}
	for _, bad := range [][]byte{{2, 8, 1, 4, 10, 0, 0, 1}, {2, 33, 0, 4, 1, 2, 3, 4}, {4, 8, 0, 4, 1, 2, 3, 4}, {2, 8, 0, 16, 1, 2, 3, 4}} {
		oid := types.OidCidr
		if bad[2] == 0 {
			oid = types.OidInet
		}
		if _, err := decodeBinaryValue(uint32(oid), bad); err == nil {
			t.Errorf("%v accepted as %d", bad, oid)
		}
	}
}

// checkBinaryRoundTrip checks that the value text reads as goes out in
// binary as wire, and that wire reads back as the same value.
func checkBinaryRoundTrip(t *testing.T, oid types.Oid, text string, wire []byte) {
	t.Helper()
	typ := types.Type{Oid: oid, Typmod: -1}
	v, err := types.ParseText(typ, text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendBinaryValue(nil, uint32(oid), v)
	if err != nil || !reflect.DeepEqual(got, wire) {
		t.Errorf("%s: sent %v, %v; want %v", text, got, err, wire)
	}
	back, err := decodeBinaryValue(uint32(oid), wire)
	if err != nil || types.FormatText(typ, back, nil) != types.FormatText(typ, v, nil) {
		t.Errorf("%s: received %v, %v", text, back, err)
	}
}

// binaryGolden is a value's text and the bytes PostgreSQL 15's send
// function gave for it.
type binaryGolden struct {
	typ  types.Type
	text string
	hex  string
}

// checkBinaryGolden requires each value to have a binary form, to be sent
// as PostgreSQL's bytes and to be read back to the same text.
func checkBinaryGolden(t *testing.T, cases []binaryGolden) {
	t.Helper()
	for _, c := range cases {
		v, err := types.ParseText(c.typ, c.text)
		if err != nil {
			t.Fatal(err)
		}
		if !supportsBinary(uint32(c.typ.Oid)) {
			t.Errorf("%s: no binary form", c.typ)
		}
		b, err := appendBinaryValue(nil, uint32(c.typ.Oid), v)
		if err != nil || hex.EncodeToString(b) != c.hex {
			t.Errorf("%s %q: sent %x, %v; want %s", c.typ, c.text, b, err, c.hex)
		}
		back, err := decodeBinaryValue(uint32(c.typ.Oid), b)
		if err != nil || types.FormatText(c.typ, back, nil) != c.text {
			t.Errorf("%s %q: received %v, %v", c.typ, c.text, back, err)
		}
	}
}

// checkBinaryRefused requires each hex string to be refused as a binary
// value of type oid.
func checkBinaryRefused(t *testing.T, oid types.Oid, hexes ...string) {
	t.Helper()
	for _, h := range hexes {
		b, _ := hex.DecodeString(h)
		if v, err := decodeBinaryValue(uint32(oid), b); err == nil {
			t.Errorf("%d %s: read as %v", oid, h, v)
		}
	}
}
