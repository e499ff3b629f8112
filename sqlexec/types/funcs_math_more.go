package types

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The remaining numeric built-ins of PostgreSQL's regression files:
// width_bucket, gcd and lcm, factorial, the inverse hyperbolic functions,
// the float8(integer) conversion functions and the boolean comparison
// functions.
func init() {
	i4, i8, f, n := Int4, Int8, Float8, NumericAny
	addFunc("width_bucket", Immutable, i4, func(_ *Env, a []any) (any, error) {
		return widthBucketFloat(a[0].(float64), a[1].(float64), a[2].(float64), a[3].(int64))
	}, f, f, f, i4)
	addFunc("width_bucket", Immutable, i4, func(_ *Env, a []any) (any, error) {
		return widthBucketNumeric(a[0].(*apd.Decimal), a[1].(*apd.Decimal), a[2].(*apd.Decimal), a[3].(int64))
	}, n, n, n, i4)
	for _, t := range []Type{i4, i8} {
		oid := t.Oid
		addFunc("gcd", Immutable, t, func(_ *Env, a []any) (any, error) { return intGCD(oid, a[0].(int64), a[1].(int64)) }, t, t)
		addFunc("lcm", Immutable, t, func(_ *Env, a []any) (any, error) { return intLCM(oid, a[0].(int64), a[1].(int64)) }, t, t)
	}
	addFunc("gcd", Immutable, n, func(_ *Env, a []any) (any, error) {
		return numericGCDLCM(a[0].(*apd.Decimal), a[1].(*apd.Decimal), false), nil
	}, n, n)
	addFunc("lcm", Immutable, n, func(_ *Env, a []any) (any, error) {
		return numericGCDLCM(a[0].(*apd.Decimal), a[1].(*apd.Decimal), true), nil
	}, n, n)
	addFunc("factorial", Immutable, n, func(_ *Env, a []any) (any, error) { return factorial(a[0].(int64)) }, i8)
	addFunc("asinh", Immutable, f, func(_ *Env, a []any) (any, error) { return libmAsinh(a[0].(float64)), nil }, f)
	addFunc("acosh", Immutable, f, func(_ *Env, a []any) (any, error) {
		x := a[0].(float64)
		if x < 1 {
			return nil, pgerror.New(pgerror.NumericValueOutOfRange, "input is out of range")
		}
		return libmAcosh(x), nil
	}, f)
	addFunc("atanh", Immutable, f, func(_ *Env, a []any) (any, error) {
		x := a[0].(float64)
		if x < -1 || x > 1 {
			return nil, pgerror.New(pgerror.NumericValueOutOfRange, "input is out of range")
		}
		return libmAtanh(x), nil
	}, f)
	for _, t := range []Type{Int2, i4, i8} {
		addFunc("float8", Immutable, f, func(_ *Env, a []any) (any, error) { return float64(a[0].(int64)), nil }, t)
	}
	for name, cmp := range map[string]func(a, b bool) bool{
		"booleq": func(a, b bool) bool { return a == b },
		"boolne": func(a, b bool) bool { return a != b },
		"boollt": func(a, b bool) bool { return !a && b },
		"boolgt": func(a, b bool) bool { return a && !b },
		"boolle": func(a, b bool) bool { return !a || b },
		"boolge": func(a, b bool) bool { return a || !b },
	} {
		addFunc(name, Immutable, Bool, func(_ *Env, a []any) (any, error) { return cmp(a[0].(bool), a[1].(bool)), nil }, Bool, Bool)
	}
}

func widthBucketError(msg string) error {
	return pgerror.New(pgerror.InvalidArgumentForWidthBucketFunction, msg)
}

// widthBucketFloat is width_bucket_float8.
func widthBucketFloat(operand, b1, b2 float64, count int64) (any, error) {
	if count <= 0 {
		return nil, widthBucketError("count must be greater than zero")
	}
	if math.IsNaN(operand) || math.IsNaN(b1) || math.IsNaN(b2) {
		return nil, widthBucketError("operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(b1, 0) || math.IsInf(b2, 0) {
		return nil, widthBucketError("lower and upper bounds must be finite")
	}
	var bucket float64
	switch {
	case b1 < b2 && operand < b1, b1 > b2 && operand > b1:
		return int64(0), nil
	case b1 < b2 && operand >= b2, b1 > b2 && operand <= b2:
		return checkInt(OidInt4, count+1)
	case b1 < b2:
		bucket = float64(count)*(operand-b1)/(b2-b1) + 1
	case b1 > b2:
		bucket = float64(count)*(b1-operand)/(b1-b2) + 1
	default:
		return nil, widthBucketError("lower bound cannot equal upper bound")
	}
	return int64(int32(bucket)), nil
}

// widthBucketNumeric is width_bucket_numeric: the quotient is rounded at
// the division's scale before its floor is taken, as compute_bucket does.
func widthBucketNumeric(operand, b1, b2 *apd.Decimal, count int64) (any, error) {
	if count <= 0 {
		return nil, widthBucketError("count must be greater than zero")
	}
	if isNaN(operand) || isNaN(b1) || isNaN(b2) {
		return nil, widthBucketError("operand, lower bound, and upper bound cannot be NaN")
	}
	if b1.Form == apd.Infinite || b2.Form == apd.Infinite {
		return nil, widthBucketError("lower and upper bounds must be finite")
	}
	c := b1.Cmp(b2)
	switch {
	case c == 0:
		return nil, widthBucketError("lower bound cannot equal upper bound")
	case c < 0 && operand.Cmp(b1) < 0, c > 0 && operand.Cmp(b1) > 0:
		return int64(0), nil
	case c < 0 && operand.Cmp(b2) >= 0, c > 0 && operand.Cmp(b2) <= 0:
		return checkInt(OidInt4, count+1)
	}
	lo, hi := b1, b2
	num, den := new(apd.Decimal), new(apd.Decimal)
	if c < 0 {
		_, _ = exactContext.Sub(num, operand, lo)
		_, _ = exactContext.Sub(den, hi, lo)
	} else {
		_, _ = exactContext.Sub(num, lo, operand)
		_, _ = exactContext.Sub(den, lo, hi)
	}
	_, _ = exactContext.Mul(num, num, apd.New(count, 0))
	q, err := quoToScale(num, den, divScale(num, den))
	if err != nil {
		return nil, err
	}
	_, _ = exactContext.Add(q, q, apd.New(1, 0))
	floor, err := roundNumeric(q, 0, apd.RoundFloor)
	if err != nil {
		return nil, err
	}
	v, err := floor.(*apd.Decimal).Int64()
	if err != nil {
		return nil, intOutOfRange(OidInt4)
	}
	return checkInt(OidInt4, v)
}

// intGCD is int4gcd and int8gcd: always non-negative, an error where the
// answer (the type's minimum's absolute value) does not fit.
func intGCD(oid Oid, a, b int64) (any, error) {
	x, y := absUint(a), absUint(b)
	for y != 0 {
		x, y = y, x%y
	}
	_, hi := intBounds(oid)
	if x > uint64(hi) {
		return nil, intOutOfRange(oid)
	}
	return int64(x), nil
}

// numericGCDLCM is numeric gcd (lcm when lcm is set): of the values
// scaled to integers at the larger of their scales, that scale kept in the
// result, non-negative; NaN when either is NaN or infinite, and lcm zero
// when either is zero, as PostgreSQL's numeric_gcd and numeric_lcm.
func numericGCDLCM(a, b *apd.Decimal, lcm bool) *apd.Decimal {
	if a.Form != apd.Finite || b.Form != apd.Finite {
		return &apd.Decimal{Form: apd.NaN}
	}
	scale := max(0, -a.Exponent, -b.Exponent)
	scaled := func(d *apd.Decimal) *big.Int {
		x := new(big.Int).Abs(d.Coeff.MathBigInt())
		return x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale+d.Exponent)), nil))
	}
	x, y := scaled(a), scaled(b)
	g := new(big.Int).GCD(nil, nil, x, y)
	if lcm {
		if x.Sign() == 0 || y.Sign() == 0 {
			g.SetInt64(0)
		} else {
			g.Mul(x.Div(x, g), y)
		}
	}
	out := &apd.Decimal{Exponent: -scale}
	out.Coeff.SetMathBigInt(g)
	return out
}

// intLCM is int4lcm and int8lcm: |a/gcd(a,b)*b|, zero when either is zero.
func intLCM(oid Oid, a, b int64) (any, error) {
	if a == 0 || b == 0 {
		return int64(0), nil
	}
	g, err := intGCD(oid, a, b)
	if err != nil {
		return nil, err
	}
	p, err := intMul(oid, a/g.(int64), b)
	if err != nil {
		return nil, err
	}
	lo, _ := intBounds(oid)
	if p.(int64) == lo {
		return nil, intOutOfRange(oid)
	}
	if p.(int64) < 0 {
		return -p.(int64), nil
	}
	return p, nil
}

// factorial is numeric_fac: n! as a numeric, for 0 <= n <= 32177 (the
// largest whose factorial fits in a numeric).
func factorial(n int64) (any, error) {
	if n < 0 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "factorial of a negative number is undefined")
	}
	if n > 32177 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	f := new(big.Int).MulRange(1, max(n, 1))
	out := new(apd.Decimal)
	out.Coeff.SetMathBigInt(f)
	return out, nil
}
