package pgerror

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// CheckUTF8 is PostgreSQL's pg_verifymbstr for the server encoding UTF8:
// text that holds a NUL byte or is not UTF-8 fails with 22021, naming the
// bytes of the first bad character as report_invalid_encoding does (the
// bytes its lead byte announces, at most those left and at most 8). Text
// input and binary receive share it, so both refuse the same bytes alike.
func CheckUTF8(s string) *Error {
	for i := 0; i < len(s); {
		if s[i] == 0 {
			return New(CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": 0x00`)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return New(CharacterNotInRepertoire, `invalid byte sequence for encoding "UTF8": `+badUTF8Bytes(s[i:]))
		}
		i += size
	}
	return nil
}

// badUTF8Bytes prints the bytes PostgreSQL reports for a bad character
// at the start of s: as many as pg_utf_mblen of its first byte says.
func badUTF8Bytes(s string) string {
	n := 1
	switch b := s[0]; {
	case b&0xe0 == 0xc0:
		n = 2
	case b&0xf0 == 0xe0:
		n = 3
	case b&0xf8 == 0xf0:
		n = 4
	}
	n = min(n, len(s), 8)
	parts := make([]string, n)
	for j := range n {
		parts[j] = fmt.Sprintf("0x%02x", s[j])
	}
	return strings.Join(parts, " ")
}
