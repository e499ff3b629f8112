package types

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The statistical aggregates: variance and standard deviation over numbers
// (numeric for integers and numeric, double precision for floats), and the
// regression and correlation aggregates over pairs of double precision
// values, with PostgreSQL's transition state and final functions so that
// their results agree digit for digit.

func init() {
	for _, name := range []string{"var_pop", "var_samp", "variance", "stddev_pop", "stddev_samp", "stddev"} {
		m := moments{variance: strings.HasPrefix(name, "var"), sample: !strings.HasSuffix(name, "_pop")}
		for _, t := range []Type{Int2, Int4, Int8, NumericAny} {
			addAgg(name, NumericAny, func() Accumulator { return &numericMomentsAcc{moments: m} }, t)
		}
		for _, t := range []Type{Float4, Float8} {
			addAgg(name, Float8, func() Accumulator { return &floatMomentsAcc{moments: m} }, t)
		}
	}
	for name, final := range regrFinals {
		result := Float8
		if name == "regr_count" {
			result = Int8
		}
		addAgg(name, result, func() Accumulator { return &regrAcc{final: final} }, Float8, Float8)
	}
}

// moments says which of the variance aggregates an accumulator computes.
type moments struct {
	variance bool // the variance; else the standard deviation
	sample   bool // the sample's (divided by N - 1); else the population's
}

// numericMomentsAcc is the variance family over integers and numeric:
// exact sums of X and X*X (do_numeric_accum) and numeric_stddev_internal's
// final computation. The sums and the numerator are exact, beyond the scale
// and range a numeric value may have, as PostgreSQL's intermediate values
// are: only the result is rounded and checked.
type numericMomentsAcc struct {
	moments
	n          int64
	sumX, sum2 apd.Decimal
	special    bool // a NaN or an infinity was added
}

func (a *numericMomentsAcc) Add(args []any) error {
	x := numericArg(args[0])
	a.n++
	if x.Form != apd.Finite {
		a.special = true
		return nil
	}
	var sq apd.Decimal
	if _, err := exactContext.Mul(&sq, x, x); err != nil {
		return errNumericOverflow
	}
	if _, err := exactContext.Add(&a.sumX, &a.sumX, x); err != nil {
		return errNumericOverflow
	}
	if _, err := exactContext.Add(&a.sum2, &a.sum2, &sq); err != nil {
		return errNumericOverflow
	}
	return nil
}

func (a *numericMomentsAcc) Result() (any, error) {
	switch {
	case a.n == 0, a.sample && a.n == 1:
		return nil, nil
	case a.special:
		return numericNaN(), nil // infinities too, as PostgreSQL
	}
	n := apd.New(a.n, 0)
	other := a.n
	if a.sample {
		other = a.n - 1
	}
	var sq, nSum2, numer, denom apd.Decimal
	_, err := exactContext.Mul(&sq, &a.sumX, &a.sumX)
	if err == nil {
		_, err = exactContext.Mul(&nSum2, n, &a.sum2)
	}
	if err == nil {
		_, err = exactContext.Sub(&numer, &nSum2, &sq)
	}
	if err == nil {
		_, err = exactContext.Mul(&denom, n, apd.New(other, 0))
	}
	if err != nil {
		return nil, errNumericOverflow
	}
	if numer.Sign() <= 0 {
		return apd.New(0, 0), nil // a rounding error's negative numerator included
	}
	rscale := divScale(&numer, &denom)
	v, err := quoToScale(&numer, &denom, rscale)
	if err != nil {
		return nil, err
	}
	if !a.variance {
		v = sqrtToScale(v, rscale)
	}
	return checkNumericResult(v)
}

// errNumericOverflow is a numeric computation's overflow.
var errNumericOverflow = pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")

// floatMomentsAcc is the variance family over floats: float8_accum's
// Youngs-Cramer sums.
type floatMomentsAcc struct {
	moments
	n, sx, sxx float64
}

func (a *floatMomentsAcc) Add(args []any) error {
	x := args[0].(float64)
	n, sx := a.n+1, a.sx+x
	sxx := a.sxx
	if a.n > 0 {
		tmp := x*n - sx
		sxx += tmp * tmp / (n * a.n)
		if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
			if !math.IsInf(a.sx, 0) && !math.IsInf(x, 0) {
				return errFloatOverflow
			}
			sxx = floatNaN
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		sxx = floatNaN
	}
	a.n, a.sx, a.sxx = n, sx, sxx
	return nil
}

func (a *floatMomentsAcc) Result() (any, error) {
	den := a.n
	if a.sample {
		den = a.n - 1
	}
	if den <= 0 {
		return nil, nil
	}
	v := a.sxx / den
	if !a.variance {
		v = math.Sqrt(v)
	}
	return v, nil
}

// errFloatOverflow is float_overflow_error.
var errFloatOverflow = pgerror.New(pgerror.NumericValueOutOfRange, "value out of range: overflow")

// regrAcc is the aggregates of pairs (Y, X): float8_regr_accum's
// Youngs-Cramer sums, read by one of regrFinals. A row with a NULL in
// either argument is skipped.
type regrAcc struct {
	final func(s *regrSums) any
	regrSums
}

// regrSums is float8_regr_accum's state.
type regrSums struct {
	n, sx, sxx, sy, syy, sxy float64
}

func (a *regrAcc) Add(args []any) error {
	if args[0] == nil || args[1] == nil {
		return nil
	}
	y, x := args[0].(float64), args[1].(float64)
	s := a.regrSums
	n, sx, sy := s.n+1, s.sx+x, s.sy+y
	sxx, syy, sxy := s.sxx, s.syy, s.sxy
	if s.n > 0 {
		tx, ty := x*n-sx, y*n-sy
		scale := 1.0 / (n * s.n)
		sxx += tx * tx * scale
		syy += ty * ty * scale
		sxy += tx * ty * scale
		inf := math.IsInf
		if inf(sx, 0) || inf(sxx, 0) || inf(sy, 0) || inf(syy, 0) || inf(sxy, 0) {
			if (inf(sx, 0) || inf(sxx, 0)) && !inf(s.sx, 0) && !inf(x, 0) ||
				(inf(sy, 0) || inf(syy, 0)) && !inf(s.sy, 0) && !inf(y, 0) ||
				inf(sxy, 0) && !inf(s.sx, 0) && !inf(x, 0) && !inf(s.sy, 0) && !inf(y, 0) {
				return errFloatOverflow
			}
			for _, v := range []*float64{&sxx, &syy, &sxy} {
				if inf(*v, 0) {
					*v = floatNaN
				}
			}
		}
	} else {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			sxx, sxy = floatNaN, floatNaN
		}
		if math.IsNaN(y) || math.IsInf(y, 0) {
			syy, sxy = floatNaN, floatNaN
		}
	}
	a.regrSums = regrSums{n, sx, sxx, sy, syy, sxy}
	return nil
}

func (a *regrAcc) Result() (any, error) { return a.final(&a.regrSums), nil }

// regrFinals are the final functions of the aggregates over float8_regr_accum's
// state (float8_regr_sxx, float8_covar_pop, float8_corr, ...): nil is NULL.
var regrFinals = map[string]func(s *regrSums) any{
	"regr_count": func(s *regrSums) any { return int64(s.n) },
	"regr_sxx":   func(s *regrSums) any { return ifRows(s, 1, s.sxx) },
	"regr_syy":   func(s *regrSums) any { return ifRows(s, 1, s.syy) },
	"regr_sxy":   func(s *regrSums) any { return ifRows(s, 1, s.sxy) },
	"regr_avgx":  func(s *regrSums) any { return ifRows(s, 1, s.sx/s.n) },
	"regr_avgy":  func(s *regrSums) any { return ifRows(s, 1, s.sy/s.n) },
	"covar_pop":  func(s *regrSums) any { return ifRows(s, 1, s.sxy/s.n) },
	"covar_samp": func(s *regrSums) any { return ifRows(s, 2, s.sxy/(s.n-1)) },
	"corr": func(s *regrSums) any {
		if s.n < 1 || s.sxx == 0 || s.syy == 0 {
			return nil // a horizontal or vertical line has none
		}
		return s.sxy / math.Sqrt(s.sxx*s.syy)
	},
	"regr_r2": func(s *regrSums) any {
		switch {
		case s.n < 1 || s.sxx == 0:
			return nil
		case s.syy == 0:
			return 1.0
		}
		return (s.sxy * s.sxy) / (s.sxx * s.syy)
	},
	"regr_slope": func(s *regrSums) any {
		if s.n < 1 || s.sxx == 0 {
			return nil
		}
		return s.sxy / s.sxx
	},
	"regr_intercept": func(s *regrSums) any {
		if s.n < 1 || s.sxx == 0 {
			return nil
		}
		return (s.sy - s.sx*s.sxy/s.sxx) / s.n
	},
}

// ifRows is v when s has at least min rows, else NULL.
func ifRows(s *regrSums, min float64, v float64) any {
	if s.n < min {
		return nil
	}
	return v
}
