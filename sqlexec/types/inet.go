package types

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The network address types inet and cidr. A cidr is a network: no bits
// are set to the right of its mask. An inet is a host address with an
// optional netmask.
const (
	OidInet Oid = 869
	OidCidr Oid = 650
)

// The network address types.
var (
	InetType = Type{OidInet, -1}
	CidrType = Type{OidCidr, -1}
)

// CategoryNetwork is pg_type.typcategory of inet and cidr.
const CategoryNetwork Category = 'I'

// Inet is an inet or cidr datum: an IPv4 address in Addr[:4] (V6 false) or
// an IPv6 address in Addr, and the netmask length in bits.
type Inet struct {
	Addr [16]byte
	Bits uint8
	V6   bool
}

// maxBits is 32 for IPv4 and 128 for IPv6.
func (a Inet) maxBits() int {
	if a.V6 {
		return 128
	}
	return 32
}

// size is the address's length in bytes.
func (a Inet) size() int { return a.maxBits() / 8 }

// bit reports the i-th bit of the address, from the most significant.
func (a Inet) bit(i int) bool { return a.Addr[i/8]&(0x80>>(i%8)) != 0 }

// hostBitsSet reports whether a bit right of the mask is set.
func (a Inet) hostBitsSet() bool {
	for i := int(a.Bits); i < a.maxBits(); i++ {
		if a.bit(i) {
			return true
		}
	}
	return false
}

// masked returns a with the bits right of its mask set to one (fill) or
// cleared.
func (a Inet) masked(fill bool) Inet {
	for i := int(a.Bits); i < a.maxBits(); i++ {
		m := byte(0x80 >> (i % 8))
		if fill {
			a.Addr[i/8] |= m
		} else {
			a.Addr[i/8] &^= m
		}
	}
	return a
}

// parseInet reads inet or cidr text as PostgreSQL's inet_in and cidr_in
// do: an IPv4 or IPv6 address and an optional /bits. cidr also takes the
// classful abbreviations (10, 10.1/16) and refuses host bits right of the
// mask.
func parseInet(t Type, s string) (any, error) {
	cidr := t.Oid == OidCidr
	bad := func() error {
		return pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typeInfoOf(t.Oid).name, s)
	}
	addrText, bitsText, hasBits := strings.Cut(s, "/")
	var a Inet
	var ok bool
	if strings.Contains(addrText, ":") {
		a, ok = parseIPv6(addrText)
	} else {
		a, ok = parseIPv4(addrText, cidr)
	}
	if !ok {
		return nil, bad()
	}
	switch {
	case hasBits:
		n, err := strconv.Atoi(bitsText)
		if err != nil || bitsText == "" || bitsText[0] < '0' || bitsText[0] > '9' || n > a.maxBits() {
			return nil, bad()
		}
		a.Bits = uint8(n)
	case cidr && !a.V6:
		a.Bits = uint8(classfulBits(a.Addr[0], strings.Count(addrText, ".")+1))
	default:
		a.Bits = uint8(a.maxBits())
	}
	if cidr && a.hostBitsSet() {
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid cidr value: \"%s\"", s).
			WithDetail("Value has bits set to right of mask.")
	}
	return a, nil
}

// classfulBits is the mask a cidr written without one gets: the class of
// its first octet, widened to the octets written.
func classfulBits(first byte, octets int) int {
	bits := 8
	switch {
	case first >= 240:
		bits = 32
	case first >= 224:
		bits = 8
	case first >= 192:
		bits = 24
	case first >= 128:
		bits = 16
	}
	if bits < octets*8 {
		bits = octets * 8
	}
	if bits == 8 && first == 224 {
		bits = 4
	}
	return bits
}

// parseIPv4 reads a dotted quad; cidr also accepts one to three octets
// and a 0x-prefixed hexadecimal form.
func parseIPv4(s string, cidr bool) (Inet, bool) {
	var a Inet
	if cidr && len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		hex := s[2:]
		if len(hex) > 8 {
			return a, false
		}
		for i := 0; i < len(hex); i++ {
			d := hexDigit(hex[i])
			if d < 0 || d > 15 {
				return a, false
			}
			a.Addr[i/2] |= byte(d) << (4 * (1 - i%2))
		}
		return a, true
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 || (!cidr && len(parts) != 4) {
		return a, false
	}
	for i, p := range parts {
		if p == "" || len(p) > 3 {
			return a, false
		}
		n := 0
		for j := 0; j < len(p); j++ {
			if p[j] < '0' || p[j] > '9' {
				return a, false
			}
			n = n*10 + int(p[j]-'0')
		}
		if n > 255 {
			return a, false
		}
		a.Addr[i] = byte(n)
	}
	return a, true
}

// parseIPv6 reads the RFC 4291 text forms, with an embedded IPv4 tail.
func parseIPv6(s string) (Inet, bool) {
	a := Inet{V6: true}
	var words []uint16
	gap := -1
	rest := s
	if strings.HasPrefix(rest, "::") {
		gap, rest = 0, rest[2:]
	} else if strings.HasPrefix(rest, ":") {
		return a, false
	}
	for rest != "" {
		field, tail, more := strings.Cut(rest, ":")
		if strings.Contains(field, ".") {
			if more {
				return a, false
			}
			v4, ok := parseIPv4(field, false)
			if !ok {
				return a, false
			}
			words = append(words, uint16(v4.Addr[0])<<8|uint16(v4.Addr[1]), uint16(v4.Addr[2])<<8|uint16(v4.Addr[3]))
			break
		}
		if field == "" || len(field) > 4 {
			return a, false
		}
		var w uint16
		for i := 0; i < len(field); i++ {
			d := hexDigit(field[i])
			if d < 0 || d > 15 {
				return a, false
			}
			w = w<<4 | uint16(d)
		}
		words = append(words, w)
		rest = tail
		if more && strings.HasPrefix(rest, ":") {
			if gap >= 0 {
				return a, false
			}
			gap, rest = len(words), rest[1:]
		} else if more && rest == "" {
			return a, false
		}
	}
	if len(words) > 8 || (gap < 0 && len(words) != 8) || (gap >= 0 && len(words) == 8) {
		return a, false
	}
	if gap >= 0 {
		full := make([]uint16, 8)
		copy(full, words[:gap])
		copy(full[8-(len(words)-gap):], words[gap:])
		words = full
	}
	for i, w := range words {
		a.Addr[2*i], a.Addr[2*i+1] = byte(w>>8), byte(w)
	}
	return a, true
}

// formatInet prints a as inet_out and cidr_out do: the address, and /bits
// unless it is an inet whose mask covers the whole address.
func formatInet(a Inet, cidr bool) string {
	s := formatInetAddr(a)
	if cidr || int(a.Bits) != a.maxBits() {
		s += "/" + strconv.Itoa(int(a.Bits))
	}
	return s
}

// formatInetAddr prints the address alone: IPv6 with its longest run of
// two or more zero words compressed, and the IPv4-compatible and mapped
// forms with a dotted tail, as PostgreSQL prints them.
func formatInetAddr(a Inet) string {
	if !a.V6 {
		return strconv.Itoa(int(a.Addr[0])) + "." + strconv.Itoa(int(a.Addr[1])) + "." +
			strconv.Itoa(int(a.Addr[2])) + "." + strconv.Itoa(int(a.Addr[3]))
	}
	var words [8]int
	for i := range words {
		words[i] = int(a.Addr[2*i])<<8 | int(a.Addr[2*i+1])
	}
	best, bestLen, cur, curLen := -1, 0, -1, 0
	for i, w := range words {
		if w == 0 {
			if cur < 0 {
				cur, curLen = i, 0
			}
			curLen++
			if curLen > bestLen {
				best, bestLen = cur, curLen
			}
		} else {
			cur = -1
		}
	}
	if bestLen < 2 {
		best = -1
	}
	var b strings.Builder
	for i := 0; i < 8; i++ {
		if best >= 0 && i >= best && i < best+bestLen {
			if i == best {
				b.WriteByte(':')
			}
			continue
		}
		if i > 0 {
			b.WriteByte(':')
		}
		if i == 6 && best == 0 && (bestLen == 6 || bestLen == 5 && words[5] == 0xffff) {
			b.WriteString(formatInetAddr(Inet{Addr: [16]byte{a.Addr[12], a.Addr[13], a.Addr[14], a.Addr[15]}}))
			break
		}
		b.WriteString(strconv.FormatInt(int64(words[i]), 16))
	}
	if best >= 0 && best+bestLen == 8 {
		b.WriteByte(':')
	}
	return b.String()
}

// bitsCompare compares the first n bits of two addresses.
func bitsCompare(a, b Inet, n int) int {
	whole := n / 8
	if c := bytes.Compare(a.Addr[:whole], b.Addr[:whole]); c != 0 {
		return c
	}
	if r := n % 8; r > 0 {
		m := byte(0xff << (8 - r))
		x, y := a.Addr[whole]&m, b.Addr[whole]&m
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	return 0
}

// compareInet orders as PostgreSQL's network_cmp: IPv4 before IPv6, then
// the common network bits, then the mask length, then the whole address.
func compareInet(a, b Inet) int {
	if a.V6 != b.V6 {
		if b.V6 {
			return -1
		}
		return 1
	}
	if c := bitsCompare(a, b, min(int(a.Bits), int(b.Bits))); c != 0 {
		return c
	}
	if a.Bits != b.Bits {
		if a.Bits < b.Bits {
			return -1
		}
		return 1
	}
	return bitsCompare(a, b, a.maxBits())
}

// appendKeyInet encodes a so that keys sort as compareInet: the family,
// one byte per network bit (2 or 3) ended by 0, so that a shorter equal
// prefix sorts first, then the address bytes.
func appendKeyInet(buf []byte, a Inet) []byte {
	fam := byte(4)
	if a.V6 {
		fam = 6
	}
	buf = append(buf, fam)
	for i := 0; i < int(a.Bits); i++ {
		if a.bit(i) {
			buf = append(buf, 3)
		} else {
			buf = append(buf, 2)
		}
	}
	buf = append(buf, 0)
	return append(buf, a.Addr[:a.size()]...)
}

// decodeKeyInet reverses appendKeyInet.
func decodeKeyInet(buf []byte) (any, []byte, error) {
	if len(buf) < 2 || (buf[0] != 4 && buf[0] != 6) {
		return nil, nil, errBadKey
	}
	a := Inet{V6: buf[0] == 6}
	i := 1
	for i < len(buf) && buf[i] != 0 {
		i++
	}
	if i-1 > a.maxBits() || len(buf) < i+1+a.size() {
		return nil, nil, errBadKey
	}
	a.Bits = uint8(i - 1)
	copy(a.Addr[:], buf[i+1:i+1+a.size()])
	return a, buf[i+1+a.size():], nil
}
