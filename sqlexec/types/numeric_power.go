package types

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// numericMaxDigitsEstimate is 3*NUMERIC_WEIGHT_MAX*DEC_DIGITS: the decimal
// weight above which power_var_int knows its result overflows.
const numericMaxDigitsEstimate = 3 * 32767 * numericDecDigits

// numericPow is numeric_power: POSIX pow(3)'s rules for NaN and infinite
// arguments, then power_var's scale choice (integer exponents get at least
// 16 decimals or the base's scale, other exponents 16 significant digits of
// the estimated result).
func numericPow(base, exp *apd.Decimal) (any, error) {
	if base.Form != apd.Finite || exp.Form != apd.Finite {
		return numericPowSpecial(base, exp)
	}
	if base.IsZero() && exp.Negative && !exp.IsZero() {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	}
	if e, ok := numericInt32(exp); ok {
		rscale := min(max(numericMinSigDigits, dscale(base)), numericMaxDisplayScale)
		return numericPowInt(base, e, rscale)
	}
	if base.IsZero() {
		return apd.New(0, -numericMinSigDigits), nil
	}
	if base.Negative && !numericIsIntegral(exp) {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	}
	abs := numericAbs(base)
	// power_var: a low-precision exp*ln(base) estimates the result's
	// weight, which sets the scale; then ln(base) is computed to the digits
	// that scale needs and the result is exp() of its product with exp.
	lnDweight := estimateLnDweight(abs)
	// The estimate rounds as PostgreSQL's does: ln(base) and the product
	// to 8-lnDweight decimals (the scale decision depends on it).
	lowScale := max(8-lnDweight, 0)
	ln := new(apd.Decimal)
	if _, err := decimalContext.WithPrecision(uint32(lowScale+max(lnDweight, 0)+10)).Ln(ln, abs); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	lnRounded, err := roundToScale(ln, lowScale)
	if err != nil {
		return nil, err
	}
	lnNum := new(apd.Decimal)
	if _, err := exactContext.Mul(lnNum, lnRounded, exp); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	lnLow, err := roundToScale(lnNum, lowScale)
	if err != nil {
		return nil, err
	}
	val, _ := lnLow.Float64()
	if math.Abs(val) > 3.01*numericMaxResultScale {
		if val > 0 {
			return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
		}
		return apd.New(0, -numericMaxDisplayScale), nil
	}
	val *= 0.434294481903252
	rscale := min(max(numericMinSigDigits-int(val), dscale(base), dscale(exp), 0), numericMaxDisplayScale)
	sigDigits := max(rscale+int(val), 0)
	lnPrec := uint32(sigDigits + 12)
	if err := decimalLn(ln, abs, lnPrec); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	if _, err := decimalContext.WithPrecision(lnPrec+uint32(max(lnDweight, 0))+4).Mul(lnNum, ln, exp); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	// exp_var's own limit: beyond it an overflow, or zero at the scale.
	if x, _ := lnNum.Float64(); math.Abs(x) >= 3*numericMaxResultScale {
		if x > 0 {
			return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
		}
		return apd.New(0, -int32(rscale)), nil
	}
	out := new(apd.Decimal)
	if err := decimalExp(out, lnNum, uint32(sigDigits+10)); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	if base.Negative && numericIsOdd(exp) {
		out.Negative = true
	}
	r, err := roundToScale(out, rscale)
	if err != nil {
		return nil, err
	}
	return checkNumericResult(r)
}

// numericPowInt is power_var_int: an integer exponent, with its early
// answers for results certain to overflow or to round to zero.
func numericPowInt(base *apd.Decimal, exp int64, rscale int) (any, error) {
	if exp == 0 {
		return roundToScale(apd.New(1, 0), rscale)
	}
	if base.IsZero() {
		return apd.New(0, -int32(rscale)), nil
	}
	f := float64(exp) * numericLog10Estimate(base)
	if f > numericMaxDigitsEstimate {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	if f+1 < float64(-rscale) || f+1 < -numericMaxDisplayScale {
		return apd.New(0, -int32(rscale)), nil
	}
	prec := int64(math.Max(f, 0)) + int64(rscale) + 10
	out := new(apd.Decimal)
	if _, err := decimalContext.WithPrecision(uint32(prec)).Pow(out, base, apd.New(exp, 0)); err != nil {
		if f < numericMaxWeightDigits {
			return nil, errNumericBeyondApd
		}
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	r, err := roundToScale(out, rscale)
	if err != nil {
		return nil, err
	}
	return checkNumericResult(r)
}

// numericLog10Estimate is log10(|d|) from d's leading digits, for a finite
// non-zero d of any magnitude.
func numericLog10Estimate(d *apd.Decimal) float64 {
	coeff := d.Coeff.String()
	lead := coeff[:min(len(coeff), 17)]
	m, _ := strconv.ParseFloat("0."+lead, 64)
	return math.Log10(m) + float64(int64(len(coeff))+int64(d.Exponent))
}

// numericInt32 reports d's value when it is an integer in int32's range,
// as power_var asks before taking the integer path.
func numericInt32(d *apd.Decimal) (int64, bool) {
	if !numericIsIntegral(d) {
		return 0, false
	}
	var ip, fp apd.Decimal
	d.Modf(&ip, &fp)
	i, err := ip.Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, false
	}
	return i, true
}

// numericIsIntegral reports whether a finite d has no fractional part.
func numericIsIntegral(d *apd.Decimal) bool {
	if d.Form != apd.Finite {
		return false
	}
	if d.Exponent >= 0 {
		return true
	}
	var i, f apd.Decimal
	d.Modf(&i, &f)
	return f.IsZero()
}

// numericIsOdd reports whether d is an odd integer.
func numericIsOdd(d *apd.Decimal) bool {
	if !numericIsIntegral(d) {
		return false
	}
	var i, f apd.Decimal
	d.Modf(&i, &f)
	q := new(apd.Decimal)
	_, _ = decimalContext.WithPrecision(uint32(i.NumDigits()+1)).Rem(q, &i, apd.New(2, 0))
	return !q.IsZero()
}

// numericPowSpecial is numeric_power with a NaN or infinite argument: NaN ^ 0
// and 1 ^ NaN are 1, other NaNs give NaN, and infinities follow pow(3).
func numericPowSpecial(base, exp *apd.Decimal) (any, error) {
	one := apd.New(1, 0)
	isOne := func(d *apd.Decimal) bool { return d.Form == apd.Finite && d.Cmp(one) == 0 }
	if isNaN(base) {
		if exp.Form == apd.Finite && exp.IsZero() {
			return one, nil
		}
		return numericNaN(), nil
	}
	if isNaN(exp) {
		if isOne(base) {
			return one, nil
		}
		return numericNaN(), nil
	}
	sign := func(d *apd.Decimal) int {
		if d.Form == apd.Finite && d.IsZero() {
			return 0
		}
		if d.Negative {
			return -1
		}
		return 1
	}
	s1, s2 := sign(base), sign(exp)
	if s1 == 0 && s2 < 0 {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "zero raised to a negative power is undefined")
	}
	// An infinite exponent counts as an integer here, as in
	// numeric_is_integral.
	if s1 < 0 && exp.Form == apd.Finite && !numericIsIntegral(exp) {
		return nil, pgerror.New(pgerror.InvalidArgumentForPowerFunction, "a negative number raised to a non-integer power yields a complex result")
	}
	pinf := &apd.Decimal{Form: apd.Infinite}
	zero := apd.New(0, 0)
	switch {
	case isOne(base), s2 == 0:
		return one, nil
	case s1 == 0 && s2 > 0:
		return zero, nil
	case exp.Form == apd.Infinite:
		absGtOne := true
		if base.Form == apd.Finite {
			if base.Cmp(apd.New(-1, 0)) == 0 {
				return one, nil
			}
			absGtOne = numericAbs(base).Cmp(one) > 0
		}
		if absGtOne == (s2 > 0) {
			return pinf, nil
		}
		return zero, nil
	case !base.Negative:
		if s2 > 0 {
			return pinf, nil
		}
		return zero, nil
	case s2 < 0:
		return zero, nil
	case numericIsOdd(exp):
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	}
	return pinf, nil
}
