package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestFailedDDLHandsOverItsNotices: a DDL statement that raises notices and
// then fails leaves them for TakeNotices, which the server sends before the
// error, as PostgreSQL sends notices as they are raised.
func TestFailedDDLHandsOverItsNotices(t *testing.T) {
	s := newCopyTestSession(t)
	mustRun(t, s, "CREATE TABLE nbe_parent (id int PRIMARY KEY); CREATE TABLE nbe_child (p int REFERENCES nbe_parent)")
	for _, tc := range []struct{ sql, notice string }{
		{"DROP TABLE IF EXISTS nbe_missing, nbe_parent", `table "nbe_missing" does not exist, skipping`},
		{"ALTER TABLE nbe_child DROP CONSTRAINT IF EXISTS nbe_nope, DROP COLUMN nbe_nope2", `constraint "nbe_nope" of relation "nbe_child" does not exist, skipping`},
	} {
		if _, err := query(t, s, tc.sql); err == nil {
			t.Fatalf("%s: succeeded, want an error", tc.sql)
		}
		notices := s.TakeNotices()
		if len(notices) != 1 || notices[0].Message != tc.notice || notices[0].Severity != "NOTICE" || notices[0].Code != pgerror.SuccessfulCompletion {
			t.Fatalf("%s: notices %v, want the one NOTICE %q", tc.sql, notices, tc.notice)
		}
	}
}
