package server

import (
	"encoding/hex"
	"testing"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// TestScalarBinary holds the bytes PostgreSQL 15's send functions gave for
// the types of binary_scalars.go, and reads each back to the same text.
func TestScalarBinary(t *testing.T) {
	for _, c := range []struct {
		typ  types.Type
		text string
		hex  string
	}{
		{types.Money, "-$1,234.56", "fffffffffffe1dc0"},
		{types.Money, "$92,233,720,368,547,758.07", "7fffffffffffffff"},
		{types.Type{Oid: types.OidMoneyArray, Typmod: -1}, "{$1.00,NULL,-$2.50}",
			"0000000100000001000003160000000300000001000000080000000000000064ffffffff00000008ffffffffffffff06"},
	} {
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
	if _, err := decodeBinaryValue(uint32(types.OidMoney), []byte{1, 2, 3}); err == nil {
		t.Error("money of three bytes: no error")
	}
}
