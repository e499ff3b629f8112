package sqlexec

import (
	"encoding/base64"
	"strings"

	"github.com/fickle-db/fickle/internal/pgarray"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// OpenPGP's ASCII armor (RFC 4880 section 6) as pgcrypto writes and
// reads it: armor() makes it, with optional headers; dearmor() and
// pgp_armor_headers() read it with pgcrypto's leniencies and errors.

const (
	armorHeader = "-----BEGIN PGP MESSAGE-----\n"
	armorFooter = "\n-----END PGP MESSAGE-----\n"
)

// pgArmor is armor(data[, keys, values]).
func pgArmor(_ *execCtx, a []any) (any, error) {
	var keys, values []string
	if len(a) == 3 {
		var err error
		if keys, values, err = armorHeaders(a[1], a[2]); err != nil {
			return nil, err
		}
	}
	data := a[0].([]byte)
	var b strings.Builder
	b.WriteString(armorHeader)
	for i := range keys {
		b.WriteString(keys[i] + ": " + values[i] + "\n")
	}
	b.WriteByte('\n')
	encoded := base64.StdEncoding.EncodeToString(data)
	for len(encoded) > 0 {
		n := min(len(encoded), 76)
		b.WriteString(encoded[:n] + "\n")
		encoded = encoded[n:]
	}
	crc := crc24(data)
	b.WriteByte('=')
	b.WriteString(base64.StdEncoding.EncodeToString([]byte{byte(crc >> 16), byte(crc >> 8), byte(crc)}))
	b.WriteString(armorFooter)
	return b.String(), nil
}

// armorHeaders checks armor()'s header keys and values as pgcrypto does:
// one-dimensional arrays of one length, without NULLs, non-ASCII
// characters or newlines, and keys without ": ".
func armorHeaders(keyArray, valueArray any) ([]string, []string, error) {
	keyElems, keyDims := arrayShape(keyArray)
	valueElems, valueDims := arrayShape(valueArray)
	if keyDims > 1 || keyDims != valueDims {
		return nil, nil, pgerror.New(pgerror.ArraySubscriptError, "wrong number of array subscripts")
	}
	if len(keyElems) != len(valueElems) {
		return nil, nil, pgerror.New(pgerror.ArraySubscriptError, "mismatched array dimensions")
	}
	isASCII := func(s string) bool { return !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) }
	keys, values := make([]string, len(keyElems)), make([]string, len(keyElems))
	for i := range keyElems {
		k, ok := keyElems[i].(string)
		switch {
		case !ok:
			return nil, nil, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for header key")
		case !isASCII(k):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header key must not contain non-ASCII characters")
		case strings.Contains(k, ": "):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header key must not contain \": \"")
		case strings.Contains(k, "\n"):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header key must not contain newlines")
		}
		v, ok := valueElems[i].(string)
		switch {
		case !ok:
			return nil, nil, pgerror.New(pgerror.NullValueNotAllowed, "null value not allowed for header value")
		case !isASCII(v):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header value must not contain non-ASCII characters")
		case strings.Contains(v, "\n"):
			return nil, nil, pgerror.New(pgerror.InvalidParameterValue, "header value must not contain newlines")
		}
		keys[i], values[i] = k, v
	}
	return keys, values, nil
}

// arrayShape is an array datum's elements and number of dimensions (0
// for an empty array).
func arrayShape(v any) ([]any, int) {
	if a, ok := v.(*pgarray.Array); ok {
		return a.Elems, len(a.Dims)
	}
	elems := v.([]any)
	if len(elems) == 0 {
		return nil, 0
	}
	return elems, 1
}

// crc24 is OpenPGP's CRC-24 of data (RFC 4880 section 6.1).
func crc24(data []byte) uint32 {
	crc := uint32(0xb704ce)
	for _, c := range data {
		crc ^= uint32(c) << 16
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= 0x1864cfb
			}
		}
	}
	return crc & 0xffffff
}

// errCorruptArmor is pgcrypto's error for armor it cannot read.
var errCorruptArmor = pgerror.New(pgerror.ExternalRoutineInvocationException, "Corrupt ascii-armor")

// armorSections finds an armor's parts as pgcrypto's pgp_armor_decode
// does: the lines after the BEGIN line up to the first empty one (the
// headers), and the rest of the text (the body), of which the first
// bodyEnd bytes come before the END line.
func armorSections(s string) (headers, body string, bodyEnd int, err error) {
	start, n, ok := armorBoundary(s, "-----BEGIN")
	if !ok {
		return "", "", 0, errCorruptArmor
	}
	rest := s[start+n:]
	end, _, ok := armorBoundary(rest, "-----END")
	if !ok {
		return "", "", 0, errCorruptArmor
	}
	p := 0
	for p < end && rest[p] != '\n' && rest[p] != '\r' {
		i := strings.IndexByte(rest[p:end], '\n')
		if i < 0 {
			return "", "", 0, errCorruptArmor
		}
		p += i + 1
	}
	return rest[:p], rest[p:], end - p, nil
}

// armorBoundary finds the line that starts with sep ("-----BEGIN" or
// "-----END"): text of printable bytes up to "-----", then the end of
// the line. It returns where the line starts and its length with its
// line break.
func armorBoundary(s, sep string) (int, int, bool) {
	from := 0
	for {
		i := strings.Index(s[from:], sep)
		if i < 0 {
			return 0, 0, false
		}
		i += from
		if i == 0 || s[i-1] == '\n' {
			from = i
			break
		}
		from = i + len(sep)
	}
	p := from + len(sep)
	for p < len(s) && s[p] != '-' {
		if s[p] < ' ' {
			return 0, 0, false
		}
		p++
	}
	if !strings.HasPrefix(s[p:], "-----") {
		return 0, 0, false
	}
	p += 5
	if p < len(s) {
		if s[p] != '\n' && s[p] != '\r' {
			return 0, 0, false
		}
		if s[p] == '\r' {
			p++
		}
		if p < len(s) && s[p] == '\n' {
			p++
		}
	}
	return from, p - from, true
}

// dearmor is dearmor(text): the armored data, its checksum checked.
func dearmor(s string) ([]byte, error) {
	_, body, bodyEnd, err := armorSections(s)
	if err != nil {
		return nil, err
	}
	eq := strings.LastIndexByte(body[:bodyEnd], '=')
	if eq < 0 {
		return nil, errCorruptArmor
	}
	// The checksum is the 4 bytes after the last '=' before the END line,
	// which follows with at least 8 more.
	crc, ok := armorBase64(body[eq+1 : eq+5])
	if !ok || len(crc) != 3 {
		return nil, errCorruptArmor
	}
	// pgcrypto leaves out the byte before the '=' too, the line break
	// before the checksum line in a well-formed armor.
	data, ok := armorBase64(body[:max(eq-1, 0)])
	if !ok || crc24(data) != uint32(crc[0])<<16|uint32(crc[1])<<8|uint32(crc[2]) {
		return nil, errCorruptArmor
	}
	return data, nil
}

// armorBase64 decodes base 64 as pgcrypto's armor does: blanks and line
// breaks skipped, '=' allowed as the third or fourth character of a group
// and the count of bytes it leaves then kept for the groups after it.
func armorBase64(s string) ([]byte, bool) {
	var out []byte
	var buf uint32
	pos, end := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var b uint32
		switch {
		case 'A' <= c && c <= 'Z':
			b = uint32(c - 'A')
		case 'a' <= c && c <= 'z':
			b = uint32(c-'a') + 26
		case '0' <= c && c <= '9':
			b = uint32(c-'0') + 52
		case c == '+':
			b = 62
		case c == '/':
			b = 63
		case c == '=':
			if end == 0 {
				switch pos {
				case 2:
					end = 1
				case 3:
					end = 2
				default:
					return nil, false
				}
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		default:
			return nil, false
		}
		buf = buf<<6 | b
		pos++
		if pos == 4 {
			out = append(out, byte(buf>>16))
			if end != 1 {
				out = append(out, byte(buf>>8))
			}
			if end == 0 {
				out = append(out, byte(buf))
			}
			buf, pos = 0, 0
		}
	}
	return out, pos == 0
}

// pgpArmorHeaders is pgp_armor_headers(text): the armor's header lines,
// each split at its first ": " into key and value.
func pgpArmorHeaders(_ *execCtx, a []any) ([][]any, error) {
	headers, _, _, err := armorSections(a[0].(string))
	if err != nil {
		return nil, err
	}
	var rows [][]any
	for line := range strings.SplitAfterSeq(headers, "\n") {
		if line == "" {
			continue
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, errCorruptArmor
		}
		rows = append(rows, []any{k, v})
	}
	return rows, nil
}
