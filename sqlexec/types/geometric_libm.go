//go:build cgo

package types

/*
#cgo LDFLAGS: -lm
#include <math.h>
*/
import "C"

// libmSinCos is the C library's sin and cos, which circle_poly calls:
// glibc's are not always correctly rounded, and Go's math.Sin and math.Cos
// differ from them in the last place for many arguments, which the
// polygon's printed vertices would show.
func libmSinCos(x float64) (sin, cos float64, ok bool) {
	return float64(C.sin(C.double(x))), float64(C.cos(C.double(x))), true
}
