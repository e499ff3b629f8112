package types

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// estimateLnDweight is estimate_ln_dweight: the decimal weight of ln(d) for
// a positive finite d, from which the logarithms choose their result scale.
// Near 1 it is the weight of d-1 (ln(1+x) is about x); elsewhere it comes
// from the first two base-10000 digits of d.
func estimateLnDweight(d *apd.Decimal) int {
	if d.Negative || d.IsZero() {
		return 0
	}
	if d.Cmp(apd.New(9, -1)) >= 0 && d.Cmp(apd.New(11, -1)) <= 0 {
		x := new(apd.Decimal)
		_, _ = exactContext.Sub(x, d, apd.New(1, 0))
		if x.IsZero() {
			return 0
		}
		// The decimal position of x's leading digit.
		return int(x.NumDigits() + int64(x.Exponent) - 1)
	}
	weight, first := nbaseWeight(d)
	digits := float64(first)
	dweight := weight * numericDecDigits
	// The second base-10000 digit, when d has one.
	if second, ok := nbaseDigit(d, weight-1); ok {
		digits = digits*10000 + float64(second)
		dweight -= numericDecDigits
	}
	ln := math.Log(digits) + float64(dweight)*2.302585092994046
	return int(math.Log10(math.Abs(ln)))
}

// nbaseDigit returns d's base-10000 digit of weight w, and whether d has
// any non-zero digit at or below that weight (PostgreSQL strips trailing
// zero digits, so ndigits > 1 exactly when such a digit exists).
func nbaseDigit(d *apd.Decimal, w int) (int64, bool) {
	// |d| / 10000^w, truncated, modulo 10000; and whether anything remains
	// below weight w+1.
	scaled := new(apd.Decimal).Set(d)
	scaled.Negative = false
	scaled.Exponent -= int32(w * numericDecDigits)
	var ip, fp apd.Decimal
	scaled.Modf(&ip, &fp)
	ctx := decimalContext.WithPrecision(uint32(ip.NumDigits() + 5))
	rem := new(apd.Decimal)
	_, _ = ctx.Rem(rem, &ip, apd.New(10000, 0))
	v, _ := rem.Int64()
	return v, v != 0 || !fp.IsZero()
}

// numericLogBase is log(b, x) (log_var): ln(x)/ln(b), with 16 significant
// digits of the estimated result and no fewer decimals than either input.
func numericLogBase(b, x *apd.Decimal) (any, error) {
	if b.Form != apd.Finite || x.Form != apd.Finite {
		if isNaN(b) || isNaN(x) {
			return numericNaN(), nil
		}
		if b.Negative || x.Negative {
			return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
		}
		if (b.Form == apd.Finite && b.IsZero()) || (x.Form == apd.Finite && x.IsZero()) {
			return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
		}
		if b.Form == apd.Infinite {
			if x.Form == apd.Infinite {
				return numericNaN(), nil
			}
			return apd.New(0, 0), nil
		}
		return &apd.Decimal{Form: apd.Infinite}, nil
	}
	for _, d := range []*apd.Decimal{b, x} {
		if d.IsZero() {
			return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of zero")
		}
		if d.Negative {
			return nil, pgerror.New(pgerror.InvalidArgumentForLogarithm, "cannot take logarithm of a negative number")
		}
	}
	bw, xw := estimateLnDweight(b), estimateLnDweight(x)
	resultDweight := xw - bw
	rscale := min(max(numericMinSigDigits-resultDweight, dscale(b), dscale(x), 0), numericMaxDisplayScale)
	// Both logarithms to well past the digits the quotient needs.
	prec := uint32(max(rscale+resultDweight, 0) + max(bw, xw, 0) + 20)
	ctx := decimalContext.WithPrecision(prec)
	lb, lx, q := new(apd.Decimal), new(apd.Decimal), new(apd.Decimal)
	if _, err := ctx.Ln(lb, b); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	if _, err := ctx.Ln(lx, x); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	if lb.IsZero() {
		return nil, errDivisionByZero
	}
	if _, err := ctx.Quo(q, lx, lb); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return roundToScale(q, rscale)
}

// numericMinScale is min_scale: the fewest decimals that show d exactly.
func numericMinScale(d *apd.Decimal) int {
	if d.IsZero() || d.Exponent >= 0 {
		return 0
	}
	coeff := d.Coeff.String()
	trailing := 0
	for trailing < len(coeff)-1 && coeff[len(coeff)-1-trailing] == '0' {
		trailing++
	}
	return max(int(-d.Exponent)-trailing, 0)
}

// numericTrimScale is trim_scale: d with its trailing fractional zeros
// dropped.
func numericTrimScale(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	s := numericMinScale(d)
	if s == dscale(d) {
		return d
	}
	out := new(apd.Decimal)
	_, _ = decimalContext.WithPrecision(uint32(d.NumDigits())).Quantize(out, d, int32(-s))
	return normalizeDecimal(out)
}
