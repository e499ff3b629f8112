package sqlexec

import (
	"crypto/md5"
	"crypto/sha1"
	"encoding/binary"
	"hash"
	"io"
	"sync"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// uuid-ossp 1.1: the functions of its script, with RFC 4122's UUIDs.
// Version 1 UUIDs take their node from the random multicast address
// fickle draws once per server, as libuuid does on a host without a
// network card; version 1mc draws a new one for each UUID, as uuid-ossp
// does.

// The name space UUIDs of RFC 4122's appendix C.
var (
	uuidNamespaceDNS  = [16]byte{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	uuidNamespaceURL  = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	uuidNamespaceOID  = [16]byte{0x6b, 0xa7, 0xb8, 0x12, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	uuidNamespaceX500 = [16]byte{0x6b, 0xa7, 0xb8, 0x14, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
)

func init() {
	constant := func(name string, u [16]byte) extensionFunc {
		return extensionFunc{name: name, result: types.UUID, volatility: 'i', symbol: name,
			eval: func(*execCtx, []any) (any, error) { return u, nil }}
	}
	named := []funcParam{{name: "namespace", typ: types.UUID, mode: 'i', arg: true}, {name: "name", typ: types.Text, mode: 'i', arg: true}}
	registerExtension(&availableExtension{name: "uuid-ossp", version: "1.1", library: "uuid-ossp", relocatable: true,
		comment: "generate universally unique identifiers (UUIDs)",
		functions: []extensionFunc{
			constant("uuid_nil", [16]byte{}),
			constant("uuid_ns_dns", uuidNamespaceDNS),
			constant("uuid_ns_url", uuidNamespaceURL),
			constant("uuid_ns_oid", uuidNamespaceOID),
			constant("uuid_ns_x500", uuidNamespaceX500),
			{name: "uuid_generate_v1", result: types.UUID, volatility: 'v', symbol: "uuid_generate_v1",
				eval: func(x *execCtx, _ []any) (any, error) { return timeUUID(x, false) }},
			{name: "uuid_generate_v1mc", result: types.UUID, volatility: 'v', symbol: "uuid_generate_v1mc",
				eval: func(x *execCtx, _ []any) (any, error) { return timeUUID(x, true) }},
			{name: "uuid_generate_v3", params: named, result: types.UUID, volatility: 'i', symbol: "uuid_generate_v3",
				eval: func(_ *execCtx, a []any) (any, error) {
					return nameUUID(md5.New(), 3, a[0].([16]byte), a[1].(string)), nil
				}},
			{name: "uuid_generate_v4", result: types.UUID, volatility: 'v', symbol: "uuid_generate_v4",
				eval: func(x *execCtx, _ []any) (any, error) {
					var u [16]byte
					if err := uuidRandom(x, u[:]); err != nil {
						return nil, err
					}
					return versioned(u, 4), nil
				}},
			{name: "uuid_generate_v5", params: named, result: types.UUID, volatility: 'i', symbol: "uuid_generate_v5",
				eval: func(_ *execCtx, a []any) (any, error) {
					return nameUUID(sha1.New(), 5, a[0].([16]byte), a[1].(string)), nil
				}},
		}})
}

// versioned sets u's version and RFC 4122's variant bits.
func versioned(u [16]byte, version byte) [16]byte {
	u[6] = u[6]&0x0f | version<<4
	u[8] = u[8]&0x3f | 0x80
	return u
}

// nameUUID is a name-based UUID (versions 3 and 5): the hash of the name
// space's bytes and the name's.
func nameUUID(h hash.Hash, version byte, namespace [16]byte, name string) [16]byte {
	h.Write(namespace[:])
	_, _ = io.WriteString(h, name)
	var u [16]byte
	copy(u[:], h.Sum(nil))
	return versioned(u, version)
}

// uuidRandom fills b from the session's source of randomness, the one
// gen_random_uuid() uses (seeded in a reproducible run).
func uuidRandom(x *execCtx, b []byte) error {
	if x.env == nil || x.env.Rand == nil {
		return pgerror.Unsupported("uuid-ossp without a source of randomness")
	}
	_, err := io.ReadFull(x.env.Rand, b)
	return err
}

// uuidClock is the state of version 1 UUIDs: the last timestamp given out
// and the clock sequence, so that UUIDs of one server never repeat, and
// the node, drawn on first use.
var uuidClock struct {
	sync.Mutex
	last  uint64
	seq   uint16
	node  [6]byte
	drawn bool
}

// uuidEpoch is RFC 4122's epoch, the Gregorian calendar's start, in
// 100-nanosecond intervals before the Unix epoch.
const uuidEpoch = 122192928000000000

// timeUUID is a version 1 UUID: the time in 100-nanosecond intervals since
// 1582-10-15, a clock sequence, and the server's random multicast node, or
// with freshNode a new one (uuid_generate_v1mc).
func timeUUID(x *execCtx, freshNode bool) (any, error) {
	now := time.Now()
	if x.env != nil && x.env.Clock != nil {
		now = x.env.Clock()
	}
	uuidClock.Lock()
	defer uuidClock.Unlock()
	if !uuidClock.drawn {
		var b [8]byte
		if err := uuidRandom(x, b[:]); err != nil {
			return nil, err
		}
		copy(uuidClock.node[:], b[:6])
		uuidClock.node[0] |= 0x01 // multicast: not a real card's address
		uuidClock.seq = binary.BigEndian.Uint16(b[6:]) & 0x3fff
		uuidClock.drawn = true
	}
	ts := uint64(now.UnixNano()/100) + uuidEpoch
	if ts <= uuidClock.last {
		ts = uuidClock.last + 1 // two UUIDs within one tick, or the clock went back
	}
	uuidClock.last = ts
	node := uuidClock.node
	if freshNode {
		if err := uuidRandom(x, node[:]); err != nil {
			return nil, err
		}
		node[0] |= 0x01
	}
	var u [16]byte
	binary.BigEndian.PutUint32(u[0:], uint32(ts))
	binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ts>>48))
	binary.BigEndian.PutUint16(u[8:], uuidClock.seq)
	copy(u[10:], node[:])
	return versioned(u, 1), nil
}
