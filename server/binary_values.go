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

// decodeBinaryValue is wire.DecodeBinary for every type, enums included:
// an enum's labels are checked as its text input checks them.
func decodeBinaryValue(oid uint32, src []byte) (any, error) {
	e, array, ok := enumOf(oid)
	if !ok {
		return wire.DecodeBinary(oid, src)
	}
	textOID := uint32(pgtype.TextOID)
	if array {
		textOID = pgtype.TextArrayOID
	}
	v, err := wire.DecodeBinary(textOID, src)
	if err != nil {
		return nil, err
	}
	labels := []any{v}
	if array {
		_, _, labels, _ = pgarray.Shape(v)
	}
	for _, l := range labels {
		if l == nil {
			continue
		}
		if _, err := types.ParseText(e, l.(string)); err != nil {
			return nil, err
		}
	}
	return v, nil
}
