package types

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// maxNameBytes is NAMEDATALEN - 1: longer names are truncated.
const maxNameBytes = 63

// parseBool is boolin: white space around, then a case-insensitive unique
// prefix of true, false, yes, no, on, off, or exactly 1 or 0.
func parseBool(s string) (any, error) {
	v := strings.ToLower(trimSpace(s))
	if v != "" {
		prefix := func(word string, min int) bool { return len(v) >= min && strings.HasPrefix(word, v) }
		switch {
		case prefix("true", 1), prefix("yes", 1), prefix("on", 2), v == "1":
			return true, nil
		case prefix("false", 1), prefix("no", 1), prefix("off", 2), v == "0":
			return false, nil
		}
	}
	return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type boolean: %q", s)
}

func formatBool(b bool) string {
	if b {
		return "t"
	}
	return "f"
}

// checkUTF8 fails with 22021 for text the server encoding UTF8 refuses;
// the binary receive in wire applies the same pgerror.CheckUTF8.
func checkUTF8(s string) error {
	if err := pgerror.CheckUTF8(s); err != nil {
		return err
	}
	return nil
}

// parseString is textin, varcharin, bpcharin, namein and charin. With a
// length typmod the value is checked as in assignment: too long fails with
// 22001 unless the excess is spaces, which are cut; char(n) is padded.
func parseString(t Type, s string) (any, error) {
	if err := checkUTF8(s); err != nil {
		return nil, err
	}
	switch t.Oid {
	case OidName:
		return truncateName(s), nil
	case OidChar:
		return parseChar(s), nil
	case OidVarchar, OidBpchar:
		return coerceLength(t, s, false)
	}
	return s, nil
}

// truncateName cuts s to NAMEDATALEN-1 bytes without splitting a character.
func truncateName(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	n := maxNameBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// coerceLength applies varchar(n) or char(n) to s: explicit casts truncate to
// n characters, assignments fail with 22001 unless only spaces are cut.
// char(n) results are blank-padded to n characters.
func coerceLength(t Type, s string, explicit bool) (string, error) {
	n := t.Length()
	if n < 0 {
		return s, nil
	}
	count := utf8.RuneCountInString(s)
	if count > n {
		cut := runeOffset(s, n)
		if !explicit && strings.TrimRight(s[cut:], " ") != "" {
			return "", pgerror.Newf(pgerror.StringDataRightTruncation, "value too long for type %s", formatType(t))
		}
		s, count = s[:cut], n
	}
	if t.Oid == OidBpchar && count < n {
		s += strings.Repeat(" ", n-count)
	}
	return s, nil
}

// runeOffset returns the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// parseBytea is byteain: "\x" followed by hex pairs (white space allowed
// between pairs), or the escape format where \\ is a backslash and \ooo an
// octal byte.
func parseBytea(s string) (any, error) {
	if strings.HasPrefix(s, `\x`) {
		out := make([]byte, 0, (len(s)-2)/2)
		for i := 2; i < len(s); {
			if isSpace(s[i]) {
				i++
				continue
			}
			hi, ok1 := unhex(s[i])
			if !ok1 {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid hexadecimal digit: %q", s[i:i+1])
			}
			if i+1 >= len(s) {
				return nil, pgerror.New(pgerror.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok2 := unhex(s[i+1])
			if !ok2 {
				return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid hexadecimal digit: %q", s[i+1:i+2])
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return out, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i += 2
		case i+3 < len(s) && isOctal(s[i+1], '3') && isOctal(s[i+2], '7') && isOctal(s[i+3], '7'):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
		default:
			return nil, pgerror.New(pgerror.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
	}
	return out, nil
}

func isOctal(c, max byte) bool { return c >= '0' && c <= max }

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// formatBytea is byteaout with bytea_output = hex.
func formatBytea(b []byte) string {
	out := make([]byte, 2+2*len(b))
	out[0], out[1] = '\\', 'x'
	hex.Encode(out[2:], b)
	return string(out)
}

// formatByteaEscape is byteaout with bytea_output = escape: printable
// ASCII as itself, a backslash doubled, every other byte as \ooo octal.
func formatByteaEscape(b []byte) string {
	var out strings.Builder
	for _, c := range b {
		switch {
		case c == '\\':
			out.WriteString(`\\`)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&out, "\\%03o", c)
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

// parseUUID is uuid_in: 32 hex digits, optionally in braces, with a hyphen
// allowed after any group of four digits.
func parseUUID(s string) (any, error) {
	var u [16]byte
	src := s
	braces := strings.HasPrefix(src, "{")
	if braces {
		src = src[1:]
	}
	for i := range 16 {
		if len(src) < 2 {
			return nil, invalidSyntax(UUID, s)
		}
		hi, ok1 := unhex(src[0])
		lo, ok2 := unhex(src[1])
		if !ok1 || !ok2 {
			return nil, invalidSyntax(UUID, s)
		}
		u[i] = hi<<4 | lo
		src = src[2:]
		if len(src) > 0 && src[0] == '-' && i%2 == 1 && i < 15 {
			src = src[1:]
		}
	}
	if braces {
		if !strings.HasPrefix(src, "}") {
			return nil, invalidSyntax(UUID, s)
		}
		src = src[1:]
	}
	if src != "" {
		return nil, invalidSyntax(UUID, s)
	}
	return u, nil
}

// formatUUID is uuid_out: lower-case hex in the 8-4-4-4-12 form.
func formatUUID(u [16]byte) string {
	var buf [36]byte
	hex.Encode(buf[0:8], u[0:4])
	buf[8] = '-'
	hex.Encode(buf[9:13], u[4:6])
	buf[13] = '-'
	hex.Encode(buf[14:18], u[6:8])
	buf[18] = '-'
	hex.Encode(buf[19:23], u[8:10])
	buf[23] = '-'
	hex.Encode(buf[24:], u[10:])
	return string(buf[:])
}

// parseChar is charin: the first byte, or \ooo for a byte written in octal
// (how charout prints bytes with the high bit set).
func parseChar(s string) string {
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1], '3') && isOctal(s[2], '7') && isOctal(s[3], '7') {
		c := (s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')
		if c == 0 {
			return "" // the zero byte, as the empty string reads
		}
		return string([]byte{c})
	}
	if s == "" {
		return ""
	}
	return s[:1]
}

// formatChar is charout: bytes with the high bit set print as \ooo.
func formatChar(s string) string {
	if s == "" || s[0] < 0x80 {
		return s
	}
	c := s[0]
	return string([]byte{'\\', '0' + c>>6, '0' + c>>3&7, '0' + c&7})
}
