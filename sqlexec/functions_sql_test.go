package sqlexec

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSQLFunctionBodyErrorsPointIntoCreate pins how CREATE FUNCTION
// reports an error found checking a LANGUAGE sql body, as PostgreSQL's
// validator does: a position in a body written as a literal points into
// the CREATE statement (dollar-quoted, or single-quoted with doubled
// quotes and backslashes counted), or into the body as the internal query
// when the statement holds the body more than once; a BEGIN ATOMIC body's
// positions are the statement's; an error without a position names the
// function in CONTEXT.
func TestSQLFunctionBodyErrorsPointIntoCreate(t *testing.T) {
	s := contextSession(t)
	mustRun(t, s, `CREATE PROCEDURE twice(INOUT a int, INOUT b int) LANGUAGE sql AS $$ SELECT 1, 2 $$`)
	for _, tc := range []struct {
		sql, at      string // at: the text the position points at ("": none)
		query        string
		internal     int
		where, state string
	}{
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 FROM nosuch $$", at: "nosuch $$", state: "42P01"},
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $f$\n  SELECT 1;\n  SELECT nosuchcol FROM pg_class $f$", at: "nosuchcol", state: "42703"},
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT ''é'' || nosuchcol'", at: "nosuchcol", state: "42703"},
		{sql: `CREATE FUNCTION f() RETURNS int LANGUAGE sql AS E'SELECT \'a\' || nosuchcol'`, at: "nosuchcol", state: "42703"},
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT nosuchcol FROM pg_class; END", at: "nosuchcol", state: "42703"},
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELEC 1 $$", at: "SELEC", state: "42601"},
		// The body's text appears twice: PostgreSQL cannot tell which.
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$SELECT x$$ /* $SELECT x$ */", query: "SELECT x", internal: 8, state: "42703"},
		{sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 'a'::text $$", where: `SQL function "f"`, state: "42P13"},
		{sql: "CREATE PROCEDURE p(INOUT b int, INOUT a int) LANGUAGE sql AS $$ CALL twice(a, b) $$", where: `SQL function "p"`, state: "0A000"},
	} {
		pe := executeError(t, s, tc.sql)
		pos := 0
		if tc.at != "" {
			pos = utf8.RuneCountInString(tc.sql[:strings.LastIndex(tc.sql, tc.at)]) + 1
		}
		if string(pe.Code) != tc.state || pe.Position != pos || pe.InternalQuery != tc.query || pe.InternalPosition != tc.internal || pe.Where != tc.where {
			t.Errorf("%s:\n%s %s at %d, QUERY %q at %d, CONTEXT %q\nwant %s at %d, QUERY %q at %d, CONTEXT %q",
				tc.sql, pe.Code, pe.Message, pe.Position, pe.InternalQuery, pe.InternalPosition, pe.Where,
				tc.state, pos, tc.query, tc.internal, tc.where)
		}
	}
}
