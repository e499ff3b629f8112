package sqlexec

import (
	"fmt"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestStatementsWaitForPendingDDLAndSeeItsOutcome pins the locks of
// transactional DDL: a statement on a table that another transaction is
// altering waits until that transaction ends, then runs on the table as
// the transaction left it (the new columns after COMMIT, the old ones after
// ROLLBACK), with a plan made for that definition.
func TestStatementsWaitForPendingDDLAndSeeItsOutcome(t *testing.T) {
	tests := []struct {
		name, ddl, end, want string
	}{
		{"add column committed", "ALTER TABLE t ADD COLUMN c int DEFAULT 5", "COMMIT", "[[1 a 5] [2 b 5]]"},
		{"add column rolled back", "ALTER TABLE t ADD COLUMN c int DEFAULT 5", "ROLLBACK", "[[1 a] [2 b]]"},
		{"drop column committed", "ALTER TABLE t DROP COLUMN v", "COMMIT", "[[1] [2]]"},
		{"drop column rolled back", "ALTER TABLE t DROP COLUMN v", "ROLLBACK", "[[1 a] [2 b]]"},
		{"column type rolled back", "ALTER TABLE t ALTER COLUMN v TYPE varchar(1)", "ROLLBACK", "[[1 a] [2 b]]"},
		{"rename rolled back", "ALTER TABLE t RENAME TO u", "ROLLBACK", "[[1 a] [2 b]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, _ := newRecordingEngine(t, Config{}, isolation.Config{Strategy: isolation.StrategyLatest})
			var n int
			a, b := connect(t, eng, "fickle", &n), connect(t, eng, "fickle", &n)
			mustQuery(t, a, "CREATE TABLE t (k int PRIMARY KEY, v text)")
			mustQuery(t, a, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
			// b prepares its statement before the DDL starts.
			sts, err := b.Parse("SELECT * FROM t ORDER BY k")
			if err != nil {
				t.Fatal(err)
			}
			p, err := b.Prepare(sts[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			mustQuery(t, a, "BEGIN")
			mustQuery(t, a, tt.ddl)
			done := make(chan string, 1)
			go func() {
				res, err := b.Execute(bgctx, p, nil)
				if err != nil {
					done <- err.Error()
					return
				}
				done <- fmt.Sprint(res.Rows)
			}()
			select {
			case got := <-done:
				t.Fatalf("the statement ran while the DDL was pending: %s", got)
			case <-time.After(50 * time.Millisecond):
			}
			mustQuery(t, a, tt.end)
			if got := <-done; got != tt.want {
				t.Errorf("after %s: %s, want %s", tt.end, got, tt.want)
			}
		})
	}
}

// TestConcurrentDDLOnDifferentTablesCommitsBoth pins the merge of catalogs
// at commit: two transactions creating and altering different tables both
// commit and both changes remain; creating the same name twice fails the
// second commit with 23505.
func TestConcurrentDDLOnDifferentTablesCommitsBoth(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{}, isolation.Config{Strategy: isolation.StrategyLatest})
	var n int
	a, b := connect(t, eng, "fickle", &n), connect(t, eng, "fickle", &n)
	mustQuery(t, a, "CREATE TABLE x (k int)")
	mustQuery(t, a, "BEGIN")
	mustQuery(t, b, "BEGIN")
	mustQuery(t, a, "CREATE TABLE ta (k int)")
	mustQuery(t, a, "ALTER TABLE x ADD COLUMN a int")
	mustQuery(t, b, "CREATE TABLE tb (k int)")
	mustQuery(t, b, "CREATE TABLE same (k int)")
	mustQuery(t, a, "CREATE TABLE same (k int)")
	mustQuery(t, b, "COMMIT")
	// a sees b's committed tables next to its own pending ones.
	if got := fmt.Sprint(mustQuery(t, a, "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname")); got != "[[same] [ta] [tb] [x]]" {
		t.Errorf("a's view: %s", got)
	}
	wantCode(t, a, "COMMIT", pgerror.UniqueViolation)
	if got := fmt.Sprint(mustQuery(t, b, "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname")); got != "[[same] [tb] [x]]" {
		t.Errorf("after a's failed commit: %s", got)
	}
	mustQuery(t, a, "BEGIN")
	mustQuery(t, b, "BEGIN")
	mustQuery(t, a, "CREATE TABLE ta (k int)")
	mustQuery(t, b, "ALTER TABLE x ADD COLUMN b int")
	mustQuery(t, a, "COMMIT")
	mustQuery(t, b, "COMMIT")
	if got := fmt.Sprint(mustQuery(t, a, "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname")); got != "[[same] [ta] [tb] [x]]" {
		t.Errorf("after both commits: %s", got)
	}
	mustQuery(t, a, "INSERT INTO x VALUES (1, 2)")
	if got := fmt.Sprint(mustQuery(t, b, "SELECT * FROM x")); got != "[[1 2]]" {
		t.Errorf("x: %s", got)
	}
}

// TestConcurrentRoutineDDLCommitsBoth pins the merge of routines at
// commit: a function created, replaced or dropped in a transaction while
// another transaction's DDL committed keeps its change (it used to be lost
// with the other's merge), and one signature created by both fails the
// second commit with 23505.
func TestConcurrentRoutineDDLCommitsBoth(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{}, isolation.Config{Strategy: isolation.StrategyLatest})
	var n int
	a, b := connect(t, eng, "fickle", &n), connect(t, eng, "fickle", &n)
	mustQuery(t, a, "CREATE FUNCTION gone() RETURNS int LANGUAGE sql AS 'SELECT 0'")
	mustQuery(t, a, "CREATE FUNCTION changed(int) RETURNS int LANGUAGE sql AS 'SELECT 1'")
	mustQuery(t, a, "BEGIN")
	mustQuery(t, a, "CREATE FUNCTION fa() RETURNS int LANGUAGE sql AS 'SELECT 2'")
	mustQuery(t, a, "CREATE FUNCTION changed(text) RETURNS int LANGUAGE sql AS 'SELECT 3'")
	mustQuery(t, a, "CREATE OR REPLACE FUNCTION changed(int) RETURNS int LANGUAGE sql AS 'SELECT 4'")
	mustQuery(t, a, "DROP FUNCTION gone()")
	mustQuery(t, b, "CREATE FUNCTION fb() RETURNS int LANGUAGE sql AS 'SELECT 5'")
	mustQuery(t, a, "COMMIT")
	if got := fmt.Sprint(mustQuery(t, b, "SELECT fa(), fb(), changed(1), changed('x')")); got != "[[2 5 4 3]]" {
		t.Errorf("after both commits: %s", got)
	}
	wantCode(t, b, "SELECT gone()", pgerror.UndefinedFunction)
	mustQuery(t, a, "BEGIN")
	mustQuery(t, b, "BEGIN")
	mustQuery(t, a, "CREATE FUNCTION twice() RETURNS int LANGUAGE sql AS 'SELECT 6'")
	mustQuery(t, b, "CREATE FUNCTION twice() RETURNS int LANGUAGE sql AS 'SELECT 7'")
	mustQuery(t, b, "COMMIT")
	wantCode(t, a, "COMMIT", pgerror.UniqueViolation)
	if got := fmt.Sprint(mustQuery(t, a, "SELECT twice()")); got != "[[7]]" {
		t.Errorf("twice: %s", got)
	}
}

// TestSetFollowsTransactionOutcome pins PostgreSQL's rules for settings at
// a transaction's end: SET is undone by ROLLBACK and ROLLBACK TO
// SAVEPOINT and kept by COMMIT and RELEASE; SET LOCAL ends with the
// transaction, and a SET after it in the same transaction wins.
func TestSetFollowsTransactionOutcome(t *testing.T) {
	tests := []struct {
		name  string
		stmts []string
		want  string
	}{
		{"set rolled back", []string{"BEGIN", "SET search_path = a", "ROLLBACK"}, `"$user", public`},
		{"set committed", []string{"BEGIN", "SET search_path = a", "COMMIT"}, "a"},
		{"set in failed transaction", []string{"BEGIN", "SET search_path = a", "SELECT 1/0", "ROLLBACK"}, `"$user", public`},
		{"local ends", []string{"BEGIN", "SET LOCAL search_path = a", "COMMIT"}, `"$user", public`},
		{"set then local", []string{"BEGIN", "SET search_path = a", "SET LOCAL search_path = b", "COMMIT"}, "a"},
		{"local then set", []string{"BEGIN", "SET LOCAL search_path = b", "SET search_path = a", "COMMIT"}, "a"},
		{"rollback to savepoint", []string{"BEGIN", "SET search_path = a", "SAVEPOINT s", "SET search_path = b", "ROLLBACK TO s", "COMMIT"}, "a"},
		{"release", []string{"BEGIN", "SAVEPOINT s", "SET search_path = b", "RELEASE s", "COMMIT"}, "b"},
		{"release then rollback", []string{"BEGIN", "SAVEPOINT s", "SET search_path = b", "RELEASE s", "ROLLBACK"}, `"$user", public`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eng, _ := newRecordingEngine(t, Config{}, isolation.Config{})
			var n int
			s := connect(t, eng, "fickle", &n)
			for _, q := range tt.stmts {
				_, _ = query(t, s, q)
			}
			if got := show(t, s, "search_path"); got != tt.want {
				t.Errorf("search_path %q, want %q", got, tt.want)
			}
		})
	}
}
