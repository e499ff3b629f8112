package server

import (
	"encoding/binary"
	"fmt"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// bit and bit varying in binary, as bit_send / varbit_send write them and
// bit_recv / varbit_recv read them: the length in bits as an int4, then
// the bytes that hold the bits, the first bit in the high bit.

func isBitString(oid uint32) bool {
	return oid == uint32(types.OidBit) || oid == uint32(types.OidVarbit)
}

// appendBitString is bit_send.
func appendBitString(buf []byte, b types.BitString) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(b.Len))
	return append(buf, b.Data...)
}

// decodeBitString is bit_recv: a length out of range fails as PostgreSQL's
// does, too few bytes as a short message, too many as bytes left over; the
// bits past the length are cleared.
func decodeBitString(src []byte) (any, error) {
	if len(src) < 4 {
		return nil, pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message")
	}
	n := int32(binary.BigEndian.Uint32(src))
	if n < 0 {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "invalid length in external bit string")
	}
	data := src[4:]
	need := (int64(n) + 7) / 8
	switch {
	case int64(len(data)) < need:
		return nil, pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message")
	case int64(len(data)) > need:
		return nil, fmt.Errorf("bit string with bytes left over: %w", wire.ErrIncorrectBinaryFormat)
	}
	b, ok := types.BitStringFromBytes(int(n), data)
	if !ok {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "invalid length in external bit string")
	}
	return b, nil
}

// isBitStringArray reports whether oid is bit[] or bit varying[].
func isBitStringArray(oid uint32) bool {
	elem, ok := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return ok && isBitString(uint32(elem.Oid))
}

// appendBitStringArray is array_send over bit_send's elements.
func appendBitStringArray(buf []byte, oid uint32, v any) ([]byte, error) {
	elem, _ := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return wire.AppendArrayWith(buf, uint32(elem.Oid), v, func(buf []byte, e any) ([]byte, error) {
		b, ok := e.(types.BitString)
		if !ok {
			return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as a bit string", e)
		}
		return appendBitString(buf, b), nil
	})
}

// decodeBitStringArray is array_recv over bit_recv's elements.
func decodeBitStringArray(oid uint32, src []byte) (any, error) {
	elem, _ := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return wire.DecodeArrayWith(uint32(elem.Oid), src, decodeBitString)
}
