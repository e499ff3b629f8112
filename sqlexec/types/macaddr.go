package types

import (
	"fmt"
	"math"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The MAC address types of mac.c and mac8.c: macaddr holds the six bytes
// of an EUI-48 address, macaddr8 the eight of an EUI-64 one. Both compare
// byte by byte, print as lower-case hex pairs joined by colons, and cast
// implicitly into each other (EUI-48 in EUI-64 through the FF:FE filler).

// OIDs of macaddr, macaddr8 and their arrays.
const (
	OidMacaddr       Oid = 829
	OidMacaddr8      Oid = 774
	OidMacaddrArray  Oid = 1040
	OidMacaddr8Array Oid = 775
)

// MacAddr is a macaddr datum.
type MacAddr [6]byte

// MacAddr8 is a macaddr8 datum.
type MacAddr8 [8]byte

// The macaddr types.
var (
	MacaddrType  = Type{OidMacaddr, -1}
	Macaddr8Type = Type{OidMacaddr8, -1}
)

func init() {
	m, m8 := MacaddrType, Macaddr8Type
	addComparisons(m, m, func(_ *Env, a, b any) int { return compareMacAddr(a.(MacAddr), b.(MacAddr)) })
	addComparisons(m8, m8, func(_ *Env, a, b any) int { return compareMacAddr8(a.(MacAddr8), b.(MacAddr8)) })
	addUnary("~", m, m, func(_ *Env, v any) (any, error) { return macBitwise(v.(MacAddr), v.(MacAddr), notBytes), nil })
	addBinary("&", m, m, m, func(_ *Env, a, b any) (any, error) { return macBitwise(a.(MacAddr), b.(MacAddr), andBytes), nil })
	addBinary("|", m, m, m, func(_ *Env, a, b any) (any, error) { return macBitwise(a.(MacAddr), b.(MacAddr), orBytes), nil })
	addUnary("~", m8, m8, func(_ *Env, v any) (any, error) { return macBitwise(v.(MacAddr8), v.(MacAddr8), notBytes), nil })
	addBinary("&", m8, m8, m8, func(_ *Env, a, b any) (any, error) { return macBitwise(a.(MacAddr8), b.(MacAddr8), andBytes), nil })
	addBinary("|", m8, m8, m8, func(_ *Env, a, b any) (any, error) { return macBitwise(a.(MacAddr8), b.(MacAddr8), orBytes), nil })

	// trunc keeps the manufacturer's three bytes (the OUI), zeroing the rest.
	addFunc("trunc", Immutable, m, func(_ *Env, a []any) (any, error) {
		x := a[0].(MacAddr)
		return MacAddr{x[0], x[1], x[2]}, nil
	}, m)
	addFunc("trunc", Immutable, m8, func(_ *Env, a []any) (any, error) {
		x := a[0].(MacAddr8)
		return MacAddr8{x[0], x[1], x[2]}, nil
	}, m8)
	// macaddr8_set7bit sets the universal/local bit, turning an EUI-64
	// into a modified EUI-64 as IPv6 interface identifiers use.
	addFunc("macaddr8_set7bit", Immutable, m8, func(_ *Env, a []any) (any, error) {
		x := a[0].(MacAddr8)
		x[0] |= 0x02
		return x, nil
	}, m8)
	addFunc("macaddr_cmp", Immutable, Int4, func(_ *Env, a []any) (any, error) {
		return int64(compareMacAddr(a[0].(MacAddr), a[1].(MacAddr))), nil
	}, m, m)
	addFunc("macaddr8_cmp", Immutable, Int4, func(_ *Env, a []any) (any, error) {
		return int64(compareMacAddr8(a[0].(MacAddr8), a[1].(MacAddr8))), nil
	}, m8, m8)

	addCast(OidMacaddr, OidMacaddr8, CastImplicit, func(_ *Env, v any) (any, error) { return macaddrToMacaddr8(v.(MacAddr)), nil })
	addCast(OidMacaddr8, OidMacaddr, CastImplicit, func(_ *Env, v any) (any, error) { return macaddr8ToMacaddr(v.(MacAddr8)) })
	addFunc("macaddr8", Immutable, m8, func(_ *Env, a []any) (any, error) { return macaddrToMacaddr8(a[0].(MacAddr)), nil }, m)
	addFunc("macaddr", Immutable, m, func(_ *Env, a []any) (any, error) { return macaddr8ToMacaddr(a[0].(MacAddr8)) }, m8)
}

func notBytes(x, _ byte) byte { return ^x }
func andBytes(x, y byte) byte { return x & y }
func orBytes(x, y byte) byte  { return x | y }

// macBitwise applies op to the bytes of a and b in turn (macaddr_not,
// macaddr_and, macaddr_or and their macaddr8 forms).
func macBitwise[T MacAddr | MacAddr8](a, b T, op func(x, y byte) byte) T {
	x, y := macBytes(&a), macBytes(&b)
	for i := range x {
		x[i] = op(x[i], y[i])
	}
	return a
}

// macBytes is the bytes of a MAC address datum, shared with it.
func macBytes[T MacAddr | MacAddr8](p *T) []byte {
	switch q := any(p).(type) {
	case *MacAddr:
		return q[:]
	case *MacAddr8:
		return q[:]
	}
	return nil
}

func compareMacAddr(a, b MacAddr) int {
	for i := range a {
		if a[i] != b[i] {
			return cmp3(int64(a[i]), int64(b[i]))
		}
	}
	return 0
}

func compareMacAddr8(a, b MacAddr8) int {
	for i := range a {
		if a[i] != b[i] {
			return cmp3(int64(a[i]), int64(b[i]))
		}
	}
	return 0
}

// macaddrToMacaddr8 is macaddrtomacaddr8: the EUI-48 address with FF:FE
// between its manufacturer and serial halves.
func macaddrToMacaddr8(x MacAddr) MacAddr8 {
	return MacAddr8{x[0], x[1], x[2], 0xff, 0xfe, x[3], x[4], x[5]}
}

// macaddr8ToMacaddr is macaddr8tomacaddr: only an address with the FF:FE
// filler converts.
func macaddr8ToMacaddr(x MacAddr8) (any, error) {
	if x[3] != 0xff || x[4] != 0xfe {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "macaddr8 data out of range to convert to macaddr").
			WithHint("Only addresses that have FF and FE as values in the 4th and 5th bytes from the left, for example xx:xx:xx:ff:fe:xx:xx:xx, are eligible to be converted from macaddr8 to macaddr.")
	}
	return MacAddr{x[0], x[1], x[2], x[5], x[6], x[7]}, nil
}

// macaddrFormats are the sscanf formats macaddr_in tries in turn.
var macaddrFormats = []string{
	"%x:%x:%x:%x:%x:%x%1s",
	"%x-%x-%x-%x-%x-%x%1s",
	"%2x%2x%2x:%2x%2x%2x%1s",
	"%2x%2x%2x-%2x%2x%2x%1s",
	"%2x%2x.%2x%2x.%2x%2x%1s",
	"%2x%2x-%2x%2x-%2x%2x%1s",
	"%2x%2x%2x%2x%2x%2x%1s",
}

// parseMacaddr is macaddr_in: the first format that converts exactly six
// numbers with nothing but white space after them wins, and every number
// must then be an octet.
func parseMacaddr(s string) (any, error) {
	for _, f := range macaddrFormats {
		vals, n := scanfHex(s, f)
		if n != 6 {
			continue
		}
		var out MacAddr
		for i, v := range vals[:6] {
			if v < 0 || v > 255 {
				return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "invalid octet value in \"macaddr\" value: \"%s\"", s)
			}
			out[i] = byte(v)
		}
		return out, nil
	}
	return nil, invalidSyntax(MacaddrType, s)
}

// scanfHex is glibc's sscanf(s, format, ...) for formats made of %x, %Nx,
// a final %1s and literal characters: it returns the numbers converted (as
// the int the caller declared receives them) and the count of successful
// conversions, -1 when the input ended before the first.
func scanfHex(s, format string) ([]int32, int) {
	var vals []int32
	n := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			if len(s) == 0 {
				return vals, eofOr(n)
			}
			if s[0] != c {
				return vals, n
			}
			s = s[1:]
			continue
		}
		width := 0
		for i++; format[i] >= '0' && format[i] <= '9'; i++ {
			width = width*10 + int(format[i]-'0')
		}
		// Both conversions skip leading white space.
		for len(s) > 0 && isCSpace(s[0]) {
			s = s[1:]
		}
		if len(s) == 0 {
			return vals, eofOr(n)
		}
		if format[i] == 's' {
			return vals, n + 1
		}
		v, used := scanHexNumber(s, width)
		if used == 0 {
			return vals, n
		}
		s = s[used:]
		vals = append(vals, v)
		n++
	}
	return vals, n
}

// eofOr is sscanf's result when the input runs out: EOF before the first
// conversion, the count so far after it.
func eofOr(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// scanHexNumber is one %x conversion of at most width characters (0: no
// limit) at the start of s: an optional sign and 0x prefix, hex digits read
// as strtoul reads them (saturating at 2^64-1, a minus negating modulo
// 2^64) and stored into an unsigned int. used is 0 when nothing matched.
func scanHexNumber(s string, width int) (v int32, used int) {
	if width == 0 {
		width = math.MaxInt
	}
	i := 0
	neg := false
	if i < len(s) && i < width && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := 0
	if i+1 < len(s) && i+1 < width && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
		digits = 1 // the 0 of the prefix is a number on its own
	}
	var u uint64
	overflow := false
	for ; i < len(s) && i < width; i++ {
		d := hexDigit(s[i])
		if d < 0 || d >= 16 {
			break
		}
		if u > (math.MaxUint64-uint64(d))/16 {
			overflow = true
		}
		u = u*16 + uint64(d)
		digits++
	}
	if digits == 0 {
		return 0, 0
	}
	if overflow {
		u = math.MaxUint64
	}
	if neg {
		u = -u
	}
	return int32(uint32(u)), i
}

// parseMacaddr8 is macaddr8_in: six or eight pairs of hex digits, each
// pair optionally followed by one separator (':', '-' or '.', the same
// throughout), white space around; a six-byte address gets the FF:FE
// filler. Like mac8.c it ignores a single character left over at the end.
func parseMacaddr8(str string) (any, error) {
	s := str
	for len(s) > 0 && isCSpace(s[0]) {
		s = s[1:]
	}
	var out [8]byte
	count := 0
	var spacer byte
	fail := func() (any, error) { return nil, invalidSyntax(Macaddr8Type, str) }
	for len(s) >= 2 {
		if count == 8 {
			return fail()
		}
		hi, lo := hexDigit(s[0]), hexDigit(s[1])
		if hi < 0 || hi >= 16 || lo < 0 || lo >= 16 {
			return fail()
		}
		out[count] = byte(hi<<4 | lo)
		count++
		s = s[2:]
		if len(s) > 0 && (s[0] == ':' || s[0] == '-' || s[0] == '.') {
			if spacer == 0 {
				spacer = s[0]
			} else if spacer != s[0] {
				return fail()
			}
			s = s[1:]
		}
		if (count == 6 || count == 8) && len(s) > 0 && isCSpace(s[0]) {
			for len(s) > 0 && isCSpace(s[0]) {
				s = s[1:]
			}
			if len(s) > 0 {
				return fail()
			}
		}
	}
	switch count {
	case 6:
		return MacAddr8{out[0], out[1], out[2], 0xff, 0xfe, out[3], out[4], out[5]}, nil
	case 8:
		return MacAddr8(out), nil
	}
	return fail()
}

func formatMacAddr(x MacAddr) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", x[0], x[1], x[2], x[3], x[4], x[5])
}

func formatMacAddr8(x MacAddr8) string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x", x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7])
}
