package server

import (
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// noParameter is the error of a simple-protocol statement that mentions a
// $n placeholder: there is nothing to bind it to. Like PostgreSQL it names
// the first placeholder in the text and points at it.
func noParameter(sql string) error {
	pos, name := firstPlaceholder(sql)
	if name == "" {
		name = "$1"
	}
	return pgerror.Newf(pgerror.UndefinedParameter, "there is no parameter %s", name).WithPosition(pos)
}

// firstPlaceholder finds the first $n outside string literals, quoted
// identifiers and comments, and returns its 1-based character position.
func firstPlaceholder(sql string) (int, string) {
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\'' || c == '"':
			for i++; i < len(sql) && sql[i] != c; i++ {
			}
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for ; i < len(sql) && sql[i] != '\n'; i++ {
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := i + 2
			for end+1 < len(sql) && !(sql[end] == '*' && sql[end+1] == '/') {
				end++
			}
			i = end + 1
		case c == '$' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9' && (i == 0 || !isIdent(sql[i-1])):
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			return utf8.RuneCountInString(sql[:i]) + 1, sql[i:j]
		}
	}
	return 0, ""
}
