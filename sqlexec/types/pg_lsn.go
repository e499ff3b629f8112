package types

import (
	"cmp"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The pg_lsn type of pg_lsn.c: a write-ahead log position, a 64-bit
// unsigned byte offset written as two hex halves "XXX/YYY". fickle has no
// WAL; the type is here for the values applications store and compute
// with.

// OIDs of pg_lsn and pg_lsn[].
const (
	OidPGLSN      Oid = 3220
	OidPGLSNArray Oid = 3221
)

// LSN is a pg_lsn datum.
type LSN uint64

// PGLSNType is pg_lsn.
var PGLSNType = Type{OidPGLSN, -1}

func init() {
	l := PGLSNType
	addComparisons(l, l, func(_ *Env, a, b any) int { return cmp.Compare(a.(LSN), b.(LSN)) })
	addBinary("-", l, l, NumericAny, func(_ *Env, a, b any) (any, error) { return lsnDiff(a.(LSN), b.(LSN)), nil })
	addFunc("pg_wal_lsn_diff", Immutable, NumericAny, func(_ *Env, a []any) (any, error) {
		return lsnDiff(a[0].(LSN), a[1].(LSN)), nil
	}, l, l)
	addBinary("+", l, NumericAny, l, func(_ *Env, a, b any) (any, error) { return lsnAddNumeric(a.(LSN), b.(*apd.Decimal), false) })
	addBinary("+", NumericAny, l, l, func(_ *Env, a, b any) (any, error) { return lsnAddNumeric(b.(LSN), a.(*apd.Decimal), false) })
	addBinary("-", l, NumericAny, l, func(_ *Env, a, b any) (any, error) { return lsnAddNumeric(a.(LSN), b.(*apd.Decimal), true) })
	addFunc("pg_lsn", Immutable, l, func(_ *Env, a []any) (any, error) { return numericToLSN(a[0].(*apd.Decimal)) }, NumericAny)
	addFunc("pg_lsn_cmp", Immutable, Int4, func(_ *Env, a []any) (any, error) {
		return int64(cmp.Compare(a[0].(LSN), a[1].(LSN))), nil
	}, l, l)
	addFunc("pg_lsn_larger", Immutable, l, func(_ *Env, a []any) (any, error) { return max(a[0].(LSN), a[1].(LSN)), nil }, l, l)
	addFunc("pg_lsn_smaller", Immutable, l, func(_ *Env, a []any) (any, error) { return min(a[0].(LSN), a[1].(LSN)), nil }, l, l)
}

// parseLSN is pg_lsn_in: one to eight hex digits, a slash, one to eight
// more, nothing else (not even white space).
func parseLSN(s string) (any, error) {
	hi, rest, ok := strings.Cut(s, "/")
	if !ok || !lsnHalf(hi) || !lsnHalf(rest) {
		return nil, invalidSyntax(PGLSNType, s)
	}
	h, _ := strconv.ParseUint(hi, 16, 32)
	l, _ := strconv.ParseUint(rest, 16, 32)
	return LSN(h<<32 | l), nil
}

// lsnHalf reports whether s is one half of an LSN's text.
func lsnHalf(s string) bool {
	if len(s) < 1 || len(s) > 8 {
		return false
	}
	for i := range len(s) {
		if d := hexDigit(s[i]); d < 0 || d >= 16 {
			return false
		}
	}
	return true
}

// formatLSN is pg_lsn_out.
func formatLSN(x LSN) string { return fmt.Sprintf("%X/%X", uint64(x)>>32, uint32(x)) }

// lsnDiff is pg_lsn_mi: the signed distance in bytes, as a numeric.
func lsnDiff(a, b LSN) *apd.Decimal {
	d := new(apd.Decimal)
	if a >= b {
		d.Coeff.SetUint64(uint64(a - b))
	} else {
		d.Coeff.SetUint64(uint64(b - a))
		d.Negative = true
	}
	return d
}

// lsnAddNumeric is pg_lsn_pli (sub false) and pg_lsn_mii: the sum or
// difference computed in numeric, then brought back as numeric_pg_lsn does.
func lsnAddNumeric(lsn LSN, n *apd.Decimal, sub bool) (any, error) {
	if isNaN(n) {
		verb := "add NaN to"
		if sub {
			verb = "subtract NaN from"
		}
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot %s pg_lsn", verb)
	}
	base := new(apd.Decimal)
	base.Coeff.SetUint64(uint64(lsn))
	sum, err := numericAdd(base, n, sub)
	if err != nil {
		return nil, err
	}
	return numericToLSN(sum.(*apd.Decimal))
}

// numericToLSN is numeric_pg_lsn: the value rounded to an integer (half
// away from zero) that must lie in 0..2^64-1.
func numericToLSN(d *apd.Decimal) (any, error) {
	switch {
	case isNaN(d):
		return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot convert NaN to pg_lsn")
	case d.Form == apd.Infinite:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot convert infinity to pg_lsn")
	}
	r, err := roundNumeric(d, 0, apd.RoundHalfUp)
	if err != nil {
		return nil, err
	}
	i, ok := new(big.Int).SetString(r.(*apd.Decimal).Text('f'), 10)
	if !ok || i.Sign() < 0 || !i.IsUint64() {
		return nil, errLSNOutOfRange
	}
	return LSN(i.Uint64()), nil
}

var errLSNOutOfRange = pgerror.New(pgerror.InvalidParameterValue, "pg_lsn out of range")
