package types

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func init() {
	addFunc("unistr", Immutable, Text, func(_ *Env, a []any) (any, error) { return unistr(a[0].(string)) }, Text)
}

// unistr decodes the Unicode escapes \XXXX, \+XXXXXX, \uXXXX and
// \UXXXXXXXX (UTF-16 surrogate pairs combined) and \\ of s, with
// PostgreSQL's errors.
func unistr(s string) (string, error) {
	var sb strings.Builder
	var first rune // a pending high surrogate
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			if first != 0 {
				return "", errSurrogatePair()
			}
			sb.WriteByte(s[i])
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			if first != 0 {
				return "", errSurrogatePair()
			}
			sb.WriteByte('\\')
			i += 2
			continue
		}
		var digits, skip int
		switch {
		case hexRun(s, i+1, 4):
			digits, skip = 4, 1
		case i+1 < len(s) && s[i+1] == 'u' && hexRun(s, i+2, 4):
			digits, skip = 4, 2
		case i+1 < len(s) && s[i+1] == '+' && hexRun(s, i+2, 6):
			digits, skip = 6, 2
		case i+1 < len(s) && s[i+1] == 'U' && hexRun(s, i+2, 8):
			digits, skip = 8, 2
		default:
			return "", pgerror.New(pgerror.SyntaxError, "invalid Unicode escape").
				WithHint(`Unicode escapes must be \XXXX, \+XXXXXX, \uXXXX, or \UXXXXXXXX.`)
		}
		v, _ := strconv.ParseUint(s[i+skip:i+skip+digits], 16, 32)
		r := rune(v)
		if v == 0 || v > 0x10FFFF {
			return "", pgerror.Newf(pgerror.InvalidParameterValue, "invalid Unicode code point: %04X", v)
		}
		i += skip + digits
		isHigh, isLow := r >= 0xD800 && r <= 0xDBFF, r >= 0xDC00 && r <= 0xDFFF
		switch {
		case first != 0 && !isLow, first == 0 && isLow:
			return "", errSurrogatePair()
		case first != 0:
			r, first = utf16.DecodeRune(first, r), 0
		case isHigh:
			first = r
			continue
		}
		sb.WriteRune(r)
	}
	if first != 0 {
		return "", errSurrogatePair()
	}
	return sb.String(), nil
}

func errSurrogatePair() error {
	return pgerror.New(pgerror.SyntaxError, "invalid Unicode surrogate pair")
}

// hexRun reports whether s holds n hexadecimal digits at i.
func hexRun(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range s[i : i+n] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
