package types

import (
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The multirange types PostgreSQL 14 added, as multirangetypes.c defines
// them: a multirange is a sorted list of non-empty, non-overlapping and
// non-adjacent ranges of its range type, which every constructor, input
// and operator keeps canonical (make_multirange).
const (
	OidInt4Multirange Oid = 4451
	OidNumMultirange  Oid = 4532
	OidTsMultirange   Oid = 4533
	OidTstzMultirange Oid = 4534
	OidDateMultirange Oid = 4535
	OidInt8Multirange Oid = 4536
)

// Multirange is a multirange datum: its ranges in order, none empty, no
// two overlapping or adjacent.
type Multirange struct {
	Ranges []Range
}

// multirangeRanges maps each multirange type to its range type, and
// rangeMultiranges the other way (pg_range.rngmultitypid).
var (
	multirangeRanges = map[Oid]Oid{
		OidInt4Multirange: OidInt4Range,
		OidNumMultirange:  OidNumRange,
		OidTsMultirange:   OidTsRange,
		OidTstzMultirange: OidTstzRange,
		OidDateMultirange: OidDateRange,
		OidInt8Multirange: OidInt8Range,
	}
	rangeMultiranges = map[Oid]Oid{}
)

func init() {
	for mr, r := range multirangeRanges {
		rangeMultiranges[r] = mr
	}
}

// MultirangeRange returns the range type of a multirange type; ok is false
// for other types.
func (t Type) MultirangeRange() (Type, bool) {
	if r, ok := multirangeRanges[t.Oid]; ok {
		return Type{r, -1}, true
	}
	if r, ok := userRangeOf(t.Oid); ok && r.multi == t.Oid {
		return Type{r.oid, -1}, true
	}
	return Type{}, false
}

// IsMultirange reports whether t is one of the multirange types.
func (t Type) IsMultirange() bool {
	_, ok := t.MultirangeRange()
	return ok
}

// RangeMultirange returns the multirange type over range type t; ok is
// false when t is not a range type.
func (t Type) RangeMultirange() (Type, bool) {
	if mr, ok := rangeMultiranges[t.Oid]; ok {
		return Type{mr, -1}, true
	}
	if r, ok := userRangeOf(t.Oid); ok && r.oid == t.Oid {
		return Type{r.multi, -1}, true
	}
	return Type{}, false
}

// makeMultirange sorts and merges ranges of range type rt into the
// canonical multirange (multirange_canonicalize): empty ranges are
// dropped, overlapping and adjacent ones merged.
func makeMultirange(rt Type, ranges []Range) (Multirange, error) {
	sorted := slices.Clone(ranges)
	slices.SortStableFunc(sorted, func(a, b Range) int { return compareRanges(rt, a, b) })
	sub, _ := rt.RangeSubtype()
	out := make([]Range, 0, len(sorted))
	for _, cur := range sorted {
		if cur.Empty {
			continue
		}
		if len(out) == 0 {
			out = append(out, cur)
			continue
		}
		last := out[len(out)-1]
		if rangeBefore(sub, last, cur) && !rangeAdjacent(rt, last, cur) {
			out = append(out, cur)
			continue
		}
		u, err := rangeUnion(rt, last, cur, false)
		if err != nil {
			return Multirange{}, err
		}
		out[len(out)-1] = u.(Range)
	}
	return Multirange{Ranges: out}, nil
}

// MakeMultirange returns the canonical multirange of type t holding
// ranges, as multirange_recv builds one from its binary form.
func MakeMultirange(t Type, ranges []Range) (Multirange, error) {
	rt, _ := t.MultirangeRange()
	for i, r := range ranges {
		c, err := MakeRange(rt, r)
		if err != nil {
			return Multirange{}, err
		}
		ranges[i] = c
	}
	return makeMultirange(rt, ranges)
}

// malformedMultirange is multirange_in's 22P02 with its detail.
func malformedMultirange(s, detail string) error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed multirange literal: \"%s\"", s).WithDetail("%s", detail)
}

// The states of multirange_in's parser.
const (
	mrBeforeRange = iota
	mrInRange
	mrInRangeEscaped
	mrInRangeQuoted
	mrInRangeQuotedEscaped
	mrAfterRange
	mrFinished
)

// parseMultirange reads a multirange's text form as multirange_in does:
// braces around zero or more ranges or "empty" separated by commas,
// whitespace allowed anywhere between them; each range's text, found by
// following its quotes and backslashes, is read by range_in.
func parseMultirange(env *Env, t Type, s string) (any, error) {
	rt, _ := t.MultirangeRange()
	i := 0
	for i < len(s) && isRangeSpace(s[i]) {
		i++
	}
	if i >= len(s) || s[i] != '{' {
		return nil, malformedMultirange(s, "Missing left brace.")
	}
	i++
	var ranges []Range
	seen, begin := 0, 0
	for state := mrBeforeRange; state != mrFinished; i++ {
		if i >= len(s) {
			return nil, malformedMultirange(s, "Unexpected end of input.")
		}
		ch := s[i]
		if isRangeSpace(ch) {
			continue
		}
		switch state {
		case mrBeforeRange:
			switch {
			case ch == '[' || ch == '(':
				begin, state = i, mrInRange
			case ch == '}' && seen == 0:
				state = mrFinished
			case len(s)-i >= 5 && strings.EqualFold(s[i:i+5], "empty"):
				seen++
				i += 4
				state = mrAfterRange
			default:
				return nil, malformedMultirange(s, "Expected range start.")
			}
		case mrInRange:
			switch ch {
			case ']', ')':
				seen++
				r, err := parseRange(env, rt, s[begin:i+1])
				if err != nil {
					return nil, err
				}
				ranges = append(ranges, r.(Range))
				state = mrAfterRange
			case '"':
				state = mrInRangeQuoted
			case '\\':
				state = mrInRangeEscaped
			}
		case mrInRangeEscaped:
			state = mrInRange
		case mrInRangeQuoted:
			switch {
			case ch == '"' && i+1 < len(s) && s[i+1] == '"':
				i++
			case ch == '"':
				state = mrInRange
			case ch == '\\':
				state = mrInRangeQuotedEscaped
			}
		case mrInRangeQuotedEscaped:
			state = mrInRangeQuoted
		case mrAfterRange:
			switch ch {
			case ',':
				state = mrBeforeRange
			case '}':
				state = mrFinished
			default:
				return nil, malformedMultirange(s, "Expected comma or end of multirange.")
			}
		}
	}
	for i < len(s) && isRangeSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return nil, malformedMultirange(s, "Junk after closing right brace.")
	}
	return makeMultirange(rt, ranges)
}

// formatMultirange is multirange_out: the ranges' text in braces.
func formatMultirange(env *Env, t Type, m Multirange) string {
	rt, _ := t.MultirangeRange()
	var b strings.Builder
	b.WriteByte('{')
	for i, r := range m.Ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(formatRange(env, rt, r))
	}
	b.WriteByte('}')
	return b.String()
}

// compareMultiranges is multirange_cmp, the btree order: range by range,
// a multirange that runs out first sorting first.
func compareMultiranges(t Type, a, b Multirange) int {
	rt, _ := t.MultirangeRange()
	for i := 0; i < len(a.Ranges) && i < len(b.Ranges); i++ {
		if c := compareRanges(rt, a.Ranges[i], b.Ranges[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.Ranges) < len(b.Ranges):
		return -1
	case len(a.Ranges) > len(b.Ranges):
		return 1
	}
	return 0
}

// Multirange keys: the keys of its ranges, each starting with
// keyRangeNonEmpty as no range in a multirange is empty, then
// keyMultirangeEnd, which sorts a multirange before those it is a prefix
// of, as multirange_cmp does.
const keyMultirangeEnd = 0x00

// appendKeyMultirange appends the order-preserving key of a multirange.
func appendKeyMultirange(buf []byte, t Type, m Multirange) []byte {
	rt, _ := t.MultirangeRange()
	for _, r := range m.Ranges {
		buf = appendKeyRange(buf, rt, r)
	}
	return append(buf, keyMultirangeEnd)
}

// decodeKeyMultirange reads back a key appendKeyMultirange wrote.
func decodeKeyMultirange(t Type, buf []byte) (any, []byte, error) {
	rt, _ := t.MultirangeRange()
	var m Multirange
	for {
		if len(buf) == 0 {
			return nil, nil, errBadKey
		}
		if buf[0] == keyMultirangeEnd {
			return m, buf[1:], nil
		}
		r, rest, err := decodeKeyRange(rt, buf)
		if err != nil {
			return nil, nil, err
		}
		m.Ranges = append(m.Ranges, r.(Range))
		buf = rest
	}
}
