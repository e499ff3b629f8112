package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// numTemplate parses a template for to_char; an empty template gives an
// empty result (ok false).
func numTemplate(format string) ([]numNode, *numDesc, bool, error) {
	if format == "" {
		return nil, nil, false, nil
	}
	nodes, desc, err := parseNumTemplate(format)
	return nodes, desc, err == nil, err
}

// splitSign removes a leading minus: the digits and '+' or '-'.
func splitSign(s string) (string, byte) {
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return rest, '-'
	}
	return s, '+'
}

// fitDigits is the common end of the to_char variants: the blanks left of
// the digits, or '#' everywhere when the integer part does not fit.
func fitDigits(desc *numDesc, numstr string) (string, int) {
	preLen := len(numstr)
	if p := strings.IndexByte(numstr, '.'); p >= 0 {
		preLen = p
	}
	switch {
	case preLen < desc.pre:
		return numstr, desc.pre - preLen
	case preLen > desc.pre:
		return hashDigits(desc.pre, desc.post), 0
	}
	return numstr, 0
}

// hashDigits is pre '#', a point and post '#'.
func hashDigits(pre, post int) string {
	return strings.Repeat("#", pre) + "." + strings.Repeat("#", post)
}

// hashScientific is what EEEE shows for NaN and infinities.
func hashScientific(desc *numDesc) string {
	b := []byte(strings.Repeat("#", desc.pre+desc.post+6))
	b[0] = ' '
	b[desc.pre+1] = '.'
	return string(b)
}

// numericToChar is numeric_to_char.
func numericToChar(d *apd.Decimal, format string) (any, error) {
	nodes, desc, ok, err := numTemplate(format)
	if !ok {
		return "", err
	}
	switch {
	case desc.is(numFlagRoman):
		r, err := roundNumeric(d, 0, apd.RoundHalfUp)
		if err != nil {
			return nil, err
		}
		v, err := r.(*apd.Decimal).Int64()
		if err != nil || v < math.MinInt32 || v > math.MaxInt32 {
			return nil, intOutOfRange(OidInt4)
		}
		return formatNumber(nodes, desc, intToRoman(v), 0, 0)
	case desc.is(numFlagEEEE):
		if d.Form != apd.Finite {
			return formatNumber(nodes, desc, hashScientific(desc), 0, 0)
		}
		sci, err := numericScientific(d, desc.post)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(sci, "-") {
			sci = " " + sci
		}
		return formatNumber(nodes, desc, sci, 0, 0)
	}
	val := d
	if desc.is(numFlagMulti) {
		shifted, err := numericMul(d, apd.New(1, int32(desc.multi)))
		if err != nil {
			return nil, err
		}
		val = shifted.(*apd.Decimal)
		desc.pre += desc.multi
	}
	rounded, err := roundNumeric(val, desc.post, apd.RoundHalfUp)
	if err != nil {
		return nil, err
	}
	numstr, sign := splitSign(formatNumeric(rounded.(*apd.Decimal)))
	numstr, pre := fitDigits(desc, numstr)
	return formatNumber(nodes, desc, numstr, pre, sign)
}

// numericScientific is numeric_out_sci: d as a significand with scale
// decimals and a two-digit (at least) exponent.
func numericScientific(d *apd.Decimal, scale int) (string, error) {
	exponent := int64(0)
	if !d.IsZero() {
		exponent = d.NumDigits() + int64(d.Exponent) - 1
	}
	sig := new(apd.Decimal).Set(d)
	sig.Exponent -= int32(exponent)
	r, err := roundNumeric(sig, max(scale, 0), apd.RoundHalfUp)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%se%+03d", formatNumeric(r.(*apd.Decimal)), exponent), nil
}

// intToChar is int4_to_char and int8_to_char; oid is the argument's type.
func intToChar(oid Oid, v int64, format string) (any, error) {
	nodes, desc, ok, err := numTemplate(format)
	if !ok {
		return "", err
	}
	switch {
	case desc.is(numFlagRoman):
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, intOutOfRange(OidInt4)
		}
		return formatNumber(nodes, desc, intToRoman(v), 0, 0)
	case desc.is(numFlagEEEE):
		sci, err := numericScientific(apd.New(v, 0), desc.post)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(sci, "-") {
			sci = " " + sci
		}
		return formatNumber(nodes, desc, sci, 0, 0)
	}
	if desc.is(numFlagMulti) {
		// V multiplies by 10^n. int8_to_char checks the product;
		// int4_to_char multiplies in C's 32-bit arithmetic, where a factor
		// beyond int32 becomes INT_MIN (x86-64) and the product wraps.
		factor := math.Pow10(desc.multi)
		if oid == OidInt4 {
			f32 := int32(math.MinInt32)
			if factor <= math.MaxInt32 {
				f32 = int32(factor)
			}
			v = int64(int32(v) * f32)
		} else {
			if factor >= math.MaxInt64 {
				return nil, intOutOfRange(OidInt8)
			}
			m, err := intMul(oid, v, int64(factor))
			if err != nil {
				return nil, err
			}
			v = m.(int64)
		}
		desc.pre += desc.multi
	}
	digits, sign := splitSign(strconv.FormatInt(v, 10))
	numstr := digits
	if desc.post > 0 {
		numstr += "." + strings.Repeat("0", desc.post)
	}
	preLen := len(digits)
	pre := 0
	switch {
	case preLen < desc.pre:
		pre = desc.pre - preLen
	case preLen > desc.pre:
		numstr = hashDigits(desc.pre, desc.post)
	}
	return formatNumber(nodes, desc, numstr, pre, sign)
}

// floatToChar is float4_to_char and float8_to_char; digits is FLT_DIG or
// DBL_DIG, the significant digits the type shows.
func floatToChar(v float64, format string, digits int) (any, error) {
	nodes, desc, ok, err := numTemplate(format)
	if !ok {
		return "", err
	}
	switch {
	case desc.is(numFlagRoman):
		return formatNumber(nodes, desc, intToRoman(int64(math.RoundToEven(v))), 0, 0)
	case desc.is(numFlagEEEE):
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return formatNumber(nodes, desc, hashScientific(desc), 0, 0)
		}
		sci := fmt.Sprintf("%+.*e", desc.post, v)
		if sci[0] == '+' {
			sci = " " + sci[1:]
		}
		return formatNumber(nodes, desc, sci, 0, 0)
	}
	if desc.is(numFlagMulti) {
		v *= math.Pow(10, float64(desc.multi))
		desc.pre += desc.multi
	}
	preLen := len(cFixed(math.Abs(v), 0))
	if preLen >= digits {
		desc.post = 0
	} else if preLen+desc.post > digits {
		desc.post = digits - preLen
	}
	numstr, sign := splitSign(cFixed(v, desc.post))
	numstr, pre := fitDigits(desc, numstr)
	return formatNumber(nodes, desc, numstr, pre, sign)
}

// cFixed is PostgreSQL's snprintf "%.*f": Infinity and NaN by name.
func cFixed(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
