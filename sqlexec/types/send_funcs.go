package types

import (
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
)

// The binary send functions of the base types as SQL calls them
// (float4send(x), int4send(x), ...): each returns, as bytea, the bytes the
// type's typsend puts on the wire in binary format. The receive functions
// take "internal" and cannot be called from SQL.

// sendFuncs names each type's send function.
var sendFuncs = []struct {
	name string
	t    Type
}{
	{"boolsend", Bool}, {"byteasend", Bytea}, {"charsend", Char}, {"namesend", Name},
	{"int2send", Int2}, {"int4send", Int4}, {"int8send", Int8}, {"oidsend", OidType},
	{"textsend", Text}, {"bpcharsend", BpcharAny}, {"varcharsend", VarcharAny},
	{"float4send", Float4}, {"float8send", Float8}, {"numeric_send", NumericAny},
	{"date_send", Date}, {"time_send", Time}, {"timetz_send", Type{OidTimetz, -1}},
	{"timestamp_send", Timestamp}, {"timestamptz_send", Timestamptz}, {"interval_send", Interval},
	{"uuid_send", UUID}, {"cash_send", Money}, {"json_send", JSON}, {"jsonb_send", JSONB},
	{"macaddr_send", MacaddrType}, {"macaddr8_send", Macaddr8Type}, {"pg_lsn_send", PGLSNType},
	{"inet_send", InetType}, {"cidr_send", CidrType}, {"bit_send", Type{OidBit, -1}}, {"varbit_send", Type{OidVarbit, -1}},
	{"xidsend", Type{OidXID, -1}}, {"xid8send", Type{OidXID8, -1}}, {"tidsend", Type{OidTID, -1}},
	{"regclasssend", Regclass}, {"regtypesend", Type{OidRegtype, -1}}, {"regprocsend", Type{OidRegproc, -1}},
	{"regproceduresend", Type{OidRegprocedure, -1}}, {"regopersend", Type{OidRegoper, -1}},
	{"regoperatorsend", Type{OidRegoperator, -1}}, {"regnamespacesend", Type{OidRegnamespace, -1}},
	{"regrolesend", Type{OidRegrole, -1}}, {"regconfigsend", Type{OidRegconfig, -1}},
	{"regdictionarysend", Type{OidRegdictionary, -1}},
	{"point_send", tPoint}, {"lseg_send", tLseg}, {"path_send", tPath}, {"box_send", tBox},
	{"poly_send", tPolygon}, {"line_send", tLine}, {"circle_send", tCircle},
}

func init() {
	for _, f := range sendFuncs {
		t := f.t
		addFunc(f.name, Immutable, Bytea, func(_ *Env, a []any) (any, error) { return AppendSend(nil, t, a[0]), nil }, t)
	}
}

// SendSupported reports whether AppendSend encodes values of t.
func SendSupported(t Type) bool {
	for _, f := range sendFuncs {
		if f.t.Oid == t.Oid {
			return true
		}
	}
	return false
}

// AppendSend appends the binary send form of the non-NULL datum v of
// type t (a type SendSupported accepts) to buf.
func AppendSend(buf []byte, t Type, v any) []byte {
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case OidChar:
		if s := v.(string); s != "" {
			return append(buf, s[0])
		}
		return append(buf, 0)
	case OidBytea:
		return append(buf, v.([]byte)...)
	case OidText, OidName, OidBpchar, OidVarchar, OidJSON:
		return append(buf, v.(string)...)
	case OidJSONB:
		return append(append(buf, 1), v.(string)...)
	case OidInt2:
		return binary.BigEndian.AppendUint16(buf, uint16(v.(int64)))
	case OidInt4, OidOid, OidRegclass, OidRegtype, OidRegproc, OidRegprocedure, OidRegoper, OidRegoperator,
		OidRegnamespace, OidRegrole, OidRegconfig, OidRegdictionary:
		return binary.BigEndian.AppendUint32(buf, uint32(v.(int64)))
	case OidInt8, OidTime, OidMoney:
		return binary.BigEndian.AppendUint64(buf, uint64(v.(int64)))
	case OidFloat4:
		// A NaN goes out as C's NAN, keeping only its sign.
		f := v.(float64)
		if math.IsNaN(f) {
			return binary.BigEndian.AppendUint32(buf, uint32(math.Float64bits(f)>>63)<<31|0x7fc00000)
		}
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(f)))
	case OidFloat8:
		return appendFloat8Send(buf, v.(float64))
	case OidNumeric:
		return appendNumericSend(buf, v.(*apd.Decimal))
	case OidDate:
		return binary.BigEndian.AppendUint32(buf, uint32(dateDays(v.(time.Time))))
	case OidTimestamp, OidTimestamptz:
		return binary.BigEndian.AppendUint64(buf, uint64(timestampMicros(v.(time.Time))))
	case OidTimetz:
		x := v.(TimeTZ)
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(buf, uint64(x.Time)), uint32(x.Zone))
	case OidInterval:
		x := v.(pgtype.Interval)
		buf = binary.BigEndian.AppendUint64(buf, uint64(x.Microseconds))
		buf = binary.BigEndian.AppendUint32(buf, uint32(x.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(x.Months))
	case OidUUID:
		u := v.([16]byte)
		return append(buf, u[:]...)
	case OidMacaddr:
		m := v.(MacAddr)
		return append(buf, m[:]...)
	case OidMacaddr8:
		m := v.(MacAddr8)
		return append(buf, m[:]...)
	case OidPGLSN:
		return binary.BigEndian.AppendUint64(buf, uint64(v.(LSN)))
	case OidInet, OidCidr:
		// inet_send: family (PGSQL_AF_INET 2, PGSQL_AF_INET6 3), mask
		// bits, the cidr flag, the address length, the address.
		a := v.(Inet)
		family, n := byte(2), 4
		if a.V6 {
			family, n = 3, 16
		}
		cidr := byte(0)
		if t.Oid == OidCidr {
			cidr = 1
		}
		return append(append(buf, family, a.Bits, cidr, byte(n)), a.Addr[:n]...)
	case OidBit, OidVarbit:
		b := v.(BitString)
		return append(binary.BigEndian.AppendUint32(buf, uint32(b.Len)), b.Data...)
	case OidXID:
		return binary.BigEndian.AppendUint32(buf, uint32(v.(XID)))
	case OidXID8:
		return binary.BigEndian.AppendUint64(buf, uint64(v.(XID8)))
	case OidTID:
		x := v.(TID)
		return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint32(buf, x.Block), x.Offset)
	case OidPoint, OidLseg, OidPath, OidBox, OidPolygon, OidLine, OidCircle:
		return appendGeometricSend(buf, v)
	}
	panic("types: AppendSend of a type without a send function: " + t.String())
}

// appendFloat8Send is pq_sendfloat8: the double's bits, a NaN as C's NAN
// with its sign (the NaN float8in and arithmetic give).
func appendFloat8Send(buf []byte, f float64) []byte {
	if math.IsNaN(f) {
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(f)&(1<<63)|0x7ff8000000000000)
	}
	return binary.BigEndian.AppendUint64(buf, math.Float64bits(f))
}

// appendGeometricSend is point_send, lseg_send, box_send (high corner
// first), path_send (the closed flag and the point count first),
// poly_send (the point count first), line_send (A, B, C) and circle_send
// (center, radius).
func appendGeometricSend(buf []byte, v any) []byte {
	points := func(pts ...Point) []byte {
		for _, p := range pts {
			buf = appendFloat8Send(appendFloat8Send(buf, p.X), p.Y)
		}
		return buf
	}
	switch x := v.(type) {
	case Point:
		return points(x)
	case Lseg:
		return points(x[0], x[1])
	case Box:
		return points(x.High, x.Low)
	case Path:
		closed := byte(0)
		if x.Closed {
			closed = 1
		}
		buf = binary.BigEndian.AppendUint32(append(buf, closed), uint32(len(x.Points)))
		return points(x.Points...)
	case Polygon:
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(x)))
		return points(x...)
	case Line:
		return appendFloat8Send(appendFloat8Send(appendFloat8Send(buf, x.A), x.B), x.C)
	case Circle:
		return appendFloat8Send(points(x.Center), x.Radius)
	}
	panic("types: appendGeometricSend of a non-geometric datum")
}

// The sign words of numeric_send.
const (
	numericSendPos    = 0x0000
	numericSendNeg    = 0x4000
	numericSendNaN    = 0xC000
	numericSendPInf   = 0xD000
	numericSendNegInf = 0xF000
)

// appendNumericSend is numeric_send: the count of base-10000 digits, the
// weight of the first, the sign, the display scale, then the digits,
// without leading or trailing zero digits (zero has none, weight 0).
func appendNumericSend(buf []byte, d *apd.Decimal) []byte {
	header := func(ndigits, weight int, sign uint16, dscale int) []byte {
		buf = binary.BigEndian.AppendUint16(buf, uint16(ndigits))
		buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
		buf = binary.BigEndian.AppendUint16(buf, sign)
		return binary.BigEndian.AppendUint16(buf, uint16(dscale))
	}
	switch {
	case isNaN(d):
		return header(0, 0, numericSendNaN, 0)
	// The infinities' display scale is what NUMERIC_DSCALE reads from
	// their header's bits as if it were a short header's: 32.
	case d.Form == apd.Infinite && d.Negative:
		return header(0, 0, numericSendNegInf, 32)
	case d.Form == apd.Infinite:
		return header(0, 0, numericSendPInf, 32)
	}
	dscale := max(0, -int(d.Exponent))
	digits := d.Coeff.String()
	intPart, frac := "", ""
	if e := int(d.Exponent); e >= 0 {
		intPart = digits + strings.Repeat("0", e)
	} else if len(digits) > -e {
		intPart, frac = digits[:len(digits)+e], digits[len(digits)+e:]
	} else {
		frac = strings.Repeat("0", -e-len(digits)) + digits
	}
	intPart = strings.Repeat("0", (4-len(intPart)%4)%4) + intPart
	frac += strings.Repeat("0", (4-len(frac)%4)%4)
	var groups []uint16
	for s := intPart + frac; s != ""; s = s[4:] {
		g := uint16(0)
		for _, c := range s[:4] {
			g = g*10 + uint16(c-'0')
		}
		groups = append(groups, g)
	}
	weight := len(intPart)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	sign := uint16(numericSendPos)
	if len(groups) == 0 {
		weight = 0
	} else if d.Negative {
		sign = numericSendNeg
	}
	buf = header(len(groups), weight, sign, dscale)
	for _, g := range groups {
		buf = binary.BigEndian.AppendUint16(buf, g)
	}
	return buf
}
