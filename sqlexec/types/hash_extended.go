package types

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgarray"
)

// PostgreSQL's 64-bit "extended" hash functions (the hash operator classes'
// support function 2), bit for bit, for the types whose hash partitioning
// places rows: hash partitioning sends a row to the partition PostgreSQL
// would only if every key column hashes as PostgreSQL's does. A type
// missing here is not hashable (HashExtendedSupported), never hashed
// differently.

// pgEpoch is PostgreSQL's date and timestamp origin, 2000-01-01.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// HashExtendedSupported reports whether HashExtended hashes values of t.
func HashExtendedSupported(t Type) bool {
	switch t.Oid {
	case OidBool, OidInt2, OidInt4, OidInt8, OidOid, OidFloat4, OidFloat8,
		OidText, OidVarchar, OidBpchar, OidName, OidBytea,
		OidDate, OidTime, OidTimetz, OidTimestamp, OidTimestamptz, OidUUID,
		OidChar, OidInterval, OidMacaddr, OidMacaddr8, OidPGLSN, OidNumeric, OidInet, OidCidr:
		return true
	}
	if elem, ok := t.Elem(); ok && t.IsArray() && !isVector(t.Oid) {
		return HashExtendedSupported(elem)
	}
	if sub, ok := t.RangeSubtype(); ok {
		return HashExtendedSupported(sub)
	}
	if rt, ok := t.MultirangeRange(); ok {
		return HashExtendedSupported(rt)
	}
	if t.Oid == OidOidVector {
		return true
	}
	if fields, ok := t.Fields(); ok && t.IsRecord() {
		for _, f := range fields {
			if !HashExtendedSupported(f.Type) {
				return false
			}
		}
		return true
	}
	return false
}

// HashExtended returns the extended hash of the non-NULL datum v of type t
// under seed, as PostgreSQL's hash<type>extended returns it (text under a
// deterministic collation: its bytes).
func HashExtended(t Type, v any, seed uint64) uint64 {
	switch t.Oid {
	case OidBool:
		if v.(bool) {
			return hashUint32Extended(1, seed)
		}
		return hashUint32Extended(0, seed)
	case OidInt2, OidInt4:
		return hashUint32Extended(uint32(int32(v.(int64))), seed)
	case OidOid:
		return hashUint32Extended(uint32(v.(int64)), seed)
	case OidChar:
		// hashcharextended: the byte as a signed C char, widened.
		var c int8
		if s := v.(string); s != "" {
			c = int8(s[0])
		}
		return hashUint32Extended(uint32(int32(c)), seed)
	case OidPGLSN:
		return hashInt8Extended(int64(v.(LSN)), seed)
	case OidNumeric:
		return hashNumericExtended(v.(*apd.Decimal), seed)
	case OidInet, OidCidr:
		// hashinetextended: the family (PGSQL_AF_INET 2 or
		// PGSQL_AF_INET6 3), the mask bits and the address bytes.
		a := v.(Inet)
		family, n := byte(2), 4
		if a.V6 {
			family, n = 3, 16
		}
		return hashBytesExtended(append([]byte{family, a.Bits}, a.Addr[:n]...), seed)
	case OidMacaddr:
		m := v.(MacAddr)
		return hashBytesExtended(m[:], seed)
	case OidMacaddr8:
		m := v.(MacAddr8)
		return hashBytesExtended(m[:], seed)
	case OidInterval:
		// interval_hash_extended: hashint8extended of the low 64 bits of
		// interval_cmp_value's 128-bit span in microseconds.
		x := v.(pgtype.Interval)
		return hashInt8Extended(x.Microseconds+(int64(x.Months)*daysPerMonth+int64(x.Days))*usecPerDay, seed)
	case OidInt8, OidTime:
		return hashInt8Extended(v.(int64), seed)
	case OidFloat4, OidFloat8:
		f := v.(float64)
		if f == 0 {
			return seed
		}
		if math.IsNaN(f) {
			f = math.Float64frombits(0x7ff8000000000000)
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return hashBytesExtended(b[:], seed)
	case OidText, OidVarchar, OidName:
		return hashBytesExtended([]byte(v.(string)), seed)
	case OidBpchar:
		return hashBytesExtended([]byte(strings.TrimRight(v.(string), " ")), seed)
	case OidBytea:
		return hashBytesExtended(v.([]byte), seed)
	case OidUUID:
		u := v.([16]byte)
		return hashBytesExtended(u[:], seed)
	case OidDate:
		return hashUint32Extended(uint32(dateDays(v.(time.Time))), seed)
	case OidTimestamp, OidTimestamptz:
		return hashInt8Extended(timestampMicros(v.(time.Time)), seed)
	case OidTimetz:
		// timetz_hash_extended: the time's hash and the zone's, combined.
		x := v.(TimeTZ)
		return hashInt8Extended(x.Time, seed) ^ hashUint32Extended(uint32(x.Zone), seed)
	}
	if sub, ok := t.RangeSubtype(); ok {
		return hashRangeExtended(sub, v.(Range), seed)
	}
	if rt, ok := t.MultirangeRange(); ok {
		// hash_multirange_extended: the ranges' hashes combined as
		// hash_array's are.
		sub, _ := rt.RangeSubtype()
		result := uint64(1)
		for _, r := range v.(Multirange).Ranges {
			result = result<<5 - result + hashRangeExtended(sub, r, seed)
		}
		return result
	}
	if t.Oid == OidOidVector {
		// hashoidvectorextended: the OIDs' bytes.
		var b []byte
		for _, o := range v.([]any) {
			b = binary.LittleEndian.AppendUint32(b, uint32(o.(int64)))
		}
		return hashBytesExtended(b, seed)
	}
	if fields, ok := t.Fields(); ok && t.IsRecord() {
		// hash_record_extended: the fields' hashes in order, combined
		// as hash_array's are but from 0.
		var result uint64
		for k, f := range fields {
			var h uint64
			if x := v.([]any)[k]; x != nil {
				h = HashExtended(f.Type, x, seed)
			}
			result = result<<5 - result + h
		}
		return result
	}
	if elem, ok := t.Elem(); ok {
		// hash_array_extended: the elements' hashes in storage order,
		// combined as result * 31 + hash from 1, a NULL hashing as 0.
		_, _, elems, _ := pgarray.Shape(v)
		result := uint64(1)
		for _, e := range elems {
			var h uint64
			if e != nil {
				h = HashExtended(elem, e, seed)
			}
			result = result<<5 - result + h
		}
		return result
	}
	panic("types: HashExtended of an unhashable type " + t.String())
}

// hashNumericExtended is hash_numeric_extended: the stored base-10000
// digits without leading and trailing zeros (little-endian 16-bit words)
// hashed, then XORed with the weight of the first; the sign is left out,
// zero hashes as seed - 1 and NaN and the infinities as seed.
func hashNumericExtended(d *apd.Decimal, seed uint64) uint64 {
	if d.Form != apd.Finite {
		return seed
	}
	send := appendNumericSend(nil, d)
	ndigits := int(binary.BigEndian.Uint16(send))
	if ndigits == 0 {
		return seed - 1
	}
	weight := int64(int16(binary.BigEndian.Uint16(send[2:])))
	digits := make([]byte, 0, 2*ndigits)
	for i := range ndigits {
		digits = binary.LittleEndian.AppendUint16(digits, binary.BigEndian.Uint16(send[8+2*i:]))
	}
	return hashBytesExtended(digits, seed) ^ uint64(weight)
}

// dateDays is a date's PostgreSQL datum: days since 2000-01-01, the int32
// extremes for ±infinity.
func dateDays(t time.Time) int32 {
	switch {
	case t.Equal(InfinityTime):
		return math.MaxInt32
	case t.Equal(NegInfinityTime):
		return math.MinInt32
	}
	return int32((t.Unix() - pgEpoch.Unix()) / 86400)
}

// timestampMicros is a timestamp's PostgreSQL datum: microseconds since
// 2000-01-01, the int64 extremes for ±infinity.
func timestampMicros(t time.Time) int64 {
	switch {
	case t.Equal(InfinityTime):
		return math.MaxInt64
	case t.Equal(NegInfinityTime):
		return math.MinInt64
	}
	return (t.Unix()-pgEpoch.Unix())*1_000_000 + int64(t.Nanosecond()/1000)
}

// hashInt8Extended is hashint8extended: the high half folded into the low
// so that an int8 hashes as the int4 of the same value.
func hashInt8Extended(v int64, seed uint64) uint64 {
	lo, hi := uint32(v), uint32(v>>32)
	if v >= 0 {
		lo ^= hi
	} else {
		lo ^= ^hi
	}
	return hashUint32Extended(lo, seed)
}

// HashCombine64 is PostgreSQL's hash_combine64.
func HashCombine64(a, b uint64) uint64 {
	return a ^ (b + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7))
}

// jenkinsMix and jenkinsFinal are the mix() and final() steps of Bob
// Jenkins' lookup3 hash, which PostgreSQL's hash_bytes uses.
func jenkinsMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func jenkinsFinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}

// seeded starts a lookup3 state for a key of n bytes under seed.
func seeded(n uint32, seed uint64) (uint32, uint32, uint32) {
	a := 0x9e3779b9 + n + 3923095
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = jenkinsMix(a, b, c)
	}
	return a, b, c
}

// hashUint32Extended is hash_bytes_uint32_extended.
func hashUint32Extended(k uint32, seed uint64) uint64 {
	a, b, c := seeded(4, seed)
	a += k
	_, b, c = jenkinsFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// hashBytesExtended is hash_bytes_extended on a little-endian machine:
// 12-byte blocks as three words, the tail's bytes added to a, b and c (c's
// lowest byte left out).
func hashBytesExtended(k []byte, seed uint64) uint64 {
	a, b, c := seeded(uint32(len(k)), seed)
	for len(k) >= 12 {
		a += binary.LittleEndian.Uint32(k)
		b += binary.LittleEndian.Uint32(k[4:])
		c += binary.LittleEndian.Uint32(k[8:])
		a, b, c = jenkinsMix(a, b, c)
		k = k[12:]
	}
	for i, x := range k {
		switch {
		case i < 4:
			a += uint32(x) << (8 * i)
		case i < 8:
			b += uint32(x) << (8 * (i - 4))
		default:
			c += uint32(x) << (8 * (i - 7))
		}
	}
	_, b, c = jenkinsFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// The flags of a stored range (rangetypes.h).
const (
	rangeEmpty = 0x01
	rangeLBInc = 0x02
	rangeUBInc = 0x04
	rangeLBInf = 0x08
	rangeUBInf = 0x10
)

// hashRangeExtended is hash_range_extended: the flags' hash XORed with the
// lower bound's, both 32-bit halves rotated left by one, XORed with the
// upper bound's; a missing bound hashes as 0.
func hashRangeExtended(sub Type, r Range, seed uint64) uint64 {
	var flags uint32
	switch {
	case r.Empty:
		flags = rangeEmpty
	default:
		if r.LowerInf {
			flags |= rangeLBInf
		} else if r.LowerInc {
			flags |= rangeLBInc
		}
		if r.UpperInf {
			flags |= rangeUBInf
		} else if r.UpperInc {
			flags |= rangeUBInc
		}
	}
	var lower, upper uint64
	if !r.Empty && !r.LowerInf && r.Lower != nil {
		lower = HashExtended(sub, r.Lower, seed)
	}
	if !r.Empty && !r.UpperInf && r.Upper != nil {
		upper = HashExtended(sub, r.Upper, seed)
	}
	h := hashUint32Extended(flags, seed) ^ lower
	h = h<<1&0xfffffffefffffffe | h>>31&0x100000001
	return h ^ upper
}
