package server

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// Records and composite values travel in binary as record_send writes
// them and record_recv reads them: the count of fields, then for each its
// type's OID and its value (length-prefixed, -1 for NULL) in its type's
// binary form. An anonymous record's fields are those its column's typmod
// names inside fickle; one cannot be received.

// recordOf returns the record or composite type of t, or of its elements
// (array true); ok is false for other types.
func recordOf(t types.Type) (rec types.Type, array, ok bool) {
	if t.IsRecord() {
		return t, false, true
	}
	if e, isArray := t.Elem(); isArray && e.IsRecord() {
		return e, true, true
	}
	return types.Type{}, false, false
}

// supportsBinaryType is supportsBinary for a column's full type: a record
// or composite type (or an array of one) has a binary form when every
// field's type has one. A record of a shape fickle does not know (NULL::record)
// is refused only when a value of it is sent.
func supportsBinaryType(t types.Type) bool {
	rec, _, ok := recordOf(t)
	if !ok {
		return supportsBinary(uint32(t.Oid))
	}
	fields, known := rec.Fields()
	if !known {
		return true
	}
	for _, f := range fields {
		if !supportsBinaryType(f.Type) {
			return false
		}
	}
	return true
}

// noSendTypes are the types PostgreSQL has no binary output for.
var noSendTypes = map[uint32]bool{269: true, 325: true, 1033: true, 2276: true, 2279: true, 2280: true, 2281: true,
	2283: true, 2776: true, 3115: true, 3310: true, 3500: true, 3642: true, 3831: true, 3838: true, 4537: true,
	4538: true, 5077: true, 5079: true, 5080: true}

// binaryOutputError refuses a binary result column: PostgreSQL's 42883
// for a type without a send function, fickle's 0A000 for one whose binary
// form it does not write.
func binaryOutputError(col Column) error {
	t := types.Type{Oid: types.Oid(col.TypeOID), Typmod: col.TypeMod}
	elem := t
	if e, isArray := t.Elem(); isArray {
		elem = e
	}
	if noSendTypes[uint32(elem.Oid)] {
		return pgerror.Newf(pgerror.UndefinedFunction, "no binary output function available for type %s", elem)
	}
	return pgerror.Unsupported("binary output of type " + t.String())
}

// appendTypedBinary appends v, of type t, in binary.
func appendTypedBinary(buf []byte, t types.Type, v any) ([]byte, error) {
	rec, array, ok := recordOf(t)
	if !ok {
		return appendBinaryValue(buf, uint32(t.Oid), v)
	}
	if array {
		return wire.AppendArrayWith(buf, uint32(rec.Oid), v, func(buf []byte, e any) ([]byte, error) { return appendRecord(buf, rec, e) })
	}
	return appendRecord(buf, rec, v)
}

// appendRecord is record_send.
func appendRecord(buf []byte, t types.Type, v any) ([]byte, error) {
	vals, ok := v.([]any)
	fields, known := t.Fields()
	if !ok || !known || len(vals) != len(fields) {
		return nil, pgerror.Unsupported("binary output of type " + t.String())
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for i, f := range fields {
		buf = binary.BigEndian.AppendUint32(buf, fieldTypeOID(f))
		if vals[i] == nil {
			buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = appendTypedBinary(buf, f.Type, vals[i]); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// firstGenbkiObjectID is FirstGenbkiObjectId: OIDs below it are the
// built-in ones, stable enough for record_recv to compare.
const firstGenbkiObjectID = 10000

// fieldTypeOID is the type OID record_send and record_recv give a field:
// the domain it was declared with, else its type's.
func fieldTypeOID(f types.Field) uint32 {
	if f.Domain != 0 {
		return uint32(f.Domain)
	}
	return uint32(f.Type.Oid)
}

// decodeTypedBinary reads the binary form src of a value of type t: a
// record or composite value (or an array of them) by record_recv, any
// other by its type's receive function.
func decodeTypedBinary(t types.Type, src []byte) (any, error) {
	rec, array, ok := recordOf(t)
	switch {
	case !ok:
		return decodeBinaryValue(uint32(t.Oid), src)
	case array:
		return wire.DecodeArrayWith(uint32(rec.Oid), src, func(src []byte) (any, error) { return decodeRecord(rec, src) })
	}
	return decodeRecord(rec, src)
}

// decodeRecord is record_recv: the count of columns, then for each its
// type's OID (checked against the field's when both are built-in) and its
// value, length-prefixed (-1 for NULL), read by the field type's receive
// function with the field's typmod applied. The constraints of a field's
// domain are checked where the value is used (sqlexec's parameter checks),
// which knows the catalog.
func decodeRecord(t types.Type, src []byte) (any, error) {
	fields, known := t.Fields()
	if t.Oid == types.OidRecord || !known {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "input of anonymous composite types is not implemented")
	}
	insufficient := func() error { return pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message") }
	if len(src) < 4 {
		return nil, insufficient()
	}
	if n := int32(binary.BigEndian.Uint32(src)); int(n) != len(fields) {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "wrong number of columns: %d, expected %d", n, len(fields))
	}
	src = src[4:]
	vals := make([]any, len(fields))
	for i, f := range fields {
		if len(src) < 8 {
			return nil, insufficient()
		}
		got, want := binary.BigEndian.Uint32(src), fieldTypeOID(f)
		if got != want && got < firstGenbkiObjectID && want < firstGenbkiObjectID {
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "binary data has type %d (%s) instead of expected %d (%s) in record column %d",
				got, types.FormatTypeBe(types.Type{Oid: types.Oid(got), Typmod: -1}), want, types.FormatTypeBe(types.Type{Oid: f.Type.Oid, Typmod: -1}), i+1)
		}
		n := int32(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
		if n < -1 || int(n) > len(src) {
			return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "insufficient data left in message")
		}
		if n == -1 {
			continue
		}
		base := types.Type{Oid: f.Type.Oid, Typmod: -1}
		v, err := decodeTypedBinary(base, src[:n])
		if errors.Is(err, wire.ErrIncorrectBinaryFormat) {
			return nil, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "improper binary format in record column %d", i+1)
		}
		if err != nil {
			return nil, err
		}
		if f.Type.Typmod >= 0 {
			if v, err = types.Coerce(v, base, f.Type, types.CastAssignment); err != nil {
				return nil, err
			}
		}
		vals[i] = v
		src = src[n:]
	}
	if len(src) != 0 {
		return nil, fmt.Errorf("%s with %d bytes left over: %w", t, len(src), wire.ErrIncorrectBinaryFormat)
	}
	return vals, nil
}
