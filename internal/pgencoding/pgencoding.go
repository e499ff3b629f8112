// Package pgencoding names PostgreSQL's character encodings and converts
// text between the server's encoding, UTF8, and the single-byte encodings
// a client may ask for (client_encoding, COPY ... ENCODING, convert_to and
// convert_from), with PostgreSQL's errors.
//
// PostgreSQL converts with tables generated from the Unicode consortium's
// mapping files. fickle's tables are golang.org/x/text's, which follow the
// WHATWG encoding standard, corrected where the two differ: the ISO 8859
// encodings map 0x80-0x9F to the C1 controls, KOI8U's 0xAE and 0xBE are
// box-drawing characters (RFC 2319), and WIN1255's 0xCA is unassigned. A
// test compares every byte and every character of the Basic Multilingual
// Plane with a real PostgreSQL. The multi-byte encodings (EUC_JP, SJIS,
// BIG5, GBK, ...) are named but not converted.
package pgencoding

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Encoding is one of PostgreSQL's encodings. Converter is nil for UTF8 and
// SQL_ASCII, whose text fickle passes through unchanged (PostgreSQL does
// not convert to or from SQL_ASCII), and for the encodings fickle cannot
// convert (Supported says which).
type Encoding struct {
	// Name is PostgreSQL's name of the encoding, as pg_encoding_to_char
	// and SHOW client_encoding print it.
	Name string
	// Converter converts to and from UTF8; nil for none.
	Converter *Converter
	// Client says PostgreSQL lets a client use the encoding
	// (MULE_INTERNAL is a server encoding only).
	Client bool
	number int
}

// Supported reports whether fickle can exchange text in e: UTF8, SQL_ASCII
// or an encoding it converts.
func (e *Encoding) Supported() bool {
	return e.Name == "UTF8" || e.Name == "SQL_ASCII" || e.Converter != nil
}

// PassThrough reports whether text in e needs no conversion from or to the
// server's UTF8.
func (e *Encoding) PassThrough() bool { return e.Converter == nil }

// Lookup finds an encoding by any of PostgreSQL's names for it, compared
// as pg_char_to_encoding compares them: case and every character other
// than letters and digits ignored ('utf-8', 'Latin1', 'ISO_8859_1').
func Lookup(name string) (*Encoding, bool) {
	e, ok := byAlias[clean(name)]
	return e, ok
}

// clean is PostgreSQL's clean_encoding_name: the letters and digits of
// name, lower-cased.
func clean(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, name)
}

// Converter converts text between one single-byte encoding and UTF8.
type Converter struct {
	name string
	// toUnicode holds the character of every byte from 0x80 on; 0 marks a
	// byte the encoding leaves unassigned.
	toUnicode [128]rune
	// fromUnicode is toUnicode's inverse.
	fromUnicode map[rune]byte
}

// ToUTF8 converts text in the encoding to UTF8, as PostgreSQL's
// pg_any_to_server: a NUL byte fails with 22021, an unassigned byte with
// 22P05. Text of ASCII only comes back as it is, without a copy.
func (c *Converter) ToUTF8(b []byte) ([]byte, error) {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf && b[i] != 0 {
		i++
	}
	if i == len(b) {
		return b, nil
	}
	out := make([]byte, i, len(b)+len(b)/2)
	copy(out, b[:i])
	for ; i < len(b); i++ {
		switch x := b[i]; {
		case x == 0:
			return nil, pgerror.Newf(pgerror.CharacterNotInRepertoire, "invalid byte sequence for encoding \"%s\": 0x00", c.name)
		case x < utf8.RuneSelf:
			out = append(out, x)
		default:
			r := c.toUnicode[x-0x80]
			if r == 0 {
				return nil, pgerror.Newf(pgerror.UntranslatableCharacter, "character with byte sequence 0x%02x in encoding \"%s\" has no equivalent in encoding \"UTF8\"", x, c.name)
			}
			out = utf8.AppendRune(out, r)
		}
	}
	return out, nil
}

// FromUTF8 converts UTF8 text to the encoding, as PostgreSQL's
// pg_server_to_any: a character the encoding lacks fails with 22P05.
// Text of ASCII only comes back as it is, without a copy.
func (c *Converter) FromUTF8(s []byte) ([]byte, error) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s, nil
	}
	out := make([]byte, i, len(s))
	copy(out, s[:i])
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			out = append(out, s[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		x, ok := c.fromUnicode[r]
		if !ok || r == utf8.RuneError && size == 1 {
			return nil, pgerror.Newf(pgerror.UntranslatableCharacter, "character with byte sequence %s in encoding \"UTF8\" has no equivalent in encoding \"%s\"", byteList(s[i:i+size]), c.name)
		}
		out = append(out, x)
		i += size
	}
	return out, nil
}

// byteList prints bytes as PostgreSQL's error messages list them.
func byteList(b []byte) string {
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("0x%02x", x)
	}
	return strings.Join(parts, " ")
}

// singleByte builds the converter of a single-byte encoding from x/text's
// table and PostgreSQL's differences from it (fixes: byte -> character, 0
// for unassigned).
func singleByte(name string, table *charmap.Charmap, fixes map[byte]rune) *Converter {
	c := &Converter{name: name, fromUnicode: make(map[rune]byte, 128)}
	for b := 0x80; b <= 0xff; b++ {
		r := table.DecodeByte(byte(b))
		if r == utf8.RuneError {
			r = 0
		}
		if fix, ok := fixes[byte(b)]; ok {
			r = fix
		}
		c.toUnicode[b-0x80] = r
		if r != 0 {
			c.fromUnicode[r] = byte(b)
		}
	}
	return c
}

// c1Controls maps 0x80-0x9F to U+0080-U+009F, as the ISO 8859 encodings
// do in PostgreSQL, where WHATWG leaves them out.
var c1Controls = func() map[byte]rune {
	m := make(map[byte]rune, 32)
	for b := 0x80; b <= 0x9f; b++ {
		m[byte(b)] = rune(b)
	}
	return m
}()

// byAlias maps every cleaned name of an encoding PostgreSQL knows to it;
// byNumber holds the encodings by PostgreSQL's numbers.
var (
	byAlias  = map[string]*Encoding{}
	byNumber []*Encoding
)

// ByNumber is the encoding PostgreSQL numbers n (pg_encoding_to_char).
func ByNumber(n int) (*Encoding, bool) {
	if n < 0 || n >= len(byNumber) {
		return nil, false
	}
	return byNumber[n], true
}

// Number is e's number in PostgreSQL (pg_char_to_encoding).
func (e *Encoding) Number() int { return e.number }

func init() {
	type def struct {
		name    string
		table   *charmap.Charmap
		fixes   map[byte]rune
		aliases []string
	}
	// In the order of PostgreSQL's enum pg_enc, which numbers them.
	for i, d := range []def{
		{"SQL_ASCII", nil, nil, nil},
		{"EUC_JP", nil, nil, nil},
		{"EUC_CN", nil, nil, nil},
		{"EUC_KR", nil, nil, nil},
		{"EUC_TW", nil, nil, nil},
		{"EUC_JIS_2004", nil, nil, nil},
		{"UTF8", nil, nil, []string{"unicode"}},
		{"MULE_INTERNAL", nil, nil, nil},
		{"LATIN1", charmap.ISO8859_1, c1Controls, []string{"iso88591"}},
		{"LATIN2", charmap.ISO8859_2, c1Controls, []string{"iso88592"}},
		{"LATIN3", charmap.ISO8859_3, c1Controls, []string{"iso88593"}},
		{"LATIN4", charmap.ISO8859_4, c1Controls, []string{"iso88594"}},
		{"LATIN5", charmap.ISO8859_9, c1Controls, []string{"iso88599"}},
		{"LATIN6", charmap.ISO8859_10, c1Controls, []string{"iso885910"}},
		{"LATIN7", charmap.ISO8859_13, c1Controls, []string{"iso885913"}},
		{"LATIN8", charmap.ISO8859_14, c1Controls, []string{"iso885914"}},
		{"LATIN9", charmap.ISO8859_15, c1Controls, []string{"iso885915"}},
		{"LATIN10", charmap.ISO8859_16, c1Controls, []string{"iso885916"}},
		{"WIN1256", charmap.Windows1256, nil, []string{"windows1256"}},
		{"WIN1258", charmap.Windows1258, nil, []string{"windows1258", "abc", "tcvn", "tcvn5712", "vscii"}},
		{"WIN866", charmap.CodePage866, nil, []string{"windows866", "alt"}},
		{"WIN874", charmap.Windows874, nil, []string{"windows874"}},
		{"KOI8R", charmap.KOI8R, nil, []string{"koi8"}},
		{"WIN1251", charmap.Windows1251, nil, []string{"windows1251", "win"}},
		{"WIN1252", charmap.Windows1252, nil, []string{"windows1252"}},
		{"ISO_8859_5", charmap.ISO8859_5, c1Controls, nil},
		{"ISO_8859_6", charmap.ISO8859_6, c1Controls, nil},
		{"ISO_8859_7", charmap.ISO8859_7, c1Controls, nil},
		{"ISO_8859_8", charmap.ISO8859_8, c1Controls, nil},
		{"WIN1250", charmap.Windows1250, nil, []string{"windows1250"}},
		{"WIN1253", charmap.Windows1253, nil, []string{"windows1253"}},
		{"WIN1254", charmap.Windows1254, nil, []string{"windows1254"}},
		{"WIN1255", charmap.Windows1255, map[byte]rune{0xca: 0}, []string{"windows1255"}},
		{"WIN1257", charmap.Windows1257, nil, []string{"windows1257"}},
		{"KOI8U", charmap.KOI8U, map[byte]rune{0xae: '\u255d', 0xbe: '\u256c'}, nil},
		{"SJIS", nil, nil, []string{"mskanji", "shiftjis", "windows932"}},
		{"BIG5", nil, nil, []string{"windows950"}},
		{"GBK", nil, nil, []string{"windows936"}},
		{"UHC", nil, nil, []string{"windows949"}},
		{"GB18030", nil, nil, nil},
		{"JOHAB", nil, nil, nil},
		{"SHIFT_JIS_2004", nil, nil, nil},
	} {
		e := &Encoding{Name: d.name, number: i, Client: d.name != "MULE_INTERNAL"}
		if d.table != nil {
			e.Converter = singleByte(d.name, d.table, d.fixes)
		}
		byNumber = append(byNumber, e)
		byAlias[clean(d.name)] = e
		for _, a := range d.aliases {
			byAlias[a] = e
		}
	}
}

// Verify is PostgreSQL's pg_verify_mbstr for the encodings fickle reads:
// text in UTF8 must be UTF-8, and in no encoding may it hold a NUL byte
// (22021). A multi-byte encoding other than UTF8 fails with 0A000.
func (e *Encoding) Verify(b []byte) error {
	switch {
	case e.Name == "UTF8":
		if bad := pgerror.CheckUTF8(string(b)); bad != nil {
			return bad
		}
		return nil
	case !e.Supported():
		return pgerror.Unsupported("text in encoding " + e.Name)
	case bytes.IndexByte(b, 0) >= 0:
		return pgerror.Newf(pgerror.CharacterNotInRepertoire, "invalid byte sequence for encoding \"%s\": 0x00", e.Name)
	}
	return nil
}

// Convert is PostgreSQL's convert(): b, checked to be valid text in src,
// converted to dst. Nothing converts to or from SQL_ASCII: text taken from
// it must be valid in dst. ok is false, and nothing happens, when the
// conversion goes between two encodings neither of which is UTF8 or
// SQL_ASCII, or between UTF8 and one fickle does not convert: the caller
// knows whether PostgreSQL has such a conversion.
func Convert(b []byte, src, dst *Encoding) (out []byte, ok bool, err error) {
	if err := src.Verify(b); err != nil {
		return nil, true, err
	}
	switch {
	case src == dst || dst.Name == "SQL_ASCII":
		return b, true, nil
	case src.Name == "SQL_ASCII":
		return b, true, dst.Verify(b)
	case src.Name == "UTF8" && dst.Converter != nil:
		out, err := dst.Converter.FromUTF8(b)
		return out, true, err
	case dst.Name == "UTF8" && src.Converter != nil:
		out, err := src.Converter.ToUTF8(b)
		return out, true, err
	}
	return nil, false, nil
}
