package server

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// TestGeometricNetworkAndInfinityBinary holds the bytes PostgreSQL 15's
// send functions gave for the geometric types, inet and cidr (alone and
// in arrays) and the infinite dates and timestamps, and reads each back
// to the same text.
func TestGeometricNetworkAndInfinityBinary(t *testing.T) {
	typ := func(oid types.Oid) types.Type { return types.Type{Oid: oid, Typmod: -1} }
	checkBinaryGolden(t, []binaryGolden{
		{typ(types.OidPoint), "(1,2)", "3ff00000000000004000000000000000"},
		{typ(types.OidPoint), "(1e-300,-0)", "01a56e1fc2f8f3598000000000000000"},
		{typ(types.OidLseg), "[(1,2),(3,4)]", "3ff0000000000000400000000000000040080000000000004010000000000000"},
		{typ(types.OidPath), "((1,2),(3,4))", "01000000023ff0000000000000400000000000000040080000000000004010000000000000"},
		{typ(types.OidPath), "[(0,0),(1,1),(2,0)]", "0000000003000000000000000000000000000000003ff00000000000003ff000000000000040000000000000000000000000000000"},
		{typ(types.OidBox), "(3,4),(1,2)", "400800000000000040100000000000003ff00000000000004000000000000000"},
		{typ(types.OidPolygon), "((0,0),(1,0),(0.5,1))", "00000003000000000000000000000000000000003ff000000000000000000000000000003fe00000000000003ff0000000000000"},
		{typ(types.OidLine), "{-1,0.5,-2.25}", "bff00000000000003fe0000000000000c002000000000000"},
		{typ(types.OidCircle), "<(1,2),3>", "3ff000000000000040000000000000004008000000000000"},
		{typ(types.OidCircle), "<(-1.5,2.5),0>", "bff800000000000040040000000000000000000000000000"},
		{typ(1017), `{"(1,2)",NULL}`, "0000000100000001000002580000000200000001000000103ff00000000000004000000000000000ffffffff"},
		{typ(1020), "{(1,1),(0,0);(3,3),(2,2)}", "00000001000000000000025b0000000200000001000000203ff00000000000003ff000000000000000000000000000000000000000000000000000204008000000000000400800000000000040000000000000004000000000000000"},
		{typ(1041), "{1.2.3.4/24,::1}", "0000000100000000000003650000000200000001000000080218000401020304000000140380001000000000000000000000000000000001"},
		{typ(651), "{10.0.0.0/8}", "00000001000000000000028a000000010000000100000008020801040a000000"},
		{types.Date, "infinity", "7fffffff"},
		{types.Date, "-infinity", "80000000"},
		{types.Timestamp, "infinity", "7fffffffffffffff"},
		{types.Timestamptz, "-infinity", "8000000000000000"},
		{typ(1182), "{infinity}", "00000001000000000000043a0000000100000001000000047fffffff"},
	})
	if !wire.InfinityTime.Equal(types.InfinityTime) || !wire.NegInfinityTime.Equal(types.NegInfinityTime) {
		t.Errorf("wire's infinities %v, %v differ from sqlexec/types' %v, %v", wire.InfinityTime, wire.NegInfinityTime, types.InfinityTime, types.NegInfinityTime)
	}
}

// TestGeometricNetworkRecvErrors pins the errors PostgreSQL 15's receive
// functions gave for malformed geometric, inet and cidr values, alone and
// as array elements; a value with bytes left over is refused in the
// caller's words (here the bind parameter's).
func TestGeometricNetworkRecvErrors(t *testing.T) {
	const one, zero, minusOne = "3ff0000000000000", "0000000000000000", "bff0000000000000"
	tests := []struct {
		oid     types.Oid
		hex     string
		code    pgerror.Code
		message string
	}{
		{types.OidLine, zero + zero + one, pgerror.InvalidBinaryRepresentation, "invalid line specification: A and B cannot both be zero"},
		{types.OidLine, "3eb0c6f7a0b5ed8d" + zero + one, pgerror.InvalidBinaryRepresentation, "invalid line specification: A and B cannot both be zero"},
		{types.OidCircle, zero + zero + minusOne, pgerror.InvalidBinaryRepresentation, `invalid radius in external "circle" value`},
		{types.OidPath, "0100000000", pgerror.InvalidBinaryRepresentation, `invalid number of points in external "path" value`},
		{types.OidPath, "0107fffffe", pgerror.InvalidBinaryRepresentation, `invalid number of points in external "path" value`},
		{types.OidPath, "0103fffffe", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidPath, "0103ffffff", pgerror.InternalError, "invalid memory alloc request size 1073741824"},
		{types.OidPolygon, "07fffffd", pgerror.InvalidBinaryRepresentation, `invalid number of points in external "polygon" value`},
		{types.OidPolygon, "03fffffd", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidPolygon, "03fffffe", pgerror.InternalError, "invalid memory alloc request size 1073741832"},
		{types.OidPolygon, "000001", pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidPolygon, "00000001" + one + one + "00", pgerror.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter 1"},
		{types.OidLseg, zero, pgerror.ProtocolViolation, "insufficient data left in message"},
		{types.OidInet, "04080004" + "01020304", pgerror.InvalidBinaryRepresentation, `invalid address family in external "inet" value`},
		{types.OidInet, "02210004" + "01020304", pgerror.InvalidBinaryRepresentation, `invalid bits in external "inet" value`},
		{types.OidCidr, "02080010" + "01020304", pgerror.InvalidBinaryRepresentation, `invalid length in external "cidr" value`},
		{types.OidCidr, "02080104" + "0a000001", pgerror.InvalidBinaryRepresentation, `invalid external "cidr" value`},
		{types.OidInet, "021800040a0000", pgerror.ProtocolViolation, "insufficient data left in message"},
		{1041, "000000010000000000000365000000010000000100000008022100040a000001", pgerror.InvalidBinaryRepresentation, `invalid bits in external "inet" value`},
		{651, "00000001000000000000028a000000010000000100000008021800040a000001", pgerror.InvalidBinaryRepresentation, `invalid external "cidr" value`},
		{1041, "000000010000000000000365000000010000000100000009021800040a00000100", pgerror.InvalidBinaryRepresentation, "improper binary format in array element 1"},
		{1017, "000000010000000000000258000000010000000100000008" + one, pgerror.ProtocolViolation, "insufficient data left in message"},
		{1017, "000000010000000000000258000000010000000100000008", pgerror.InvalidBinaryRepresentation, "insufficient data left in message"},
	}
	for _, tt := range tests {
		checkBindError(t, uint32(tt.oid), tt.hex, tt.code, tt.message)
	}
}

// checkBindError requires the bind parameter of type oid with bytes hx to
// fail with code and message, as decodeParams words it.
func checkBindError(t *testing.T, oid uint32, hx string, code pgerror.Code, message string) {
	t.Helper()
	b, err := hex.DecodeString(hx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeBinaryValue(oid, b)
	if errors.Is(err, wire.ErrIncorrectBinaryFormat) {
		err = pgerror.Newf(pgerror.InvalidBinaryRepresentation, "incorrect binary data format in bind parameter 1")
	}
	e := pgerror.Flatten(err)
	if err == nil || e.Code != code || e.Message != message {
		t.Errorf("%d %s: got %#v, %v; want %s %q", oid, hx, v, err, code, message)
	}
}
