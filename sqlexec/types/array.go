package types

import (
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Arrays. An array datum is []any holding the element datums (nil for a NULL
// element), the representation wire's binary codec shares. fickle keeps
// arrays one-dimensional with lower bound 1, as every array a driver sends
// and ARRAY[...] builds is: multi-dimensional literals and explicit lower
// bounds other than 1 answer 0A000 rather than a different value. An array
// type's typmod is its element's (varchar(10)[] keeps 14), as in PostgreSQL.

// CategoryArray is the category of every array type.
const CategoryArray Category = 'A'

// arrayTypes lists PostgreSQL 15's array type OIDs of the element types
// fickle knows: pg_type.typarray of each element.
var arrayTypes = map[Oid]Oid{
	OidBool:         1000,
	OidBytea:        1001,
	OidChar:         1002,
	OidName:         1003,
	OidInt2:         1005,
	OidInt4:         1007,
	OidText:         1009,
	OidBpchar:       1014,
	OidVarchar:      1015,
	OidInt8:         1016,
	OidFloat4:       1021,
	OidFloat8:       1022,
	OidOid:          1028,
	OidTimestamp:    1115,
	OidDate:         1182,
	OidTimestamptz:  1185,
	OidInterval:     1187,
	OidNumeric:      1231,
	OidRegclass:     2210,
	OidRegproc:      1008,
	OidRegprocedure: 2207,
	OidRegoper:      2208,
	OidRegoperator:  2209,
	OidRegtype:      2211,
	OidRegnamespace: 4090,
	OidRegrole:      4097,
	OidUUID:         2951,
	OidJSON:         199,
	OidJSONB:        3807,
}

// arrayElems maps an array type OID to its element type OID (typelem).
var arrayElems = map[Oid]Oid{}

func init() {
	for elem, arr := range arrayTypes {
		arrayElems[arr] = elem
		ti := typeInfos[elem]
		typeInfos[arr] = typeInfo{name: "_" + ti.name, sqlName: ti.sqlName + "[]", size: -1, category: CategoryArray}
	}
}

// ArrayOf returns the array type whose elements are of type elem (int4 ->
// int4[], varchar(10) -> varchar(10)[]); ok is false when elem has no array
// type (arrays of arrays are arrays of the element).
func ArrayOf(elem Type) (Type, bool) {
	if _, isArray := arrayElems[elem.Oid]; isArray {
		return elem, true
	}
	arr, ok := arrayTypes[elem.Oid]
	if !ok {
		arr, ok = compositeArrayOf(elem.Oid)
	}
	if !ok {
		return Type{}, false
	}
	return Type{arr, elem.Typmod}, true
}

// Elem returns the element type of an array type, with the array's typmod;
// ok is false when t is not an array type.
func (t Type) Elem() (Type, bool) {
	e, ok := arrayElems[t.Oid]
	if !ok {
		e, ok = vectorElems[t.Oid]
	}
	if !ok {
		e, ok = compositeElemOf(t.Oid)
	}
	if !ok {
		return Type{}, false
	}
	return Type{e, t.Typmod}, true
}

// IsArray reports whether t is an array type (int2vector and oidvector
// included).
func (t Type) IsArray() bool {
	_, ok := t.Elem()
	return ok
}

// ArrayTypeOid returns pg_type.typarray of oid, the OID of the array type
// over it (0 when it has none), and ElemTypeOid pg_type.typelem (0 for
// non-arrays), for the catalog.
func ArrayTypeOid(oid Oid) Oid { return arrayTypes[oid] }

// ElemTypeOid returns pg_type.typelem of an array type OID, 0 for others.
func ElemTypeOid(oid Oid) Oid { return arrayElems[oid] }

// ArrayTypeOids returns the OIDs of every array type fickle knows.
func ArrayTypeOids() []Oid {
	out := make([]Oid, 0, len(arrayElems))
	for arr := range arrayElems {
		out = append(out, arr)
	}
	return out
}

// errMultiDim is the answer to arrays fickle does not represent.
func errMultiDim() error { return pgerror.Unsupported("multidimensional arrays") }

// malformedArray is array_in's 22P02 error.
func malformedArray(s, detail string) error {
	return pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed array literal: %q", s).WithDetail("%s", detail)
}

// arrayIsSpace is array_isspace: the white space array_in skips.
func arrayIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseArray is array_in for one-dimensional arrays: optional dimension
// decoration [1:n]=, then {elem,elem,...} with double quotes and
// backslash escapes; an unquoted NULL is a NULL element.
func parseArray(env *Env, t Type, s string) (any, error) {
	elem, _ := t.Elem()
	i := 0
	for i < len(s) && arrayIsSpace(s[i]) {
		i++
	}
	declared := -1
	if i < len(s) && s[i] == '[' {
		n, next, err := parseArrayDims(s, i)
		if err != nil {
			return nil, err
		}
		declared, i = n, next
	}
	if i >= len(s) || s[i] != '{' {
		return nil, malformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	i++
	var elems []any
	var texts []*string
	for {
		for i < len(s) && arrayIsSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, malformedArray(s, "Unexpected end of input.")
		}
		if s[i] == '}' && len(texts) == 0 {
			i++
			break
		}
		if s[i] == '{' {
			if len(texts) > 0 {
				return nil, malformedArray(s, `Unexpected "{" character.`)
			}
			return nil, errMultiDim()
		}
		text, quoted, next, err := scanArrayElem(s, i)
		if err != nil {
			return nil, err
		}
		i = next
		if !quoted && strings.EqualFold(text, "NULL") {
			texts = append(texts, nil)
		} else {
			texts = append(texts, &text)
		}
		for i < len(s) && arrayIsSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, malformedArray(s, "Unexpected end of input.")
		}
		if s[i] == ',' {
			i++
			continue
		}
		if s[i] == '}' {
			i++
			break
		}
		return nil, malformedArray(s, "Unexpected array element.")
	}
	for ; i < len(s); i++ {
		if !arrayIsSpace(s[i]) {
			return nil, malformedArray(s, "Junk after closing right brace.")
		}
	}
	if declared >= 0 && declared != len(texts) {
		return nil, malformedArray(s, "Specified array dimensions do not match array contents.")
	}
	elems = make([]any, len(texts))
	for k, text := range texts {
		if text == nil {
			continue
		}
		v, err := parseText(env, elem, *text)
		if err != nil {
			return nil, err
		}
		elems[k] = v
	}
	return elems, nil
}

// parseArrayDims reads a dimension decoration [lo:hi]= (or [hi]=) at s[i];
// only one dimension with lower bound 1 is representable.
func parseArrayDims(s string, i int) (n, next int, err error) {
	end := strings.IndexByte(s[i:], ']')
	if end < 0 {
		return 0, 0, malformedArray(s, `Missing "]" after array dimensions.`)
	}
	spec := s[i+1 : i+end]
	i += end + 1
	lo, hi := "1", spec
	if c := strings.IndexByte(spec, ':'); c >= 0 {
		lo, hi = spec[:c], spec[c+1:]
	}
	l, err1 := strconv.Atoi(strings.TrimSpace(lo))
	h, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil {
		return 0, 0, malformedArray(s, `"[" must introduce explicitly-specified array dimensions.`)
	}
	if i < len(s) && s[i] == '[' {
		return 0, 0, errMultiDim()
	}
	if h < l-1 {
		return 0, 0, pgerror.New(pgerror.InvalidParameterValue, "upper bound cannot be less than lower bound")
	}
	if l != 1 {
		return 0, 0, pgerror.Unsupported("array lower bounds other than 1")
	}
	if i >= len(s) || s[i] != '=' {
		return 0, 0, malformedArray(s, `Missing "=" after array dimensions.`)
	}
	return h, i + 1, nil
}

// scanArrayElem reads one element starting at s[i]: a double-quoted string
// or an unquoted run up to a delimiter, brace or (trailing) white space,
// with backslash escapes in both. It returns the element's text and the
// index after it.
func scanArrayElem(s string, i int) (text string, quoted bool, next int, err error) {
	var b strings.Builder
	if s[i] == '"' {
		for i++; ; i++ {
			if i >= len(s) {
				return "", false, 0, malformedArray(s, "Unexpected end of input.")
			}
			switch s[i] {
			case '\\':
				i++
				if i >= len(s) {
					return "", false, 0, malformedArray(s, "Unexpected end of input.")
				}
				b.WriteByte(s[i])
			case '"':
				return b.String(), true, i + 1, nil
			default:
				b.WriteByte(s[i])
			}
		}
	}
	// Unquoted: trailing unescaped white space is dropped.
	keep := 0
	escaped := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
			if i >= len(s) {
				return "", false, 0, malformedArray(s, "Unexpected end of input.")
			}
			b.WriteByte(s[i])
			keep = b.Len()
			escaped = true
			continue
		case c == ',' || c == '}':
		case c == '{':
			return "", false, 0, malformedArray(s, `Unexpected "{" character.`)
		case c == '"':
			return "", false, 0, malformedArray(s, "Unexpected array element.")
		default:
			b.WriteByte(c)
			if !arrayIsSpace(c) {
				keep = b.Len()
			}
			continue
		}
		break
	}
	out := b.String()[:keep]
	if out == "" && !escaped {
		return "", false, 0, malformedArray(s, "Unexpected array element.")
	}
	// An escaped element is never the NULL keyword.
	return out, escaped, i, nil
}

// formatArray is array_out: elements in their text form, double-quoted
// when empty, NULL-like or containing a delimiter, brace, quote, backslash
// or white space.
func formatArray(env *Env, t Type, elems []any) string {
	elem, _ := t.Elem()
	var b strings.Builder
	b.WriteByte('{')
	for k, e := range elems {
		if k > 0 {
			b.WriteByte(',')
		}
		if e == nil {
			b.WriteString("NULL")
			continue
		}
		appendArrayElemText(&b, formatText(env, elem, e))
	}
	b.WriteByte('}')
	return b.String()
}

func appendArrayElemText(b *strings.Builder, s string) {
	quote := s == "" || strings.EqualFold(s, "NULL")
	for k := 0; k < len(s) && !quote; k++ {
		c := s[k]
		quote = c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || arrayIsSpace(c)
	}
	if !quote {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for k := 0; k < len(s); k++ {
		if s[k] == '"' || s[k] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[k])
	}
	b.WriteByte('"')
}

// compareArrays is btarraycmp: element by element, NULL after every value,
// then the shorter array first.
func compareArrays(t Type, a, b []any) int {
	elem, _ := t.Elem()
	for k := 0; k < len(a) && k < len(b); k++ {
		x, y := a[k], b[k]
		switch {
		case x == nil && y == nil:
			continue
		case x == nil:
			return 1
		case y == nil:
			return -1
		}
		if c := compare(elem, x, y); c != 0 {
			return c
		}
	}
	return cmp3(len(a), len(b))
}

// mapArray applies fn to every non-NULL element.
func mapArray(fn EnvCastFunc) EnvCastFunc {
	return func(env *Env, v any) (any, error) {
		in := v.([]any)
		out := make([]any, len(in))
		for k, e := range in {
			if e == nil {
				continue
			}
			x, err := fn(env, e)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	}
}

// arrayCastPath is the array coercion between two array types: the
// element cast applied to each element, in the element cast's context.
func arrayCastPath(from, to Oid) (EnvCastFunc, CastContext, bool) {
	fe, fok := arrayElems[from]
	te, tok := arrayElems[to]
	if !fok || !tok {
		return nil, 0, false
	}
	fn, ctx, ok := castPath(fe, te)
	if !ok {
		return nil, 0, false
	}
	return mapArray(fn), ctx, true
}

// arrayTypmodCoercion applies the element typmod of an array type to each
// element (varchar(3)[]), or is nil when the element has no typmod.
func arrayTypmodCoercion(t Type, ctx CastContext) EnvCastFunc {
	elem, _ := t.Elem()
	fn := typmodCoercion(elem, ctx)
	if fn == nil {
		return nil
	}
	return mapArray(fn)
}

// Array key encoding: each element is a continuation byte followed by the
// element's key, and the array ends with a terminator that sorts below the
// continuation byte, so that a prefix orders before a longer array.
const (
	keyArrayEnd  = 0x00
	keyArrayMore = 0x01
)

func appendKeyArray(buf []byte, t Type, elems []any) []byte {
	elem, _ := t.Elem()
	for _, e := range elems {
		buf = append(buf, keyArrayMore)
		buf = appendKey(buf, elem, e)
	}
	return append(buf, keyArrayEnd)
}

func decodeKeyArray(t Type, buf []byte) (any, []byte, error) {
	elem, _ := t.Elem()
	out := []any{}
	for {
		if len(buf) == 0 {
			return nil, nil, errBadKey
		}
		if buf[0] == keyArrayEnd {
			return out, buf[1:], nil
		}
		if buf[0] != keyArrayMore {
			return nil, nil, errBadKey
		}
		v, rest, err := decodeKey(elem, buf[1:])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
		buf = rest
	}
}
