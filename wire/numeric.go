package wire

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The sign words of PostgreSQL's binary numeric.
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaN    = 0xC000
	numericPosInf = 0xD000
	numericNegInf = 0xF000
)

// numericInfDscale is the display scale numeric_send writes for Infinity
// and -Infinity.
const numericInfDscale = 0x20

// numericDscaleMask is PostgreSQL's NUMERIC_DSCALE_MASK: the largest display
// scale the binary format may carry.
const numericDscaleMask = 0x3FFF

// numericBase is the base of the binary format's digits (NBASE).
const numericBase = 10000

// appendNumeric appends d in PostgreSQL's binary numeric format exactly as
// numeric_send writes it: base-10000 digits aligned on the decimal point,
// with leading and trailing zero digits stripped (zero has no digits and
// weight 0), and the display scale taken from the exponent, so that 1.50
// keeps its scale. pgtype's encoder keeps zero digits, which decodes to the
// same value but not to the same bytes.
func appendNumeric(buf []byte, d *apd.Decimal) ([]byte, error) {
	header := func(ndigits, weight, sign, dscale int) []byte {
		buf = binary.BigEndian.AppendUint16(buf, uint16(ndigits))
		buf = binary.BigEndian.AppendUint16(buf, uint16(int16(weight)))
		buf = binary.BigEndian.AppendUint16(buf, uint16(sign))
		return binary.BigEndian.AppendUint16(buf, uint16(dscale))
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return header(0, 0, numericNaN, 0), nil
	case apd.Infinite:
		// numeric_send takes the display scale of an infinity from its
		// special header word, whose bits read as 32.
		if d.Negative {
			return header(0, 0, numericNegInf, numericInfDscale), nil
		}
		return header(0, 0, numericPosInf, numericInfDscale), nil
	}
	coeff := d.Coeff.String() // decimal digits of |d| without exponent
	exp := int(d.Exponent)
	dscale := 0
	if exp < 0 {
		dscale = -exp
	}
	if dscale > math.MaxInt16 || exp > 4*math.MaxInt16 {
		return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "numeric value with exponent %d cannot be sent", exp)
	}
	var intPart, fracPart string
	switch {
	case exp >= 0:
		intPart = coeff + strings.Repeat("0", exp)
	case len(coeff) > -exp:
		intPart, fracPart = coeff[:len(coeff)+exp], coeff[len(coeff)+exp:]
	default:
		fracPart = strings.Repeat("0", -exp-len(coeff)) + coeff
	}
	if pad := len(intPart) % 4; pad != 0 {
		intPart = strings.Repeat("0", 4-pad) + intPart
	}
	if pad := len(fracPart) % 4; pad != 0 {
		fracPart += strings.Repeat("0", 4-pad)
	}
	all := intPart + fracPart
	digits := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		var v uint16
		for _, c := range all[i : i+4] {
			v = v*10 + uint16(c-'0')
		}
		digits = append(digits, v)
	}
	weight := len(intPart)/4 - 1
	for len(digits) > 0 && digits[0] == 0 {
		digits = digits[1:]
		weight--
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	sign := numericPos
	if len(digits) == 0 {
		weight = 0
	} else if d.Negative {
		sign = numericNeg
	}
	if weight > math.MaxInt16 || weight < math.MinInt16 || len(digits) > math.MaxUint16 {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "numeric value out of range for the binary format")
	}
	buf = header(len(digits), weight, sign, dscale)
	for _, v := range digits {
		buf = binary.BigEndian.AppendUint16(buf, v)
	}
	return buf, nil
}

// decodeNumeric reads PostgreSQL's binary numeric as numeric_recv does: the
// sign, the display scale and every base-10000 digit are checked (a digit
// of 10000 or more is refused, not carried into the next one), digits the
// display scale hides are truncated, and a finite result carries exactly
// that scale, so that 0.00 and 1.50 keep theirs.
func decodeNumeric(src []byte) (any, error) {
	if len(src) < 8 {
		return nil, invalidBinary(pgtype.NumericOID, fmt.Sprintf("unexpected length %d", len(src)))
	}
	ndigits := int(binary.BigEndian.Uint16(src))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	dscale := int(binary.BigEndian.Uint16(src[6:]))
	if len(src) != 8+2*ndigits {
		return nil, invalidBinary(pgtype.NumericOID, fmt.Sprintf("%d digits in %d bytes", ndigits, len(src)))
	}
	switch sign {
	case numericPos, numericNeg, numericNaN, numericPosInf, numericNegInf:
	default:
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, `invalid sign in external "numeric" value`)
	}
	if dscale&numericDscaleMask != dscale {
		return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, `invalid scale in external "numeric" value`)
	}
	// The decimal digits of the value, which is 0.digits times 10^point.
	digits := make([]byte, 0, 4*ndigits)
	for i := range ndigits {
		d := binary.BigEndian.Uint16(src[8+2*i:])
		if d >= numericBase {
			return nil, pgerror.New(pgerror.InvalidBinaryRepresentation, `invalid digit in external "numeric" value`)
		}
		digits = append(digits, byte('0'+d/1000), byte('0'+d/100%10), byte('0'+d/10%10), byte('0'+d%10))
	}
	switch sign {
	case numericNaN:
		return &apd.Decimal{Form: apd.NaN}, nil
	case numericPosInf:
		return &apd.Decimal{Form: apd.Infinite}, nil
	case numericNegInf:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	}
	point := 4 * (weight + 1)
	// The coefficient is the value times 10^dscale, truncated: the digits
	// before position point+dscale, with zeros past the last one.
	n := max(point+dscale, 0)
	coeff := make([]byte, 0, n+1)
	coeff = append(coeff, '0')
	coeff = append(coeff, digits[:min(n, len(digits))]...)
	for len(coeff) < n+1 {
		coeff = append(coeff, '0')
	}
	d := &apd.Decimal{Exponent: int32(-dscale)}
	if _, ok := d.Coeff.SetString(string(coeff), 10); !ok {
		return nil, pgerror.Newf(pgerror.InternalError, "numeric coefficient %q", coeff)
	}
	d.Negative = sign == numericNeg && d.Coeff.Sign() != 0
	return d, nil
}
