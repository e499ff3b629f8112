package sqlexec

import (
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestConcurrentNamedObjectsMergeOrClash pins the merge of statistics
// objects, collations and conversions at commit: two transactions making
// different ones both commit; a name made twice in one schema fails the
// second commit with 23505, as the unique index does in PostgreSQL.
func TestConcurrentNamedObjectsMergeOrClash(t *testing.T) {
	for _, tc := range []struct{ name, a, b, list string }{
		{"statistics", "CREATE STATISTICS s ON k, l FROM ta", "CREATE STATISTICS s ON k, l FROM tb",
			"SELECT stxname FROM pg_statistic_ext ORDER BY 1"},
		{"collation", "CREATE COLLATION s FROM \"C\"", "CREATE COLLATION s (locale = 'POSIX')",
			"SELECT collname FROM pg_collation WHERE collnamespace = 'public'::regnamespace ORDER BY 1"},
		{"conversion", "CREATE CONVERSION s FOR 'LATIN1' TO 'UTF8' FROM iso8859_1_to_utf8",
			"CREATE CONVERSION s FOR 'LATIN1' TO 'UTF8' FROM iso8859_1_to_utf8",
			"SELECT conname FROM pg_conversion WHERE connamespace = 'public'::regnamespace ORDER BY 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, _ := newRecordingEngine(t, Config{}, isolation.Config{Strategy: isolation.StrategyLatest})
			var n int
			a, b := connect(t, eng, "fickle", &n), connect(t, eng, "fickle", &n)
			mustQuery(t, a, "CREATE TABLE ta (k int, l int)")
			mustQuery(t, a, "CREATE TABLE tb (k int, l int)")
			mustQuery(t, a, "BEGIN")
			mustQuery(t, b, "BEGIN")
			mustQuery(t, a, tc.a)
			mustQuery(t, b, tc.b)
			mustQuery(t, b, "COMMIT")
			wantCode(t, a, "COMMIT", pgerror.UniqueViolation)
			if got := fmt.Sprint(mustQuery(t, a, tc.list)); got != "[[s]]" {
				t.Errorf("after a's failed commit: %s", got)
			}
			mustQuery(t, a, "BEGIN")
			mustQuery(t, b, "BEGIN")
			mustQuery(t, a, replaceName(tc.a, "s2"))
			mustQuery(t, b, replaceName(tc.b, "s3"))
			mustQuery(t, a, "COMMIT")
			mustQuery(t, b, "COMMIT")
			if got := fmt.Sprint(mustQuery(t, b, tc.list)); got != "[[s] [s2] [s3]]" {
				t.Errorf("after both commits: %s", got)
			}
		})
	}
}

// replaceName is statement stmt, which names its object s, naming it name.
func replaceName(stmt, name string) string {
	for i := 0; i+3 <= len(stmt); i++ {
		if stmt[i:i+3] == " s " {
			return stmt[:i] + " " + name + " " + stmt[i+3:]
		}
	}
	return stmt
}
