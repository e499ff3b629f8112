//go:build !cgo

package types

// libmSinCos has no C library to call in a build without cgo: circle_poly
// refuses rather than give vertices that differ from PostgreSQL's.
func libmSinCos(float64) (sin, cos float64, ok bool) { return 0, 0, false }
