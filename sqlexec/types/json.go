package types

import (
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// jsonKind orders the kinds of JSON values as jsonb comparison does: null <
// string < number < boolean < array < object.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonString
	jsonNumber
	jsonBool
	jsonArray
	jsonObject
)

// jsonValue is a parsed JSON document. src is the value's text as written,
// which json (not jsonb) operators return.
type jsonValue struct {
	kind  jsonKind
	str   string       // jsonString
	num   *apd.Decimal // jsonNumber
	b     bool         // jsonBool
	elems []*jsonValue // jsonArray
	keys  []string     // jsonObject, with vals
	vals  []*jsonValue
	src   string
}

// jsonParser is a recursive-descent parser of RFC 8259 JSON with PostgreSQL's
// error messages.
type jsonParser struct {
	s     string
	i     int
	depth int
}

// maxJSONDepth bounds nesting, as PostgreSQL's stack depth check does.
const maxJSONDepth = 6400

func jsonSyntax(detail string, args ...any) error {
	return pgerror.New(pgerror.InvalidTextRepresentation, "invalid input syntax for type json").WithDetail(detail, args...)
}

// parseJSONText parses s as one JSON document.
func parseJSONText(s string) (*jsonValue, error) {
	if err := checkUTF8(s); err != nil {
		return nil, err
	}
	p := &jsonParser{s: s}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i < len(p.s) {
		return nil, jsonSyntax("Expected end of input, but found %q.", p.token())
	}
	return v, nil
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// token returns the text of the token at the cursor, for error messages.
func (p *jsonParser) token() string {
	if p.i >= len(p.s) {
		return ""
	}
	j := p.i
	if strings.ContainsRune("{}[],:", rune(p.s[j])) {
		return p.s[j : j+1]
	}
	for j < len(p.s) && !strings.ContainsRune("{}[],: \t\n\r", rune(p.s[j])) {
		j++
	}
	if j == p.i {
		j++
	}
	return p.s[p.i:j]
}

func (p *jsonParser) value() (*jsonValue, error) {
	p.ws()
	if p.i >= len(p.s) {
		return nil, jsonSyntax("The input string ended unexpectedly.")
	}
	start := p.i
	var v *jsonValue
	var err error
	switch c := p.s[p.i]; {
	case c == '{':
		v, err = p.object()
	case c == '[':
		v, err = p.array()
	case c == '"':
		var s string
		s, err = p.string()
		v = &jsonValue{kind: jsonString, str: s}
	case c == '-' || isDigit(c):
		v, err = p.number()
	default:
		switch tok := p.token(); tok {
		case "true", "false":
			v = &jsonValue{kind: jsonBool, b: tok == "true"}
			p.i += len(tok)
		case "null":
			v = &jsonValue{kind: jsonNull}
			p.i += len(tok)
		default:
			if strings.ContainsAny(tok, "{}[],:") {
				return nil, jsonSyntax("Expected JSON value, but found %q.", tok)
			}
			return nil, jsonSyntax("Token %q is invalid.", tok)
		}
	}
	if err != nil {
		return nil, err
	}
	v.src = p.s[start:p.i]
	return v, nil
}

func (p *jsonParser) object() (*jsonValue, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
	}
	defer func() { p.depth-- }()
	p.i++
	v := &jsonValue{kind: jsonObject}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		p.ws()
		if p.i >= len(p.s) {
			return nil, jsonSyntax("The input string ended unexpectedly.")
		}
		if p.s[p.i] != '"' {
			return nil, jsonSyntax("Expected string, but found %q.", p.token())
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) {
			return nil, jsonSyntax("The input string ended unexpectedly.")
		}
		if p.s[p.i] != ':' {
			return nil, jsonSyntax("Expected \":\", but found %q.", p.token())
		}
		p.i++
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		v.keys = append(v.keys, k)
		v.vals = append(v.vals, val)
		p.ws()
		if p.i >= len(p.s) {
			return nil, jsonSyntax("The input string ended unexpectedly.")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, nil
		default:
			return nil, jsonSyntax("Expected \",\" or \"}\", but found %q.", p.token())
		}
	}
}

func (p *jsonParser) array() (*jsonValue, error) {
	if p.depth++; p.depth > maxJSONDepth {
		return nil, pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
	}
	defer func() { p.depth-- }()
	p.i++
	v := &jsonValue{kind: jsonArray}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		e, err := p.value()
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
		p.ws()
		if p.i >= len(p.s) {
			return nil, jsonSyntax("The input string ended unexpectedly.")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return nil, jsonSyntax("Expected \",\" or \"]\", but found %q.", p.token())
		}
	}
}

// string reads a JSON string at the cursor and returns it unescaped.
func (p *jsonParser) string() (string, error) {
	p.i++
	var sb strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", jsonSyntax("The input string ended unexpectedly.")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c < 0x20:
			return "", jsonSyntax("Character with value 0x%02x must be escaped.", c)
		case c != '\\':
			sb.WriteByte(c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			return "", jsonSyntax("The input string ended unexpectedly.")
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || !strings.HasPrefix(p.s[p.i:], `\u`) {
					return "", jsonSyntax("Unicode low surrogate must follow a high surrogate.")
				}
				p.i += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", jsonSyntax("Unicode low surrogate must follow a high surrogate.")
				}
			}
			if r == 0 {
				return "", pgerror.New(pgerror.UntranslatableCharacter, "unsupported Unicode escape sequence").
					WithDetail(`\u0000 cannot be converted to text.`)
			}
			sb.WriteRune(r)
		default:
			return "", jsonSyntax("Escape sequence \"\\%c\" is invalid.", e)
		}
	}
}

func (p *jsonParser) hex4() (rune, error) {
	if p.i+4 > len(p.s) {
		return 0, jsonSyntax("\"\\u\" must be followed by four hexadecimal digits.")
	}
	var r rune
	for _, c := range []byte(p.s[p.i : p.i+4]) {
		d, ok := unhex(c)
		if !ok {
			return 0, jsonSyntax("\"\\u\" must be followed by four hexadecimal digits.")
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, nil
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonParser) number() (*jsonValue, error) {
	start := p.i
	j := p.i
	if p.s[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(p.s) && isDigit(p.s[j]) {
			j++
		}
		return j - k
	}
	ok := true
	if j < len(p.s) && p.s[j] == '0' {
		j++
	} else if digits() == 0 {
		ok = false
	}
	if ok && j < len(p.s) && p.s[j] == '.' {
		j++
		ok = digits() > 0
	}
	if ok && j < len(p.s) && (p.s[j] == 'e' || p.s[j] == 'E') {
		j++
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		ok = digits() > 0
	}
	if ok && j < len(p.s) && !strings.ContainsRune("{}[],: \t\n\r", rune(p.s[j])) {
		ok = false
	}
	if !ok {
		return nil, jsonSyntax("Token %q is invalid.", p.token())
	}
	p.i = j
	d, _, err := apd.NewFromString(p.s[start:j])
	if err != nil || checkNumericRange(d) != nil {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	}
	return &jsonValue{kind: jsonNumber, num: normalizeDecimal(d)}, nil
}

// normalizeJSONB turns v into jsonb's canonical form: object keys sorted by
// length then bytes, the last of duplicate keys kept.
func normalizeJSONB(v *jsonValue) {
	switch v.kind {
	case jsonArray:
		for _, e := range v.elems {
			normalizeJSONB(e)
		}
	case jsonObject:
		idx := make([]int, len(v.keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return jsonbKeyLess(v.keys[idx[a]], v.keys[idx[b]]) })
		keys := make([]string, 0, len(idx))
		vals := make([]*jsonValue, 0, len(idx))
		for n, i := range idx {
			if n+1 < len(idx) && v.keys[idx[n+1]] == v.keys[i] {
				continue // a later duplicate wins
			}
			normalizeJSONB(v.vals[i])
			keys = append(keys, v.keys[i])
			vals = append(vals, v.vals[i])
		}
		v.keys, v.vals = keys, vals
	}
}

// jsonbKeyLess is jsonb's key order: shorter keys first, then bytewise.
func jsonbKeyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// appendJSONB appends jsonb's text output of v.
func appendJSONB(buf []byte, v *jsonValue) []byte {
	switch v.kind {
	case jsonNull:
		return append(buf, "null"...)
	case jsonBool:
		if v.b {
			return append(buf, "true"...)
		}
		return append(buf, "false"...)
	case jsonNumber:
		return append(buf, formatNumeric(v.num)...)
	case jsonString:
		return appendJSONString(buf, v.str)
	case jsonArray:
		buf = append(buf, '[')
		for i, e := range v.elems {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJSONB(buf, e)
		}
		return append(buf, ']')
	}
	buf = append(buf, '{')
	for i, k := range v.keys {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = appendJSONString(buf, k)
		buf = append(buf, ": "...)
		buf = appendJSONB(buf, v.vals[i])
	}
	return append(buf, '}')
}

// appendJSONString appends s quoted as PostgreSQL's escape_json does.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			if c < 0x20 {
				buf = append(buf, `\u00`...)
				buf = append(buf, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			} else {
				buf = append(buf, c)
			}
		}
	}
	return append(buf, '"')
}

// parseJSONB is jsonb_in: parse, normalize, print.
func parseJSONB(s string) (any, error) {
	v, err := parseJSONText(s)
	if err != nil {
		return nil, err
	}
	normalizeJSONB(v)
	return string(appendJSONB(nil, v)), nil
}

// parseJSON is json_in: validate, keep the text.
func parseJSON(s string) (any, error) {
	if _, err := parseJSONText(s); err != nil {
		return nil, err
	}
	return s, nil
}

// mustParseJSON parses a stored json or jsonb datum, which is valid by
// construction.
func mustParseJSON(s string) *jsonValue {
	v, err := parseJSONText(s)
	if err != nil {
		return &jsonValue{kind: jsonNull, src: "null"}
	}
	return v
}
