package sqlexec

import (
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The parser fickle embeds is PostgreSQL 17's, which reads 0x1F, 0o17,
// 0b101 and 1_000 as numbers (syntax PostgreSQL 16 added). PostgreSQL 15's
// lexer ends a number before the letter or underscore and fails with
// "trailing junk after numeric literal"; so does a parameter an identifier
// character follows ($1a). fickle must refuse what the server it stands in
// for refuses rather than answer it, so parseStatements looks for such a
// token itself.

// numericJunk returns the byte offset of the first number or parameter in
// sql that an identifier character follows, with the error PostgreSQL 15
// raises for it; the error is nil when there is none. Strings, quoted identifiers,
// comments and identifiers (t1_a) are skipped as PostgreSQL's lexer reads
// them; at a construct the scanner does not follow (an unterminated string,
// a string continued on the next line) it stops and finds nothing.
func numericJunk(sql string) (at int, err error) {
	sc := litScanner{src: sql}
	for sc.skipSpace() && sc.pos < len(sql) {
		s, i := sql, sc.pos
		c := s[i]
		switch {
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			sc.pos = j
			if j < len(s) && s[j] == '\'' {
				// A prefixed string: E'...' reads backslash escapes.
				end, ok := scanQuoted(s, j, strings.EqualFold(s[i:j], "e"))
				if !ok {
					return 0, nil
				}
				sc.pos = end
			}
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := decimalNumberEnd(s, i)
			if j < len(s) && isIdentStart(s[j]) {
				return i, junkError("trailing junk after numeric literal", s, i, identEnd(s, j))
			}
			sc.pos = j
		case c == '$' && i+1 < len(s) && isDigit(s[i+1]):
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j < len(s) && isIdentStart(s[j]) {
				return i, junkError("trailing junk after parameter", s, i, identEnd(s, j))
			}
			sc.pos = j
		case c == '$':
			end, ok := scanDollar(s, i)
			if !ok {
				end = i + 1 // $ inside an operator or identifier position
			}
			sc.pos = end
		case c == '\'':
			end, ok := scanQuoted(s, i, false)
			if !ok {
				return 0, nil
			}
			sc.pos = end
		case c == '"':
			end, ok := scanQuotedIdent(s, i)
			if !ok {
				return 0, nil
			}
			sc.pos = end
		default:
			sc.pos++
		}
	}
	return 0, nil
}

// decimalNumberEnd returns the end of the number at i as PostgreSQL 15 reads
// it: digits, a fraction, and an exponent only when digits follow its e.
func decimalNumberEnd(s string, i int) int {
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' && !(j+1 < len(s) && s[j+1] == '.') {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	return j
}

// identEnd returns the end of the identifier characters from j.
func identEnd(s string, j int) int {
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	return j
}

// junkError is PostgreSQL's 42601 for the token s[start:end], at its
// 1-based character position.
func junkError(msg, s string, start, end int) error {
	return pgerror.Newf(pgerror.SyntaxError, "%s at or near \"%s\"", msg, s[start:end]).
		WithPosition(utf8.RuneCountInString(s[:start]) + 1)
}
