package server

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// TestScalarBinary holds the bytes PostgreSQL 15's send functions gave for
// the types of binary_scalars.go, and reads each back to the same text.
func TestScalarBinary(t *testing.T) {
	checkBinaryGolden(t, []binaryGolden{
		{types.Money, "-$1,234.56", "fffffffffffe1dc0"},
		{types.Money, "$92,233,720,368,547,758.07", "7fffffffffffffff"},
		{types.Type{Oid: types.OidMoneyArray, Typmod: -1}, "{$1.00,NULL,-$2.50}",
			"0000000100000001000003160000000300000001000000080000000000000064ffffffff00000008ffffffffffffff06"},
		{types.Timetz, "13:30:25.575401-04:30", "0000000b524f65e900003f48"},
		{types.Timetz, "24:00:00+00", "000000141dd7600000000000"},
		{types.Type{Oid: types.OidTimetzArray, Typmod: -1}, "{12:00:00+05:30,NULL}",
			"0000000100000001000004f200000002000000010000000c0000000a0eebb000ffffb2a8ffffffff"},
		{types.MacaddrType, "08:00:2b:01:02:03", "08002b010203"},
		{types.Macaddr8Type, "08:00:2b:01:02:03:04:05", "08002b0102030405"},
		{types.PGLSNType, "FFFFFFFF/1", "ffffffff00000001"},
		{types.Type{Oid: types.OidMacaddrArray, Typmod: -1}, "{08:00:2b:01:02:03,NULL}",
			"00000001000000010000033d00000002000000010000000608002b010203ffffffff"},
		{types.Type{Oid: types.OidPGLSNArray, Typmod: -1}, "{0/1,16/B374D84}",
			"000000010000000000000c94000000020000000100000008000000000000000100000008000000160b374d84"},
		{types.Type{Oid: types.OidTID, Typmod: -1}, "(42,43)", "0000002a002b"},
		{types.Type{Oid: types.OidXID, Typmod: -1}, "4294967295", "ffffffff"},
		{types.Type{Oid: types.OidXID8, Typmod: -1}, "68719476736", "0000001000000000"},
		{types.Type{Oid: 1010, Typmod: -1}, `{"(1,2)",NULL}`, "00000001000000010000001b000000020000000100000006000000010002ffffffff"},
		{types.Type{Oid: 271, Typmod: -1}, "{1,18446744073709551615}",
			"0000000100000000000013cd000000020000000100000008000000000000000100000008ffffffffffffffff"},
	})
	checkBinaryRefused(t, types.OidTID, "0000002a00")
	checkBinaryRefused(t, types.OidXID8, "00000010")
	checkBinaryRefused(t, types.OidMacaddr, "08002b0102")
	checkBinaryRefused(t, types.OidMacaddr8, "08002b01020304")
	checkBinaryRefused(t, types.OidPGLSN, "ffffffff")
	checkBinaryRefused(t, types.OidMoney, "010203")
	checkBinaryRefused(t, types.OidTimetz, "0000000b524f65e9")
	checkBinaryRefused(t, types.OidTimetz, "000000141dd7600100000000")     // past 24:00:00
	checkBinaryRefused(t, types.OidTimetz, "0000000b524f65e900000000e100") // too long
	checkBinaryRefused(t, types.OidTimetz, "0000000b524f65e90000e100")     // a zone of 16 hours
}

// TestFixedWidthRecvLengthErrors pins PostgreSQL 15's errors for a
// fixed-width value of the wrong size: too short, the receive function
// reads past the end (08P01, "no data" where it reads byte by byte); too
// long, the bind parameter is malformed (22P03).
func TestFixedWidthRecvLengthErrors(t *testing.T) {
	tests := []struct {
		oid     types.Oid
		hex     string
		code    pgerror.Code
		message string
	}{
		{types.OidMacaddr, "0102030405", pgerror.ProtocolViolation, "no data left in message"},
		{types.OidMacaddr, "01020304050607", pgerror.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter 1"},
		{types.OidTID, "0000000001", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidTID, "00000000000102", pgerror.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter 1"},
		{types.OidTimetz, "0000000000000000", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidMoney, "010203", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidXID, "010203", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidXID8, "00", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidPGLSN, "00", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidInt4, "000001", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidInt4, "0000000001", pgerror.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter 1"},
		{types.OidBool, "", pgerror.ProtocolViolation, "no data left in message"},
		{1007, "00000001000000000000001700000001000000010000000300000000", pgerror.ProtocolViolation, "insufficient data left in message"},
		{1000, "000000010000000000000010000000010000000100000000", pgerror.ProtocolViolation, "no data left in message"},
	}
	for _, tt := range tests {
		checkBindError(t, uint32(tt.oid), tt.hex, tt.code, tt.message)
	}
}
