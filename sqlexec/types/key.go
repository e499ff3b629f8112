package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/jackc/pgx/v5/pgtype"
)

// Key encoding. Every value starts with a marker byte so that NULL (keyNull)
// sorts after every value (keyValue), as ASC NULLS LAST does. Variable-length
// payloads (strings, bytea) escape 0x00 as 0x00 0xff and end with 0x00 0x01,
// so that a prefix sorts first and columns concatenate safely.
const (
	keyValue = 0x01
	keyNull  = 0x02
)

// Numeric classes, in order.
const (
	keyNumNegInf = 0x01
	keyNumNeg    = 0x02
	keyNumZero   = 0x03
	keyNumPos    = 0x04
	keyNumPosInf = 0x05
	keyNumNaN    = 0x06
)

// pgEpochUnix is 2000-01-01 in Unix seconds: timestamps are encoded as
// microseconds from PostgreSQL's epoch, which fits their whole range in 64
// bits (microseconds from 1970 would not).
const pgEpochUnix = 946684800

func appendKey(buf []byte, t Type, v any) []byte {
	if v == nil {
		return append(buf, keyNull)
	}
	buf = append(buf, keyValue)
	switch x := v.(type) {
	case []any, *pgarray.Array:
		if t.IsRecord() {
			return appendKeyRecord(buf, t, x.([]any))
		}
		return appendKeyArray(buf, t, x)
	case bool:
		if x {
			return append(buf, 1)
		}
		return append(buf, 0)
	case int64:
		return appendKeyInt(buf, x)
	case float64:
		return appendKeyFloat(buf, x)
	case *apd.Decimal:
		return appendKeyNumeric(buf, x)
	case string:
		switch t.Oid {
		case OidBpchar:
			x = strings.TrimRight(x, " ")
		case OidJSONB:
			return appendKeyJSONB(buf, mustParseJSON(x))
		}
		if t.IsEnum() {
			return appendKeyFloat(buf, enumPosition(t, x))
		}
		if t.IsCitext() {
			x = citextFold(x)
		}
		return appendKeyBytes(buf, x)
	case []byte:
		return appendKeyBytes(buf, string(x))
	case [16]byte:
		return append(buf, x[:]...)
	case time.Time:
		return appendKeyInt(buf, timeToPG(x))
	case pgtype.Interval:
		days, usec := intervalSpan(x)
		return appendKeyInt(appendKeyInt(buf, days), usec)
	case TID:
		return appendKeyInt(appendKeyInt(buf, int64(x.Block)), int64(x.Offset))
	case XID:
		return appendKeyInt(buf, int64(x))
	case XID8:
		return binary.BigEndian.AppendUint64(buf, uint64(x))
	case Inet:
		return appendKeyInet(buf, x)
	case MacAddr:
		return append(buf, x[:]...)
	case MacAddr8:
		return append(buf, x[:]...)
	case LSN:
		return binary.BigEndian.AppendUint64(buf, uint64(x))
	case TSVector:
		return appendKeyTSVector(buf, x)
	case Hstore:
		return appendKeyHstore(buf, x)
	case TSQuery:
		return appendKeyTSQuery(buf, x)
	case BitString:
		return appendKeyBitString(buf, x)
	case TimeTZ:
		// timetz_cmp's order: the UTC time, then the zone.
		return appendKeyInt(appendKeyInt(buf, x.Time+int64(x.Zone)*usecPerSec), int64(x.Zone))
	case Range:
		return appendKeyRange(buf, t, x)
	case Multirange:
		return appendKeyMultirange(buf, t, x)
	}
	return appendKeyGeometric(buf, v)
}

// timeToPG returns microseconds since 2000-01-01 UTC.
func timeToPG(t time.Time) int64 {
	return (t.Unix()-pgEpochUnix)*1_000_000 + int64(t.Nanosecond()/1000)
}

// pgToTime is the inverse of timeToPG.
func pgToTime(us int64) time.Time {
	sec, rem := us/1_000_000, us%1_000_000
	if rem < 0 {
		sec--
		rem += 1_000_000
	}
	return time.Unix(sec+pgEpochUnix, rem*1000).UTC()
}

func appendKeyInt(buf []byte, x int64) []byte {
	return binary.BigEndian.AppendUint64(buf, uint64(x)^(1<<63))
}

// appendKeyFloat maps IEEE bits to an unsigned order: negative numbers have
// all bits flipped, others the sign bit. -0 is encoded as 0 and every NaN
// as one NaN, which sorts after +Inf.
func appendKeyFloat(buf []byte, f float64) []byte {
	if f == 0 {
		f = 0
	}
	if math.IsNaN(f) {
		f = math.NaN()
	}
	bits := math.Float64bits(f)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(buf, bits)
}

// appendKeyNumeric encodes a class byte, then for finite non-zero values the
// decimal exponent of the first digit and the significant digits without
// trailing zeros, all inverted for negative values.
func appendKeyNumeric(buf []byte, d *apd.Decimal) []byte {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return append(buf, keyNumNaN)
	case d.Form == apd.Infinite && d.Negative:
		return append(buf, keyNumNegInf)
	case d.Form == apd.Infinite:
		return append(buf, keyNumPosInf)
	case d.IsZero():
		return append(buf, keyNumZero)
	}
	coeff := d.Coeff.String()
	digits := strings.TrimRight(coeff, "0")
	exp := int64(d.Exponent) + int64(len(coeff))
	if d.Negative {
		buf = append(buf, keyNumNeg)
	} else {
		buf = append(buf, keyNumPos)
	}
	body := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, uint32(int32(exp))^(1<<31))
	buf = append(buf, digits...)
	buf = append(buf, 0)
	if d.Negative {
		for i := body; i < len(buf); i++ {
			buf[i] = ^buf[i]
		}
	}
	return buf
}

func appendKeyBytes(buf []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		buf = append(buf, s[:i]...)
		buf = append(buf, 0, 0xff)
		s = s[i+1:]
	}
	buf = append(buf, s...)
	return append(buf, 0, 1)
}

// appendKeyJSONB follows compareJSONB: kind, then the scalar, or the count
// and the members (keys encoded as strings: they are visited in storage
// order but compared as strings).
func appendKeyJSONB(buf []byte, v *jsonValue) []byte {
	buf = append(buf, byte(v.kind))
	switch v.kind {
	case jsonString:
		return appendKeyBytes(buf, v.str)
	case jsonNumber:
		return appendKeyNumeric(buf, v.num)
	case jsonBool:
		if v.b {
			return append(buf, 1)
		}
		return append(buf, 0)
	case jsonArray:
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(v.elems)))
		for _, e := range v.elems {
			buf = appendKeyJSONB(buf, e)
		}
	case jsonObject:
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(v.keys)))
		for i, k := range v.keys {
			buf = appendKeyBytes(buf, k)
			buf = appendKeyJSONB(buf, v.vals[i])
		}
	}
	return buf
}

var errBadKey = pgerror.New(pgerror.InternalError, "malformed key encoding")

func decodeKey(t Type, buf []byte) (any, []byte, error) {
	if len(buf) == 0 {
		return nil, nil, errBadKey
	}
	if buf[0] == keyNull {
		return nil, buf[1:], nil
	}
	if buf[0] != keyValue {
		return nil, nil, errBadKey
	}
	buf = buf[1:]
	if t.IsArray() {
		return decodeKeyArray(t, buf)
	}
	if t.IsRecord() {
		return decodeKeyRecord(t, buf)
	}
	if _, ok := userRangeOf(t.Oid); ok {
		if t.IsMultirange() {
			return decodeKeyMultirange(t, buf)
		}
		return decodeKeyRange(t, buf)
	}
	if t.IsEnum() {
		f, rest, err := decodeKeyFloat(buf)
		if err != nil {
			return nil, nil, err
		}
		label, ok := enumLabelAt(t, f.(float64))
		if !ok {
			return nil, nil, errBadKey
		}
		return label, rest, nil
	}
	if t.IsCitext() {
		s, rest, err := decodeKeyBytes(buf)
		return s, rest, err
	}
	if t.IsHstore() {
		return decodeKeyHstore(buf)
	}
	switch t.Oid {
	case OidBool:
		if len(buf) < 1 {
			return nil, nil, errBadKey
		}
		return buf[0] == 1, buf[1:], nil
	case OidInt2, OidInt4, OidInt8, OidTime, OidMoney, OidOid, OidRegclass, OidRegproc, OidRegprocedure, OidRegoper, OidRegoperator,
		OidRegtype, OidRegnamespace, OidRegrole, OidRegconfig, OidRegdictionary:
		x, rest, err := decodeKeyInt(buf)
		return x, rest, err
	case OidFloat4, OidFloat8:
		return decodeKeyFloat(buf)
	case OidNumeric:
		return decodeKeyNumeric(buf)
	case OidText, OidVarchar, OidBpchar, OidName, OidChar, OidJSON, OidJSONPath, OidBytea, OidUnknown:
		s, rest, err := decodeKeyBytes(buf)
		if err != nil {
			return nil, nil, err
		}
		switch t.Oid {
		case OidBytea:
			return []byte(s), rest, nil
		case OidBpchar:
			s, _ = coerceLength(t, s, true)
		}
		return s, rest, nil
	case OidJSONB:
		v, rest, err := decodeKeyJSONB(buf, 0)
		if err != nil {
			return nil, nil, err
		}
		return string(appendJSONB(nil, v)), rest, nil
	case OidUUID:
		if len(buf) < 16 {
			return nil, nil, errBadKey
		}
		var u [16]byte
		copy(u[:], buf)
		return u, buf[16:], nil
	case OidDate, OidTimestamp, OidTimestamptz:
		x, rest, err := decodeKeyInt(buf)
		if err != nil {
			return nil, nil, err
		}
		return pgToTime(x.(int64)), rest, nil
	case OidInterval:
		d, rest, err := decodeKeyInt(buf)
		if err != nil {
			return nil, nil, err
		}
		us, rest, err := decodeKeyInt(rest)
		if err != nil {
			return nil, nil, err
		}
		days := d.(int64)
		months := days / daysPerMonth
		if months > math.MaxInt32 || months < math.MinInt32 {
			return nil, nil, errBadKey
		}
		return pgtype.Interval{Months: int32(months), Days: int32(days % daysPerMonth), Microseconds: us.(int64), Valid: true}, rest, nil
	case OidInet, OidCidr:
		return decodeKeyInet(buf)
	case OidMacaddr:
		if len(buf) < 6 {
			return nil, nil, errBadKey
		}
		return MacAddr(buf[:6]), buf[6:], nil
	case OidMacaddr8:
		if len(buf) < 8 {
			return nil, nil, errBadKey
		}
		return MacAddr8(buf[:8]), buf[8:], nil
	case OidPGLSN:
		if len(buf) < 8 {
			return nil, nil, errBadKey
		}
		return LSN(binary.BigEndian.Uint64(buf)), buf[8:], nil
	case OidTSVector:
		return decodeKeyTSVector(buf)
	case OidTSQuery:
		return decodeKeyTSQuery(buf)
	case OidBit, OidVarbit:
		return decodeKeyBitString(buf)
	case OidTimetz:
		utc, rest, err := decodeKeyInt(buf)
		if err != nil {
			return nil, nil, err
		}
		zone, rest, err := decodeKeyInt(rest)
		if err != nil {
			return nil, nil, err
		}
		z := zone.(int64)
		return TimeTZ{Time: utc.(int64) - z*usecPerSec, Zone: int32(z)}, rest, nil
	case OidInt4Range, OidNumRange, OidTsRange, OidTstzRange, OidDateRange, OidInt8Range:
		return decodeKeyRange(t, buf)
	case OidInt4Multirange, OidNumMultirange, OidTsMultirange, OidTstzMultirange, OidDateMultirange, OidInt8Multirange:
		return decodeKeyMultirange(t, buf)
	case OidTID:
		b, rest, err := decodeKeyInt(buf)
		if err != nil {
			return nil, nil, err
		}
		o, rest, err := decodeKeyInt(rest)
		if err != nil {
			return nil, nil, err
		}
		return TID{Block: uint32(b.(int64)), Offset: uint16(o.(int64))}, rest, nil
	}
	return nil, nil, unsupportedType(t)
}

func decodeKeyFloat(buf []byte) (any, []byte, error) {
	if len(buf) < 8 {
		return nil, nil, errBadKey
	}
	bits := binary.BigEndian.Uint64(buf)
	if bits&(1<<63) != 0 {
		bits &^= 1 << 63
	} else {
		bits = ^bits
	}
	return math.Float64frombits(bits), buf[8:], nil
}

func decodeKeyInt(buf []byte) (any, []byte, error) {
	if len(buf) < 8 {
		return nil, nil, errBadKey
	}
	return int64(binary.BigEndian.Uint64(buf) ^ (1 << 63)), buf[8:], nil
}

func decodeKeyBytes(buf []byte) (string, []byte, error) {
	var out []byte
	for i := 0; i+1 < len(buf); i++ {
		if buf[i] != 0 {
			continue
		}
		switch buf[i+1] {
		case 0xff:
			out = append(out, buf[:i+1]...)
			buf = buf[i+2:]
			i = -1
		case 1:
			out = append(out, buf[:i]...)
			return string(out), buf[i+2:], nil
		default:
			return "", nil, errBadKey
		}
	}
	return "", nil, errBadKey
}

func decodeKeyNumeric(buf []byte) (any, []byte, error) {
	if len(buf) < 1 {
		return nil, nil, errBadKey
	}
	switch buf[0] {
	case keyNumNaN:
		return &apd.Decimal{Form: apd.NaN}, buf[1:], nil
	case keyNumNegInf:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, buf[1:], nil
	case keyNumPosInf:
		return &apd.Decimal{Form: apd.Infinite}, buf[1:], nil
	case keyNumZero:
		return apd.New(0, 0), buf[1:], nil
	case keyNumNeg, keyNumPos:
	default:
		return nil, nil, errBadKey
	}
	neg := buf[0] == keyNumNeg
	buf = buf[1:]
	end := bytes.IndexByte(buf[min(4, len(buf)):], map[bool]byte{false: 0, true: 0xff}[neg])
	if len(buf) < 4 || end < 0 {
		return nil, nil, errBadKey
	}
	body := append([]byte(nil), buf[:4+end]...)
	if neg {
		for i := range body {
			body[i] = ^body[i]
		}
	}
	exp := int64(int32(binary.BigEndian.Uint32(body) ^ (1 << 31)))
	digits := string(body[4:])
	coeff, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, nil, errBadKey
	}
	d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(coeff), int32(exp-int64(len(digits))))
	d.Negative = neg
	return normalizeDecimal(d), buf[5+end:], nil
}

func decodeKeyJSONB(buf []byte, depth int) (*jsonValue, []byte, error) {
	if len(buf) < 1 || depth > maxJSONDepth {
		return nil, nil, errBadKey
	}
	v := &jsonValue{kind: jsonKind(buf[0])}
	buf = buf[1:]
	switch v.kind {
	case jsonNull:
		return v, buf, nil
	case jsonString:
		s, rest, err := decodeKeyBytes(buf)
		v.str = s
		return v, rest, err
	case jsonNumber:
		d, rest, err := decodeKeyNumeric(buf)
		if err != nil {
			return nil, nil, err
		}
		v.num = d.(*apd.Decimal)
		return v, rest, nil
	case jsonBool:
		if len(buf) < 1 {
			return nil, nil, errBadKey
		}
		v.b = buf[0] == 1
		return v, buf[1:], nil
	case jsonArray, jsonObject:
		if len(buf) < 4 {
			return nil, nil, errBadKey
		}
		n := int(binary.BigEndian.Uint32(buf))
		buf = buf[4:]
		for range n {
			if v.kind == jsonObject {
				k, rest, err := decodeKeyBytes(buf)
				if err != nil {
					return nil, nil, err
				}
				v.keys, buf = append(v.keys, k), rest
			}
			e, rest, err := decodeKeyJSONB(buf, depth+1)
			if err != nil {
				return nil, nil, err
			}
			buf = rest
			if v.kind == jsonObject {
				v.vals = append(v.vals, e)
			} else {
				v.elems = append(v.elems, e)
			}
		}
		return v, buf, nil
	}
	return nil, nil, errBadKey
}
