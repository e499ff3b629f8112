package history

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ednParser reads the subset of EDN that Jepsen histories use: nil,
// booleans, integers, floats, strings, characters, keywords, symbols,
// vectors, lists, maps, sets, tagged values (the tag is dropped, as in
// #jepsen.history.Op{...}), #_ discards and ; comments. Keywords and
// symbols become Go strings without the colon, vectors, lists and sets
// []any, maps ednMap.
type ednParser struct {
	src  []byte
	pos  int
	line int
}

// ednMap is an EDN map in source order.
type ednMap []ednEntry

type ednEntry struct{ k, v any }

// get returns the value of the keyword or string key k.
func (m ednMap) get(k string) (any, bool) {
	for _, e := range m {
		if s, ok := e.k.(string); ok && s == k {
			return e.v, true
		}
	}
	return nil, false
}

type ednError struct {
	line int
	msg  string
}

func (e *ednError) Error() string { return e.msg }

func (p *ednParser) errf(format string, args ...any) error {
	return &ednError{line: p.line, msg: fmt.Sprintf(format, args...)}
}

const ednMaxDepth = 200

// skipSpace skips whitespace, commas and comments, counting lines.
func (p *ednParser) skipSpace() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case '\n':
			p.line++
			p.pos++
		case ' ', '\t', '\r', ',', '\f':
			p.pos++
		case ';':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// next reads the next form; ok is false at the end of the input.
func (p *ednParser) next() (v any, ok bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.src) {
		return nil, false, nil
	}
	v, err = p.value(0)
	return v, err == nil, err
}

func (p *ednParser) value(depth int) (any, error) {
	if depth > ednMaxDepth {
		return nil, p.errf("EDN nested more than %d deep", ednMaxDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '[':
		p.pos++
		return p.seq(']', depth)
	case c == '(':
		p.pos++
		return p.seq(')', depth)
	case c == '{':
		p.pos++
		items, err := p.seq('}', depth)
		if err != nil {
			return nil, err
		}
		if len(items)%2 != 0 {
			return nil, p.errf("map with an odd number of forms")
		}
		m := make(ednMap, 0, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			m = append(m, ednEntry{items[i], items[i+1]})
		}
		return m, nil
	case c == '"':
		return p.str()
	case c == '#':
		p.pos++
		if p.pos < len(p.src) && p.src[p.pos] == '{' {
			p.pos++
			return p.seq('}', depth)
		}
		if p.pos < len(p.src) && p.src[p.pos] == '_' {
			p.pos++
			if _, err := p.value(depth + 1); err != nil {
				return nil, err
			}
			return p.value(depth + 1)
		}
		if _, err := p.token(); err != nil { // the tag
			return nil, err
		}
		return p.value(depth + 1)
	case c == '\\':
		p.pos++
		tok, err := p.token()
		if err != nil && p.pos < len(p.src) {
			// A delimiter character such as \( or \].
			_, size := utf8.DecodeRune(p.src[p.pos:])
			p.pos += size
			return string(p.src[p.pos-size : p.pos]), nil
		}
		return tok, err
	case c == ']' || c == ')' || c == '}':
		return nil, p.errf("unexpected %q", c)
	}
	tok, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.atom(tok)
}

func (p *ednParser) seq(closer byte, depth int) ([]any, error) {
	var items []any
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errf("unexpected end of input, want %q", closer)
		}
		if p.src[p.pos] == closer {
			p.pos++
			if items == nil {
				items = []any{}
			}
			return items, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

// token reads a run of non-delimiter characters.
func (p *ednParser) token() (string, error) {
	start := p.pos
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\r', '\n', ',', '\f', '[', ']', '(', ')', '{', '}', '"', ';':
			goto done
		}
		p.pos++
	}
done:
	if p.pos == start {
		if p.pos >= len(p.src) {
			return "", p.errf("unexpected end of input")
		}
		return "", p.errf("unexpected %q", p.src[p.pos])
	}
	return string(p.src[start:p.pos]), nil
}

func (p *ednParser) atom(tok string) (any, error) {
	switch tok {
	case "nil":
		return nil, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if tok[0] == ':' {
		if len(tok) == 1 {
			return nil, p.errf("empty keyword")
		}
		return tok[1:], nil
	}
	c := tok[0]
	if c >= '0' && c <= '9' || ((c == '-' || c == '+') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9') {
		num := strings.TrimSuffix(strings.TrimSuffix(tok, "N"), "M")
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			return n, nil
		}
		if f, err := strconv.ParseFloat(num, 64); err == nil {
			return f, nil
		}
		if strings.Contains(num, "/") { // a ratio
			return tok, nil
		}
		return nil, p.errf("bad number %q", tok)
	}
	return tok, nil // a symbol
}

func (p *ednParser) str() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return b.String(), nil
		case '\n':
			p.line++
		case '\\':
			p.pos++
			if p.pos >= len(p.src) {
				return "", p.errf("unterminated string")
			}
			switch e := p.src[p.pos]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u':
				if p.pos+5 > len(p.src) {
					return "", p.errf("short \\u escape")
				}
				r, err := strconv.ParseUint(string(p.src[p.pos+1:p.pos+5]), 16, 32)
				if err != nil {
					return "", p.errf("bad \\u escape")
				}
				b.WriteRune(rune(r))
				p.pos += 4
			default:
				b.WriteByte(e)
			}
			p.pos++
			continue
		}
		b.WriteByte(c)
		p.pos++
	}
	return "", p.errf("unterminated string")
}
