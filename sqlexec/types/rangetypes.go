package types

import (
	"strings"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The built-in range types, as PostgreSQL's rangetypes.c defines them: a
// range is empty or has a lower and an upper bound, each either infinite
// or a value of the subtype that the range includes or not. Ranges of the
// discrete subtypes (int4, int8, date) are kept canonical, [lower,upper).
const (
	OidInt4Range Oid = 3904
	OidNumRange  Oid = 3906
	OidTsRange   Oid = 3908
	OidTstzRange Oid = 3910
	OidDateRange Oid = 3912
	OidInt8Range Oid = 3926
)

// CategoryRange is pg_type.typcategory of the range types.
const CategoryRange Category = 'R'

// Range is a range datum. Lower and Upper hold subtype datums and are nil
// when the bound is infinite or the range is empty; an infinite bound is
// never inclusive, and an empty range has every other field zero.
type Range struct {
	Lower, Upper       any
	LowerInc, UpperInc bool
	LowerInf, UpperInf bool
	Empty              bool
}

// rangeSubtypes maps each range type to its subtype (pg_range.rngsubtype).
var rangeSubtypes = map[Oid]Oid{
	OidInt4Range: OidInt4,
	OidNumRange:  OidNumeric,
	OidTsRange:   OidTimestamp,
	OidTstzRange: OidTimestamptz,
	OidDateRange: OidDate,
	OidInt8Range: OidInt8,
}

// RangeSubtype returns the subtype of a range type; ok is false for other
// types.
func (t Type) RangeSubtype() (Type, bool) {
	if sub, ok := rangeSubtypes[t.Oid]; ok {
		return Type{sub, -1}, true
	}
	if r, ok := userRangeOf(t.Oid); ok && r.oid == t.Oid {
		return r.sub, true
	}
	return Type{}, false
}

// IsRange reports whether t is one of the built-in range types.
func (t Type) IsRange() bool {
	_, ok := t.RangeSubtype()
	return ok
}

// rangeBound is one bound of a range while it is built or compared, as
// PostgreSQL's RangeBound: lower tells which end it is.
type rangeBound struct {
	val       any
	infinite  bool
	inclusive bool
	lower     bool
}

// bounds returns the two bounds of a non-empty range.
func (r Range) bounds() (lower, upper rangeBound) {
	return rangeBound{r.Lower, r.LowerInf, r.LowerInc, true}, rangeBound{r.Upper, r.UpperInf, r.UpperInc, false}
}

// cmpRangeBoundValues compares the values of two bounds, infinite ones
// below or above every value by the end they are, ignoring inclusivity
// (range_cmp_bound_values).
func cmpRangeBoundValues(sub Type, a, b rangeBound) int {
	switch {
	case a.infinite && b.infinite:
		if a.lower == b.lower {
			return 0
		}
		return boundSide(a.lower)
	case a.infinite:
		return boundSide(a.lower)
	case b.infinite:
		return -boundSide(b.lower)
	}
	return compare(sub, a.val, b.val)
}

// boundSide is -1 for a lower infinite bound (below everything) and 1 for
// an upper one.
func boundSide(lower bool) int {
	if lower {
		return -1
	}
	return 1
}

// cmpRangeBounds orders two bounds as points on the line: an exclusive
// lower bound lies just above its value, an exclusive upper bound just
// below (range_cmp_bounds).
func cmpRangeBounds(sub Type, a, b rangeBound) int {
	c := cmpRangeBoundValues(sub, a, b)
	if c != 0 || a.infinite || b.infinite {
		return c
	}
	switch {
	case !a.inclusive && !b.inclusive:
		if a.lower == b.lower {
			return 0
		}
		return -boundSide(a.lower)
	case !a.inclusive:
		return -boundSide(a.lower)
	case !b.inclusive:
		return boundSide(b.lower)
	}
	return 0
}

// makeRange builds the range of two bounds as make_range does: 22000 when
// lower is above upper, empty when they meet without both being
// inclusive, canonical for the discrete subtypes.
func makeRange(t Type, lower, upper rangeBound) (Range, error) {
	sub, _ := t.RangeSubtype()
	r, err := serializeRange(sub, lower, upper)
	if err != nil || r.Empty {
		return r, err
	}
	return canonicalRange(t, r)
}

// serializeRange checks the bounds and folds them into a Range
// (range_serialize).
func serializeRange(sub Type, lower, upper rangeBound) (Range, error) {
	c := cmpRangeBoundValues(sub, lower, upper)
	if c > 0 {
		return Range{}, pgerror.New(pgerror.DataException, "range lower bound must be less than or equal to range upper bound")
	}
	if c == 0 && !(lower.inclusive && upper.inclusive) {
		return Range{Empty: true}, nil
	}
	r := Range{LowerInf: lower.infinite, UpperInf: upper.infinite}
	if !lower.infinite {
		r.Lower, r.LowerInc = lower.val, lower.inclusive
	}
	if !upper.infinite {
		r.Upper, r.UpperInc = upper.val, upper.inclusive
	}
	return r, nil
}

// canonicalRange turns the bounds of a discrete range into [lower,upper),
// as int4range_canonical, int8range_canonical and daterange_canonical do;
// the other ranges are returned as they are.
func canonicalRange(t Type, r Range) (Range, error) {
	var next func(v any) (any, error)
	switch t.Oid {
	case OidInt4Range:
		next = func(v any) (any, error) {
			if v.(int64) == 1<<31-1 {
				return nil, pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
			}
			return v.(int64) + 1, nil
		}
	case OidInt8Range:
		next = func(v any) (any, error) {
			if v.(int64) == 1<<63-1 {
				return nil, pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
			}
			return v.(int64) + 1, nil
		}
	case OidDateRange:
		next = func(v any) (any, error) {
			d := v.(time.Time)
			if d.Equal(InfinityTime) || d.Equal(NegInfinityTime) {
				return d, nil
			}
			return d.AddDate(0, 0, 1), nil
		}
	default:
		return r, nil
	}
	lower, upper := r.bounds()
	var err error
	if !lower.infinite && !lower.inclusive {
		if lower.val, err = next(lower.val); err != nil {
			return Range{}, err
		}
		lower.inclusive = !isInfiniteDate(t, lower.val)
	}
	if !upper.infinite && upper.inclusive {
		if upper.val, err = next(upper.val); err != nil {
			return Range{}, err
		}
		upper.inclusive = isInfiniteDate(t, upper.val)
	}
	sub, _ := t.RangeSubtype()
	return serializeRange(sub, lower, upper)
}

// isInfiniteDate reports whether v is date 'infinity' or '-infinity' in a
// daterange, whose bounds daterange_canonical leaves as they are.
func isInfiniteDate(t Type, v any) bool {
	if t.Oid != OidDateRange {
		return false
	}
	d := v.(time.Time)
	return d.Equal(InfinityTime) || d.Equal(NegInfinityTime)
}

// compareRanges is range_cmp, the btree order: empty first, then by lower
// bound, then by upper bound.
func compareRanges(t Type, a, b Range) int {
	switch {
	case a.Empty && b.Empty:
		return 0
	case a.Empty:
		return -1
	case b.Empty:
		return 1
	}
	sub, _ := t.RangeSubtype()
	al, au := a.bounds()
	bl, bu := b.bounds()
	if c := cmpRangeBounds(sub, al, bl); c != 0 {
		return c
	}
	return cmpRangeBounds(sub, au, bu)
}

// malformedRange is range_in's 22P02 with its detail.
func malformedRange(s, detail string) error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed range literal: \"%s\"", s).WithDetail("%s", detail)
}

// isRangeSpace is isspace in the C locale.
func isRangeSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseRange reads a range's text form as range_in does: "empty" or a
// bracket, two bounds (empty for infinite, double quotes and backslashes
// as in arrays) and a closing bracket, each bound read by the subtype's
// input function.
func parseRange(env *Env, t Type, s string) (any, error) {
	sub, _ := t.RangeSubtype()
	i := 0
	for i < len(s) && isRangeSpace(s[i]) {
		i++
	}
	if len(s)-i >= 5 && strings.EqualFold(s[i:i+5], "empty") {
		i += 5
		for i < len(s) && isRangeSpace(s[i]) {
			i++
		}
		if i != len(s) {
			return nil, malformedRange(s, `Junk after "empty" key word.`)
		}
		return Range{Empty: true}, nil
	}
	lower, upper := rangeBound{lower: true}, rangeBound{}
	switch {
	case i < len(s) && s[i] == '[':
		lower.inclusive = true
	case i < len(s) && s[i] == '(':
	default:
		return nil, malformedRange(s, "Missing left parenthesis or bracket.")
	}
	i++
	lowerText, i, err := parseRangeBound(s, i, &lower)
	if err != nil {
		return nil, err
	}
	if i >= len(s) || s[i] != ',' {
		return nil, malformedRange(s, "Missing comma after lower bound.")
	}
	upperText, i, err := parseRangeBound(s, i+1, &upper)
	if err != nil {
		return nil, err
	}
	switch s[i] {
	case ']':
		upper.inclusive = true
	case ')':
	default:
		return nil, malformedRange(s, "Too many commas.")
	}
	for i++; i < len(s) && isRangeSpace(s[i]); i++ {
	}
	if i != len(s) {
		return nil, malformedRange(s, "Junk after right parenthesis or bracket.")
	}
	if !lower.infinite {
		if lower.val, err = parseText(env, sub, lowerText); err != nil {
			return nil, err
		}
	}
	if !upper.infinite {
		if upper.val, err = parseText(env, sub, upperText); err != nil {
			return nil, err
		}
	}
	return makeRange(t, lower, upper)
}

// parseRangeBound reads one bound from s[i:] up to the comma or closing
// bracket outside quotes (range_parse_bound); nothing at all is an
// infinite bound.
func parseRangeBound(s string, i int, b *rangeBound) (string, int, error) {
	if i < len(s) && (s[i] == ',' || s[i] == ')' || s[i] == ']') {
		b.infinite = true
		return "", i, nil
	}
	var text strings.Builder
	inQuote := false
	for {
		if i >= len(s) {
			return "", i, malformedRange(s, "Unexpected end of input.")
		}
		c := s[i]
		if !inQuote && (c == ',' || c == ')' || c == ']') {
			return text.String(), i, nil
		}
		i++
		switch {
		case c == '\\':
			if i >= len(s) {
				return "", i, malformedRange(s, "Unexpected end of input.")
			}
			text.WriteByte(s[i])
			i++
		case c == '"' && !inQuote:
			inQuote = true
		case c == '"' && i < len(s) && s[i] == '"':
			text.WriteByte('"')
			i++
		case c == '"':
			inQuote = false
		default:
			text.WriteByte(c)
		}
	}
}

// formatRange is range_out: "empty", or the brackets around the bounds'
// text, quoted where range input would misread them.
func formatRange(env *Env, t Type, r Range) string {
	if r.Empty {
		return "empty"
	}
	sub, _ := t.RangeSubtype()
	var b strings.Builder
	if r.LowerInc {
		b.WriteByte('[')
	} else {
		b.WriteByte('(')
	}
	if !r.LowerInf {
		writeRangeBound(&b, formatText(env, sub, r.Lower))
	}
	b.WriteByte(',')
	if !r.UpperInf {
		writeRangeBound(&b, formatText(env, sub, r.Upper))
	}
	if r.UpperInc {
		b.WriteByte(']')
	} else {
		b.WriteByte(')')
	}
	return b.String()
}

// writeRangeBound writes a bound's text, in double quotes when it is empty
// or holds a quote, backslash, bracket, comma or space, doubling quotes
// and backslashes (range_bound_escape).
func writeRangeBound(b *strings.Builder, s string) {
	quote := s == "" || strings.ContainsAny(s, "\"\\()[],") || strings.IndexFunc(s, func(r rune) bool {
		return r < 0x80 && isRangeSpace(byte(r))
	}) >= 0
	if quote {
		b.WriteByte('"')
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte(s[i])
		}
		b.WriteByte(s[i])
	}
	if quote {
		b.WriteByte('"')
	}
}

// Range keys: an empty range sorts first; a non-empty one is its lower
// bound (infinite first, then the value and whether it is exclusive) and
// its upper bound (the value and whether it is inclusive, infinite last),
// which is range_cmp's order.
const (
	keyRangeEmpty    = 0x00
	keyRangeNonEmpty = 0x01
	keyBoundNegInf   = 0x00
	keyBoundValue    = 0x01
	keyBoundPosInf   = 0x02
)

// appendKeyRange appends the order-preserving key of a range.
func appendKeyRange(buf []byte, t Type, r Range) []byte {
	if r.Empty {
		return append(buf, keyRangeEmpty)
	}
	sub, _ := t.RangeSubtype()
	buf = append(buf, keyRangeNonEmpty)
	if r.LowerInf {
		buf = append(buf, keyBoundNegInf)
	} else {
		buf = appendKey(append(buf, keyBoundValue), sub, r.Lower)
		buf = append(buf, boolByte(!r.LowerInc))
	}
	if r.UpperInf {
		return append(buf, keyBoundPosInf)
	}
	buf = appendKey(append(buf, keyBoundValue), sub, r.Upper)
	return append(buf, boolByte(r.UpperInc))
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// decodeKeyRange reads back a key appendKeyRange wrote.
func decodeKeyRange(t Type, buf []byte) (any, []byte, error) {
	if len(buf) == 0 {
		return nil, nil, errBadKey
	}
	if buf[0] == keyRangeEmpty {
		return Range{Empty: true}, buf[1:], nil
	}
	sub, _ := t.RangeSubtype()
	var r Range
	buf = buf[1:]
	if len(buf) == 0 {
		return nil, nil, errBadKey
	}
	if buf[0] == keyBoundNegInf {
		r.LowerInf, buf = true, buf[1:]
	} else {
		v, rest, err := decodeKey(sub, buf[1:])
		if err != nil || len(rest) == 0 {
			return nil, nil, errBadKey
		}
		r.Lower, r.LowerInc, buf = v, rest[0] == 0, rest[1:]
	}
	if len(buf) == 0 {
		return nil, nil, errBadKey
	}
	if buf[0] == keyBoundPosInf {
		r.UpperInf = true
		return r, buf[1:], nil
	}
	v, rest, err := decodeKey(sub, buf[1:])
	if err != nil || len(rest) == 0 {
		return nil, nil, errBadKey
	}
	r.Upper, r.UpperInc = v, rest[0] == 1
	return r, rest[1:], nil
}

// MakeRange checks the bounds of r and returns it as range type t stores
// it: 22000 when the lower bound is above the upper, empty when they meet
// without both being inclusive, canonical for the discrete subtypes, as
// range_recv builds a range from its binary form.
func MakeRange(t Type, r Range) (Range, error) {
	if r.Empty {
		return Range{Empty: true}, nil
	}
	lower, upper := r.bounds()
	return makeRange(t, lower, upper)
}
