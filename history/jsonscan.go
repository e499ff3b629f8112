package history

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// jsonScanner is a pull parser for one JSON value held in memory, used by
// the fickle JSONL reader. encoding/json's reflection costs several times
// more on the ten million small lines of a large history; this scanner
// allocates only for strings that contain escapes and for row images.
type jsonScanner struct {
	buf []byte
	pos int
}

var errJSONDepth = errors.New("JSON nested too deeply")

func (s *jsonScanner) errf(format string, args ...any) error {
	return fmt.Errorf("byte %d: %s", s.pos+1, fmt.Sprintf(format, args...))
}

func (s *jsonScanner) skipSpace() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *jsonScanner) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}

func (s *jsonScanner) expect(c byte) error {
	if s.peek() != c {
		if s.pos >= len(s.buf) {
			return s.errf("unexpected end of line, want %q", c)
		}
		return s.errf("unexpected %q, want %q", s.buf[s.pos], c)
	}
	s.pos++
	return nil
}

// object calls field for each member of an object; field must consume the
// member's value.
func (s *jsonScanner) object(field func(name []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	return s.members(field)
}

// objectRest continues an object after members read by the caller: it
// reads ", member"... up to the closing brace.
func (s *jsonScanner) objectRest(field func(name []byte) error) error {
	switch s.peek() {
	case '}':
		s.pos++
		return nil
	case ',':
		s.pos++
		return s.members(field)
	}
	return s.errf("want ',' or '}' in object")
}

// members reads "name": value pairs separated by commas, and the closing
// brace.
func (s *jsonScanner) members(field func(name []byte) error) error {
	for {
		name, err := s.stringBytes()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(name); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.errf("want ',' or '}' in object")
		}
	}
}

// array calls elem for each element of an array; elem must consume it.
func (s *jsonScanner) array(elem func(i int) error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.errf("want ',' or ']' in array")
		}
	}
}

// stringBytes returns a string's contents; the slice aliases the buffer
// unless the string has escapes.
func (s *jsonScanner) stringBytes() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.pos
	for s.pos < len(s.buf) && plainStringByte[s.buf[s.pos]] {
		s.pos++
	}
	switch {
	case s.pos == len(s.buf):
		return nil, s.errf("unterminated string")
	case s.buf[s.pos] == '"':
		s.pos++
		return s.buf[start : s.pos-1], nil
	case s.buf[s.pos] == '\\':
		return s.unescape(start)
	default:
		return nil, s.errf("control character in string")
	}
}

// plainStringByte marks the bytes a JSON string holds as they are: not the
// quote, the backslash or a control character.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *jsonScanner) unescape(start int) ([]byte, error) {
	out := append([]byte(nil), s.buf[start:s.pos]...)
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		switch {
		case c == '"':
			s.pos++
			return out, nil
		case c < 0x20:
			return nil, s.errf("control character in string")
		case c != '\\':
			out = append(out, c)
			s.pos++
			continue
		}
		if s.pos+1 >= len(s.buf) {
			return nil, s.errf("unterminated escape")
		}
		e := s.buf[s.pos+1]
		s.pos += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, err := s.hex4()
			if err != nil {
				return nil, err
			}
			if r >= 0xD800 && r < 0xDC00 && s.pos+6 <= len(s.buf) && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
				s.pos += 2
				lo, err := s.hex4()
				if err != nil {
					return nil, err
				}
				if lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				} else {
					out = utf8.AppendRune(out, utf8.RuneError)
					r = lo
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.errf("bad escape \\%c", e)
		}
	}
	return nil, s.errf("unterminated string")
}

func (s *jsonScanner) hex4() (rune, error) {
	if s.pos+4 > len(s.buf) {
		return 0, s.errf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(s.buf[s.pos:s.pos+4]), 16, 32)
	if err != nil {
		return 0, s.errf("bad \\u escape")
	}
	s.pos += 4
	return rune(v), nil
}

func (s *jsonScanner) str() (string, error) {
	b, err := s.stringBytes()
	return string(b), err
}

// int reads an integer (no fraction or exponent).
func (s *jsonScanner) int() (int64, error) {
	s.skipSpace()
	start := s.pos
	if s.pos < len(s.buf) && s.buf[s.pos] == '-' {
		s.pos++
	}
	for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
		s.pos++
	}
	if s.pos == start {
		return 0, s.errf("want an integer")
	}
	v, err := parseInt(s.buf[start:s.pos])
	if err != nil {
		s.pos = start
		return 0, s.errf("%v", err)
	}
	return v, nil
}

// parseInt parses a decimal int64 without allocating.
func parseInt(b []byte) (int64, error) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		if len(b) > 19 {
			return 0, fmt.Errorf("integer %q out of range", b)
		}
		return 0, fmt.Errorf("want an integer")
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad integer %q", b)
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		if v > 1<<63 {
			return 0, fmt.Errorf("integer -%s out of range", b)
		}
		return -int64(v), nil
	}
	if v > 1<<63-1 {
		return 0, fmt.Errorf("integer %s out of range", b)
	}
	return int64(v), nil
}

func (s *jsonScanner) boolean() (bool, error) {
	s.skipSpace()
	if s.literal("true") {
		return true, nil
	}
	if s.literal("false") {
		return false, nil
	}
	return false, s.errf("want true or false")
}

// null consumes a null if one is next and reports whether it did.
func (s *jsonScanner) null() bool {
	s.skipSpace()
	return s.literal("null")
}

func (s *jsonScanner) literal(lit string) bool {
	if len(s.buf)-s.pos >= len(lit) && string(s.buf[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return true
	}
	return false
}

// raw skips one value of any kind and returns its text.
func (s *jsonScanner) raw() ([]byte, error) {
	s.skipSpace()
	start := s.pos
	if err := s.skip(0); err != nil {
		return nil, err
	}
	return s.buf[start:s.pos], nil
}

func (s *jsonScanner) skip(depth int) error {
	if depth > 64 {
		return errJSONDepth
	}
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case c == '[':
		return s.array(func(int) error { return s.skip(depth + 1) })
	case c == '"':
		_, err := s.stringBytes()
		return err
	case c == 't' || c == 'f':
		_, err := s.boolean()
		return err
	case c == 'n':
		if !s.null() {
			return s.errf("bad literal")
		}
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 0:
		return s.errf("unexpected end of line")
	default:
		return s.errf("unexpected %q", c)
	}
}

// number skips a JSON number, checking its grammar.
func (s *jsonScanner) number() error {
	start := s.pos
	digits := func() int {
		n := 0
		for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	if s.pos < len(s.buf) && s.buf[s.pos] == '-' {
		s.pos++
	}
	if n := digits(); n == 0 || (n > 1 && s.buf[s.pos-n] == '0') {
		s.pos = start
		return s.errf("bad number")
	}
	if s.pos < len(s.buf) && s.buf[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			s.pos = start
			return s.errf("bad number")
		}
	}
	if s.pos < len(s.buf) && (s.buf[s.pos] == 'e' || s.buf[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.buf) && (s.buf[s.pos] == '+' || s.buf[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			s.pos = start
			return s.errf("bad number")
		}
	}
	return nil
}

// end checks that only spaces remain.
func (s *jsonScanner) end() error {
	if s.peek() != 0 {
		return s.errf("trailing data after JSON value")
	}
	return nil
}
