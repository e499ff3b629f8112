// Package pgident quotes SQL identifiers as PostgreSQL's quote_identifier
// does, for the text fickle prints back (pg_get_indexdef, quote_ident,
// format's %I): an identifier stays bare only when it is made of lower-case
// letters, digits and underscores, does not start with a digit, and is no
// keyword other than an unreserved one ("order" and "user" are quoted).
package pgident

import (
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Quote returns s as PostgreSQL's quote_identifier prints it.
func Quote(s string) string {
	if plain(s) && !reserved(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// plain reports whether s is made of the characters an unquoted
// identifier may hold in PostgreSQL's output.
func plain(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] == '_') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// keywordCache remembers, per plain identifier, whether it is a keyword
// that needs quotes: the look-up goes through the parser's scanner.
var keywordCache sync.Map

// reserved reports whether plain identifier s is a keyword other than an
// unreserved one (a column name, type or function name, or reserved
// keyword), which PostgreSQL quotes.
func reserved(s string) bool {
	if v, ok := keywordCache.Load(s); ok {
		return v.(bool)
	}
	quoted := false
	if r, err := pg_query.Scan(s); err == nil && len(r.Tokens) == 1 {
		k := r.Tokens[0].KeywordKind
		quoted = k != pg_query.KeywordKind_NO_KEYWORD && k != pg_query.KeywordKind_UNRESERVED_KEYWORD
	}
	keywordCache.Store(s, quoted)
	return quoted
}
