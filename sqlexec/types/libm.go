//go:build cgo

package types

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

// haveLibm says the C library's mathematical functions are at hand: the
// float8 functions give PostgreSQL's results to the last place only with
// them (libm_nocgo.go).
const haveLibm = true

// The C library's functions, which PostgreSQL's float8 functions and
// geo_ops.c call. glibc's are not all correctly rounded and Go's math
// package differs from them in the last place for a quarter to a half of
// the arguments (sin, pow, cbrt, log10, ...), which printed results show.

func libmSin(x float64) float64      { return float64(C.sin(C.double(x))) }
func libmCos(x float64) float64      { return float64(C.cos(C.double(x))) }
func libmTan(x float64) float64      { return float64(C.tan(C.double(x))) }
func libmAsin(x float64) float64     { return float64(C.asin(C.double(x))) }
func libmAcos(x float64) float64     { return float64(C.acos(C.double(x))) }
func libmAtan(x float64) float64     { return float64(C.atan(C.double(x))) }
func libmAtan2(y, x float64) float64 { return float64(C.atan2(C.double(y), C.double(x))) }
func libmExp(x float64) float64      { return float64(C.exp(C.double(x))) }
func libmLog(x float64) float64      { return float64(C.log(C.double(x))) }
func libmLog10(x float64) float64    { return float64(C.log10(C.double(x))) }
func libmPow(x, y float64) float64   { return float64(C.pow(C.double(x), C.double(y))) }
func libmCbrt(x float64) float64     { return float64(C.cbrt(C.double(x))) }
func libmSinh(x float64) float64     { return float64(C.sinh(C.double(x))) }
func libmCosh(x float64) float64     { return float64(C.cosh(C.double(x))) }
func libmTanh(x float64) float64     { return float64(C.tanh(C.double(x))) }
func libmAsinh(x float64) float64    { return float64(C.asinh(C.double(x))) }
func libmAcosh(x float64) float64    { return float64(C.acosh(C.double(x))) }
func libmAtanh(x float64) float64    { return float64(C.atanh(C.double(x))) }
