package server

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// Values of enum types travel in binary as their label's text (enum_send,
// enum_recv), and arrays of them as arrays of such elements with the enum's
// OID in the header. Their OIDs are the catalog's, which package wire does
// not know; these wrap its codecs with that rule.

// enumOf returns the enum type of oid, or of its elements; ok is false
// for other types.
func enumOf(oid uint32) (enum types.Type, array, ok bool) {
	t := types.Type{Oid: types.Oid(oid), Typmod: -1}
	if t.IsEnum() {
		return t, false, true
	}
	if e, isArray := t.Elem(); isArray && e.IsEnum() {
		return e, true, true
	}
	return types.Type{}, false, false
}

// supportsBinary is wire.SupportsBinary for every type, enums included.
func supportsBinary(oid uint32) bool {
	_, _, isEnum := enumOf(oid)
	return isEnum || wire.SupportsBinary(oid)
}

// appendBinaryValue is wire.AppendBinary for every type, enums included.
func appendBinaryValue(buf []byte, oid uint32, v any) ([]byte, error) {
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
	t := types.Type{Oid: types.Oid(oid), Typmod: -1}
	elem, isArray := t.Elem()
	textual := func(t types.Type) bool { return t.IsEnum() || wire.BinaryIsText(uint32(t.Oid)) }
	switch {
	case textual(t):
		v, err := wire.DecodeBinary(wireTextOID(t), src)
		if err != nil {
			return nil, err
		}
		return types.ParseText(t, v.(string))
	case isArray && textual(elem):
		wireOID := uint32(pgtype.TextArrayOID)
		if !elem.IsEnum() {
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
	if t.IsEnum() {
		return pgtype.TextOID
	}
	return uint32(t.Oid)
}
