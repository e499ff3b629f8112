package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The functions, operators and casts of inet and cidr, as PostgreSQL's
// network.c defines them.

func init() {
	both := []Type{InetType, CidrType}
	for _, l := range both {
		for _, r := range both {
			addComparisons(l, r, func(_ *Env, a, b any) int { return compareInet(a.(Inet), b.(Inet)) })
			containment := map[string]func(a, b Inet) bool{
				"<<":  func(a, b Inet) bool { return contains(b, a, false) },
				"<<=": func(a, b Inet) bool { return contains(b, a, true) },
				">>":  func(a, b Inet) bool { return contains(a, b, false) },
				">>=": func(a, b Inet) bool { return contains(a, b, true) },
				"&&": func(a, b Inet) bool {
					return a.V6 == b.V6 && bitsCompare(a, b, min(int(a.Bits), int(b.Bits))) == 0
				},
			}
			for op, test := range containment {
				addBinary(op, l, r, Bool, func(_ *Env, a, b any) (any, error) { return test(a.(Inet), b.(Inet)), nil })
			}
		}
	}
	addUnary("~", InetType, InetType, func(_ *Env, v any) (any, error) {
		a := v.(Inet)
		for i := 0; i < a.size(); i++ {
			a.Addr[i] = ^a.Addr[i]
		}
		return a, nil
	})
	addBinary("&", InetType, InetType, InetType, inetBitwise("AND", func(x, y byte) byte { return x & y }))
	addBinary("|", InetType, InetType, InetType, inetBitwise("OR", func(x, y byte) byte { return x | y }))
	addBinary("+", InetType, Int8, InetType, func(_ *Env, a, b any) (any, error) { return inetAdd(a.(Inet), b.(int64)) })
	addBinary("+", Int8, InetType, InetType, func(_ *Env, a, b any) (any, error) { return inetAdd(b.(Inet), a.(int64)) })
	addBinary("-", InetType, Int8, InetType, func(_ *Env, a, b any) (any, error) {
		n := b.(int64)
		if n == math.MinInt64 {
			return nil, inetOutOfRange()
		}
		return inetAdd(a.(Inet), -n)
	})
	addBinary("-", InetType, InetType, Int8, func(_ *Env, a, b any) (any, error) { return inetSubtract(a.(Inet), b.(Inet)) })

	addCast(OidCidr, OidInet, CastImplicit, identity)
	addCast(OidInet, OidCidr, CastAssignment, func(_ *Env, v any) (any, error) { return inetNetwork(v.(Inet)), nil })
	for _, from := range []Oid{OidInet, OidCidr} {
		for _, to := range []Oid{OidText, OidVarchar, OidBpchar} {
			addCast(from, to, CastAssignment, func(_ *Env, v any) (any, error) { return formatInet(v.(Inet), true), nil })
		}
	}

	unary := func(name string, arg, result Type, fn func(a Inet) (any, error)) {
		addFunc(name, Immutable, result, func(_ *Env, args []any) (any, error) { return fn(args[0].(Inet)) }, arg)
	}
	for _, t := range both {
		unary("host", t, Text, func(a Inet) (any, error) { return formatInetAddr(a), nil })
		unary("text", t, Text, func(a Inet) (any, error) { return formatInet(a, true), nil })
		unary("masklen", t, Int4, func(a Inet) (any, error) { return int64(a.Bits), nil })
		unary("family", t, Int4, func(a Inet) (any, error) {
			if a.V6 {
				return int64(6), nil
			}
			return int64(4), nil
		})
		unary("netmask", t, InetType, func(a Inet) (any, error) { return inetMask(a, true), nil })
		unary("hostmask", t, InetType, func(a Inet) (any, error) { return inetMask(a, false), nil })
		unary("network", t, CidrType, func(a Inet) (any, error) { return inetNetwork(a), nil })
		unary("broadcast", t, InetType, func(a Inet) (any, error) { return a.masked(true), nil })
		unary("abbrev", t, Text, func(a Inet) (any, error) { return inetAbbrev(a, t.Oid == OidCidr), nil })
	}
	for _, t := range both {
		addFunc("set_masklen", Immutable, t, func(_ *Env, args []any) (any, error) {
			a, n := args[0].(Inet), args[1].(int64)
			if n == -1 {
				n = int64(a.maxBits())
			}
			if n < 0 || n > int64(a.maxBits()) {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid mask length: %d", args[1].(int64))
			}
			a.Bits = uint8(n)
			if t.Oid == OidCidr {
				a = a.masked(false)
			}
			return a, nil
		}, t, Int4)
	}
	addFunc("inet_same_family", Immutable, Bool, func(_ *Env, args []any) (any, error) {
		return args[0].(Inet).V6 == args[1].(Inet).V6, nil
	}, InetType, InetType)
	addFunc("inet_merge", Immutable, CidrType, func(_ *Env, args []any) (any, error) {
		a, b := args[0].(Inet), args[1].(Inet)
		if a.V6 != b.V6 {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot merge addresses from different families")
		}
		n := min(int(a.Bits), int(b.Bits))
		common := 0
		for common < n && a.bit(common) == b.bit(common) {
			common++
		}
		a.Bits = uint8(common)
		return a.masked(false), nil
	}, InetType, InetType)
}

// contains reports whether network a contains b (strictly unless orEqual).
func contains(a, b Inet, orEqual bool) bool {
	if a.V6 != b.V6 || b.Bits < a.Bits || (!orEqual && b.Bits == a.Bits) {
		return false
	}
	return bitsCompare(a, b, int(a.Bits)) == 0
}

// inetNetwork is a's network as a cidr: the host bits cleared.
func inetNetwork(a Inet) Inet { return a.masked(false) }

// inetMask is a's netmask (or hostmask) as a full-length inet.
func inetMask(a Inet, net bool) Inet {
	m := Inet{V6: a.V6, Bits: uint8(a.maxBits())}
	for i := 0; i < a.maxBits(); i++ {
		if (i < int(a.Bits)) == net {
			m.Addr[i/8] |= 0x80 >> (i % 8)
		}
	}
	return m
}

// inetAbbrev is abbrev(): an inet prints as text() does less a full mask;
// a cidr prints only the octets its mask reaches, as PostgreSQL's
// inet_cidr_ntop does for IPv4.
func inetAbbrev(a Inet, cidr bool) string {
	if !cidr {
		return formatInet(a, false)
	}
	if a.V6 {
		return formatInet(a, true)
	}
	octets := (int(a.Bits) + 7) / 8
	for octets < 4 && a.Addr[octets] != 0 {
		octets++
	}
	if octets == 0 {
		octets = 1
	}
	parts := make([]string, octets)
	for i := range parts {
		parts[i] = strconv.Itoa(int(a.Addr[i]))
	}
	return strings.Join(parts, ".") + "/" + strconv.Itoa(int(a.Bits))
}

// inetBitwise is the & or | of two addresses of the same family.
func inetBitwise(name string, f func(x, y byte) byte) opFunc {
	return func(_ *Env, l, r any) (any, error) {
		a, b := l.(Inet), r.(Inet)
		if a.V6 != b.V6 {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "cannot %s inet values of different sizes", name)
		}
		for i := 0; i < a.size(); i++ {
			a.Addr[i] = f(a.Addr[i], b.Addr[i])
		}
		a.Bits = max(a.Bits, b.Bits)
		return a, nil
	}
}

func inetOutOfRange() error {
	return pgerror.New(pgerror.NumericValueOutOfRange, "result is out of range")
}

// inetValue is the address as an unsigned number.
func inetValue(a Inet) *big.Int { return new(big.Int).SetBytes(a.Addr[:a.size()]) }

// inetAdd adds n to the address, failing when the sum leaves the family's
// range.
func inetAdd(a Inet, n int64) (any, error) {
	v := inetValue(a)
	v.Add(v, big.NewInt(n))
	if v.Sign() < 0 || v.BitLen() > a.maxBits() {
		return nil, inetOutOfRange()
	}
	v.FillBytes(a.Addr[:a.size()])
	return a, nil
}

// inetSubtract is a - b as a number, failing when it does not fit bigint.
func inetSubtract(a, b Inet) (any, error) {
	if a.V6 != b.V6 {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "cannot subtract inet values of different sizes")
	}
	d := inetValue(a)
	d.Sub(d, inetValue(b))
	if !d.IsInt64() {
		return nil, inetOutOfRange()
	}
	return d.Int64(), nil
}
