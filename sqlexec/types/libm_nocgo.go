//go:build !cgo

package types

import "math"

// haveLibm is false in a build without cgo (which the SQL parser needs,
// so only package types' own tests run so): Go's math package stands in
// for the C library, differing in the last place for some arguments.
const haveLibm = false

var (
	libmSin, libmCos, libmTan, libmAsin, libmAcos, libmAtan = math.Sin, math.Cos, math.Tan, math.Asin, math.Acos, math.Atan
	libmExp, libmLog, libmLog10, libmCbrt                   = math.Exp, math.Log, math.Log10, math.Cbrt
	libmSinh, libmCosh, libmTanh                            = math.Sinh, math.Cosh, math.Tanh
	libmAsinh, libmAcosh, libmAtanh                         = math.Asinh, math.Acosh, math.Atanh
	libmAtan2, libmPow                                      = math.Atan2, math.Pow
)
