package server

import (
	"encoding/binary"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// Range values travel in binary as range_send writes them: a flags byte,
// then each finite bound as a length-prefixed value of the subtype's own
// binary form.

// The flags of range_send and range_recv (RANGE_EMPTY, RANGE_LB_INC, ...).
const (
	rangeFlagEmpty = 0x01
	rangeFlagLBInc = 0x02
	rangeFlagUBInc = 0x04
	rangeFlagLBInf = 0x08
	rangeFlagUBInf = 0x10
)

// rangeSubtype returns the subtype of range type oid; ok is false for
// other types.
func rangeSubtype(oid uint32) (types.Type, bool) {
	return types.Type{Oid: types.Oid(oid), Typmod: -1}.RangeSubtype()
}

// appendRange is range_send.
func appendRange(buf []byte, sub types.Type, r types.Range) ([]byte, error) {
	var flags byte
	set := func(on bool, flag byte) {
		if on {
			flags |= flag
		}
	}
	set(r.Empty, rangeFlagEmpty)
	set(r.LowerInc, rangeFlagLBInc)
	set(r.UpperInc, rangeFlagUBInc)
	set(r.LowerInf, rangeFlagLBInf)
	set(r.UpperInf, rangeFlagUBInf)
	buf = append(buf, flags)
	for _, bound := range []struct {
		v       any
		present bool
	}{{r.Lower, !r.Empty && !r.LowerInf}, {r.Upper, !r.Empty && !r.UpperInf}} {
		if !bound.present {
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = appendBinaryValue(buf, uint32(sub.Oid), bound.v); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// decodeRange is range_recv: the bounds are read by the subtype's binary
// input, then checked and made canonical as range input does.
func decodeRange(t, sub types.Type, src []byte) (any, error) {
	bad := pgerror.Newf(pgerror.InvalidBinaryRepresentation, "incorrect binary data format for type %s", t)
	if len(src) < 1 {
		return nil, bad
	}
	flags := src[0]
	src = src[1:]
	r := types.Range{Empty: flags&rangeFlagEmpty != 0, LowerInc: flags&rangeFlagLBInc != 0, UpperInc: flags&rangeFlagUBInc != 0,
		LowerInf: flags&rangeFlagLBInf != 0, UpperInf: flags&rangeFlagUBInf != 0}
	readBound := func(present bool) (any, error) {
		if !present {
			return nil, nil
		}
		if len(src) < 4 {
			return nil, bad
		}
		n := binary.BigEndian.Uint32(src)
		if uint64(n) > uint64(len(src)-4) {
			return nil, bad
		}
		v, err := decodeBinaryValue(uint32(sub.Oid), src[4:4+n])
		src = src[4+n:]
		return v, err
	}
	var err error
	if r.Lower, err = readBound(!r.Empty && !r.LowerInf); err != nil {
		return nil, err
	}
	if r.Upper, err = readBound(!r.Empty && !r.UpperInf); err != nil {
		return nil, err
	}
	if len(src) != 0 {
		return nil, bad
	}
	return types.MakeRange(t, r)
}

// isRangeArray reports whether oid is an array type over a range type.
func isRangeArray(oid uint32) bool {
	elem, ok := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return ok && elem.IsRange()
}

// appendRangeArray is array_send over range elements.
func appendRangeArray(buf []byte, oid uint32, v any) ([]byte, error) {
	elem, _ := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	sub, _ := elem.RangeSubtype()
	return wire.AppendArrayWith(buf, uint32(elem.Oid), v, func(buf []byte, e any) ([]byte, error) {
		r, ok := e.(types.Range)
		if !ok {
			return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as a range", e)
		}
		return appendRange(buf, sub, r)
	})
}

// decodeRangeArray is array_recv over range elements.
func decodeRangeArray(oid uint32, src []byte) (any, error) {
	elem, _ := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	sub, _ := elem.RangeSubtype()
	return wire.DecodeArrayWith(uint32(elem.Oid), src, func(src []byte) (any, error) { return decodeRange(elem, sub, src) })
}

// Multirange values travel in binary as multirange_send writes them: the
// number of ranges, then each range's range_send form with its length.

// multirangeRange returns the range type of multirange type oid and its
// subtype; ok is false for other types.
func multirangeRange(oid uint32) (rt, sub types.Type, ok bool) {
	if rt, ok = (types.Type{Oid: types.Oid(oid), Typmod: -1}).MultirangeRange(); !ok {
		return types.Type{}, types.Type{}, false
	}
	sub, _ = rt.RangeSubtype()
	return rt, sub, true
}

// appendMultirange is multirange_send.
func appendMultirange(buf []byte, sub types.Type, m types.Multirange) ([]byte, error) {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(m.Ranges)))
	for _, r := range m.Ranges {
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = appendRange(buf, sub, r); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// decodeMultirange is multirange_recv: each range is read as range_recv
// reads one, and the multirange made canonical.
func decodeMultirange(t, rt, sub types.Type, src []byte) (any, error) {
	bad := pgerror.Newf(pgerror.InvalidBinaryRepresentation, "incorrect binary data format for type %s", t)
	if len(src) < 4 {
		return nil, bad
	}
	n := binary.BigEndian.Uint32(src)
	src = src[4:]
	if uint64(n) > uint64(len(src))/5 {
		return nil, bad
	}
	ranges := make([]types.Range, 0, n)
	for i := uint32(0); i < n; i++ {
		if len(src) < 4 {
			return nil, bad
		}
		size := binary.BigEndian.Uint32(src)
		if uint64(size) > uint64(len(src)-4) {
			return nil, bad
		}
		r, err := decodeRange(rt, sub, src[4:4+size])
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, r.(types.Range))
		src = src[4+size:]
	}
	if len(src) != 0 {
		return nil, bad
	}
	return types.MakeMultirange(t, ranges)
}
