package types

import (
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

var errDivisionByZero = pgerror.New(pgerror.DivisionByZero, "division by zero")

// intResult is the integer type of an operation between two integer types:
// the wider one.
func intResult(l, r Type) Type {
	if l.Size() >= r.Size() {
		return l
	}
	return r
}

// intShift is int2shl, int4shl, int8shl and their right shifts: C's
// shifts as the hardware does them, the count taken modulo the operand's
// width (int2 shifts as int4, then keeps its low 16 bits).
func intShift(oid Oid, a, n int64, left bool) int64 {
	switch oid {
	case OidInt8:
		if left {
			return a << uint(n&63)
		}
		return a >> uint(n&63)
	case OidInt4:
		if left {
			return int64(int32(a) << uint(n&31))
		}
		return int64(int32(a) >> uint(n&31))
	}
	if left {
		return int64(int16(int32(a) << uint(n&31)))
	}
	return int64(int16(int32(a) >> uint(n&31)))
}

func registerArithmetic() {
	ints := []Type{Int2, Int4, Int8}
	for _, l := range ints {
		for _, r := range ints {
			res := intResult(l, r)
			oid := res.Oid
			addBinary("+", l, r, res, func(_ *Env, a, b any) (any, error) { return intAdd(oid, a.(int64), b.(int64)) })
			addBinary("-", l, r, res, func(_ *Env, a, b any) (any, error) { return intSub(oid, a.(int64), b.(int64)) })
			addBinary("*", l, r, res, func(_ *Env, a, b any) (any, error) { return intMul(oid, a.(int64), b.(int64)) })
			addBinary("/", l, r, res, func(_ *Env, a, b any) (any, error) { return intDiv(oid, a.(int64), b.(int64)) })
		}
		oid := l.Oid
		addBinary("%", l, l, l, func(_ *Env, a, b any) (any, error) { return intMod(a.(int64), b.(int64)) })
		addUnary("-", l, l, func(_ *Env, v any) (any, error) { return intSub(oid, 0, v.(int64)) })
		addUnary("+", l, l, identity)
		addUnary("@", l, l, func(_ *Env, v any) (any, error) { return intAbs(oid, v.(int64)) })
		addBinary("&", l, l, l, func(_ *Env, a, b any) (any, error) { return a.(int64) & b.(int64), nil })
		addBinary("|", l, l, l, func(_ *Env, a, b any) (any, error) { return a.(int64) | b.(int64), nil })
		addBinary("#", l, l, l, func(_ *Env, a, b any) (any, error) { return a.(int64) ^ b.(int64), nil })
		addUnary("~", l, l, func(_ *Env, v any) (any, error) { return ^v.(int64), nil })
		addBinary("<<", l, Int4, l, func(_ *Env, a, b any) (any, error) { return intShift(oid, a.(int64), b.(int64), true), nil })
		addBinary(">>", l, Int4, l, func(_ *Env, a, b any) (any, error) { return intShift(oid, a.(int64), b.(int64), false), nil })
	}
	floats := []Type{Float4, Float8}
	for _, l := range floats {
		for _, r := range floats {
			res := Float8
			if l == Float4 && r == Float4 {
				res = Float4
			}
			f4 := res == Float4
			addBinary("+", l, r, res, func(_ *Env, a, b any) (any, error) {
				return floatResult(a.(float64)+b.(float64), a.(float64), b.(float64), f4, false)
			})
			addBinary("-", l, r, res, func(_ *Env, a, b any) (any, error) {
				return floatResult(a.(float64)-b.(float64), a.(float64), b.(float64), f4, false)
			})
			addBinary("*", l, r, res, func(_ *Env, a, b any) (any, error) {
				return floatResult(a.(float64)*b.(float64), a.(float64), b.(float64), f4, a.(float64) != 0 && b.(float64) != 0)
			})
			addBinary("/", l, r, res, func(_ *Env, a, b any) (any, error) {
				if b.(float64) == 0 && !math.IsNaN(a.(float64)) {
					return nil, errDivisionByZero // NaN / 0 is NaN, as float8div answers
				}
				return floatResult(a.(float64)/b.(float64), a.(float64), b.(float64), f4, a.(float64) != 0 && !math.IsInf(b.(float64), 0))
			})
		}
		addUnary("-", l, l, func(_ *Env, v any) (any, error) { return -v.(float64), nil })
		addUnary("+", l, l, identity)
		addUnary("@", l, l, func(_ *Env, v any) (any, error) { return math.Abs(v.(float64)), nil })
	}
	addBinary("^", Float8, Float8, Float8, func(_ *Env, a, b any) (any, error) { return floatPow(a.(float64), b.(float64)) })
	addUnary("|/", Float8, Float8, func(_ *Env, v any) (any, error) { return floatSqrt(v.(float64)) })
	addUnary("||/", Float8, Float8, func(_ *Env, v any) (any, error) { return libmCbrt(v.(float64)), nil })

	n := NumericAny
	addBinary("+", n, n, n, func(_ *Env, a, b any) (any, error) { return numericAdd(a.(*apd.Decimal), b.(*apd.Decimal), false) })
	addBinary("-", n, n, n, func(_ *Env, a, b any) (any, error) { return numericAdd(a.(*apd.Decimal), b.(*apd.Decimal), true) })
	addBinary("*", n, n, n, func(_ *Env, a, b any) (any, error) { return numericMul(a.(*apd.Decimal), b.(*apd.Decimal)) })
	addBinary("/", n, n, n, func(_ *Env, a, b any) (any, error) { return numericDiv(a.(*apd.Decimal), b.(*apd.Decimal)) })
	addBinary("%", n, n, n, func(_ *Env, a, b any) (any, error) { return numericMod(a.(*apd.Decimal), b.(*apd.Decimal)) })
	addBinary("^", n, n, n, func(_ *Env, a, b any) (any, error) { return numericPow(a.(*apd.Decimal), b.(*apd.Decimal)) })
	addUnary("-", n, n, func(_ *Env, v any) (any, error) { return numericNeg(v.(*apd.Decimal)), nil })
	addUnary("+", n, n, identity)
	addUnary("@", n, n, func(_ *Env, v any) (any, error) { return numericAbs(v.(*apd.Decimal)), nil })
}

func intAdd(oid Oid, a, b int64) (any, error) {
	s := a + b
	if (s > a) != (b > 0) {
		return nil, intOutOfRange(oid)
	}
	return checkInt(oid, s)
}

func intSub(oid Oid, a, b int64) (any, error) {
	s := a - b
	if (s < a) != (b > 0) {
		return nil, intOutOfRange(oid)
	}
	return checkInt(oid, s)
}

func intMul(oid Oid, a, b int64) (any, error) {
	hi, lo := bits.Mul64(absUint(a), absUint(b))
	limit := uint64(math.MaxInt64)
	if (a < 0) != (b < 0) {
		limit++
	}
	if hi != 0 || lo > limit {
		return nil, intOutOfRange(oid)
	}
	return checkInt(oid, a*b)
}

// absUint returns |x| as an unsigned number (MinInt64 included).
func absUint(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

func intDiv(oid Oid, a, b int64) (any, error) {
	if b == 0 {
		return nil, errDivisionByZero
	}
	if b == -1 {
		return intSub(oid, 0, a)
	}
	return a / b, nil
}

func intMod(a, b int64) (any, error) {
	if b == 0 {
		return nil, errDivisionByZero
	}
	if b == -1 {
		return int64(0), nil
	}
	return a % b, nil
}

func intAbs(oid Oid, a int64) (any, error) {
	if a < 0 {
		return intSub(oid, 0, a)
	}
	return a, nil
}

// floatResult checks a float result as float_overflow_error and
// float_underflow_error do, and rounds float4 results: mayUnderflow says
// the operands cannot give zero exactly (for a product, neither is zero).
func floatResult(r, a, b float64, f4, mayUnderflow bool) (any, error) {
	if f4 {
		r = float64(float32(r))
	}
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
	}
	if mayUnderflow && r == 0 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

// floatPow is dpow with its error cases.
func floatPow(a, b float64) (any, error) {
	// POSIX's NaN cases, which dpow settles before anything else: NaN ^ 0
	// and 1 ^ NaN are 1, every other NaN operand gives NaN.
	switch {
	case math.IsNaN(a) && b == 0, a == 1 && math.IsNaN(b):
		return 1.0, nil
	case math.IsNaN(a) || math.IsNaN(b):
		return floatNaN, nil
	}
	if a == 0 && b < 0 {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	}
	if a < 0 && b != math.Trunc(b) && !math.IsInf(b, 0) {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	}
	r := libmPow(a, b)
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return r, nil // POSIX's results for infinities (0 for inf ^ -2), never an overflow or underflow
	}
	if math.IsInf(r, 0) {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")
	}
	if r == 0 && a != 0 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: underflow")
	}
	return r, nil
}

func floatSqrt(a float64) (any, error) {
	if a < 0 {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
	}
	return math.Sqrt(a), nil
}
