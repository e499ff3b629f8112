package wire

import (
	"encoding/binary"
	"math"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// maxArrayElems bounds the elements of a decoded array parameter, so that a
// small message cannot claim a huge allocation.
const maxArrayElems = 1 << 20

// arrayElem maps the array types fickle supports to their element types.
var arrayElem = map[uint32]uint32{
	pgtype.BoolArrayOID:        pgtype.BoolOID,
	pgtype.ByteaArrayOID:       pgtype.ByteaOID,
	pgtype.NameArrayOID:        pgtype.NameOID,
	pgtype.Int2ArrayOID:        pgtype.Int2OID,
	pgtype.Int4ArrayOID:        pgtype.Int4OID,
	pgtype.Int8ArrayOID:        pgtype.Int8OID,
	pgtype.TextArrayOID:        pgtype.TextOID,
	pgtype.BPCharArrayOID:      pgtype.BPCharOID,
	pgtype.VarcharArrayOID:     pgtype.VarcharOID,
	pgtype.Float4ArrayOID:      pgtype.Float4OID,
	pgtype.Float8ArrayOID:      pgtype.Float8OID,
	pgtype.OIDArrayOID:         pgtype.OIDOID,
	pgtype.DateArrayOID:        pgtype.DateOID,
	pgtype.TimestampArrayOID:   pgtype.TimestampOID,
	pgtype.TimestamptzArrayOID: pgtype.TimestamptzOID,
	pgtype.IntervalArrayOID:    pgtype.IntervalOID,
	pgtype.NumericArrayOID:     pgtype.NumericOID,
	pgtype.UUIDArrayOID:        pgtype.UUIDOID,
	pgtype.JSONArrayOID:        pgtype.JSONOID,
	pgtype.JSONBArrayOID:       pgtype.JSONBOID,
}

// ArrayElem returns the element type of an array type OID fickle supports.
func ArrayElem(oid uint32) (uint32, bool) {
	e, ok := arrayElem[oid]
	return e, ok
}

// appendArray encodes a one-dimensional array with lower bound 1:
// ndim, has-null flag, element OID, (length, lower bound), then each element
// as a length-prefixed value (-1 for NULL).
func appendArray(buf []byte, elem uint32, v any) ([]byte, error) {
	elems, ok := v.([]any)
	if !ok {
		return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as an array", v)
	}
	hasNull := uint32(0)
	for _, e := range elems {
		if e == nil {
			hasNull = 1
		}
	}
	ndim := uint32(1)
	if len(elems) == 0 {
		ndim = 0
	}
	buf = binary.BigEndian.AppendUint32(buf, ndim)
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, elem)
	if ndim == 0 {
		return buf, nil
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(elems)))
	buf = binary.BigEndian.AppendUint32(buf, 1)
	for _, e := range elems {
		if e == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		buf, err = AppendBinary(buf, elem, e)
		if err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// decodeArray decodes a binary array of at most one dimension into []any.
func decodeArray(elem uint32, src []byte) (any, error) {
	bad := func(detail string) error { return invalidBinary(elem, "array: "+detail) }
	if len(src) < 12 {
		return nil, bad("header too short")
	}
	ndim := binary.BigEndian.Uint32(src)
	gotElem := binary.BigEndian.Uint32(src[8:])
	src = src[12:]
	if gotElem != elem {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "binary data has array element type %d instead of expected %d", gotElem, elem)
	}
	switch ndim {
	case 0:
		return []any{}, nil
	case 1:
	default:
		return nil, pgerror.Unsupported("multidimensional arrays")
	}
	if len(src) < 8 {
		return nil, bad("dimension too short")
	}
	n := binary.BigEndian.Uint32(src)
	src = src[8:]
	if n > maxArrayElems || int(n) > len(src)/4 {
		return nil, bad("element count exceeds the data")
	}
	out := make([]any, 0, n)
	for range n {
		if len(src) < 4 {
			return nil, bad("element length missing")
		}
		l := int32(binary.BigEndian.Uint32(src))
		src = src[4:]
		if l == -1 {
			out = append(out, nil)
			continue
		}
		if l < 0 || int(l) > len(src) {
			return nil, bad("element length exceeds the data")
		}
		v, err := DecodeBinary(elem, src[:l])
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		src = src[l:]
	}
	if len(src) != 0 {
		return nil, bad("trailing bytes")
	}
	return out, nil
}
