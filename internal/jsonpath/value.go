package jsonpath

import (
	"github.com/cockroachdb/apd/v3"
)

// ValueKind is the kind of a JSON value.
type ValueKind uint8

const (
	Null ValueKind = iota
	String
	Numeric
	Bool
	Array
	Object
	// Datetime is a date or time that .datetime() made: no jsonb holds
	// one, and it prints as a string.
	Datetime
)

// Value is a jsonb value as the evaluator sees it: objects keep their keys
// in jsonb's order (shorter first, then bytewise) without duplicates.
type Value struct {
	Kind  ValueKind
	Str   string
	Num   *apd.Decimal
	Bool  bool
	Elems []*Value
	Keys  []string
	Vals  []*Value
	// TypeName and Datum are a Datetime's SQL type (as .type() names it)
	// and the host's representation of its value.
	TypeName string
	Datum    any
}

// field returns the value of key in object v, or nil.
func (v *Value) field(key string) *Value {
	for i, k := range v.Keys {
		if k == key {
			return v.Vals[i]
		}
	}
	return nil
}

// typeName is the .type() of v.
func (v *Value) typeName() string {
	if v.Kind == Datetime {
		return v.TypeName
	}
	return [...]string{"null", "string", "number", "boolean", "array", "object"}[v.Kind]
}

// keyLess is jsonb's order of object keys.
func keyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// containerOffsets returns where each array and object inside root starts
// in PostgreSQL's binary jsonb layout, counted from root's own start. The
// ids that .keyvalue() gives its objects are these offsets, so they have to
// be computed as PostgreSQL lays the value out: a 4-byte header and a
// 4-byte entry per element (two per pair) before the data, object keys
// before their values, containers and numerics aligned to 4 bytes.
func containerOffsets(root *Value) map[*Value]int64 {
	offs := map[*Value]int64{}
	var value func(v *Value, pos int64) int64
	container := func(v *Value, pos int64) int64 {
		pos = align4(pos)
		offs[v] = pos
		if v.Kind == Array {
			pos += 4 + 4*int64(len(v.Elems))
			for _, e := range v.Elems {
				pos = value(e, pos)
			}
			return pos
		}
		pos += 4 + 8*int64(len(v.Keys))
		for _, k := range v.Keys {
			pos += int64(len(k))
		}
		for _, e := range v.Vals {
			pos = value(e, pos)
		}
		return pos
	}
	value = func(v *Value, pos int64) int64 {
		switch v.Kind {
		case String:
			return pos + int64(len(v.Str))
		case Numeric:
			return align4(pos) + numericSize(v.Num)
		case Array, Object:
			return container(v, pos)
		}
		return pos
	}
	if root != nil && (root.Kind == Array || root.Kind == Object) {
		container(root, 0)
	}
	return offs
}

func align4(n int64) int64 { return (n + 3) &^ 3 }

// numericSize is the size of PostgreSQL's numeric datum for d: a 4-byte
// length word, a 2-byte header (4 bytes when the scale or the weight do not
// fit the short form) and a 2-byte digit per non-zero-trimmed base-10000
// digit.
func numericSize(d *apd.Decimal) int64 {
	dscale := max(0, -int64(d.Exponent))
	coeff := d.Coeff.String()
	if d.Coeff.Sign() == 0 {
		return 4 + 2
	}
	// Powers of ten of the highest and lowest non-zero decimal digits.
	hi := int64(len(coeff)) - 1 + int64(d.Exponent)
	trail := int64(0)
	for i := len(coeff) - 1; i >= 0 && coeff[i] == '0'; i-- {
		trail++
	}
	lo := int64(d.Exponent) + trail
	group := func(p int64) int64 {
		if p >= 0 {
			return p / 4
		}
		return -((-p + 3) / 4)
	}
	weight := group(hi)
	ndigits := weight - group(lo) + 1
	header := int64(2)
	if dscale > 63 || weight > 63 || weight < -64 {
		header = 4
	}
	return 4 + header + 2*ndigits
}
