package types

import (
	"math"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The trigonometric functions in degrees (sind, cosd, tand, cotd, asind,
// acosd, atand, atan2d) as PostgreSQL 15's float.c computes them: the
// argument reduced to the first quadrant, then the C library's sin, cos,
// asin, acos or atan scaled by their values at 30, 45 or 60 degrees, so
// that those angles give exact results (sind(30) is 0.5, tand(45) 1).
// cot is 1 / tan in radians.

// degreeScales are the values the degree functions scale by, computed at
// run time from the C library's functions in double precision (as
// init_degree_constants does: the compiler must not fold them).
var degreeScales struct {
	sin30, oneMinusCos60, asinHalf, acosHalf, atanOne, tan45, cot45 float64
}

func init() {
	thirty, fortyFive, sixty, half, one, perDegree := 30.0, 45.0, 60.0, 0.5, 1.0, radiansPerDegree
	s := &degreeScales
	s.sin30 = libmSin(thirty * perDegree)
	s.oneMinusCos60 = 1.0 - libmCos(sixty*perDegree)
	s.asinHalf = libmAsin(half)
	s.acosHalf = libmAcos(half)
	s.atanOne = libmAtan(one)
	s.tan45 = sindQ1(fortyFive) / cosdQ1(fortyFive)
	s.cot45 = cosdQ1(fortyFive) / sindQ1(fortyFive)

	f := Float8
	degreeFunc := func(name string, fn func(float64) float64) {
		addFunc(name, Immutable, f, func(_ *Env, a []any) (any, error) {
			x := a[0].(float64)
			if math.IsNaN(x) {
				return x, nil
			}
			if math.IsInf(x, 0) {
				return nil, errTrigRange
			}
			return fn(x), nil
		}, f)
	}
	degreeFunc("sind", sind)
	degreeFunc("cosd", cosd)
	degreeFunc("tand", tand)
	degreeFunc("cotd", cotd)
	degreeFunc("cot", func(x float64) float64 { return 1.0 / libmTan(x) })
	inverse := func(name string, fn func(float64) float64) {
		addFunc(name, Immutable, f, func(_ *Env, a []any) (any, error) {
			x := a[0].(float64)
			if math.IsNaN(x) {
				return x, nil
			}
			if x < -1 || x > 1 {
				return nil, errTrigRange
			}
			return fn(x), nil
		}, f)
	}
	inverse("asind", func(x float64) float64 {
		if x >= 0 {
			return asindQ1(x)
		}
		return -asindQ1(-x)
	})
	inverse("acosd", func(x float64) float64 {
		if x >= 0 {
			return acosdQ1(x)
		}
		return 90.0 + asindQ1(-x)
	})
	addFunc("atand", Immutable, f, func(_ *Env, a []any) (any, error) {
		x := a[0].(float64)
		if math.IsNaN(x) {
			return x, nil
		}
		return float64(libmAtan(x)/degreeScales.atanOne) * 45.0, nil
	}, f)
	addFunc("atan2d", Immutable, f, func(_ *Env, a []any) (any, error) {
		y, x := a[0].(float64), a[1].(float64)
		if math.IsNaN(y) || math.IsNaN(x) {
			return floatNaN, nil
		}
		return float64(libmAtan2(y, x)/degreeScales.atanOne) * 45.0, nil
	}, f, f)
}

// radiansPerDegree is PostgreSQL's RADIANS_PER_DEGREE.
const radiansPerDegree = 0.0174532925199432957692

var errTrigRange = pgerror.New(pgerror.NumericValueOutOfRange, "input is out of range")

// sind0To30 is the sine of an angle of 0 to 30 degrees: exactly 0 at 0
// and 0.5 at 30.
func sind0To30(x float64) float64 {
	return float64(libmSin(x*radiansPerDegree)/degreeScales.sin30) / 2.0
}

// cosd0To60 is the cosine of an angle of 0 to 60 degrees: exactly 1 at 0
// and 0.5 at 60.
func cosd0To60(x float64) float64 {
	oneMinusCos := 1.0 - libmCos(x*radiansPerDegree)
	return 1.0 - float64(oneMinusCos/degreeScales.oneMinusCos60)/2.0
}

// sindQ1 and cosdQ1 are the sine and cosine of an angle of the first
// quadrant, stitched from the two above where each is exact.
func sindQ1(x float64) float64 {
	if x <= 30.0 {
		return sind0To30(x)
	}
	return cosd0To60(90.0 - x)
}

func cosdQ1(x float64) float64 {
	if x <= 60.0 {
		return cosd0To60(x)
	}
	return sind0To30(90.0 - x)
}

// asindQ1 and acosdQ1 are the inverse sine and cosine, in degrees, of a
// value in [0, 1]: exact at 0, 0.5 and 1.
func asindQ1(x float64) float64 {
	if x <= 0.5 {
		return float64(libmAsin(x)/degreeScales.asinHalf) * 30.0
	}
	return 90.0 - float64(float64(libmAcos(x)/degreeScales.acosHalf)*60.0)
}

func acosdQ1(x float64) float64 {
	if x <= 0.5 {
		return 90.0 - float64(float64(libmAsin(x)/degreeScales.asinHalf)*30.0)
	}
	return float64(libmAcos(x)/degreeScales.acosHalf) * 60.0
}

// quadrant reduces an angle in degrees to [0, 90], returning the signs
// sind and cosd take there: sind(360-x) = -sind(x), cosd(180-x) = -cosd(x).
func quadrant(x float64) (q, sinSign, cosSign float64) {
	sinSign, cosSign = 1, 1
	x = math.Mod(x, 360.0)
	if x < 0 {
		x, sinSign = -x, -sinSign
	}
	if x > 180.0 {
		x, sinSign = 360.0-x, -sinSign
	}
	if x > 90.0 {
		x, cosSign = 180.0-x, -cosSign
	}
	return x, sinSign, cosSign
}

func sind(x float64) float64 {
	q, sinSign, _ := quadrant(x)
	return sinSign * sindQ1(q)
}

func cosd(x float64) float64 {
	q, _, cosSign := quadrant(x)
	return cosSign * cosdQ1(q)
}

// tand and cotd answer plain zero where the signs would give minus zero,
// as PostgreSQL forces.
func tand(x float64) float64 {
	q, sinSign, cosSign := quadrant(x)
	r := sinSign * cosSign * float64(float64(sindQ1(q)/cosdQ1(q))/degreeScales.tan45)
	if r == 0 {
		return 0
	}
	return r
}

func cotd(x float64) float64 {
	q, sinSign, cosSign := quadrant(x)
	r := sinSign * cosSign * float64(float64(cosdQ1(q)/sindQ1(q))/degreeScales.cot45)
	if r == 0 {
		return 0
	}
	return r
}
