package types

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL's numeric display limits (numeric.c).
const (
	numericMinSigDigits     = 16
	numericMaxDisplayScale  = 1000
	numericDecDigits        = 4 // digits per NBASE digit
	numericMaxResultScale   = 2000
	numericExtraGuardDigits = 3
)

// exactContext performs exact addition, subtraction and multiplication.
var exactContext = decimalContext

func numericNaN() *apd.Decimal { return &apd.Decimal{Form: apd.NaN} }

func isNaN(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }

// dscale is the display scale: digits after the decimal point.
func dscale(d *apd.Decimal) int {
	if d.Form != apd.Finite || d.Exponent >= 0 {
		return 0
	}
	return int(-d.Exponent)
}

// roundToScale rounds d half away from zero to scale digits after the point.
func roundToScale(d *apd.Decimal, scale int) (*apd.Decimal, error) {
	if d.Form != apd.Finite {
		return d, nil
	}
	out := new(apd.Decimal)
	prec := d.NumDigits() + int64(d.Exponent) + int64(scale) + 1
	if prec < 1 {
		prec = 1
	}
	if _, err := decimalContext.WithPrecision(uint32(prec)).Quantize(out, d, int32(-scale)); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return normalizeDecimal(out), nil
}

// checkNumericResult fails with 22003 when a result exceeds numeric's range.
func checkNumericResult(d *apd.Decimal) (*apd.Decimal, error) {
	if err := checkNumericRange(d); err != nil {
		return nil, err
	}
	return normalizeDecimal(d), nil
}

func numericAdd(a, b *apd.Decimal, sub bool) (any, error) {
	if isNaN(a) || isNaN(b) {
		return numericNaN(), nil
	}
	bNeg := b.Negative != sub
	if a.Form == apd.Infinite || b.Form == apd.Infinite {
		switch {
		case a.Form == apd.Infinite && b.Form == apd.Infinite && a.Negative != bNeg:
			return numericNaN(), nil
		case a.Form == apd.Infinite:
			return a, nil
		}
		return &apd.Decimal{Form: apd.Infinite, Negative: bNeg}, nil
	}
	out := new(apd.Decimal)
	var err error
	if sub {
		_, err = exactContext.Sub(out, a, b)
	} else {
		_, err = exactContext.Add(out, a, b)
	}
	if err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return checkNumericResult(out)
}

func numericMul(a, b *apd.Decimal) (any, error) {
	if isNaN(a) || isNaN(b) {
		return numericNaN(), nil
	}
	if a.Form == apd.Infinite || b.Form == apd.Infinite {
		if (a.Form == apd.Finite && a.IsZero()) || (b.Form == apd.Finite && b.IsZero()) {
			return numericNaN(), nil
		}
		return &apd.Decimal{Form: apd.Infinite, Negative: a.Negative != b.Negative}, nil
	}
	out := new(apd.Decimal)
	if _, err := exactContext.Mul(out, a, b); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	// The exact product has the sum of the scales, as in PostgreSQL, but
	// no more decimals than a numeric holds (numeric_mul rounds to 16383).
	if dscale(out) > numericMaxScale {
		r, err := roundToScale(out, numericMaxScale)
		if err != nil {
			return nil, err
		}
		out = r
	}
	return checkNumericResult(out)
}

// nbaseWeight returns PostgreSQL's weight (position of the first base-10000
// digit) and that first digit for a finite non-zero d.
func nbaseWeight(d *apd.Decimal) (weight int, first int64) {
	// Decimal position of the leading digit: value in [10^p, 10^(p+1)).
	p := d.NumDigits() + int64(d.Exponent) - 1
	weight = int(floorDiv(p, numericDecDigits))
	// first = floor(|d| / 10000^weight) mod 10000, from the leading digits.
	lead := p - int64(weight)*numericDecDigits + 1 // digits of the first group
	coeff := d.Coeff.String()
	if int64(len(coeff)) < lead {
		for int64(len(coeff)) < lead {
			coeff += "0"
		}
	}
	for _, c := range coeff[:lead] {
		first = first*10 + int64(c-'0')
	}
	return weight, first
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// divScale is select_div_scale: at least 16 significant digits, and no
// fewer decimals than either input shows.
func divScale(a, b *apd.Decimal) int {
	var w1, w2 int
	var f1, f2 int64
	if a.Form == apd.Finite && !a.IsZero() {
		w1, f1 = nbaseWeight(a)
	}
	if b.Form == apd.Finite && !b.IsZero() {
		w2, f2 = nbaseWeight(b)
	}
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := numericMinSigDigits - qweight*numericDecDigits
	rscale = max(rscale, dscale(a), dscale(b), 0)
	return min(rscale, numericMaxDisplayScale)
}

// quoToScale divides a by b and rounds half away from zero to scale digits
// after the point: the quotient is truncated with guard digits first, which
// makes the final rounding exact.
func quoToScale(a, b *apd.Decimal, scale int) (*apd.Decimal, error) {
	intDigits := (a.NumDigits() + int64(a.Exponent)) - (b.NumDigits() + int64(b.Exponent)) + 1
	prec := intDigits + int64(scale) + numericExtraGuardDigits
	if prec < 1 {
		prec = 1
	}
	ctx := decimalContext.WithPrecision(uint32(prec))
	ctx.Rounding = apd.RoundDown
	q := new(apd.Decimal)
	if _, err := ctx.Quo(q, a, b); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return roundToScale(q, scale)
}

func numericDiv(a, b *apd.Decimal) (any, error) {
	if isNaN(a) || isNaN(b) {
		return numericNaN(), nil
	}
	if b.Form == apd.Finite && b.IsZero() {
		return nil, errDivisionByZero
	}
	if a.Form == apd.Infinite {
		if b.Form == apd.Infinite {
			return numericNaN(), nil
		}
		return &apd.Decimal{Form: apd.Infinite, Negative: a.Negative != b.Negative}, nil
	}
	if b.Form == apd.Infinite {
		return apd.New(0, 0), nil
	}
	q, err := quoToScale(a, b, divScale(a, b))
	if err != nil {
		return nil, err
	}
	return checkNumericResult(q)
}

// numericMod is mod_var: a - trunc(a/b)*b, with the larger input scale.
func numericMod(a, b *apd.Decimal) (any, error) {
	if isNaN(a) || isNaN(b) {
		return numericNaN(), nil
	}
	if b.Form == apd.Finite && b.IsZero() {
		return nil, errDivisionByZero
	}
	if a.Form == apd.Infinite {
		return numericNaN(), nil
	}
	if b.Form == apd.Infinite {
		return a, nil
	}
	out := new(apd.Decimal)
	prec := max(a.NumDigits(), b.NumDigits()) + int64(max(dscale(a), dscale(b))) + 2
	if _, err := decimalContext.WithPrecision(uint32(prec)).Rem(out, a, b); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return roundToScale(out, max(dscale(a), dscale(b)))
}

func numericNeg(d *apd.Decimal) *apd.Decimal {
	if isNaN(d) || (d.Form == apd.Finite && d.IsZero()) {
		return d
	}
	out := new(apd.Decimal).Set(d)
	out.Negative = !d.Negative
	return out
}

func numericAbs(d *apd.Decimal) *apd.Decimal {
	if !d.Negative {
		return d
	}
	return numericNeg(d)
}
