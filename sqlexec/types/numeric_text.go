package types

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// invalidSyntax is the 22P02 error of every input function.
func invalidSyntax(t Type, s string) error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typeInfoOf(t.Oid).sqlName, s)
}

// isSpace is PostgreSQL's scanner_isspace, the white space that input
// functions skip around a value.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// intBounds returns the range of the integer type oid.
func intBounds(oid Oid) (lo, hi int64) {
	if isRegType(oid) {
		oid = OidOid
	}
	switch oid {
	case OidInt2:
		return math.MinInt16, math.MaxInt16
	case OidInt4:
		return math.MinInt32, math.MaxInt32
	case OidOid:
		return math.MinInt32, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// intOutOfRange is the 22003 error of integer arithmetic and casts.
func intOutOfRange(oid Oid) error {
	if isRegType(oid) {
		oid = OidOid
	}
	switch oid {
	case OidInt2:
		return pgerror.New(pgerror.NumericValueOutOfRange, "smallint out of range")
	case OidInt4:
		return pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
	case OidOid:
		return pgerror.New(pgerror.NumericValueOutOfRange, "OID out of range")
	}
	return pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
}

// checkInt returns v as a datum of the integer type oid, or 22003.
func checkInt(oid Oid, v int64) (any, error) {
	lo, hi := intBounds(oid)
	if v < lo || v > hi {
		return nil, intOutOfRange(oid)
	}
	return v, nil
}

// parseInt is int2in, int4in and int8in: optional white space and sign, then
// decimal digits only.
func parseInt(t Type, s string) (any, error) {
	body := trimSpace(s)
	digits := body
	if len(digits) > 0 && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" {
		return nil, invalidSyntax(t, s)
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, invalidSyntax(t, s)
		}
	}
	v, err := strconv.ParseInt(body, 10, 64)
	lo, hi := intBounds(t.Oid)
	if err != nil || v < lo || v > hi {
		return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type %s", s, typeInfoOf(t.Oid).sqlName)
	}
	if t.Oid == OidOid && v < 0 {
		// oidin reads a negative number as strtoul does: modulo 2^32.
		v += 1 << 32
	}
	return v, nil
}

// floatNaN is C's NAN, the NaN of PostgreSQL's float input and of
// get_float8_nan, and negFloatNaN strtod's "-nan": binary output sends a
// float's bits, where Go's math.NaN (another payload) would show.
var (
	floatNaN    = math.Float64frombits(0x7ff8000000000000)
	negFloatNaN = math.Float64frombits(0xfff8000000000000)
)

// parseFloat is float4in and float8in (strtod): white space, NaN,
// [+-]Infinity or inf, decimal numbers with an exponent. Values that overflow
// or underflow to zero fail with 22003, as in PostgreSQL.
func parseFloat(t Type, s string) (any, error) {
	body := trimSpace(s)
	switch strings.ToLower(body) {
	case "nan", "+nan":
		return floatNaN, nil
	case "-nan":
		return negFloatNaN, nil
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), nil
	case "-infinity", "-inf":
		return math.Inf(-1), nil
	}
	if !isDecimalNumber(body) {
		return nil, invalidSyntax(t, s)
	}
	bits := 64
	if t.Oid == OidFloat4 {
		bits = 32
	}
	f, err := strconv.ParseFloat(body, bits)
	if err != nil || (f == 0 && hasNonZeroDigit(body)) {
		return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "%q is out of range for type %s", body, typeInfoOf(t.Oid).sqlName)
	}
	return f, nil
}

// isDecimalNumber reports whether s is [+-]digits[.digits][e[+-]digits] with
// at least one mantissa digit.
func isDecimalNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	mant := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		mant++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			mant++
		}
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// hasNonZeroDigit reports whether the mantissa of a decimal number has a
// digit other than 0.
func hasNonZeroDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}

// formatFloat is float4out and float8out with extra_float_digits = 1: the
// shortest decimal that reads back as the same value, in fixed notation
// when the decimal exponent is in [-4, FLT_DIG or DBL_DIG), else as d.ddde+XX.
// formatFloatDigits is float4out and float8out: with digits > 0 (a
// non-positive extra_float_digits) C's %.*g with that many significant
// digits, else the shortest exact form (formatFloat).
func formatFloatDigits(f float64, bits, digits int) string {
	if digits <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return formatFloat(f, bits)
	}
	return strconv.FormatFloat(f, 'g', digits, bits)
}

// shortestFloat is the shortest 'e' form of f that reads back as f. For a
// float4, a form exactly halfway between f and a neighbour (reading it
// rounds to f, whose mantissa is even) is passed over for a longer one, as
// PostgreSQL's float4out (Ryu's f2s) does.
func shortestFloat(f float64, bits int) string {
	e := strconv.FormatFloat(f, 'e', -1, bits)
	if bits != 32 || f == 0 || !halfwayFloat32(e, float32(f)) {
		return e
	}
	for prec := strings.IndexByte(e, 'e'); prec <= 9; prec++ {
		if longer := strconv.FormatFloat(f, 'e', prec, 32); !halfwayFloat32(longer, float32(f)) {
			if back, err := strconv.ParseFloat(longer, 32); err == nil && float32(back) == float32(f) {
				return longer
			}
		}
	}
	return e
}

// halfwayFloat32 reports whether decimal s lies exactly halfway between v
// and one of its neighbours.
func halfwayFloat32(s string, v float32) bool {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	for _, toward := range []float32{float32(math.Inf(1)), float32(math.Inf(-1))} {
		n := math.Nextafter32(v, toward)
		if math.IsInf(float64(n), 0) {
			continue
		}
		mid := new(big.Rat).Add(new(big.Rat).SetFloat64(float64(v)), new(big.Rat).SetFloat64(float64(n)))
		if mid.Quo(mid, big.NewRat(2, 1)).Cmp(r) == 0 {
			return true
		}
	}
	return false
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	digitsMax := 15
	if bits == 32 {
		digitsMax = 6
	}
	e := shortestFloat(f, bits)
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < -4 || exp >= digitsMax {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		return mant + "e" + sign + es
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}

// decimalContext is the context of numeric arithmetic: enough precision for
// PostgreSQL's limits (131072 digits before the point, 16383 after) is not
// affordable per operation, so operations set their precision from the
// operands; this context only supplies rounding and exponent limits.
var decimalContext = apd.Context{
	Precision:   0,
	MaxExponent: apd.MaxExponent,
	MinExponent: -apd.MaxExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

// Numeric limits of PostgreSQL: digits before and after the decimal point.
const (
	numericMaxWeightDigits = 131072
	numericMaxScale        = 16383
)

// parseNumeric is numeric_in: white space, NaN, [+-]Infinity or inf, and
// decimal numbers with an optional exponent. The result never has a positive
// exponent (1e2 is 100) nor a negative zero.
func parseNumeric(t Type, s string) (any, error) {
	body := trimSpace(s)
	var d *apd.Decimal
	switch strings.ToLower(body) {
	case "nan", "+nan", "-nan":
		d = &apd.Decimal{Form: apd.NaN}
	case "infinity", "+infinity", "inf", "+inf":
		d = &apd.Decimal{Form: apd.Infinite}
	case "-infinity", "-inf":
		d = &apd.Decimal{Form: apd.Infinite, Negative: true}
	default:
		if !isDecimalNumber(body) {
			return nil, invalidSyntax(t, s)
		}
		var err error
		d, _, err = apd.NewFromString(body)
		if err != nil {
			return nil, numericBeyondRange(body)
		}
		if err := checkNumericRange(d); err != nil {
			return nil, err
		}
		d = normalizeDecimal(d)
	}
	return applyNumericTypmod(t, d)
}

// errNumericBeyondApd refuses the values PostgreSQL's numeric holds but apd
// cannot (its exponents stop at 100000 where PostgreSQL's reach 131072).
var errNumericBeyondApd = pgerror.Unsupported("numeric values of magnitude 1e100000 and beyond")

// numericBeyondRange is the error for a decimal text apd could not read:
// 22003 when PostgreSQL cannot hold it either (131072 digits before the
// point), else the refusal.
func numericBeyondRange(text string) error {
	mant, expText, hasExp := strings.Cut(strings.ToLower(text), "e")
	var exp int64
	if hasExp {
		var err error
		if exp, err = strconv.ParseInt(expText, 10, 64); err != nil {
			return pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
		}
	}
	intPart, _, _ := strings.Cut(strings.TrimLeft(mant, "+- 0"), ".")
	// apd also fails on exponents below -100000, where PostgreSQL's 16383
	// decimals have long run out.
	if exp >= 0 && exp+int64(len(intPart)) <= numericMaxWeightDigits {
		return errNumericBeyondApd
	}
	return pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
}

// checkNumericRange fails with 22003 for values beyond numeric's digits.
func checkNumericRange(d *apd.Decimal) error {
	if d.Form != apd.Finite || d.IsZero() {
		return nil
	}
	if int64(d.Exponent)+d.NumDigits() > numericMaxWeightDigits {
		return pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return nil
}

// normalizeDecimal returns d without a positive exponent and without a
// negative sign on zero; d itself is not modified.
func normalizeDecimal(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	if d.Exponent > 0 {
		out := new(apd.Decimal)
		if _, err := decimalContext.WithPrecision(uint32(d.NumDigits())+uint32(d.Exponent)).Quantize(out, d, 0); err == nil {
			d = out
		}
	}
	if d.Negative && d.IsZero() {
		out := new(apd.Decimal).Set(d)
		out.Negative = false
		d = out
	}
	return d
}

// applyNumericTypmod rounds d to numeric(p,s) half away from zero and fails
// with 22003 when the integer part does not fit, as apply_typmod does.
func applyNumericTypmod(t Type, d *apd.Decimal) (*apd.Decimal, error) {
	p, s, ok := t.PrecisionScale()
	if !ok {
		return d, nil
	}
	if d.Form == apd.NaN {
		return d, nil
	}
	if d.Form == apd.Infinite {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	out := new(apd.Decimal)
	prec := d.NumDigits() + int64(d.Exponent) + int64(s) + 1
	if prec < 1 {
		prec = 1
	}
	if _, err := decimalContext.WithPrecision(uint32(prec)).Quantize(out, d, int32(-s)); err != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "numeric field overflow")
	}
	if !out.IsZero() && out.NumDigits()+int64(out.Exponent) > int64(p-s) {
		return nil, numericFieldOverflow(p, s)
	}
	if s < 0 {
		// Negative scales round to tens, hundreds...; the value is stored
		// without a positive exponent.
		out = normalizeDecimal(out)
	}
	return normalizeDecimal(out), nil
}

func numericFieldOverflow(p, s int) error {
	e := pgerror.New(pgerror.NumericValueOutOfRange, "numeric field overflow")
	if p-s != 0 {
		return e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 10^%d.", p, s, p-s)
	}
	return e.WithDetail("A field with precision %d, scale %d must round to an absolute value less than 1.", p, s)
}

// formatNumeric is numeric_out: plain notation with the value's scale.
func formatNumeric(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	return normalizeDecimal(d).Text('f')
}
