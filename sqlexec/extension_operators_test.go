package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestDropExtensionDetail pins DROP EXTENSION's DETAIL for objects using an
// extension's functions, operators and operator classes: one line per
// object, by member in the order the extension's script creates them, as
// PostgreSQL 15 gives it (script tests compare no DETAIL).
func TestDropExtensionDetail(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{DefaultIsolation: history.Snapshot}, isolation.Config{Strategy: isolation.StrategyLatest})
	s := eng.NewSession(SessionInfo{User: "u"})
	defer s.Close()
	for _, sql := range []string{
		"CREATE EXTENSION pg_trgm",
		"CREATE TABLE t (n int, name text)",
		"CREATE INDEX t_gist ON t USING gist (name gist_trgm_ops)",
		"CREATE INDEX t_gin ON t USING gin (name gin_trgm_ops)",
		"CREATE VIEW v0 AS SELECT word_similarity(name, 'x') FROM t",
		"CREATE VIEW v1 AS SELECT n % 2 AS m, name % 'x' AS k FROM t",
		"CREATE VIEW v2 AS SELECT n % 2 AS m FROM t",
		"CREATE VIEW v3 AS SELECT name <->>> 'x' AS m FROM t",
		"CREATE TABLE d (a text DEFAULT show_trgm('x')::text, b text CHECK (b % 'abc'), c int DEFAULT 5 % 3)",
	} {
		mustRun(t, s, sql)
	}
	_, err := query(t, s, "DROP EXTENSION pg_trgm")
	want := "default value for column a of table d depends on function show_trgm(text)\n" +
		"view v1 depends on operator %(text,text)\n" +
		"constraint d_b_check on table d depends on operator %(text,text)\n" +
		"view v0 depends on function word_similarity(text,text)\n" +
		"index t_gist depends on operator class gist_trgm_ops for access method gist\n" +
		"index t_gin depends on operator class gin_trgm_ops for access method gin\n" +
		"view v3 depends on operator <->>>(text,text)"
	pe, ok := err.(*pgerror.Error)
	if !ok || pe.Code != pgerror.DependentObjectsStillExist || pe.Detail != want {
		t.Fatalf("DROP EXTENSION pg_trgm: %v\ndetail:\n%s\nwant:\n%s", err, detailOf(err), want)
	}
}

func detailOf(err error) string {
	if pe, ok := err.(*pgerror.Error); ok {
		return pe.Detail
	}
	return ""
}

// TestDropExtensionKeepsBuiltinOperatorUsers checks that a stored
// expression applying the built-in operator of a name pg_trgm shares
// (int % int) is no dependent of the extension: CASCADE keeps it.
func TestDropExtensionKeepsBuiltinOperatorUsers(t *testing.T) {
	eng, _ := newRecordingEngine(t, Config{DefaultIsolation: history.Snapshot}, isolation.Config{Strategy: isolation.StrategyLatest})
	s := eng.NewSession(SessionInfo{User: "u"})
	defer s.Close()
	for _, sql := range []string{
		"CREATE EXTENSION pg_trgm",
		"CREATE TABLE t (n int, m int, name text, other text)",
		"CREATE VIEW vi AS SELECT n % m AS r FROM t",
		"CREATE VIEW vt AS SELECT name % other AS r FROM t",
		"CREATE TABLE c (n int, m int, s text, u text, CHECK (n % m = 0), CHECK (s % u))",
	} {
		mustRun(t, s, sql)
	}
	_, err := query(t, s, "DROP EXTENSION pg_trgm")
	want := "view vt depends on operator %(text,text)\nconstraint c_check1 on table c depends on operator %(text,text)"
	if detailOf(err) != want {
		t.Fatalf("DROP EXTENSION pg_trgm: %v\ndetail:\n%s\nwant:\n%s", err, detailOf(err), want)
	}
	mustRun(t, s, "DROP EXTENSION pg_trgm CASCADE")
	rows, err := query(t, s, "SELECT relname FROM pg_class WHERE relname IN ('vi', 'vt') ORDER BY 1")
	if err != nil || len(rows) != 1 || rows[0][0] != "vi" {
		t.Fatalf("views after DROP EXTENSION CASCADE = %v, %v; want only vi", rows, err)
	}
	rows, err = query(t, s, "SELECT conname FROM pg_constraint WHERE conrelid = 'c'::regclass ORDER BY 1")
	if err != nil || len(rows) != 1 || rows[0][0] != "c_check" {
		t.Fatalf("constraints after DROP EXTENSION CASCADE = %v, %v; want only c_check", rows, err)
	}
}
