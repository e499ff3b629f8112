package server

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// Values of enum types travel in binary as their label's text (enum_send,
// enum_recv), and arrays of them as arrays of such elements with the enum's
// OID in the header; so do citext's (citextsend, citextrecv: text's). Their OIDs are the catalog's, which package wire does
// not know; these wrap its codecs with that rule.

// enumOf returns the enum type of oid, or of its elements; ok is false
// for other types.
func enumOf(oid uint32) (enum types.Type, array, ok bool) {
	t := types.Type{Oid: types.Oid(oid), Typmod: -1}
	if textLike(t) {
		return t, false, true
	}
	if e, isArray := t.Elem(); isArray && textLike(e) {
		return e, true, true
	}
	return types.Type{}, false, false
}

// textLike reports whether t is an enum, citext or xml type, whose binary
// form is text's.
func textLike(t types.Type) bool { return t.IsEnum() || t.IsCitext() || t.Oid == types.OidXML }

// supportsBinary is wire.SupportsBinary for every type, enums, the
// scalar codecs and the range types included.
func supportsBinary(oid uint32) bool {
	_, _, isEnum := enumOf(oid)
	_, isRange := rangeSubtype(oid)
	_, _, isMultirange := multirangeRange(oid)
	_, _, _, isScalar := scalarCodecOf(oid)
	return isEnum || isScalar || isHstore(oid) || isHstoreArray(oid) || isTextSearch(oid) || isBitString(oid) || isBitStringArray(oid) || isRange || isMultirange || isRangeArray(oid) || wire.SupportsBinary(oid)
}

// appendBinaryValue is wire.AppendBinary for every type, enums and the
// scalar codecs included.
func appendBinaryValue(buf []byte, oid uint32, v any) ([]byte, error) {
	if c, elem, array, ok := scalarCodecOf(oid); ok {
		return appendScalarValue(c, elem, array, buf, v)
	}
	switch x := v.(type) {
	case types.TSVector:
		return appendTSVector(buf, x), nil
	case types.TSQuery:
		return appendTSQuery(buf, x), nil
	case types.BitString:
		return appendBitString(buf, x), nil
	case types.Hstore:
		return appendHstore(buf, x), nil
	}
	if r, ok := v.(types.Range); ok {
		if sub, isRange := rangeSubtype(oid); isRange {
			return appendRange(buf, sub, r)
		}
	}
	if m, ok := v.(types.Multirange); ok {
		if _, sub, isMultirange := multirangeRange(oid); isMultirange {
			return appendMultirange(buf, sub, m)
		}
	}
	if isRangeArray(oid) {
		return appendRangeArray(buf, oid, v)
	}
	if isBitStringArray(oid) {
		return appendBitStringArray(buf, oid, v)
	}
	if isHstoreArray(oid) {
		return appendHstoreArray(buf, oid, v)
	}
	if x, ok := v.(string); ok && oid == uint32(types.OidXML) {
		// xml_send sends xml_out's text: the declaration rewritten.
		v = types.FormatXML(x)
	}
	switch e, array, ok := enumOf(oid); {
	case ok && array:
		return wire.AppendArrayAs(buf, uint32(e.Oid), pgtype.TextOID, v)
	case ok:
		return wire.AppendBinary(buf, pgtype.TextOID, v)
	}
	return wire.AppendBinary(buf, oid, v)
}

// decodeBinaryValue is wire.DecodeBinary for every type: the values whose
// binary form is their text (jsonb, jsonpath, enums), alone or as array
// elements, are read by their type's input function, which checks and
// normalizes them as text input does.
func decodeBinaryValue(oid uint32, src []byte) (any, error) {
	if _, _, ok := recordOf(types.Type{Oid: types.Oid(oid), Typmod: -1}); ok {
		return decodeTypedBinary(types.Type{Oid: types.Oid(oid), Typmod: -1}, src)
	}
	if c, elem, array, ok := scalarCodecOf(oid); ok {
		return decodeScalarValue(c, elem, array, src)
	}
	switch oid {
	case uint32(types.OidTSVector):
		return decodeTSVector(src)
	case uint32(types.OidTSQuery):
		return decodeTSQuery(src)
	case uint32(types.OidBit), uint32(types.OidVarbit):
		return decodeBitString(src)
	}
	if isHstore(oid) {
		return decodeHstore(src)
	}
	if isHstoreArray(oid) {
		return decodeHstoreArray(oid, src)
	}
	t := types.Type{Oid: types.Oid(oid), Typmod: -1}
	if sub, isRange := t.RangeSubtype(); isRange {
		return decodeRange(t, sub, src)
	}
	if rt, sub, isMultirange := multirangeRange(oid); isMultirange {
		return decodeMultirange(t, rt, sub, src)
	}
	if isRangeArray(oid) {
		return decodeRangeArray(oid, src)
	}
	if isBitStringArray(oid) {
		return decodeBitStringArray(oid, src)
	}
	elem, isArray := t.Elem()
	textual := func(t types.Type) bool { return textLike(t) || wire.BinaryIsText(uint32(t.Oid)) }
	switch {
	case textual(t):
		v, err := wire.DecodeBinary(wireTextOID(t), src)
		if err != nil {
			return nil, err
		}
		return types.ParseText(t, v.(string))
	case isArray && textual(elem):
		wireOID := uint32(pgtype.TextArrayOID)
		if !textLike(elem) {
			wireOID = oid
		}
		v, err := wire.DecodeBinary(wireOID, src)
		if err != nil {
			return nil, err
		}
		elems, _ := pgarray.Elems(v)
		for i, e := range elems {
			if e == nil {
				continue
			}
			if elems[i], err = types.ParseText(elem, e.(string)); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
	return wire.DecodeBinary(oid, src)
}

// wireTextOID is the type whose binary codec package wire reads a textual
// value with: an enum's is text's.
func wireTextOID(t types.Type) uint32 {
	if textLike(t) {
		return pgtype.TextOID
	}
	return uint32(t.Oid)
}
