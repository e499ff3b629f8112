package wire

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgarray"
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
	pgtype.TimeArrayOID:        pgtype.TimeOID,
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

// appendArray encodes an array: ndim, has-null flag, element OID, (length,
// lower bound) of each dimension, then each element in storage order as a
// length-prefixed value (-1 for NULL).
func appendArray(buf []byte, elem uint32, v any) ([]byte, error) {
	return AppendArrayAs(buf, elem, elem, v)
}

// AppendArrayAs encodes an array whose header names element type header
// and whose elements have elem's binary form: an array of a type the
// catalog defined (an enum's labels travel as text).
func AppendArrayAs(buf []byte, header, elem uint32, v any) ([]byte, error) {
	return AppendArrayWith(buf, header, v, func(buf []byte, e any) ([]byte, error) { return AppendBinary(buf, elem, e) })
}

// AppendArrayWith encodes an array whose header names element type header
// and whose non-NULL elements appendElem encodes: an array of a type whose
// binary form this package does not know (ranges).
func AppendArrayWith(buf []byte, header uint32, v any, appendElem func(buf []byte, e any) ([]byte, error)) ([]byte, error) {
	dims, lower, elems, ok := pgarray.Shape(v)
	if !ok {
		return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as an array", v)
	}
	hasNull := uint32(0)
	for _, e := range elems {
		if e == nil {
			hasNull = 1
		}
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(dims)))
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, header)
	for k := range dims {
		buf = binary.BigEndian.AppendUint32(buf, uint32(dims[k]))
		buf = binary.BigEndian.AppendUint32(buf, uint32(int32(lower[k])))
	}
	for _, e := range elems {
		if e == nil {
			buf = binary.BigEndian.AppendUint32(buf, math.MaxUint32)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		buf, err = appendElem(buf, e)
		if err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// maxArrayDims is PostgreSQL's MAXDIM, and maxArraySize its MaxArraySize:
// array_recv refuses more dimensions or more elements.
const (
	maxArrayDims = 6
	maxArraySize = 1<<27 - 1
)

// firstNonBuiltinOID is FirstGenbkiObjectId: array_recv compares the
// element type a client sends with the expected one only when both are
// built in, whose OIDs are stable.
const firstNonBuiltinOID = 10000

// elemTypeNames are format_type's names of the element types in arrayElem,
// for array_recv's element type mismatch message.
var elemTypeNames = map[uint32]string{
	pgtype.BoolOID:        "boolean",
	pgtype.ByteaOID:       "bytea",
	pgtype.NameOID:        "name",
	pgtype.Int2OID:        "smallint",
	pgtype.Int4OID:        "integer",
	pgtype.Int8OID:        "bigint",
	pgtype.TextOID:        "text",
	pgtype.BPCharOID:      "character",
	pgtype.VarcharOID:     "character varying",
	pgtype.Float4OID:      "real",
	pgtype.Float8OID:      "double precision",
	pgtype.OIDOID:         "oid",
	pgtype.DateOID:        "date",
	pgtype.TimeOID:        "time without time zone",
	pgtype.TimestampOID:   "timestamp without time zone",
	pgtype.TimestamptzOID: "timestamp with time zone",
	pgtype.IntervalOID:    "interval",
	pgtype.NumericOID:     "numeric",
	pgtype.UUIDOID:        "uuid",
	pgtype.JSONOID:        "json",
	pgtype.JSONBOID:       "jsonb",
}

// elemTypeName names a type OID for a message, "???" when fickle does not
// know it (format_type's name for an OID it cannot find).
func elemTypeName(oid uint32) string {
	if name, ok := elemTypeNames[oid]; ok {
		return name
	}
	return "???"
}

// errInsufficientData is pq_getmsgint's error when a header field lies
// past the end of the value.
func errInsufficientData() error {
	return pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message")
}

// decodeArray is array_recv: it checks the header as PostgreSQL does, with
// PostgreSQL's errors, then reads the elements of every dimension. The
// has-null flag must be 0 or 1 but, as in PostgreSQL, the elements decide
// which are NULL.
func decodeArray(elem uint32, src []byte) (any, error) {
	return DecodeArrayWith(elem, src, func(src []byte) (any, error) { return DecodeBinary(elem, src) })
}

// DecodeArrayWith is array_recv over elements of type elem that
// decodeElem reads: an array of a type whose binary form this package
// does not know (ranges).
func DecodeArrayWith(elem uint32, src []byte, decodeElem func(src []byte) (any, error)) (any, error) {
	if len(src) < 12 {
		return nil, errInsufficientData()
	}
	ndim := int32(binary.BigEndian.Uint32(src))
	flags := binary.BigEndian.Uint32(src[4:])
	gotElem := binary.BigEndian.Uint32(src[8:])
	src = src[12:]
	switch {
	case ndim < 0:
		return nil, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid number of dimensions: %d", ndim)
	case ndim > maxArrayDims:
		return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim, maxArrayDims)
	case flags > 1:
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "invalid array flags")
	case gotElem != elem && gotElem < firstNonBuiltinOID && elem < firstNonBuiltinOID:
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)",
			gotElem, elemTypeName(gotElem), elem, elemTypeName(elem))
	}
	dims := make([]int32, ndim)
	lowers := make([]int32, ndim)
	for i := range dims {
		if len(src) < 8 {
			return nil, errInsufficientData()
		}
		dims[i] = int32(binary.BigEndian.Uint32(src))
		lowers[i] = int32(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
	}
	n, err := arrayItems(dims, lowers)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if len(src) != 0 {
			return nil, invalidBinary(elem, "array: trailing bytes")
		}
		return []any{}, nil
	}
	if n > maxArrayElems {
		return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "array of %d elements exceeds fickle's limit of %d for a parameter", n, maxArrayElems)
	}
	out := make([]any, 0, min(n, len(src)/4))
	for i := range n {
		if len(src) < 4 {
			return nil, errInsufficientData()
		}
		l := int32(binary.BigEndian.Uint32(src))
		src = src[4:]
		if l == -1 {
			out = append(out, nil)
			continue
		}
		if l < -1 || int(l) > len(src) {
			return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "insufficient data left in message")
		}
		// An element its receive function did not read whole is
		// "improper"; the function's own errors keep their words.
		v, err := decodeElem(src[:l])
		if err != nil {
			if errors.Is(err, ErrIncorrectBinaryFormat) {
				return nil, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "improper binary format in array element %d", i+1)
			}
			return nil, err
		}
		out = append(out, v)
		src = src[l:]
	}
	if len(src) != 0 {
		return nil, invalidBinary(elem, "array: trailing bytes")
	}
	shape := make([]int, 2*ndim)
	for k := range dims {
		shape[k], shape[int(ndim)+k] = int(dims[k]), int(lowers[k])
	}
	return pgarray.Make(shape[:ndim], shape[ndim:], out), nil
}

// arrayItems is ArrayGetNItems then ArrayCheckBounds: the element count of
// the dimensions, refused when a dimension is negative or the count or an
// upper bound overflows.
func arrayItems(dims, lowers []int32) (int, error) {
	tooMany := pgerror.Newf(pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArraySize)
	if len(dims) == 0 {
		return 0, nil
	}
	n := int64(1)
	for _, d := range dims {
		if d < 0 {
			return 0, tooMany
		}
		n *= int64(d)
		if n != int64(int32(n)) {
			return 0, tooMany
		}
	}
	if n > maxArraySize {
		return 0, tooMany
	}
	for i, d := range dims {
		if int64(d)+int64(lowers[i]) > math.MaxInt32 || int64(d)+int64(lowers[i]) < math.MinInt32 {
			return 0, pgerror.Newf(pgerror.ProgramLimitExceeded, "array lower bound is too large: %d", lowers[i])
		}
	}
	return int(n), nil
}
