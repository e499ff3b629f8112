package jsonpath

import (
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// tokKind is a token of the jsonpath language. Single characters (the
// "special" characters of PostgreSQL's scanner) are their own byte value.
type tokKind int

const (
	tokEOF tokKind = 256 + iota
	tokIdent
	tokString
	tokVariable
	tokInt
	tokNumeric
	tokAnd        // &&
	tokOr         // ||
	tokNot        // !
	tokAny        // **
	tokLess       // <
	tokLessEq     // <=
	tokEqual      // ==
	tokNotEqual   // <> or !=
	tokGreaterEq  // >=
	tokGreater    // >
	tokKwTo       // keywords from here on
	tokKwNull     // null (lower case only)
	tokKwTrue     // true (lower case only)
	tokKwFalse    // false (lower case only)
	tokKwIs       // is
	tokKwUnknown  // unknown
	tokKwExists   // exists
	tokKwStrict   // strict
	tokKwLax      // lax
	tokKwLast     // last
	tokKwStarts   // starts
	tokKwWith     // with
	tokKwLikeRe   // like_regex
	tokKwFlag     // flag
	tokKwAbs      // abs
	tokKwSize     // size
	tokKwType     // type
	tokKwFloor    // floor
	tokKwDouble   // double
	tokKwCeiling  // ceiling
	tokKwKeyValue // keyvalue
	tokKwDatetime // datetime
)

// keywords maps the keywords of the jsonpath scanner to their tokens; all
// but null, true and false are matched without regard to case.
var keywords = map[string]tokKind{
	"to": tokKwTo, "null": tokKwNull, "true": tokKwTrue, "false": tokKwFalse, "is": tokKwIs,
	"unknown": tokKwUnknown, "exists": tokKwExists, "strict": tokKwStrict, "lax": tokKwLax,
	"last": tokKwLast, "starts": tokKwStarts, "with": tokKwWith, "like_regex": tokKwLikeRe,
	"flag": tokKwFlag, "abs": tokKwAbs, "size": tokKwSize, "type": tokKwType, "floor": tokKwFloor,
	"double": tokKwDouble, "ceiling": tokKwCeiling, "keyvalue": tokKwKeyValue, "datetime": tokKwDatetime,
}

// token is one lexeme. text is its value (a string's or identifier's
// characters after escapes, a number's digits); errText is what a syntax
// error reports it as, which follows what PostgreSQL's scanner has just
// matched (the closing quote of a string, the blanks after an identifier);
// atEnd says the error reads "at end of jsonpath input".
type token struct {
	kind    tokKind
	text    string
	pos     int
	errText string
	atEnd   bool
}

const specials = "?%$.[]{}()|&!=<>@#,*:-+/"

func isSpecial(c byte) bool { return strings.IndexByte(specials, c) >= 0 }
func isBlank(c byte) bool   { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// isOther is the scanner's "other": anything that is not special, blank,
// a backslash or a double quote.
func isOther(c byte) bool { return !isSpecial(c) && !isBlank(c) && c != '\\' && c != '"' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexer splits a jsonpath text into tokens, as PostgreSQL's flex scanner
// does: longest match first, ties to the earlier rule.
type lexer struct {
	s string
	i int
}

func syntaxErr(msg string, t token) error {
	if t.atEnd {
		return pgerror.Newf(pgerror.SyntaxError, "%s at end of jsonpath input", msg)
	}
	return pgerror.Newf(pgerror.SyntaxError, "%s at or near \"%s\" of jsonpath input", msg, t.errText)
}

func (l *lexer) errAt(msg string, start, end int) error {
	if start >= len(l.s) {
		return syntaxErr(msg, token{pos: start, atEnd: true})
	}
	return syntaxErr(msg, token{pos: start, errText: l.s[start:end]})
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	for {
		for l.i < len(l.s) && isBlank(l.s[l.i]) {
			l.i++
		}
		if !strings.HasPrefix(l.s[l.i:], "/*") {
			break
		}
		if err := l.skipComment(); err != nil {
			return token{}, err
		}
	}
	start := l.i
	if l.i >= len(l.s) {
		return token{kind: tokEOF, pos: start, atEnd: true}, nil
	}
	op := func(k tokKind, n int) (token, error) {
		l.i += n
		return token{kind: k, pos: start, errText: l.s[start:l.i]}, nil
	}
	rest := l.s[l.i:]
	for _, o := range []struct {
		s string
		k tokKind
	}{{"&&", tokAnd}, {"||", tokOr}, {"**", tokAny}, {"<=", tokLessEq}, {"==", tokEqual},
		{"<>", tokNotEqual}, {"!=", tokNotEqual}, {">=", tokGreaterEq}} {
		if strings.HasPrefix(rest, o.s) {
			return op(o.k, 2)
		}
	}
	c := l.s[l.i]
	switch {
	case c == '!':
		return op(tokNot, 1)
	case c == '<':
		return op(tokLess, 1)
	case c == '>':
		return op(tokGreater, 1)
	case c == '$' && l.i+1 < len(l.s) && isOther(l.s[l.i+1]):
		j := l.i + 1
		for j < len(l.s) && isOther(l.s[j]) {
			j++
		}
		l.i = j
		return token{kind: tokVariable, text: l.s[start+1 : j], pos: start, errText: l.s[start:j]}, nil
	case c == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '"':
		l.i += 2
		return l.quoted(start, tokVariable)
	case c == '"':
		l.i++
		return l.quoted(start, tokString)
	case isDigit(c) || (c == '.' && l.i+1 < len(l.s) && isDigit(l.s[l.i+1])):
		return l.number(start)
	case isSpecial(c):
		return op(tokKind(c), 1)
	}
	return l.ident(start)
}

func (l *lexer) skipComment() error {
	end := strings.Index(l.s[l.i+2:], "*/")
	if end < 0 {
		l.i = len(l.s)
		return syntaxErr("unexpected end of comment", token{pos: l.i, atEnd: true})
	}
	l.i += 2 + end + 2
	return nil
}

// number scans a numeric literal, reporting junk after it as PostgreSQL's
// rules do: a run of "other" characters longer than the number is an
// identifier, not junk.
func (l *lexer) number(start int) (token, error) {
	s := l.s
	intEnd := func(i int) int {
		if i < len(s) && s[i] == '0' {
			return i + 1
		}
		if i < len(s) && s[i] >= '1' && s[i] <= '9' {
			for i++; i < len(s) && isDigit(s[i]); i++ {
			}
			return i
		}
		return -1
	}
	digits := func(i int) int {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i
	}
	integer := intEnd(start)
	decimal := -1
	if integer > 0 && integer < len(s) && s[integer] == '.' {
		decimal = digits(integer + 1)
	} else if s[start] == '.' {
		decimal = digits(start + 1)
	}
	real, realFail := -1, -1
	for _, base := range []int{integer, decimal} {
		if base < 0 || base >= len(s) || (s[base] != 'e' && s[base] != 'E') {
			continue
		}
		j := base + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
			if j >= len(s) || !isDigit(s[j]) {
				realFail = max(realFail, j)
				continue
			}
		}
		if j < len(s) && isDigit(s[j]) {
			real = max(real, digits(j))
		}
	}
	junk := func(end int) int {
		if end > 0 && end < len(s) && isOther(s[end]) {
			return end + 1
		}
		return -1
	}
	other := -1
	if isOther(s[start]) {
		other = start
		for other < len(s) && isOther(s[other]) {
			other++
		}
	}
	// Rules in the scanner's order; the longest match wins, ties go to
	// the earlier rule.
	type rule struct {
		end  int
		kind string
	}
	best := rule{-1, ""}
	for _, r := range []rule{{real, "real"}, {decimal, "decimal"}, {integer, "integer"}, {realFail, "realfail"},
		{junk(integer), "junk"}, {junk(decimal), "junk"}, {junk(real), "junk"}, {other, "other"}} {
		if r.end > best.end {
			best = r
		}
	}
	switch best.kind {
	case "real", "decimal":
		l.i = best.end
		return token{kind: tokNumeric, text: s[start:best.end], pos: start, errText: s[start:best.end]}, nil
	case "integer":
		l.i = best.end
		return token{kind: tokInt, text: s[start:best.end], pos: start, errText: s[start:best.end]}, nil
	case "realfail":
		return token{}, l.errAt("invalid numeric literal", start, best.end)
	case "junk":
		return token{}, l.errAt("trailing junk after numeric literal", start, best.end)
	}
	return l.ident(start)
}

// ident scans an unquoted identifier or keyword: "other" characters and
// escapes up to a blank, a special character, a quote or the end.
func (l *lexer) ident(start int) (token, error) {
	var sb strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '\\':
			if err := l.escape(&sb); err != nil {
				return token{}, err
			}
			continue
		case isOther(c):
			sb.WriteByte(c)
			l.i++
			continue
		case isBlank(c):
			j := l.i
			for j < len(l.s) && isBlank(l.s[j]) {
				j++
			}
			t := l.word(sb.String(), start)
			t.errText, t.atEnd = l.s[l.i:j], false
			l.i = j
			return t, nil
		case strings.HasPrefix(l.s[l.i:], "/*"):
			// PostgreSQL's scanner drops an identifier that a comment
			// ends: it enters the comment without returning the word.
			if err := l.skipComment(); err != nil {
				return token{}, err
			}
			return l.next()
		}
		break
	}
	return l.word(sb.String(), start), nil
}

func (l *lexer) word(w string, start int) token {
	t := token{kind: tokIdent, text: w, pos: start, atEnd: true}
	if k, ok := keywords[strings.ToLower(w)]; ok {
		if (k != tokKwNull && k != tokKwTrue && k != tokKwFalse) || w == strings.ToLower(w) {
			t.kind = k
		}
	}
	return t
}

// quoted scans a double-quoted string (or quoted variable name) after its
// opening quote.
func (l *lexer) quoted(start int, kind tokKind) (token, error) {
	var sb strings.Builder
	for l.i < len(l.s) {
		switch c := l.s[l.i]; c {
		case '"':
			l.i++
			return token{kind: kind, text: sb.String(), pos: start, errText: `"`}, nil
		case '\\':
			if err := l.escape(&sb); err != nil {
				return token{}, err
			}
		default:
			sb.WriteByte(c)
			l.i++
		}
	}
	return token{}, syntaxErr("unexpected end of quoted string", token{pos: len(l.s), atEnd: true})
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// escape reads one backslash escape (a run of \u escapes at once, so that
// surrogate pairs combine) and appends its characters.
func (l *lexer) escape(sb *strings.Builder) error {
	start := l.i
	if l.i+1 >= len(l.s) {
		return l.errAt("unexpected end after backslash", start, len(l.s))
	}
	c := l.s[l.i+1]
	switch c {
	case 'b', 'f', 'n', 'r', 't', 'v':
		sb.WriteByte(map[byte]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}[c])
		l.i += 2
		return nil
	case 'x':
		if l.i+3 < len(l.s) && hexVal(l.s[l.i+2]) >= 0 && hexVal(l.s[l.i+3]) >= 0 {
			ch := hexVal(l.s[l.i+2])<<4 | hexVal(l.s[l.i+3])
			l.i += 4
			return addCodePoint(sb, ch)
		}
		end := l.i + 2
		if end < len(l.s) && hexVal(l.s[end]) >= 0 {
			end++
		}
		return l.errAt("invalid hex character sequence", start, end)
	case 'u':
		return l.unicode(sb)
	}
	_, n := utf8.DecodeRuneInString(l.s[l.i+1:])
	sb.WriteString(l.s[l.i+1 : l.i+1+n])
	l.i += 1 + n
	return nil
}

// unicode reads a run of \uXXXX and \u{X...} escapes.
func (l *lexer) unicode(sb *strings.Builder) error {
	start := l.i
	hi := -1
	for l.i+1 < len(l.s) && l.s[l.i] == '\\' && l.s[l.i+1] == 'u' {
		j := l.i + 2
		ch := 0
		if j < len(l.s) && l.s[j] == '{' {
			k := j + 1
			for k < len(l.s) && k-j-1 < 6 && hexVal(l.s[k]) >= 0 {
				ch = ch<<4 | hexVal(l.s[k])
				k++
			}
			if k-j-1 == 0 || k >= len(l.s) || l.s[k] != '}' {
				return l.errAt("invalid unicode sequence", start, k)
			}
			j = k + 1
		} else {
			k := j
			for k < len(l.s) && k-j < 4 && hexVal(l.s[k]) >= 0 {
				ch = ch<<4 | hexVal(l.s[k])
				k++
			}
			if k-j < 4 {
				return l.errAt("invalid unicode sequence", start, k)
			}
			j = k
		}
		l.i = j
		switch {
		case ch >= 0xD800 && ch <= 0xDBFF:
			if hi != -1 {
				return surrogateErr("Unicode high surrogate must not follow a high surrogate.")
			}
			hi = ch
			continue
		case ch >= 0xDC00 && ch <= 0xDFFF:
			if hi == -1 {
				return surrogateErr("Unicode low surrogate must follow a high surrogate.")
			}
			ch = (hi-0xD800)<<10 + (ch - 0xDC00) + 0x10000
			hi = -1
		case hi != -1:
			return surrogateErr("Unicode low surrogate must follow a high surrogate.")
		}
		if err := addCodePoint(sb, ch); err != nil {
			return err
		}
	}
	if hi != -1 {
		return surrogateErr("Unicode low surrogate must follow a high surrogate.")
	}
	return nil
}

func surrogateErr(detail string) error {
	return pgerror.New(pgerror.InvalidTextRepresentation, "invalid input syntax for type jsonpath").WithDetail("%s", detail)
}

func addCodePoint(sb *strings.Builder, ch int) error {
	if ch == 0 {
		return pgerror.New(pgerror.UntranslatableCharacter, "unsupported Unicode escape sequence").
			WithDetail("\\u0000 cannot be converted to text.")
	}
	if ch > utf8.MaxRune {
		return pgerror.New(pgerror.InvalidTextRepresentation, "invalid input syntax for type jsonpath").
			WithDetail("Unicode escape value could not be translated to the server's encoding UTF8.")
	}
	sb.WriteRune(rune(ch))
	return nil
}
