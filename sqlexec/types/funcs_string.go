package types

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/pgident"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
)

// maxStringBytes bounds results of repeat, lpad and rpad, as PostgreSQL's
// 1 GB limit does.
const maxStringBytes = 1 << 30

var errRequestedLength = pgerror.New(pgerror.ProgramLimitExceeded, "requested length too large")

func init() {
	t, i := Text, Int4
	str := func(f func(string) string) funcEval {
		return func(_ *Env, a []any) (any, error) { return f(a[0].(string)), nil }
	}
	runeLen := func(_ *Env, a []any) (any, error) { return int64(utf8.RuneCountInString(a[0].(string))), nil }
	for _, name := range []string{"length", "char_length", "character_length"} {
		addFunc(name, Immutable, i, runeLen, t)
		addFunc(name, Immutable, i, func(_ *Env, a []any) (any, error) {
			return int64(utf8.RuneCountInString(strings.TrimRight(a[0].(string), " "))), nil
		}, BpcharAny)
	}
	addFunc("length", Immutable, i, func(_ *Env, a []any) (any, error) { return int64(len(a[0].([]byte))), nil }, Bytea)
	addFunc("octet_length", Immutable, i, func(_ *Env, a []any) (any, error) { return int64(len(a[0].(string))), nil }, t)
	addFunc("octet_length", Immutable, i, func(_ *Env, a []any) (any, error) { return int64(len(a[0].([]byte))), nil }, Bytea)
	// A character(n) value keeps its padding here, as bpcharoctetlen
	// counts it (length and char_length, through text, do not).
	addFunc("octet_length", Immutable, i, func(_ *Env, a []any) (any, error) { return int64(len(a[0].(string))), nil }, BpcharAny)
	addFunc("bit_length", Immutable, i, func(_ *Env, a []any) (any, error) { return 8 * int64(len(a[0].(string))), nil }, t)
	addFunc("bit_length", Immutable, i, func(_ *Env, a []any) (any, error) { return 8 * int64(len(a[0].([]byte))), nil }, Bytea)
	// convert_to, convert_from and convert between the server encoding,
	// UTF8, and the others, as PostgreSQL's pg_convert (stable there, as a
	// conversion function could be replaced).
	addFunc("convert_to", Stable, Bytea, func(_ *Env, a []any) (any, error) {
		return convertText([]byte(a[0].(string)), "UTF8", a[1].(string))
	}, t, Name)
	addFunc("convert_from", Stable, t, func(_ *Env, a []any) (any, error) {
		b, err := convertText(a[0].([]byte), a[1].(string), "UTF8")
		return string(b), err
	}, Bytea, Name)
	addFunc("convert", Stable, Bytea, func(_ *Env, a []any) (any, error) {
		return convertText(a[0].([]byte), a[1].(string), a[2].(string))
	}, Bytea, Name, Name)
	addFunc("lower", Immutable, t, str(asciiLower), t)
	addFunc("upper", Immutable, t, str(asciiUpper), t)
	addFunc("initcap", Immutable, t, str(initcap), t)
	addFunc("reverse", Immutable, t, str(reverseString), t)
	// textcat is the function behind text || text.
	addFunc("textcat", Immutable, t, func(_ *Env, a []any) (any, error) { return a[0].(string) + a[1].(string), nil }, t, t)
	addFunc("md5", Immutable, t, func(_ *Env, a []any) (any, error) {
		sum := md5.Sum([]byte(a[0].(string)))
		return hex.EncodeToString(sum[:]), nil
	}, t)
	addFunc("md5", Immutable, t, func(_ *Env, a []any) (any, error) {
		sum := md5.Sum(a[0].([]byte))
		return hex.EncodeToString(sum[:]), nil
	}, Bytea)
	// OVERLAY(s PLACING r FROM start [FOR count]): count defaults to r's
	// length in characters.
	addFunc("overlay", Immutable, t, func(_ *Env, a []any) (any, error) {
		return overlayText(a[0].(string), a[1].(string), a[2].(int64), a[3].(int64))
	}, t, t, i, i)
	addFunc("overlay", Immutable, t, func(_ *Env, a []any) (any, error) {
		return overlayText(a[0].(string), a[1].(string), a[2].(int64), int64(utf8.RuneCountInString(a[1].(string))))
	}, t, t, i)
	// hashtext is the hash a text's hash index and hash partitioning use,
	// and applications take advisory locks on; it is the low half of the
	// extended hash under seed 0, as PostgreSQL's hash_bytes is.
	addFunc("hashtext", Immutable, i, func(_ *Env, a []any) (any, error) {
		return int64(int32(uint32(HashExtended(Text, a[0], 0)))), nil
	}, t)
	addFunc("hashtextextended", Immutable, Int8, func(_ *Env, a []any) (any, error) {
		return int64(HashExtended(Text, a[0], uint64(a[1].(int64)))), nil
	}, t, Int8)
	for _, name := range []string{"substr", "substring"} {
		addFunc(name, Immutable, t, func(_ *Env, a []any) (any, error) { return substring(a[0].(string), a[1].(int64), 0, false) }, t, i)
		addFunc(name, Immutable, t, func(_ *Env, a []any) (any, error) {
			return substring(a[0].(string), a[1].(int64), a[2].(int64), true)
		}, t, i, i)
	}
	addFunc("substring", Immutable, t, func(env *Env, a []any) (any, error) {
		re, err := compileRegexFlags(a[1].(string), regexFlags{})
		if err != nil {
			return nil, err
		}
		// With a parenthesized subexpression the result is what the first
		// one matched, NULL when it took no part in the match.
		src := a[0].(string)
		m, err := re.firstFrom(env, src, 0)
		switch {
		case err != nil:
			return nil, err
		case m == nil:
			return nil, nil
		case len(m) > 2 && m[2] < 0:
			return nil, nil
		case len(m) > 2:
			return src[m[2]:m[3]], nil
		}
		return src[m[0]:m[1]], nil
	}, t, t)
	trim := func(mode int) funcEval {
		return func(_ *Env, a []any) (any, error) {
			chars := " "
			if len(a) > 1 {
				chars = a[1].(string)
			}
			s := a[0].(string)
			if mode <= 0 {
				s = strings.TrimLeft(s, chars)
			}
			if mode >= 0 {
				s = strings.TrimRight(s, chars)
			}
			return s, nil
		}
	}
	for name, mode := range map[string]int{"btrim": 0, "ltrim": -1, "rtrim": 1} {
		addFunc(name, Immutable, t, trim(mode), t)
		addFunc(name, Immutable, t, trim(mode), t, t)
	}
	addFunc("replace", Immutable, t, func(_ *Env, a []any) (any, error) {
		if a[1].(string) == "" {
			return a[0], nil
		}
		return strings.ReplaceAll(a[0].(string), a[1].(string), a[2].(string)), nil
	}, t, t, t)
	pos := func(_ *Env, a []any) (any, error) {
		i := strings.Index(a[0].(string), a[1].(string))
		if i < 0 {
			return int64(0), nil
		}
		return int64(utf8.RuneCountInString(a[0].(string)[:i]) + 1), nil
	}
	addFunc("strpos", Immutable, i, pos, t, t)
	addFunc("position", Immutable, i, pos, t, t)
	addFunc("starts_with", Immutable, Bool, func(_ *Env, a []any) (any, error) {
		return strings.HasPrefix(a[0].(string), a[1].(string)), nil
	}, t, t)
	addFunc("left", Immutable, t, func(_ *Env, a []any) (any, error) { return leftRight(a[0].(string), a[1].(int64), true), nil }, t, i)
	addFunc("right", Immutable, t, func(_ *Env, a []any) (any, error) { return leftRight(a[0].(string), a[1].(int64), false), nil }, t, i)
	pad := func(left bool) funcEval {
		return func(_ *Env, a []any) (any, error) {
			fill := " "
			if len(a) > 2 {
				fill = a[2].(string)
			}
			return padString(a[0].(string), a[1].(int64), fill, left)
		}
	}
	addFunc("lpad", Immutable, t, pad(true), t, i)
	addFunc("lpad", Immutable, t, pad(true), t, i, t)
	addFunc("rpad", Immutable, t, pad(false), t, i)
	addFunc("rpad", Immutable, t, pad(false), t, i, t)
	addFunc("repeat", Immutable, t, func(env *Env, a []any) (any, error) {
		return repeatString(env, a[0].(string), a[1].(int64))
	}, t, i)
	addFunc("split_part", Immutable, t, func(_ *Env, a []any) (any, error) {
		return splitPart(a[0].(string), a[1].(string), a[2].(int64))
	}, t, t, i)
	addFunc("translate", Immutable, t, func(_ *Env, a []any) (any, error) {
		return translate(a[0].(string), a[1].(string), a[2].(string)), nil
	}, t, t, t)
	addFunc("ascii", Immutable, i, func(_ *Env, a []any) (any, error) {
		r, _ := utf8.DecodeRuneInString(a[0].(string))
		if a[0].(string) == "" {
			r = 0
		}
		return int64(r), nil
	}, t)
	addFunc("chr", Immutable, t, func(_ *Env, a []any) (any, error) {
		c := a[0].(int64)
		if c == 0 {
			return nil, pgerror.New(pgerror.ProgramLimitExceeded, "null character not permitted")
		}
		if c < 0 || c > unicode.MaxRune || (c >= 0xd800 && c <= 0xdfff) {
			return nil, pgerror.New(pgerror.ProgramLimitExceeded, "requested character too large for encoding")
		}
		return string(rune(c)), nil
	}, i)
	addFunc("to_hex", Immutable, t, func(_ *Env, a []any) (any, error) {
		return strconv.FormatUint(uint64(uint32(a[0].(int64))), 16), nil
	}, i)
	addFunc("to_hex", Immutable, t, func(_ *Env, a []any) (any, error) {
		return strconv.FormatUint(uint64(a[0].(int64)), 16), nil
	}, Int8)
	addFunc("quote_ident", Immutable, t, func(_ *Env, a []any) (any, error) { return QuoteIdent(a[0].(string)), nil }, t)
	addFunc("quote_literal", Immutable, t, func(_ *Env, a []any) (any, error) { return quoteLiteral(a[0].(string)), nil }, t)
	addFuncNullable("quote_nullable", Immutable, t, func(_ *Env, a []any) (any, error) {
		if a[0] == nil {
			return "NULL", nil
		}
		return quoteLiteral(a[0].(string)), nil
	}, t)
	addFunc("like_escape", Immutable, t, func(_ *Env, a []any) (any, error) { return likeEscape(a[0].(string), a[1].(string)) }, t, t)
	addFunc("encode", Immutable, t, func(_ *Env, a []any) (any, error) { return encodeBytes(a[0].([]byte), a[1].(string)) }, Bytea, t)
	addFunc("decode", Immutable, Bytea, func(_ *Env, a []any) (any, error) { return decodeBytes(a[0].(string), a[1].(string)) }, t, t)
	addFunc("gen_random_uuid", Volatile, UUID, func(env *Env, _ []any) (any, error) { return randomUUID(env) })
	addFunc("format_type", Stable, t, func(_ *Env, a []any) (any, error) {
		typ, ok := TypeByOid(Oid(a[0].(int64)))
		if !ok {
			return "???", nil
		}
		if len(a) > 1 && a[1] != nil {
			typ.Typmod = int32(a[1].(int64))
		}
		return FormatType(typ), nil
	}, OidType, i)
	// format_type is not strict in its typmod.
	functions["format_type"][len(functions["format_type"])-1].strict = false
}

func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// substring is text_substr: characters from start (1-based, may be before
// the string) for count characters.
func substring(s string, start, count int64, hasCount bool) (any, error) {
	if hasCount && count < 0 {
		return nil, pgerror.New(pgerror.SubstringError, "negative substring length not allowed")
	}
	r := []rune(s)
	from := start - 1
	to := int64(len(r))
	if hasCount {
		if start+count-1 < to {
			to = max(start+count-1, 0)
		}
	}
	from = max(from, 0)
	if from >= to || from >= int64(len(r)) {
		return "", nil
	}
	return string(r[from:to]), nil
}

// overlayText is textoverlay: s with count characters from start replaced
// by r.
func overlayText(s, r string, start, count int64) (any, error) {
	if start <= 0 {
		return nil, pgerror.New(pgerror.SubstringError, "negative substring length not allowed")
	}
	end := start + count
	if end != int64(int32(end)) {
		return nil, pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
	}
	head, err := substring(s, 1, start-1, true)
	if err != nil {
		return nil, err
	}
	tail, _ := substring(s, end, 0, false)
	return head.(string) + r + tail.(string), nil
}

func leftRight(s string, n int64, left bool) string {
	r := []rune(s)
	k := n
	if n < 0 {
		k = int64(len(r)) + n
	}
	k = max(min(k, int64(len(r))), 0)
	if left {
		return string(r[:k])
	}
	return string(r[int64(len(r))-k:])
}

func padString(s string, n int64, fill string, left bool) (any, error) {
	if n < 0 {
		n = 0
	}
	if n*4 > maxStringBytes {
		return nil, errRequestedLength
	}
	r := []rune(s)
	if int64(len(r)) >= n {
		return string(r[:n]), nil
	}
	f := []rune(fill)
	if len(f) == 0 {
		return s, nil
	}
	pad := make([]rune, 0, n-int64(len(r)))
	for i := 0; int64(len(pad)) < n-int64(len(r)); i++ {
		pad = append(pad, f[i%len(f)])
	}
	if left {
		return string(pad) + s, nil
	}
	return s + string(pad), nil
}

func splitPart(s, delim string, n int64) (any, error) {
	if n == 0 {
		return nil, pgerror.New(pgerror.InvalidParameterValue, "field position must not be zero")
	}
	var parts []string
	if delim == "" {
		parts = []string{s}
	} else {
		parts = strings.Split(s, delim)
	}
	if n < 0 {
		n += int64(len(parts)) + 1
	}
	if n < 1 || n > int64(len(parts)) {
		return "", nil
	}
	return parts[n-1], nil
}

func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	var sb strings.Builder
	for _, r := range s {
		idx := -1
		for i, c := range f {
			if c == r {
				idx = i
				break
			}
		}
		switch {
		case idx < 0:
			sb.WriteRune(r)
		case idx < len(t):
			sb.WriteRune(t[idx])
		}
	}
	return sb.String()
}

// QuoteIdent quotes an identifier as PostgreSQL's quote_identifier does
// (keywords other than unreserved ones included).
func QuoteIdent(s string) string { return pgident.Quote(s) }

func quoteLiteral(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		return "E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

func encodeBytes(b []byte, format string) (any, error) {
	switch strings.ToLower(format) {
	case "hex":
		return hex.EncodeToString(b), nil
	case "base64":
		enc := base64.StdEncoding.EncodeToString(b)
		var sb strings.Builder
		for len(enc) > 76 {
			sb.WriteString(enc[:76])
			sb.WriteByte('\n')
			enc = enc[76:]
		}
		sb.WriteString(enc)
		return sb.String(), nil
	case "escape":
		var sb strings.Builder
		for _, c := range b {
			switch {
			case c == '\\':
				sb.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				sb.WriteString(`\` + strconv.FormatInt(int64(c)|0o1000, 8)[1:])
			default:
				sb.WriteByte(c)
			}
		}
		return sb.String(), nil
	}
	return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized encoding: %q", format)
}

func decodeBytes(s, format string) (any, error) {
	switch strings.ToLower(format) {
	case "hex":
		b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "invalid hexadecimal data")
		}
		return b, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "invalid base64 data")
		}
		return b, nil
	case "escape":
		return parseBytea(s)
	}
	return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized encoding: %q", format)
}

// randomUUID is gen_random_uuid: a version 4 UUID from env.Rand.
func randomUUID(env *Env) (any, error) {
	if env == nil || env.Rand == nil {
		return nil, pgerror.Unsupported("gen_random_uuid() without a source of randomness")
	}
	var u [16]byte
	if _, err := readFull(env, u[:]); err != nil {
		return nil, err
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u, nil
}

func readFull(env *Env, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := env.Rand.Read(b[n:])
		if err != nil {
			return n, pgerror.Wrapf(err, pgerror.InternalError, "reading randomness: %v", err)
		}
		n += k
	}
	return n, nil
}

// repeatString is repeat(s, n): written in pieces of about interruptEvery
// bytes, so that a statement_timeout or a cancel stops a result of up to
// a gigabyte as it is written.
func repeatString(env *Env, s string, n int64) (any, error) {
	if n <= 0 || s == "" {
		return "", nil
	}
	if int64(len(s))*n > maxStringBytes {
		return nil, errRequestedLength
	}
	per := max(1, interruptEvery/int64(len(s)))
	piece := strings.Repeat(s, int(min(per, n)))
	var b strings.Builder
	b.Grow(len(s) * int(n))
	for left := n; left > 0; left -= per {
		if err := env.Interrupt(); err != nil {
			return nil, err
		}
		if left < per {
			piece = piece[:int(left)*len(s)]
		}
		b.WriteString(piece)
	}
	return b.String(), nil
}

// convertText is PostgreSQL's pg_convert: b, valid text in the encoding
// named from, in the encoding named to. A conversion PostgreSQL has and
// fickle lacks (between two encodings neither of which is UTF8, or to a
// multi-byte one) is refused with 0A000.
func convertText(b []byte, from, to string) ([]byte, error) {
	src, ok := pgencoding.Lookup(from)
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid source encoding name \"%s\"", from)
	}
	dst, ok := pgencoding.Lookup(to)
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid destination encoding name \"%s\"", to)
	}
	out, ok, err := pgencoding.Convert(b, src, dst)
	if !ok {
		return nil, NoConversion(src, dst)
	}
	return out, err
}

// NoConversion is the error of a conversion from src to dst fickle does not
// make: 0A000 where PostgreSQL has a default conversion, PostgreSQL's
// 42883 where it has none.
func NoConversion(src, dst *pgencoding.Encoding) error {
	if defaultConversions()[[2]int{src.Number(), dst.Number()}] {
		return pgerror.Unsupported("conversion from " + src.Name + " to " + dst.Name)
	}
	return pgerror.Newf(pgerror.UndefinedFunction, "default conversion function for encoding \"%s\" to \"%s\" does not exist", src.Name, dst.Name)
}

// defaultConversions are the pairs of encodings (by number) PostgreSQL 15
// has a default conversion between, from its pg_conversion.
var defaultConversions = sync.OnceValue(func() map[[2]int]bool {
	t := pgdata.Load(pgdata.PgConversion)
	from, to, def := t.Column("conforencoding"), t.Column("contoencoding"), t.Column("condefault")
	pairs := map[[2]int]bool{}
	for _, r := range t.Rows {
		if *r[def] == "t" {
			f, _ := strconv.Atoi(*r[from])
			g, _ := strconv.Atoi(*r[to])
			pairs[[2]int{f, g}] = true
		}
	}
	return pairs
})
