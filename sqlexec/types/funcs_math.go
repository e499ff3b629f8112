package types

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

func init() {
	n, f, i4 := NumericAny, Float8, Int4
	for _, t := range []Type{Int2, Int4, Int8} {
		oid := t.Oid
		addFunc("abs", Immutable, t, func(_ *Env, a []any) (any, error) { return intAbs(oid, a[0].(int64)) }, t)
		addFunc("mod", Immutable, t, func(_ *Env, a []any) (any, error) { return intMod(a[0].(int64), a[1].(int64)) }, t, t)
	}
	addFunc("abs", Immutable, Float4, func(_ *Env, a []any) (any, error) { return math.Abs(a[0].(float64)), nil }, Float4)
	addFunc("abs", Immutable, f, func(_ *Env, a []any) (any, error) { return math.Abs(a[0].(float64)), nil }, f)
	addFunc("abs", Immutable, n, func(_ *Env, a []any) (any, error) { return numericAbs(a[0].(*apd.Decimal)), nil }, n)
	addFunc("mod", Immutable, n, func(_ *Env, a []any) (any, error) { return numericMod(a[0].(*apd.Decimal), a[1].(*apd.Decimal)) }, n, n)
	addFunc("div", Immutable, n, func(_ *Env, a []any) (any, error) { return numericIntDiv(a[0].(*apd.Decimal), a[1].(*apd.Decimal)) }, n, n)

	float1 := func(fn func(float64) float64) funcEval {
		return func(_ *Env, a []any) (any, error) { return fn(a[0].(float64)), nil }
	}
	for _, name := range []string{"ceil", "ceiling"} {
		addFunc(name, Immutable, f, float1(math.Ceil), f)
		addFunc(name, Immutable, n, numericRounder(apd.RoundCeiling), n)
	}
	addFunc("floor", Immutable, f, float1(math.Floor), f)
	addFunc("floor", Immutable, n, numericRounder(apd.RoundFloor), n)
	addFunc("round", Immutable, f, float1(math.RoundToEven), f)
	addFunc("round", Immutable, n, numericRounder(apd.RoundHalfUp), n)
	addFunc("round", Immutable, n, numericRoundScale(apd.RoundHalfUp), n, i4)
	addFunc("trunc", Immutable, f, float1(math.Trunc), f)
	addFunc("trunc", Immutable, n, numericRounder(apd.RoundDown), n)
	addFunc("trunc", Immutable, n, numericRoundScale(apd.RoundDown), n, i4)
	addFunc("sign", Immutable, f, func(_ *Env, a []any) (any, error) {
		x := a[0].(float64)
		switch {
		case x > 0:
			return 1.0, nil
		case x < 0:
			return -1.0, nil
		}
		return x * 0, nil
	}, f)
	addFunc("sign", Immutable, n, func(_ *Env, a []any) (any, error) {
		d := a[0].(*apd.Decimal)
		if isNaN(d) {
			return d, nil
		}
		return apd.New(int64(d.Sign()), 0), nil
	}, n)
	for _, name := range []string{"power", "pow"} {
		addFunc(name, Immutable, f, func(_ *Env, a []any) (any, error) { return floatPow(a[0].(float64), a[1].(float64)) }, f, f)
		addFunc(name, Immutable, n, func(_ *Env, a []any) (any, error) {
			return numericPow(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
		}, n, n)
	}
	addFunc("sqrt", Immutable, f, func(_ *Env, a []any) (any, error) { return floatSqrt(a[0].(float64)) }, f)
	addFunc("sqrt", Immutable, n, func(_ *Env, a []any) (any, error) { return numericSqrt(a[0].(*apd.Decimal)) }, n)
	addFunc("cbrt", Immutable, f, float1(libmCbrt), f)
	addFunc("exp", Immutable, f, func(_ *Env, a []any) (any, error) {
		x := a[0].(float64)
		// A finite argument whose exp is 0 underflows (22003), as in dexp.
		return floatResult(libmExp(x), x, 0, false, x != 0 && !math.IsInf(x, 0))
	}, f)
	addFunc("exp", Immutable, n, func(_ *Env, a []any) (any, error) { return numericExp(a[0].(*apd.Decimal)) }, n)
	logf := func(fn func(float64) float64) funcEval {
		return func(_ *Env, a []any) (any, error) {
			x := a[0].(float64)
			if x == 0 {
				return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
			}
			if x < 0 {
				return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
			}
			return fn(x), nil
		}
	}
	addFunc("ln", Immutable, f, logf(libmLog), f)
	addFunc("ln", Immutable, n, func(_ *Env, a []any) (any, error) { return numericLn(a[0].(*apd.Decimal)) }, n)
	addFunc("log", Immutable, f, logf(libmLog10), f)
	addFunc("log10", Immutable, f, logf(libmLog10), f)
	addFunc("log", Immutable, n, func(_ *Env, a []any) (any, error) { return numericLog10(a[0].(*apd.Decimal)) }, n)
	addFunc("log10", Immutable, n, func(_ *Env, a []any) (any, error) { return numericLog10(a[0].(*apd.Decimal)) }, n)
	addFunc("log", Immutable, n, func(_ *Env, a []any) (any, error) {
		return numericLogBase(a[0].(*apd.Decimal), a[1].(*apd.Decimal))
	}, n, n)
	addFunc("min_scale", Immutable, i4, func(_ *Env, a []any) (any, error) {
		d := a[0].(*apd.Decimal)
		if d.Form != apd.Finite {
			return nil, nil
		}
		return int64(numericMinScale(d)), nil
	}, n)
	addFunc("trim_scale", Immutable, n, func(_ *Env, a []any) (any, error) { return numericTrimScale(a[0].(*apd.Decimal)), nil }, n)
	addFunc("pi", Immutable, f, func(_ *Env, _ []any) (any, error) { return math.Pi, nil })
	// degrees and radians divide and multiply by PostgreSQL's
	// RADIANS_PER_DEGREE, so that their last digit is PostgreSQL's.
	addFunc("degrees", Immutable, f, float1(func(x float64) float64 { return x / radiansPerDegree }), f)
	addFunc("radians", Immutable, f, float1(func(x float64) float64 { return x * radiansPerDegree }), f)
	for name, fn := range map[string]func(float64) float64{
		"atan": libmAtan, "sinh": libmSinh, "cosh": libmCosh, "tanh": libmTanh,
	} {
		addFunc(name, Immutable, f, float1(fn), f)
	}
	// dsin, dcos, dtan, dasin and dacos refuse an argument outside their
	// domain (an infinity, or beyond [-1, 1]); NaN gives NaN.
	for name, fn := range map[string]func(float64) float64{"sin": libmSin, "cos": libmCos, "tan": libmTan} {
		addFunc(name, Immutable, f, floatInDomain(fn, func(x float64) bool { return !math.IsInf(x, 0) }), f)
	}
	for name, fn := range map[string]func(float64) float64{"asin": libmAsin, "acos": libmAcos} {
		addFunc(name, Immutable, f, floatInDomain(fn, func(x float64) bool { return x >= -1 && x <= 1 }), f)
	}
	addFunc("atan2", Immutable, f, func(_ *Env, a []any) (any, error) { return libmAtan2(a[0].(float64), a[1].(float64)), nil }, f, f)
	addFunc("random", Volatile, f, func(env *Env, _ []any) (any, error) {
		if env == nil || env.Rand == nil {
			return nil, pgerror.Unsupported("random() without a source of randomness")
		}
		var b [8]byte
		if _, err := readFull(env, b[:]); err != nil {
			return nil, err
		}
		u := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		return float64(u>>11) / (1 << 53), nil
	})
	addFunc("scale", Immutable, i4, func(_ *Env, a []any) (any, error) {
		d := a[0].(*apd.Decimal)
		if d.Form != apd.Finite {
			return nil, nil
		}
		return int64(dscale(d)), nil
	}, n)
}

// floatInDomain is fn for the arguments in its domain, 22003 for the others
// and NaN for NaN.
func floatInDomain(fn func(float64) float64, in func(float64) bool) funcEval {
	return func(_ *Env, a []any) (any, error) {
		x := a[0].(float64)
		if !math.IsNaN(x) && !in(x) {
			return nil, pgerror.New(pgerror.NumericValueOutOfRange, "input is out of range")
		}
		return fn(x), nil
	}
}

// numericRounder is ceil, floor, round and trunc on numeric: an integer
// result.
func numericRounder(mode apd.Rounder) funcEval {
	return func(_ *Env, a []any) (any, error) { return roundNumeric(a[0].(*apd.Decimal), 0, mode) }
}

// numericRoundScale is round(numeric, s) and trunc(numeric, s); a negative s
// rounds to tens, hundreds...
func numericRoundScale(mode apd.Rounder) funcEval {
	return func(_ *Env, a []any) (any, error) {
		// numeric_round and numeric_trunc clamp the scale to what a
		// numeric can hold: 16383 decimals, 131072 digits before the point
		// and one more for a carry.
		s := max(min(a[1].(int64), numericMaxScale), -numericMaxWeightDigits-1)
		d := a[0].(*apd.Decimal)
		// Rounding at a place above every digit of d gives zero, of the
		// scale asked for (round(0.0001, 2) is 0.00); apd cannot quantize
		// that far, so answer it here.
		if d.Form == apd.Finite && -s > d.NumDigits()+int64(d.Exponent) {
			return apd.New(0, int32(-max(s, 0))), nil
		}
		return roundNumeric(d, int(s), mode)
	}
}

func roundNumeric(d *apd.Decimal, scale int, mode apd.Rounder) (any, error) {
	if d.Form != apd.Finite {
		return d, nil
	}
	out := new(apd.Decimal)
	prec := d.NumDigits() + int64(d.Exponent) + int64(scale) + 2
	if prec < 1 {
		prec = 1
	}
	ctx := decimalContext.WithPrecision(uint32(prec))
	ctx.Rounding = mode
	if _, err := ctx.Quantize(out, d, int32(-scale)); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	// apd rounds a value whose digits all lie below the scale to zero
	// whatever the mode; ceil and floor give one unit of the scale instead
	// (ceil(0.0000001) is 1, floor(-0.05) is -1).
	if out.IsZero() && !d.IsZero() && (mode == apd.RoundCeiling && !d.Negative || mode == apd.RoundFloor && d.Negative) {
		out = apd.New(1, int32(-scale))
		out.Negative = d.Negative
	}
	return normalizeDecimal(out), nil
}

// numericIntDiv is div(a, b): the truncated integer quotient.
func numericIntDiv(a, b *apd.Decimal) (any, error) {
	if isNaN(a) || isNaN(b) {
		return numericNaN(), nil
	}
	if b.Form == apd.Finite && b.IsZero() {
		return nil, errDivisionByZero
	}
	if a.Form != apd.Finite || b.Form != apd.Finite {
		return numericDiv(a, b)
	}
	out := new(apd.Decimal)
	prec := a.NumDigits() + int64(a.Exponent) - int64(b.Exponent) + 2
	if _, err := decimalContext.WithPrecision(uint32(max(prec, 1))).QuoInteger(out, a, b); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return normalizeDecimal(out), nil
}

// numericSqrt is numeric_sqrt with its result scale: 16 significant digits
// at least, and no fewer decimals than the input.
func numericSqrt(d *apd.Decimal) (any, error) {
	if isNaN(d) {
		return d, nil
	}
	if d.Negative && !(d.Form == apd.Finite && d.IsZero()) {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "cannot take square root of a negative number")
	}
	if d.Form == apd.Infinite {
		return d, nil
	}
	weight := 0
	if !d.IsZero() {
		weight, _ = nbaseWeight(d)
	}
	sweight := (weight+1)*numericDecDigits/2 - 1
	rscale := min(max(numericMinSigDigits-sweight, dscale(d), 0), numericMaxDisplayScale)
	return sqrtToScale(d, rscale), nil
}

// sqrtToScale is sqrt_var: the square root of finite, non-negative d
// rounded to rscale decimals.
func sqrtToScale(d *apd.Decimal, rscale int) *apd.Decimal {
	// The integer square root of d*10^(2*rscale+2) is sqrt(d) truncated to
	// rscale+1 decimals; rounding its last digit half up gives the
	// correctly rounded result, as sqrt_var's exact computation does.
	// (floor(sqrt(x)) is floor(sqrt(floor(x))), so an input with more
	// decimals than that is truncated first.)
	scaled := new(big.Int).Set(d.Coeff.MathBigInt())
	shift := int64(d.Exponent) + 2*int64(rscale) + 2
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(max(shift, -shift)), nil)
	if shift >= 0 {
		scaled.Mul(scaled, pow)
	} else {
		scaled.Quo(scaled, pow)
	}
	root := new(big.Int).Sqrt(scaled)
	last := new(big.Int)
	root.QuoRem(root, big.NewInt(10), last)
	if last.Int64() >= 5 {
		root.Add(root, big.NewInt(1))
	}
	out := new(apd.Decimal)
	out.Coeff.SetMathBigInt(root)
	out.Exponent = -int32(rscale)
	return out
}

// numericExp is numeric_exp: 16 significant digits of the result.
func numericExp(d *apd.Decimal) (any, error) {
	if isNaN(d) {
		return d, nil
	}
	if d.Form == apd.Infinite {
		if d.Negative {
			return apd.New(0, 0), nil
		}
		return d, nil
	}
	x, _ := d.Float64()
	val := x * 0.434294481903252
	if val > numericMaxWeightDigits {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	rscale := min(max(numericMinSigDigits-int(val), dscale(d), 0), numericMaxDisplayScale)
	out := new(apd.Decimal)
	prec := int64(math.Max(val, 0)) + int64(rscale) + 10
	if err := decimalExp(out, d, uint32(prec)); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return roundToScale(out, rscale)
}

// numericLn is numeric_ln: 16 significant digits of the result.
func numericLn(d *apd.Decimal) (any, error) {
	return numericLog(d, false)
}

// numericLog10 is log(numeric): base 10.
func numericLog10(d *apd.Decimal) (any, error) {
	return numericLog(d, true)
}

func numericLog(d *apd.Decimal, base10 bool) (any, error) {
	if isNaN(d) {
		return d, nil
	}
	if d.Form == apd.Finite && d.IsZero() {
		return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
	}
	if d.Negative {
		return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
	}
	if d.Form == apd.Infinite {
		return d, nil
	}
	dweight := estimateLnDweight(d)
	rscale := min(max(numericMinSigDigits-dweight, dscale(d), 0), numericMaxDisplayScale)
	out := new(apd.Decimal)
	prec := uint32(rscale + max(dweight, 0) + 10)
	var err error
	if base10 {
		_, err = decimalContext.WithPrecision(prec).Log10(out, d)
	} else {
		err = decimalLn(out, d, prec)
	}
	if err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return roundToScale(out, rscale)
}
