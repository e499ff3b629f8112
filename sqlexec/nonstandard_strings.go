package sqlexec

import (
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// checkNonStandardStrings vets a query string read while
// standard_conforming_strings is off. fickle's parser always reads '...'
// literals the standard way, which gives the same statement as PostgreSQL
// unless a literal holds a backslash (an escape when the setting is off):
// such a statement is refused with 0A000 rather than read differently.
// U&'...' literals fail as in PostgreSQL.
func checkNonStandardStrings(sql string) error {
	if !strings.Contains(sql, `\`) && !strings.Contains(strings.ToLower(sql), "u&'") {
		return nil
	}
	res, err := pg_query.Scan(sql)
	if err != nil {
		return pgerror.Unsupported("string literals with backslashes while standard_conforming_strings is off")
	}
	for _, tk := range res.Tokens {
		text := sql[tk.Start:tk.End]
		switch {
		case tk.Token == pg_query.Token_USCONST && strings.HasSuffix(text, "'"):
			return pgerror.New(pgerror.FeatureNotSupported, "unsafe use of string constant with Unicode escapes").
				WithDetail("String constants with Unicode escapes cannot be used when standard_conforming_strings is off.").
				WithPosition(utf8.RuneCountInString(sql[:tk.Start]) + 1)
		case tk.Token == pg_query.Token_SCONST && strings.HasPrefix(text, "'") && strings.Contains(text, `\`):
			return pgerror.Unsupported("string literals with backslashes while standard_conforming_strings is off")
		}
	}
	return nil
}
