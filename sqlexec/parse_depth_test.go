package sqlexec

import (
	"fmt"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestDeepStatementsAreRefusedBeforeTheParserOverflows pins the statements
// that used to kill the server (the embedded parser overflowed the C
// stack on a long left-deep chain): they fail with 54001 as PostgreSQL's
// do, while long statements that do not nest (lists, AND chains, many rows)
// and chains PostgreSQL accepts still parse.
func TestDeepStatementsAreRefusedBeforeTheParserOverflows(t *testing.T) {
	chain := func(head, link string, n int) string { return head + strings.Repeat(link, n) }
	cases := []struct {
		name string
		sql  string
		want pgerror.Code // "" parses
	}{
		{"plus chain PostgreSQL accepts", chain("SELECT 1", "+1", 4000), ""},
		{"plus chain", chain("SELECT 1", "+1", 40000), pgerror.StatementTooComplex},
		{"concatenation", chain("SELECT 'a'", "||'a'", 100000), pgerror.StatementTooComplex},
		{"json path", chain("SELECT '{}'::jsonb", "->'a'", 100000), pgerror.StatementTooComplex},
		{"casts", chain("SELECT 1", "::int", 50000), pgerror.StatementTooComplex},
		{"union all", chain("SELECT 1", " UNION ALL SELECT 1", 100000), pgerror.StatementTooComplex},
		{"joins", "SELECT * FROM t0" + func() string {
			var b strings.Builder
			for i := 1; i <= 20000; i++ {
				b.WriteString(" JOIN t0 ON true")
			}
			return b.String()
		}(), pgerror.StatementTooComplex},
		{"chain inside parentheses", "SELECT (" + chain("1", "+1", 40000) + ")", pgerror.StatementTooComplex},
		{"chain after another statement", "SELECT 1; " + chain("SELECT 1", "+1", 40000), pgerror.StatementTooComplex},
		{"long IN list", "SELECT 1 WHERE 1 IN (" + strings.Repeat("1,", 100000) + "1)", ""},
		{"long AND chain", "SELECT 1 WHERE " + strings.Repeat("1 = 1 AND ", 20000) + "true", ""},
		{"many rows", "VALUES " + strings.Repeat("(1, 'a'), ", 50000) + "(1, 'a')", ""},
		{"many statements", strings.Repeat("SELECT 1+1+1; ", 5000), ""},
		{"deep parentheses", "SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000), pgerror.SyntaxError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseStatements(c.sql)
			if got := pgerror.GetCode(err); err != nil && got != c.want || err == nil && c.want != "" {
				t.Fatalf("parse: %v (code %s), want code %q", err, got, c.want)
			}
		})
	}
}

// TestParseCacheIsBoundedInBytes: statements longer than the cache takes
// are not kept, and the texts kept never add up to more than its budget.
func TestParseCacheIsBoundedInBytes(t *testing.T) {
	var c parseCache
	c.put(strings.Repeat("x", parseCacheMaxText+1), nil)
	if _, ok := c.get(strings.Repeat("x", parseCacheMaxText+1)); ok {
		t.Fatal("a statement longer than parseCacheMaxText was cached")
	}
	for i := range 200 {
		c.put(fmt.Sprintf("%d%s", i, strings.Repeat("y", parseCacheMaxText-10)), nil)
		if c.mu.bytes > parseCacheBytes {
			t.Fatalf("after %d statements the cache holds %d bytes of text, over its %d", i+1, c.mu.bytes, parseCacheBytes)
		}
	}
}

// FuzzQuickDepthBoundIsAnUpperBound: wherever quickDepthBound answers, its
// bound is at least the depth estimatedDepth computes from the scanner's
// tokens, so that skipping the scanner never lets a deep statement
// through.
func FuzzQuickDepthBoundIsAnUpperBound(f *testing.F) {
	for _, s := range []string{
		"SELECT 1+1+1", "SELECT x FROM t WHERE x IN (1, 2, 3) AND y = 'a''b'", "SELECT CASE WHEN a THEN b+1 ELSE c END + 1",
		"SELECT \"CASE\" + 1, t.case FROM t -- comment (\n /* nested /* comment */ ) */ + 2", "SELECT $1 + 2.5e-3::int[]",
		"SELECT a$b + 1; SELECT ((1+1)+1)", "SELECT E'\\'' + 1", "SELECT $$a$$ || 'b'", "SELECT 1 UNION ALL SELECT 2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		bound, ok := quickDepthBound(sql)
		if !ok {
			return
		}
		res, err := pg_query.Scan(sql)
		if err != nil {
			return
		}
		if exact := estimatedDepth(res.Tokens); bound < exact {
			t.Fatalf("quickDepthBound %d < estimatedDepth %d for %q", bound, exact, sql)
		}
	})
}
