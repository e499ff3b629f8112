package server

import (
	"testing"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// rangeFuzzOids are the range types, and their arrays, whose binary form
// FuzzRangeBinaryAgreesWithText decodes.
var rangeFuzzOids = []uint32{3904, 3926, 3906, 3912, 3908, 3910, 3905, 3927, 3907, 3913, 3909, 3911}

// FuzzRangeBinaryAgreesWithText decodes arbitrary bytes as a binary range
// parameter (or an array of ranges): the decoder must never panic, and what
// it accepts must print as a literal that range_in reads back to an equal
// value, so that a driver's binary parameter and its text form agree.
func FuzzRangeBinaryAgreesWithText(f *testing.F) {
	for i, oid := range rangeFuzzOids {
		typ, _ := types.TypeByOid(types.Oid(oid))
		for _, lit := range []string{"empty", "[1,5)", "(,3]", "[2,)", "(,)"} {
			if i >= 6 { // the arrays
				lit = `{"` + lit + `"}`
			}
			if v, err := types.ParseText(typ, lit); err == nil {
				if enc, err := appendBinaryValue(nil, oid, v); err == nil {
					f.Add(uint8(i), enc)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		readBackAsText(t, rangeFuzzOids[int(which)%len(rangeFuzzOids)], data, nil)
	})
}
