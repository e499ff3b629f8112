package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The binary value codecs work on the datum representation agreed with
// sqlexec (DESIGN.md): nil for NULL (handled by the caller as length -1),
// bool, int64 for every integer and oid type, float64 for float4/float8,
// *apd.Decimal for numeric, string for the character and json types, []byte
// for bytea, int64 microseconds since midnight for time, time.Time in UTC for
// date, timestamp and timestamptz (InfinityTime and NegInfinityTime for
// infinity and -infinity),
// pgtype.Interval for interval, [16]byte for uuid and []any for one-dimensional
// arrays of those.
//
// The fixed-width scalars, dates and timestamps are encoded directly;
// interval goes through pgtype's codec, whose binary plans for its own value
// type are stateless and planned once at init, so the codecs are safe for
// concurrent use without a pgtype.Map per connection.

// plans holds pgtype's binary plans for one type.
type plans struct {
	encode pgtype.EncodePlan
	scan   pgtype.ScanPlan
}

var (
	intervalPlans plans
)

func init() {
	m := pgtype.NewMap()
	plan := func(oid uint32, value, target any) plans {
		p := plans{
			encode: m.PlanEncode(oid, pgtype.BinaryFormatCode, value),
			scan:   m.PlanScan(oid, pgtype.BinaryFormatCode, target),
		}
		if p.encode == nil || p.scan == nil {
			panic(fmt.Sprintf("wire: pgtype has no binary plan for OID %d", oid))
		}
		return p
	}
	intervalPlans = plan(pgtype.IntervalOID, pgtype.Interval{}, &pgtype.Interval{})
}

// SupportsBinary reports whether values of type oid have a binary codec.
func SupportsBinary(oid uint32) bool {
	if elem, ok := arrayElem[oid]; ok {
		oid = elem
	}
	switch oid {
	case pgtype.BoolOID, pgtype.ByteaOID, pgtype.QCharOID, pgtype.NameOID, pgtype.Int8OID, pgtype.Int2OID,
		pgtype.Int4OID, pgtype.TextOID, pgtype.OIDOID, pgtype.JSONOID, pgtype.Float4OID, pgtype.Float8OID,
		pgtype.BPCharOID, pgtype.VarcharOID, pgtype.DateOID, pgtype.TimeOID, pgtype.TimestampOID,
		pgtype.TimestamptzOID, pgtype.IntervalOID, pgtype.NumericOID, pgtype.UUIDOID, pgtype.JSONBOID, pgtype.JSONPathOID, pgtype.UnknownOID, voidOID:
		return true
	}
	return isRegType(oid)
}

// The object identifier types (regclass, regtype, regproc, ...), which
// pgtype does not name: on the wire each is an OID.
const (
	regprocOID       = 24
	regprocedureOID  = 2202
	regoperOID       = 2203
	regoperatorOID   = 2204
	regclassOID      = 2205
	regtypeOID       = 2206
	regnamespaceOID  = 4089
	regroleOID       = 4096
	regconfigOID     = 3734
	regdictionaryOID = 3769
)

// voidOID is the pseudo-type void, which functions that return nothing
// (pg_advisory_lock, pg_sleep) return: its value is empty in text and in
// binary.
const voidOID = 2278

func isRegType(oid uint32) bool {
	switch oid {
	case regprocOID, regprocedureOID, regoperOID, regoperatorOID, regclassOID, regtypeOID, regnamespaceOID, regroleOID, regconfigOID, regdictionaryOID:
		return true
	}
	return false
}

// AppendBinary appends the binary wire form of the datum v of type oid to
// buf. v must not be nil: NULL is a length of -1 in the enclosing message. A
// datum of the wrong Go type, or out of the type's range, is an internal
// error (XX000), since the executor produced it.
func AppendBinary(buf []byte, oid uint32, v any) ([]byte, error) {
	if elem, ok := arrayElem[oid]; ok {
		return appendArray(buf, elem, v)
	}
	switch oid {
	case pgtype.BoolOID:
		if b, ok := v.(bool); ok {
			if b {
				return append(buf, 1), nil
			}
			return append(buf, 0), nil
		}
	case pgtype.Int2OID:
		if i, ok := v.(int64); ok && i >= math.MinInt16 && i <= math.MaxInt16 {
			return binary.BigEndian.AppendUint16(buf, uint16(int16(i))), nil
		}
	case pgtype.Int4OID:
		if i, ok := v.(int64); ok && i >= math.MinInt32 && i <= math.MaxInt32 {
			return binary.BigEndian.AppendUint32(buf, uint32(int32(i))), nil
		}
	case pgtype.OIDOID, regprocOID, regprocedureOID, regoperOID, regoperatorOID, regclassOID, regtypeOID, regnamespaceOID, regroleOID, regconfigOID, regdictionaryOID:
		if i, ok := v.(int64); ok && i >= 0 && i <= math.MaxUint32 {
			return binary.BigEndian.AppendUint32(buf, uint32(i)), nil
		}
	case pgtype.Int8OID:
		if i, ok := v.(int64); ok {
			return binary.BigEndian.AppendUint64(buf, uint64(i)), nil
		}
	case pgtype.TimeOID:
		// time_send: microseconds since midnight.
		if i, ok := v.(int64); ok && i >= 0 && i <= usecPerDay {
			return binary.BigEndian.AppendUint64(buf, uint64(i)), nil
		}
	case pgtype.Float4OID:
		if f, ok := v.(float64); ok {
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(f))), nil
		}
	case pgtype.Float8OID:
		if f, ok := v.(float64); ok {
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(f)), nil
		}
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.JSONOID, pgtype.UnknownOID:
		if s, ok := v.(string); ok {
			return append(buf, s...), nil
		}
	case pgtype.QCharOID:
		// charsend sends the one byte, a zero byte for the empty "char".
		if s, ok := v.(string); ok && len(s) <= 1 {
			return append(buf, (s + "\x00")[0]), nil
		}
	case pgtype.JSONBOID, pgtype.JSONPathOID:
		// A version byte (1) and the text form.
		if s, ok := v.(string); ok {
			return append(append(buf, 1), s...), nil
		}
	case pgtype.ByteaOID:
		if b, ok := v.([]byte); ok {
			return append(buf, b...), nil
		}
	case pgtype.UUIDOID:
		if u, ok := v.([16]byte); ok {
			return append(buf, u[:]...), nil
		}
	case voidOID:
		if _, ok := v.(string); ok {
			return buf, nil // void_send sends nothing
		}
	case pgtype.DateOID:
		// date_send: days since 2000-01-01, the int4 extremes for
		// -infinity and infinity.
		if t, ok := v.(time.Time); ok {
			return binary.BigEndian.AppendUint32(buf, uint32(dateDays(t))), nil
		}
	case pgtype.TimestampOID, pgtype.TimestamptzOID:
		// timestamp_send: microseconds since 2000-01-01 00:00 UTC, the
		// int8 extremes for -infinity and infinity.
		if t, ok := v.(time.Time); ok {
			return binary.BigEndian.AppendUint64(buf, uint64(timestampMicros(t))), nil
		}
	case pgtype.IntervalOID:
		if iv, ok := v.(pgtype.Interval); ok {
			iv.Valid = true
			return intervalPlans.encode.Encode(iv, buf)
		}
	case pgtype.NumericOID:
		if d, ok := v.(*apd.Decimal); ok && d != nil {
			return appendNumeric(buf, d)
		}
	default:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "binary output of type OID %d is not supported by fickle", oid)
	}
	return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as binary type OID %d", v, oid)
}

// DecodeBinary decodes the binary wire form src of a value of type oid into
// a datum. src is never nil (a NULL parameter has no bytes to decode). The
// result does not alias src. Malformed input is 22P03
// (invalid_binary_representation).
func DecodeBinary(oid uint32, src []byte) (any, error) {
	if elem, ok := arrayElem[oid]; ok {
		return decodeArray(elem, src)
	}
	switch oid {
	case pgtype.BoolOID:
		// boolrecv reads any nonzero byte as true.
		if len(src) == 1 {
			return src[0] != 0, nil
		}
	case pgtype.Int2OID:
		if len(src) == 2 {
			return int64(int16(binary.BigEndian.Uint16(src))), nil
		}
	case pgtype.Int4OID:
		if len(src) == 4 {
			return int64(int32(binary.BigEndian.Uint32(src))), nil
		}
	case pgtype.OIDOID, regprocOID, regprocedureOID, regoperOID, regoperatorOID, regclassOID, regtypeOID, regnamespaceOID, regroleOID, regconfigOID, regdictionaryOID:
		if len(src) == 4 {
			return int64(binary.BigEndian.Uint32(src)), nil
		}
	case pgtype.Int8OID:
		if len(src) == 8 {
			return int64(binary.BigEndian.Uint64(src)), nil
		}
	case pgtype.TimeOID:
		if len(src) == 8 {
			us := int64(binary.BigEndian.Uint64(src))
			if us < 0 || us > usecPerDay {
				return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "time out of range")
			}
			return us, nil
		}
	case pgtype.Float4OID:
		if len(src) == 4 {
			return float64(math.Float32frombits(binary.BigEndian.Uint32(src))), nil
		}
	case pgtype.Float8OID:
		if len(src) == 8 {
			return math.Float64frombits(binary.BigEndian.Uint64(src)), nil
		}
	case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID, pgtype.JSONOID, pgtype.UnknownOID:
		// textrecv and its kin read the bytes as client-encoded text,
		// verified as text input is: NUL and invalid UTF-8 fail with 22021.
		s := string(src)
		if err := pgerror.CheckUTF8(s); err != nil {
			return nil, err
		}
		return s, nil
	case pgtype.QCharOID:
		// charrecv takes one byte, not a character: "char" may hold the
		// first byte of a multibyte character, and a zero byte is empty.
		if len(src) == 1 {
			return strings.TrimSuffix(string(src), "\x00"), nil
		}
	case pgtype.JSONBOID:
		if len(src) >= 1 && src[0] == 1 {
			s := string(src[1:])
			if err := pgerror.CheckUTF8(s); err != nil {
				return nil, err
			}
			return s, nil
		}
		return nil, invalidBinary(oid, "unsupported jsonb version number")
	case pgtype.JSONPathOID:
		if len(src) >= 1 && src[0] == 1 {
			s := string(src[1:])
			if err := pgerror.CheckUTF8(s); err != nil {
				return nil, err
			}
			return s, nil
		}
		return nil, invalidBinary(oid, "unsupported jsonpath version number")
	case pgtype.ByteaOID:
		return append([]byte{}, src...), nil
	case voidOID:
		return "", nil // void_recv reads nothing
	case pgtype.UUIDOID:
		if len(src) == 16 {
			var u [16]byte
			copy(u[:], src)
			return u, nil
		}
	case pgtype.DateOID:
		if len(src) == 4 {
			return decodeDate(int32(binary.BigEndian.Uint32(src)))
		}
	case pgtype.TimestampOID, pgtype.TimestamptzOID:
		if len(src) == 8 {
			return decodeTimestamp(int64(binary.BigEndian.Uint64(src)))
		}
	case pgtype.IntervalOID:
		var iv pgtype.Interval
		if len(src) < 16 {
			break
		}
		if err := intervalPlans.scan.Scan(src, &iv); err != nil {
			return nil, invalidBinary(oid, err.Error())
		}
		return iv, nil
	case pgtype.NumericOID:
		return decodeNumeric(src)
	default:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "binary input of type OID %d is not supported by fickle", oid)
	}
	if n, ok := fixedSizes[oid]; ok && len(src) < n {
		// The receive function read past the end (pq_getmsgbyte,
		// pq_getmsgint and their kin); one that left bytes over is
		// the caller's 22P03.
		if len(src) == 0 && n == 1 {
			return nil, pgerror.New(pgerror.ProtocolViolation, "no data left in message")
		}
		return nil, errInsufficientData()
	}
	return nil, invalidBinary(oid, fmt.Sprintf("unexpected length %d", len(src)))
}

// fixedSizes are the bytes the receive functions of the fixed-width types
// read.
var fixedSizes = map[uint32]int{
	pgtype.BoolOID: 1, pgtype.QCharOID: 1, pgtype.Int2OID: 2, pgtype.Int4OID: 4, pgtype.OIDOID: 4,
	regprocOID: 4, regprocedureOID: 4, regoperOID: 4, regoperatorOID: 4, regclassOID: 4, regtypeOID: 4,
	regnamespaceOID: 4, regroleOID: 4, regconfigOID: 4, regdictionaryOID: 4, pgtype.Int8OID: 8,
	pgtype.TimeOID: 8, pgtype.Float4OID: 4, pgtype.Float8OID: 8, pgtype.UUIDOID: 16, pgtype.DateOID: 4,
	pgtype.TimestampOID: 8, pgtype.TimestamptzOID: 8, pgtype.IntervalOID: 16,
}

func invalidBinary(oid uint32, detail string) *pgerror.Error {
	return pgerror.Wrapf(ErrIncorrectBinaryFormat, pgerror.InvalidBinaryRepresentation, "incorrect binary data format for type OID %d", oid).
		WithDetail("%s", detail)
}

// usecPerDay is the microseconds of a day, 24:00:00 being the largest time.
const usecPerDay = 24 * 60 * 60 * 1_000_000

// firstDateDay is PostgreSQL's first date, 4714-11-24 BC, in days from
// 2000-01-01: date_recv refuses earlier ones with 22008, save -infinity
// (math.MinInt32).
const firstDateDay = -2451545

// The timestamps of PostgreSQL's range in microseconds from 2000-01-01
// (MIN_TIMESTAMP, END_TIMESTAMP): 4714-11-24 BC 00:00 up to 294277-01-01.
const (
	minTimestamp = -211813488000000000
	endTimestamp = 9223371331200000000
)

// pgEpoch is 2000-01-01, where PostgreSQL counts dates and timestamps from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// InfinityTime and NegInfinityTime are the datums of infinity and
// -infinity for date, timestamp and timestamptz, the same instants as
// sqlexec/types' sentinels (which package wire does not import): the first
// date past timestamp's range, where fickle's dates end, and the day before
// PostgreSQL's first date.
var (
	InfinityTime    = time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
	NegInfinityTime = time.Date(-4713, 11, 23, 0, 0, 0, 0, time.UTC)
)

// dateDays is a date datum's days from 2000-01-01.
func dateDays(t time.Time) int32 {
	switch {
	case t.Equal(InfinityTime):
		return math.MaxInt32
	case t.Equal(NegInfinityTime):
		return math.MinInt32
	}
	return int32((t.Unix() - pgEpoch.Unix()) / 86400)
}

// timestampMicros is a timestamp datum's microseconds from 2000-01-01.
func timestampMicros(t time.Time) int64 {
	switch {
	case t.Equal(InfinityTime):
		return math.MaxInt64
	case t.Equal(NegInfinityTime):
		return math.MinInt64
	}
	return (t.Unix()-pgEpoch.Unix())*1_000_000 + int64(t.Nanosecond()/1000)
}

// decodeDate is date_recv: the int4 extremes are -infinity and infinity,
// other days outside date's range fail with 22008.
func decodeDate(days int32) (any, error) {
	switch {
	case days == math.MinInt32:
		return NegInfinityTime, nil
	case days == math.MaxInt32:
		return InfinityTime, nil
	case days < firstDateDay || days >= lastDateDay:
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "date out of range")
	}
	t := pgEpoch.AddDate(0, 0, int(days))
	if !t.Before(InfinityTime) {
		// date_recv takes dates up to 5874897 AD; fickle keeps dates
		// in timestamp's range, as its text input does.
		return nil, pgerror.Unsupported("dates from 294277 AD on")
	}
	return t, nil
}

// lastDateDay is the day after date's last, 5874897-12-31, from
// 2000-01-01 (DATE_END_JULIAN - POSTGRES_EPOCH_JDATE).
const lastDateDay = 2147483494 - 2451545

// decodeTimestamp is timestamp_recv and timestamptz_recv: the int8
// extremes are -infinity and infinity, other values outside timestamp's
// range fail with 22008.
func decodeTimestamp(us int64) (any, error) {
	switch {
	case us == math.MinInt64:
		return NegInfinityTime, nil
	case us == math.MaxInt64:
		return InfinityTime, nil
	case us < minTimestamp || us >= endTimestamp:
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "timestamp out of range")
	}
	sec, frac := us/1_000_000, us%1_000_000
	if frac < 0 {
		sec, frac = sec-1, frac+1_000_000
	}
	return time.Unix(pgEpoch.Unix()+sec, frac*1000).UTC(), nil
}

// BinaryIsText reports the types whose binary form is a version byte and
// their text form (jsonb, jsonpath): DecodeBinary returns that text as it
// came, and the caller must read it with the type's input function.
func BinaryIsText(oid uint32) bool {
	return oid == pgtype.JSONBOID || oid == pgtype.JSONPathOID
}

// ErrIncorrectBinaryFormat is in the chain of DecodeBinary's errors for a
// value of the wrong size or shape, which PostgreSQL reports as "incorrect
// binary data format in bind parameter N"; errors array_recv words itself
// (invalid array flags, dimensions) are not, and keep their message.
var ErrIncorrectBinaryFormat = errors.New("incorrect binary data format")
