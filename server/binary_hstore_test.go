package server

import (
	"encoding/hex"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// hstore values travel in binary as hstore_send writes them (the bytes
// PostgreSQL 15's hstore_send('b=>NULL, a=>1') gives); hstore_recv sorts
// the pairs, keeps the first of equal keys and refuses a NULL key.
func TestHstoreValuesInBinary(t *testing.T) {
	const hstoreOID, arrayOID = 1<<31 - 7, 1<<31 - 6
	types.RegisterHstore(hstoreOID, arrayOID, "hstore")
	if !supportsBinary(hstoreOID) || !supportsBinary(arrayOID) {
		t.Fatal("hstore should have a binary form")
	}
	h, err := types.ParseHstore("b=>NULL, a=>1")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := appendBinaryValue(nil, hstoreOID, h)
	if want := "00000002000000016100000001310000000162ffffffff"; err != nil || hex.EncodeToString(buf) != want {
		t.Fatalf("hstore_send = %x, %v, want %s", buf, err, want)
	}
	dup, _ := hex.DecodeString("000000030000000162000000013200000001610000000131000000016200000001330000")
	for _, c := range []struct {
		in, want string
		code     pgerror.Code
	}{
		{in: hex.EncodeToString(buf), want: `"a"=>"1", "b"=>NULL`},
		{in: hex.EncodeToString(dup[:len(dup)-2]), want: `"a"=>"1", "b"=>"2"`},
		{in: "00000001ffffffff00000000", code: pgerror.NullValueNotAllowed},
		{in: "ffffffff", code: pgerror.ProgramLimitExceeded},
		{in: "0000000100000005", code: pgerror.ProtocolViolation},
	} {
		src, _ := hex.DecodeString(c.in)
		v, err := decodeBinaryValue(hstoreOID, src)
		switch {
		case c.code != "" && pgerror.GetCode(err) != c.code:
			t.Errorf("%s: %v, %v, want %s", c.in, v, err, c.code)
		case c.code == "" && (err != nil || types.FormatHstore(v.(types.Hstore)) != c.want):
			t.Errorf("%s: %v, %v, want %s", c.in, v, err, c.want)
		}
	}
	arr := []any{h, nil, types.Hstore{}}
	abuf, err := appendBinaryValue(nil, arrayOID, arr)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeBinaryValue(arrayOID, abuf)
	if got, ok := back.([]any); err != nil || !ok || len(got) != 3 || got[1] != nil ||
		types.FormatHstore(got[0].(types.Hstore)) != `"a"=>"1", "b"=>NULL` || len(got[2].(types.Hstore)) != 0 {
		t.Errorf("hstore[] round trip = %#v, %v", back, err)
	}
}
