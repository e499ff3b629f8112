package server

import (
	"encoding/binary"
	"fmt"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// Fixed-width types package wire does not know, in binary alone and as
// array elements: money (cash_send, cash_recv: the int8 of cents) and
// time with time zone (timetz_send, timetz_recv: the int8 microseconds of
// the time, the int4 seconds of the zone west of UTC), macaddr, macaddr8
// and pg_lsn (their bytes, the LSN as an int8), xid and xid8 (an int4 and
// an int8) and tid (the int4 block and the int2 offset); and the types whose
// send and receive functions sqlexec/types has (AppendSend, Recv): the
// geometric types, inet and cidr.

// scalarCodec is one such type's send and receive.
type scalarCodec struct {
	send func(buf []byte, v any) ([]byte, bool)
	recv func(src []byte) (any, error)
}

var scalarCodecs = map[uint32]scalarCodec{
	uint32(types.OidPoint):   {send: sendOf[types.Point](types.Type{Oid: types.OidPoint, Typmod: -1}), recv: recvOf(types.OidPoint)},
	uint32(types.OidLseg):    {send: sendOf[types.Lseg](types.Type{Oid: types.OidLseg, Typmod: -1}), recv: recvOf(types.OidLseg)},
	uint32(types.OidPath):    {send: sendOf[types.Path](types.Type{Oid: types.OidPath, Typmod: -1}), recv: recvOf(types.OidPath)},
	uint32(types.OidBox):     {send: sendOf[types.Box](types.Type{Oid: types.OidBox, Typmod: -1}), recv: recvOf(types.OidBox)},
	uint32(types.OidPolygon): {send: sendOf[types.Polygon](types.Type{Oid: types.OidPolygon, Typmod: -1}), recv: recvOf(types.OidPolygon)},
	uint32(types.OidLine):    {send: sendOf[types.Line](types.Type{Oid: types.OidLine, Typmod: -1}), recv: recvOf(types.OidLine)},
	uint32(types.OidCircle):  {send: sendOf[types.Circle](types.Type{Oid: types.OidCircle, Typmod: -1}), recv: recvOf(types.OidCircle)},
	uint32(types.OidInet):    {send: sendOf[types.Inet](types.InetType), recv: recvOf(types.OidInet)},
	uint32(types.OidCidr):    {send: sendOf[types.Inet](types.CidrType), recv: recvOf(types.OidCidr)},
	uint32(types.OidMoney):   {send: appendInt8Datum, recv: decodeInt8Datum},
	uint32(types.OidTimetz):  {send: appendTimetz, recv: decodeTimetz},
	uint32(types.OidMacaddr): {send: sendOf[types.MacAddr](types.MacaddrType), recv: func(src []byte) (any, error) {
		// macaddr_recv reads byte by byte (pq_getmsgbyte).
		if len(src) < 6 {
			return nil, pgerror.New(pgerror.ProtocolViolation, "no data left in message")
		}
		if err := fixedWidth(src, 6, "macaddr"); err != nil {
			return nil, err
		}
		return types.MacAddr(src), nil
	}},
	uint32(types.OidMacaddr8): {send: sendOf[types.MacAddr8](types.Macaddr8Type), recv: decodeMacaddr8},
	uint32(types.OidPGLSN): {send: sendOf[types.LSN](types.PGLSNType), recv: func(src []byte) (any, error) {
		if err := fixedWidth(src, 8, "pg_lsn"); err != nil {
			return nil, err
		}
		return types.LSN(binary.BigEndian.Uint64(src)), nil
	}},
	uint32(types.OidXID): {send: sendOf[types.XID](types.Type{Oid: types.OidXID, Typmod: -1}), recv: func(src []byte) (any, error) {
		if err := fixedWidth(src, 4, "xid"); err != nil {
			return nil, err
		}
		return types.XID(binary.BigEndian.Uint32(src)), nil
	}},
	uint32(types.OidXID8): {send: sendOf[types.XID8](types.Type{Oid: types.OidXID8, Typmod: -1}), recv: func(src []byte) (any, error) {
		if err := fixedWidth(src, 8, "xid8"); err != nil {
			return nil, err
		}
		return types.XID8(binary.BigEndian.Uint64(src)), nil
	}},
	uint32(types.OidTID): {send: sendOf[types.TID](types.Type{Oid: types.OidTID, Typmod: -1}), recv: func(src []byte) (any, error) {
		if err := fixedWidth(src, 6, "tid"); err != nil {
			return nil, err
		}
		return types.TID{Block: binary.BigEndian.Uint32(src), Offset: binary.BigEndian.Uint16(src[4:])}, nil
	}},
}

// sendOf is the send of a type whose datums are of Go type T, through the
// send functions SQL calls.
func sendOf[T any](t types.Type) func(buf []byte, v any) ([]byte, bool) {
	return func(buf []byte, v any) ([]byte, bool) {
		if _, ok := v.(T); !ok {
			return buf, false
		}
		return types.AppendSend(buf, t, v), true
	}
}

// recvOf is the receive function of a type sqlexec/types reads (Recv): a
// value with bytes left over is malformed, as PostgreSQL's callers of a
// receive function find it when it does not read the whole buffer.
func recvOf(oid types.Oid) func(src []byte) (any, error) {
	t := types.Type{Oid: oid, Typmod: -1}
	return func(src []byte) (any, error) {
		v, rest, err := types.Recv(t, src)
		if err != nil {
			return nil, err
		}
		if len(rest) != 0 {
			return nil, fmt.Errorf("%s with %d bytes left over: %w", t, len(rest), wire.ErrIncorrectBinaryFormat)
		}
		return v, nil
	}
}

// fixedWidth checks that src holds the n bytes the receive function of
// type name reads: fewer is its read past the end (08P01), more the
// caller's 22P03.
func fixedWidth(src []byte, n int, name string) error {
	if len(src) < n {
		return pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message")
	}
	if len(src) > n {
		return fmt.Errorf("%s of %d bytes: %w", name, len(src), wire.ErrIncorrectBinaryFormat)
	}
	return nil
}

// decodeMacaddr8 is macaddr8_recv: eight bytes, or six that get the
// FF:FE filler as macaddr8's text input gives them.
func decodeMacaddr8(src []byte) (any, error) {
	switch len(src) {
	case 8:
		return types.MacAddr8(src), nil
	case 6:
		return types.MacAddr8{src[0], src[1], src[2], 0xff, 0xfe, src[3], src[4], src[5]}, nil
	}
	return nil, fmt.Errorf("macaddr8 of %d bytes: %w", len(src), wire.ErrIncorrectBinaryFormat)
}

func appendTimetz(buf []byte, v any) ([]byte, bool) {
	t, ok := v.(types.TimeTZ)
	buf = binary.BigEndian.AppendUint64(buf, uint64(t.Time))
	return binary.BigEndian.AppendUint32(buf, uint32(t.Zone)), ok
}

// decodeTimetz is timetz_recv: a time out of 0 to 24:00:00 and a zone of
// 16 hours or more fail as they do there.
func decodeTimetz(src []byte) (any, error) {
	if err := fixedWidth(src, 12, "timetz"); err != nil {
		return nil, err
	}
	t := types.TimeTZ{Time: int64(binary.BigEndian.Uint64(src)), Zone: int32(binary.BigEndian.Uint32(src[8:]))}
	if t.Time < 0 || t.Time > 24*3600*1_000_000 {
		return nil, pgerror.New(pgerror.DatetimeFieldOverflow, "time out of range")
	}
	if t.Zone <= -timezoneDisplacementLimit || t.Zone >= timezoneDisplacementLimit {
		return nil, pgerror.New(pgerror.InvalidTimeZoneDisplacementValue, "time zone displacement out of range")
	}
	return t, nil
}

// timezoneDisplacementLimit is TZDISP_LIMIT: zones of 16 hours or more.
const timezoneDisplacementLimit = 16 * 3600

func appendInt8Datum(buf []byte, v any) ([]byte, bool) {
	i, ok := v.(int64)
	return binary.BigEndian.AppendUint64(buf, uint64(i)), ok
}

func decodeInt8Datum(src []byte) (any, error) {
	if err := fixedWidth(src, 8, "int8"); err != nil {
		return nil, err
	}
	return int64(binary.BigEndian.Uint64(src)), nil
}

// scalarCodecOf returns the codec of oid or of its elements.
func scalarCodecOf(oid uint32) (c scalarCodec, elem uint32, array, ok bool) {
	if c, ok := scalarCodecs[oid]; ok {
		return c, oid, false, true
	}
	if e, isArray := (types.Type{Oid: types.Oid(oid), Typmod: -1}).Elem(); isArray {
		if c, ok := scalarCodecs[uint32(e.Oid)]; ok {
			return c, uint32(e.Oid), true, true
		}
	}
	return scalarCodec{}, 0, false, false
}

func appendScalar(c scalarCodec, elem uint32, buf []byte, v any) ([]byte, error) {
	out, ok := c.send(buf, v)
	if !ok {
		return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as binary type OID %d", v, elem)
	}
	return out, nil
}

// appendScalarValue is the send function of oid, or array_send over it.
func appendScalarValue(c scalarCodec, elem uint32, array bool, buf []byte, v any) ([]byte, error) {
	if !array {
		return appendScalar(c, elem, buf, v)
	}
	return wire.AppendArrayWith(buf, elem, v, func(buf []byte, e any) ([]byte, error) { return appendScalar(c, elem, buf, e) })
}

// decodeScalarValue is the receive function of oid, or array_recv over it.
func decodeScalarValue(c scalarCodec, elem uint32, array bool, src []byte) (any, error) {
	if !array {
		return c.recv(src)
	}
	return wire.DecodeArrayWith(elem, src, c.recv)
}
