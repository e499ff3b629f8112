package types

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The record image comparisons *= *<> *< *<= *> *>= (record_image_eq and
// record_image_cmp) compare two records field by field by the bytes
// PostgreSQL holds for each value, not by the fields' own operators: a
// by-value field as its Datum, an unsigned machine word (so the int -2
// sorts after 3), a fixed-length by-reference one by memcmp of its memory
// on a little-endian machine, a varlena by memcmp of its data, the shorter
// first. fickle rebuilds these images for the types whose storage it
// knows; a field of another type refuses with 0A000 when reached.

// recordImageOps maps each image operator to the comparison operator whose
// test it applies to the images' order.
var recordImageOps = map[string]string{"*=": "=", "*<>": "<>", "*<": "<", "*<=": "<=", "*>": ">", "*>=": ">="}

// IsRecordImageOp reports whether op is one of the record image operators.
func IsRecordImageOp(op string) bool {
	_, ok := recordImageOps[op]
	return ok
}

// compareRecordImages is record_image_cmp (and record_image_eq's
// decision): fields in order, two NULLs equal and a NULL after every
// value, dissimilar types failing with 42804 when reached, and a count
// mismatch failing only when every field compared was equal.
func compareRecordImages(lf, rf []Field, a, b []any) (int, error) {
	n := min(len(lf), len(rf), len(a), len(b))
	for k := range n {
		ft := lf[k].Type
		if ft.Oid != rf[k].Type.Oid {
			return 0, pgerror.Newf(pgerror.DatatypeMismatch, "cannot compare dissimilar column types %s and %s at record column %d",
				formatType(ft), formatType(rf[k].Type), k+1)
		}
		x, y := a[k], b[k]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1, nil
		case y == nil:
			return -1, nil
		}
		xi, ok := datumImage(ft, x)
		if !ok {
			return 0, pgerror.Unsupported("record image comparison of a field of type " + formatType(ft))
		}
		yi, _ := datumImage(ft, y)
		if c := bytes.Compare(xi, yi); c != 0 {
			return c, nil
		}
	}
	if len(lf) != len(rf) {
		return 0, errRecordColumnCount
	}
	return 0, nil
}

var errRecordColumnCount = pgerror.New(pgerror.DatatypeMismatch, "cannot compare record types with different numbers of columns")

// datumImage returns bytes whose bytes.Compare order is the order
// record_image_cmp gives the non-NULL datum v of type t, false for a type
// whose stored form fickle does not reproduce.
func datumImage(t Type, v any) ([]byte, bool) {
	word := func(w uint64) []byte { return binary.BigEndian.AppendUint64(nil, w) }
	signed := func(i int64) []byte { return word(uint64(i)) }
	le := binary.LittleEndian
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return word(1), true
		}
		return word(0), true
	case OidInt2, OidInt4, OidInt8, OidTime, OidMoney:
		return signed(v.(int64)), true
	case OidChar:
		var c int8
		if s := v.(string); s != "" {
			c = int8(s[0])
		}
		return signed(int64(c)), true
	case OidOid, OidRegclass, OidRegtype, OidRegproc, OidRegprocedure, OidRegoper, OidRegoperator,
		OidRegnamespace, OidRegrole, OidRegconfig, OidRegdictionary:
		return word(uint64(uint32(v.(int64)))), true
	case OidXID:
		return word(uint64(v.(XID))), true
	case OidXID8:
		return word(uint64(v.(XID8))), true
	case OidPGLSN:
		return word(uint64(v.(LSN))), true
	case OidFloat4:
		// Float4GetDatum passes the bits through Int32GetDatum.
		bits := int32(math.Float32bits(float32(v.(float64))))
		if f := v.(float64); math.IsNaN(f) {
			bits = int32(uint32(math.Float64bits(f)>>63)<<31 | 0x7fc00000)
		}
		return signed(int64(bits)), true
	case OidFloat8:
		f := v.(float64)
		bits := math.Float64bits(f)
		if math.IsNaN(f) {
			bits = bits&(1<<63) | 0x7ff8000000000000
		}
		return word(bits), true
	case OidDate:
		return signed(int64(dateDays(v.(time.Time)))), true
	case OidTimestamp, OidTimestamptz:
		return signed(timestampMicros(v.(time.Time))), true
	case OidUUID:
		u := v.([16]byte)
		return u[:], true
	case OidMacaddr:
		m := v.(MacAddr)
		return m[:], true
	case OidMacaddr8:
		m := v.(MacAddr8)
		return m[:], true
	case OidName, OidText, OidVarchar, OidBpchar, OidJSON:
		return []byte(v.(string)), true
	case OidBytea:
		return v.([]byte), true
	case OidInterval:
		x := v.(pgtype.Interval)
		return le.AppendUint32(le.AppendUint32(le.AppendUint64(nil, uint64(x.Microseconds)), uint32(x.Days)), uint32(x.Months)), true
	case OidTimetz:
		x := v.(TimeTZ)
		return le.AppendUint32(le.AppendUint64(nil, uint64(x.Time)), uint32(x.Zone)), true
	case OidPoint:
		p := v.(Point)
		return le.AppendUint64(le.AppendUint64(nil, math.Float64bits(p.X)), math.Float64bits(p.Y)), true
	case OidTID:
		x := v.(TID)
		return le.AppendUint16(le.AppendUint16(le.AppendUint16(nil, uint16(x.Block>>16)), uint16(x.Block)), x.Offset), true
	case OidNumeric:
		return numericImage(v.(*apd.Decimal)), true
	}
	return nil, false
}

// numericImage is the stored form make_result gives a numeric: the short
// header (sign, display scale, weight) when the scale is at most 63 and
// the weight within -64..63, the long one (sign and scale, then weight)
// otherwise, then the base-10000 digits without leading or trailing
// zeros, every 16-bit word little-endian; NaN and the infinities are
// their header alone.
func numericImage(d *apd.Decimal) []byte {
	le := binary.LittleEndian
	switch {
	case isNaN(d):
		return le.AppendUint16(nil, 0xC000)
	case d.Form == apd.Infinite && d.Negative:
		return le.AppendUint16(nil, 0xF000)
	case d.Form == apd.Infinite:
		return le.AppendUint16(nil, 0xD000)
	}
	send := appendNumericSend(nil, d)
	ndigits := int(binary.BigEndian.Uint16(send))
	weight := int(int16(binary.BigEndian.Uint16(send[2:])))
	neg := binary.BigEndian.Uint16(send[4:]) == numericSendNeg
	dscale := int(binary.BigEndian.Uint16(send[6:]))
	var out []byte
	if dscale <= 63 && weight >= -64 && weight <= 63 {
		h := uint16(0x8000) | uint16(dscale)<<7 | uint16(weight)&0x7f
		if neg {
			h |= 0x2000
		}
		if weight < 0 {
			h |= 0x0040
		}
		out = le.AppendUint16(nil, h)
	} else {
		sd := uint16(dscale) & 0x3FFF
		if neg {
			sd |= numericSendNeg
		}
		out = le.AppendUint16(le.AppendUint16(nil, sd), uint16(int16(weight)))
	}
	for i := range ndigits {
		out = le.AppendUint16(out, binary.BigEndian.Uint16(send[8+2*i:]))
	}
	return out
}

// recordImageComparison resolves an image operator between two records of
// known shape.
func recordImageComparison(op string, lf, rf []Field, l, r Type) *BinaryOp {
	test := comparisonTests[recordImageOps[op]]
	eval := func(_ *Env, a, b any) (any, error) {
		if a == nil || b == nil {
			return nil, nil
		}
		c, err := compareRecordImages(lf, rf, a.([]any), b.([]any))
		if err != nil {
			return nil, err
		}
		return test(c), nil
	}
	return &BinaryOp{Name: op, Left: l, Right: r, Result: Bool,
		Eval:    func(a, b any) (any, error) { return eval(nil, a, b) },
		EvalEnv: eval}
}
