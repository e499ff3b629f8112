package types

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
)

// Natural logarithms and exponentials to many digits. apd's Ln and Exp
// rescan their operands' digits at every step, which makes a result of a
// few thousand digits (622.7 ^ 830.107, exp(5339)) take seconds; PostgreSQL
// answers in milliseconds. Past largePrecision digits they are computed in
// binary floating point with guard bits, then rounded to the requested
// digits, as apd would round its own result.

// largePrecision is the number of significant digits from which ln and exp
// leave apd.
const largePrecision = 300

// guardBits are the bits carried beyond the requested digits.
const guardBits = 64

// decimalLn sets out to ln(x), x > 0, to prec significant digits.
func decimalLn(out, x *apd.Decimal, prec uint32) error {
	if prec < largePrecision {
		_, err := decimalContext.WithPrecision(prec).Ln(out, x)
		return err
	}
	bits := digitsToBits(prec)
	f, _, err := big.ParseFloat(x.Text('E'), 10, bits, big.ToNearestEven)
	if err != nil {
		return err
	}
	return floatToDecimal(out, bigLn(f, bits), prec)
}

// decimalExp sets out to e^x to prec significant digits.
func decimalExp(out, x *apd.Decimal, prec uint32) error {
	if prec < largePrecision {
		_, err := decimalContext.WithPrecision(prec).Exp(out, x)
		return err
	}
	// The exponent's integer digits become the result's magnitude: carry
	// them on top of the digits asked for.
	xf, _ := x.Float64()
	bits := digitsToBits(prec) + uint(math.Log2(math.Abs(xf)+1)) + 1
	f, _, err := big.ParseFloat(x.Text('E'), 10, bits, big.ToNearestEven)
	if err != nil {
		return err
	}
	return floatToDecimal(out, bigExp(f, bits), prec)
}

func digitsToBits(digits uint32) uint {
	return uint(math.Ceil(float64(digits)*math.Log2(10))) + guardBits
}

// floatToDecimal sets out to f rounded to prec significant digits.
func floatToDecimal(out *apd.Decimal, f *big.Float, prec uint32) error {
	_, _, err := out.SetString(f.Text('e', int(prec)-1))
	return err
}

// bigExp returns e^x to prec bits: x halved k times until it is small, the
// Taylor series, then squared k times.
func bigExp(x *big.Float, prec uint) *big.Float {
	k := int(math.Sqrt(float64(prec)))
	if e := x.MantExp(nil); e > 0 {
		k += e
	}
	// Each squaring doubles the relative error: k more bits cover them.
	work := prec + uint(k) + 32
	y := new(big.Float).SetPrec(work).SetMantExp(x, -k)
	sum := new(big.Float).SetPrec(work).SetInt64(1)
	term := new(big.Float).SetPrec(work).SetInt64(1)
	limit := -int(work) - 2
	for n := int64(1); ; n++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < limit {
			break
		}
	}
	for range k {
		sum.Mul(sum, sum)
	}
	return sum.SetPrec(prec)
}

// bigLn returns ln(x), x > 0, to prec bits by Halley's iteration
// y += 2 (x - e^y) / (x + e^y), which triples the correct bits each step,
// from float64's estimate.
func bigLn(x *big.Float, prec uint) *big.Float {
	work := prec + 32
	mant := new(big.Float)
	e := x.MantExp(mant)
	m, _ := mant.Float64()
	y := new(big.Float).SetPrec(work).SetFloat64(math.Log(m) + float64(e)*math.Ln2)
	xw := new(big.Float).SetPrec(work).Set(x)
	for good := uint(50); ; good *= 3 {
		ey := bigExp(y, work)
		num := new(big.Float).SetPrec(work).Sub(xw, ey)
		den := new(big.Float).SetPrec(work).Add(xw, ey)
		num.Quo(num, den)
		y.Add(y, num.Mul(num, big.NewFloat(2)))
		if good > work {
			break
		}
	}
	return y.SetPrec(prec)
}
