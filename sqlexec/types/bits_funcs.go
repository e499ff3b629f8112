package types

import (
	"math"
	"math/bits"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The operators, functions, aggregates and casts of bit and bit varying, as
// PostgreSQL's varbit.c defines them. Most are declared on bit only; bit
// varying reaches them through its implicit cast to bit.

func init() {
	cmpBits := func(_ *Env, a, b any) int { return compareBitStrings(a.(BitString), b.(BitString)) }
	addComparisons(BitAny, BitAny, cmpBits)
	addComparisons(VarbitAny, VarbitAny, cmpBits)

	bitwise := func(name string, op func(x, y byte) byte) opFunc {
		return func(_ *Env, l, r any) (any, error) { return bitwiseBits(name, l.(BitString), r.(BitString), op) }
	}
	addBinary("&", BitAny, BitAny, BitAny, bitwise("AND", func(x, y byte) byte { return x & y }))
	addBinary("|", BitAny, BitAny, BitAny, bitwise("OR", func(x, y byte) byte { return x | y }))
	addBinary("#", BitAny, BitAny, BitAny, bitwise("XOR", func(x, y byte) byte { return x ^ y }))
	addUnary("~", BitAny, BitAny, func(_ *Env, v any) (any, error) { return notBits(v.(BitString)), nil })
	addBinary("<<", BitAny, Int4, BitAny, func(_ *Env, l, r any) (any, error) { return shiftBits(l.(BitString), r.(int64)), nil })
	addBinary(">>", BitAny, Int4, BitAny, func(_ *Env, l, r any) (any, error) {
		return shiftBits(l.(BitString), -r.(int64)), nil
	})
	addBinary("||", VarbitAny, VarbitAny, VarbitAny, func(_ *Env, l, r any) (any, error) {
		return concatBits(l.(BitString), r.(BitString)), nil
	})

	unary := func(name string, result Type, fn func(b BitString) any) {
		addFunc(name, Immutable, result, func(_ *Env, a []any) (any, error) { return fn(a[0].(BitString)), nil }, BitAny)
	}
	unary("length", Int4, func(b BitString) any { return int64(b.Len) })
	unary("bit_length", Int4, func(b BitString) any { return int64(b.Len) })
	unary("octet_length", Int4, func(b BitString) any { return int64(len(b.Data)) })
	unary("bit_count", Int8, func(b BitString) any { return onesCount(b.Data) })
	addFunc("bit_count", Immutable, Int8, func(_ *Env, a []any) (any, error) { return onesCount(string(a[0].([]byte))), nil }, Bytea)
	addFunc("get_bit", Immutable, Int4, func(_ *Env, a []any) (any, error) {
		b, n := a[0].(BitString), a[1].(int64)
		if err := checkBitIndex(b, n); err != nil {
			return nil, err
		}
		if b.bitOf(int(n)) {
			return int64(1), nil
		}
		return int64(0), nil
	}, BitAny, Int4)
	addFunc("set_bit", Immutable, BitAny, func(_ *Env, a []any) (any, error) {
		b, n, v := a[0].(BitString), a[1].(int64), a[2].(int64)
		if err := checkBitIndex(b, n); err != nil {
			return nil, err
		}
		if v != 0 && v != 1 {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "new bit must be 0 or 1")
		}
		d := []byte(b.Data)
		mask := byte(0x80 >> (n % 8))
		if v == 1 {
			d[n/8] |= mask
		} else {
			d[n/8] &^= mask
		}
		return BitString{Len: b.Len, Data: string(d)}, nil
	}, BitAny, Int4, Int4)
	addFunc("substring", Immutable, BitAny, func(_ *Env, a []any) (any, error) {
		return substringBits(a[0].(BitString), a[1].(int64), 0, false)
	}, BitAny, Int4)
	addFunc("substring", Immutable, BitAny, func(_ *Env, a []any) (any, error) {
		return substringBits(a[0].(BitString), a[1].(int64), a[2].(int64), true)
	}, BitAny, Int4, Int4)
	addFunc("overlay", Immutable, BitAny, func(_ *Env, a []any) (any, error) {
		return overlayBits(a[0].(BitString), a[1].(BitString), a[2].(int64), a[3].(int64))
	}, BitAny, BitAny, Int4, Int4)
	addFunc("overlay", Immutable, BitAny, func(_ *Env, a []any) (any, error) {
		placing := a[1].(BitString)
		return overlayBits(a[0].(BitString), placing, a[2].(int64), int64(placing.Len))
	}, BitAny, BitAny, Int4)
	addFunc("position", Immutable, Int4, func(_ *Env, a []any) (any, error) {
		return int64(positionBits(a[0].(BitString), a[1].(BitString))), nil
	}, BitAny, BitAny)
	cmpFunc := func(_ *Env, a []any) (any, error) {
		return int64(bitcmp(a[0].(BitString), a[1].(BitString))), nil
	}
	addFunc("bitcmp", Immutable, Int4, cmpFunc, BitAny, BitAny)
	addFunc("varbitcmp", Immutable, Int4, cmpFunc, VarbitAny, VarbitAny)

	addCast(OidBit, OidVarbit, CastImplicit, identity)
	addCast(OidVarbit, OidBit, CastImplicit, identity)
	addTypmodCast(OidInt4, OidBit, CastExplicit, func(to Type) EnvCastFunc {
		return func(_ *Env, v any) (any, error) { return bitsFromInt(v.(int64), to), nil }
	})
	addTypmodCast(OidInt8, OidBit, CastExplicit, func(to Type) EnvCastFunc {
		return func(_ *Env, v any) (any, error) { return bitsFromInt(v.(int64), to), nil }
	})
	toInt4 := func(_ *Env, v any) (any, error) { return bitsToInt(v.(BitString), 32, "integer") }
	toInt8 := func(_ *Env, v any) (any, error) { return bitsToInt(v.(BitString), 64, "bigint") }
	addCast(OidBit, OidInt4, CastExplicit, toInt4)
	addCast(OidBit, OidInt8, CastExplicit, toInt8)
	addFunc("int4", Immutable, Int4, func(env *Env, a []any) (any, error) { return toInt4(env, a[0]) }, BitAny)
	addFunc("int8", Immutable, Int8, func(env *Env, a []any) (any, error) { return toInt8(env, a[0]) }, BitAny)

	for name, op := range map[string]struct {
		word string
		fn   func(x, y byte) byte
		int  func(x, y int64) int64
	}{
		"bit_and": {"AND", func(x, y byte) byte { return x & y }, func(x, y int64) int64 { return x & y }},
		"bit_or":  {"OR", func(x, y byte) byte { return x | y }, func(x, y int64) int64 { return x | y }},
		"bit_xor": {"XOR", func(x, y byte) byte { return x ^ y }, func(x, y int64) int64 { return x ^ y }},
	} {
		bitsOp := func(acc, v any) (any, error) { return bitwiseBits(op.word, acc.(BitString), v.(BitString), op.fn) }
		addAgg(name, BitAny, func() Accumulator { return &bitAggAcc{op: bitsOp} }, BitAny)
		intOp := func(acc, v any) (any, error) { return op.int(acc.(int64), v.(int64)), nil }
		for _, t := range []Type{Int2, Int4, Int8} {
			addAgg(name, t, func() Accumulator { return &bitAggAcc{op: intOp} }, t)
		}
	}
}

// onesCount is bit_count: the number of bits set.
func onesCount(data string) int64 {
	n := 0
	for i := 0; i < len(data); i++ {
		n += bits.OnesCount8(data[i])
	}
	return int64(n)
}

// checkBitIndex is get_bit's and set_bit's range check.
func checkBitIndex(b BitString, n int64) error {
	if n < 0 || n >= int64(b.Len) {
		return pgerror.Newf(pgerror.ArraySubscriptError, "bit index %d out of valid range (0..%d)", n, b.Len-1)
	}
	return nil
}

// bitwiseBits is bit_and, bit_or and bitxor: byte by byte, on strings of
// one length (the pad bits stay zero for all three).
func bitwiseBits(name string, a, b BitString, op func(x, y byte) byte) (BitString, error) {
	if a.Len != b.Len {
		return BitString{}, pgerror.Newf(pgerror.StringDataLengthMismatch, "cannot %s bit strings of different sizes", name)
	}
	d := make([]byte, len(a.Data))
	for i := range d {
		d[i] = op(a.Data[i], b.Data[i])
	}
	return BitString{Len: a.Len, Data: string(d)}, nil
}

// notBits is bitnot, the pad bits cleared again.
func notBits(b BitString) BitString {
	d := make([]byte, len(b.Data))
	for i := range d {
		d[i] = ^b.Data[i]
	}
	if r := b.Len % 8; r != 0 {
		d[len(d)-1] &= byte(0xff << (8 - r))
	}
	return BitString{Len: b.Len, Data: string(d)}
}

// shiftBits is bitshiftleft for n >= 0 and bitshiftright for n < 0: the
// length stays, zeros come in.
func shiftBits(b BitString, n int64) BitString {
	if n == 0 {
		return b
	}
	if n >= int64(b.Len) || -n >= int64(b.Len) {
		return zeroBits(b.Len)
	}
	w := newBitStringBuilder(b.Len)
	if n > 0 {
		w.addBits(b, int(n), b.Len)
		for w.n < b.Len {
			w.add(false)
		}
		return w.result()
	}
	for w.n < int(-n) {
		w.add(false)
	}
	w.addBits(b, 0, b.Len+int(n))
	return w.result()
}

// concatBits is bitcat.
func concatBits(a, b BitString) BitString {
	w := newBitStringBuilder(a.Len + b.Len)
	w.addBits(a, 0, a.Len)
	w.addBits(b, 0, b.Len)
	return w.result()
}

// substringBits is bitsubstring: bits s to s+l-1 (1-based) that exist, to
// the end without a length.
func substringBits(b BitString, s, l int64, withLength bool) (BitString, error) {
	s1 := max(s, 1)
	e1 := int64(b.Len) + 1
	if withLength {
		if l < 0 {
			return BitString{}, pgerror.New(pgerror.SubstringError, "negative substring length not allowed")
		}
		e1 = min(s+l, e1)
	}
	if s1 > int64(b.Len) || e1 <= s1 {
		return BitString{}, nil
	}
	w := newBitStringBuilder(int(e1 - s1))
	w.addBits(b, int(s1-1), int(e1-1))
	return w.result(), nil
}

// overlayBits is bit_overlay: t1's bits before sp, then t2, then t1's bits
// from sp+sl on.
func overlayBits(t1, t2 BitString, sp, sl int64) (BitString, error) {
	if sp <= 0 {
		return BitString{}, pgerror.New(pgerror.SubstringError, "negative substring length not allowed")
	}
	end := sp + sl
	if end > math.MaxInt32 {
		return BitString{}, pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
	}
	s1, err := substringBits(t1, 1, sp-1, true)
	if err != nil {
		return BitString{}, err
	}
	s2, _ := substringBits(t1, end, 0, false)
	return concatBits(concatBits(s1, t2), s2), nil
}

// positionBits is bitposition: the 1-based start of sub's first occurrence
// in s, 0 when there is none, 1 for an empty sub in a non-empty s.
func positionBits(s, sub BitString) int {
	if s.Len == 0 || sub.Len > s.Len {
		return 0
	}
	for i := 0; i+sub.Len <= s.Len; i++ {
		match := true
		for k := 0; k < sub.Len && match; k++ {
			match = s.bitOf(i+k) == sub.bitOf(k)
		}
		if match {
			return i + 1
		}
	}
	return 0
}

// bitsFromInt is bitfromint4 and bitfromint8: the n low bits of v (n from
// the target's typmod, 1 without one), sign-extended past its width.
func bitsFromInt(v int64, to Type) BitString {
	n := int(to.Typmod)
	if n <= 0 {
		n = 1
	}
	w := newBitStringBuilder(n)
	for i := n - 1; i >= 0; i-- {
		w.add(v>>min(i, 63)&1 == 1)
	}
	return w.result()
}

// bitsToInt is bittoint4 and bittoint8: the bits as an unsigned number of
// width bits, read as a signed one.
func bitsToInt(b BitString, width int, name string) (any, error) {
	if b.Len > width {
		return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "%s out of range", name)
	}
	var u uint64
	for i := 0; i < b.Len; i++ {
		u <<= 1
		if b.bitOf(i) {
			u |= 1
		}
	}
	if width == 32 {
		return int64(int32(uint32(u))), nil
	}
	return int64(u), nil
}

// bitAggAcc is bit_and, bit_or and bit_xor: the first value, then op
// applied to the result so far and each next one.
type bitAggAcc struct {
	op  func(acc, v any) (any, error)
	acc any
}

func (a *bitAggAcc) Add(args []any) error {
	if a.acc == nil {
		a.acc = args[0]
		return nil
	}
	next, err := a.op(a.acc, args[0])
	if err != nil {
		return err
	}
	a.acc = next
	return nil
}

func (a *bitAggAcc) Result() (any, error) { return a.acc, nil }
