package server

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// hstore's binary form (hstore_send, hstore_recv): the pair count, then
// each key's length and bytes and each value's length (-1 for NULL) and
// bytes, all lengths 4-byte big-endian; hstore[] is array_send's over
// those.

func isHstore(oid uint32) bool { return types.Type{Oid: types.Oid(oid), Typmod: -1}.IsHstore() }

// appendHstore is hstore_send.
func appendHstore(buf []byte, h types.Hstore) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(h)))
	for _, p := range h {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(p.Key)))
		buf = append(buf, p.Key...)
		if p.Null {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(p.Value)))
		buf = append(buf, p.Value...)
	}
	return buf
}

// decodeHstore is hstore_recv: pairs in any order, the first of equal
// keys kept, text checked as UTF8 as pq_getmsgtext converts it.
func decodeHstore(src []byte) (any, error) {
	insufficient := pgerror.New(pgerror.ProtocolViolation, "insufficient data left in message")
	next := func() (int32, error) {
		if len(src) < 4 {
			return 0, insufficient
		}
		n := int32(binary.BigEndian.Uint32(src))
		src = src[4:]
		return n, nil
	}
	text := func(n int32) (string, error) {
		if int(n) > len(src) {
			return "", insufficient
		}
		s := string(src[:n])
		src = src[n:]
		if !utf8.ValidString(s) {
			return "", pgerror.CheckUTF8(s)
		}
		return s, nil
	}
	count, err := next()
	if err != nil {
		return nil, err
	}
	const maxPairs = 0x3fffffff / 32 // MaxAllocSize / sizeof(Pairs)
	if count < 0 || count > maxPairs {
		return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "number of pairs (%d) exceeds the maximum allowed (%d)", count, maxPairs)
	}
	pairs := make([]types.HstorePair, 0, min(int(count), len(src)/8))
	for range count {
		n, err := next()
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for hstore key")
		}
		var p types.HstorePair
		if p.Key, err = text(n); err != nil {
			return nil, err
		}
		if n, err = next(); err != nil {
			return nil, err
		}
		if n < 0 {
			p.Null = true
		} else if p.Value, err = text(n); err != nil {
			return nil, err
		}
		pairs = append(pairs, p)
	}
	if len(src) > 0 {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, "incorrect binary data format")
	}
	return types.HstoreFromPairs(pairs)
}

// isHstoreArray reports whether oid is hstore[].
func isHstoreArray(oid uint32) bool {
	elem, ok := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return ok && elem.IsHstore()
}

// appendHstoreArray is array_send over hstore elements.
func appendHstoreArray(buf []byte, oid uint32, v any) ([]byte, error) {
	elem, _ := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return wire.AppendArrayWith(buf, uint32(elem.Oid), v, func(buf []byte, e any) ([]byte, error) {
		h, ok := e.(types.Hstore)
		if !ok {
			return nil, pgerror.Newf(pgerror.InternalError, "cannot encode %T as an hstore", e)
		}
		return appendHstore(buf, h), nil
	})
}

// decodeHstoreArray is array_recv over hstore elements.
func decodeHstoreArray(oid uint32, src []byte) (any, error) {
	elem, _ := types.Type{Oid: types.Oid(oid), Typmod: -1}.Elem()
	return wire.DecodeArrayWith(uint32(elem.Oid), src, decodeHstore)
}
