package sqlexec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// connect opens a session of database db through Engine.Connect; the
// session's Terminate counts into terminated.
func connect(t *testing.T, e *Engine, db string, terminated *int) *Session {
	t.Helper()
	s, err := e.Connect(SessionInfo{User: "u", Database: db, Terminate: func() { *terminated++ }})
	if err != nil {
		t.Fatalf("connect to %s: %v", db, err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustQuery(t *testing.T, s *Session, sql string) [][]any {
	t.Helper()
	rows, err := query(t, s, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

func wantCode(t *testing.T, s *Session, sql string, code pgerror.Code) {
	t.Helper()
	if _, err := query(t, s, sql); pgerror.GetCode(err) != code {
		t.Fatalf("%s: %v, want %s", sql, err, code)
	}
}

// TestDatabasesHaveTheirOwnCatalogsAndShareTheHistory pins CREATE
// DATABASE: each database has its own tables, pg_database lists all, and
// the one history names a table of a database other than the main one by
// database.schema.table.
func TestDatabasesHaveTheirOwnCatalogsAndShareTheHistory(t *testing.T) {
	main, store := newRecordingEngine(t, Config{Database: "app"}, isolation.Config{Record: true, Strategy: isolation.StrategyLatest})
	var terminated int
	a := connect(t, main, "app", &terminated)
	mustQuery(t, a, "CREATE TABLE t (k int PRIMARY KEY)")
	mustQuery(t, a, "INSERT INTO t VALUES (1)")
	mustQuery(t, a, "CREATE DATABASE app_test")
	b := connect(t, main, "app_test", &terminated)
	wantCode(t, b, "SELECT * FROM t", pgerror.UndefinedTable)
	mustQuery(t, b, "CREATE TABLE t (k int PRIMARY KEY, v text)")
	mustQuery(t, b, "INSERT INTO t VALUES (1, 'b')")
	if got := fmt.Sprint(mustQuery(t, b, "SELECT current_database(), * FROM t")); got != "[[app_test 1 b]]" {
		t.Errorf("app_test's t: %s", got)
	}
	if got := fmt.Sprint(mustQuery(t, a, "SELECT datname FROM pg_database ORDER BY oid")); got != "[[template1] [template0] [postgres] [app] [app_test]]" {
		t.Errorf("pg_database: %s", got)
	}
	var tables []string
	for _, k := range store.History().Keys {
		tables = append(tables, k.Table)
	}
	if got := strings.Join(tables, " "); got != "t app_test.public.t" {
		t.Errorf("history tables %q, want %q", got, "t app_test.public.t")
	}
	if _, err := main.Connect(SessionInfo{User: "u", Database: "nope"}); pgerror.GetCode(err) != pgerror.InvalidCatalogName {
		t.Errorf("connecting to an unknown database: %v, want 3D000", err)
	}
	if _, err := main.Connect(SessionInfo{User: "u", Database: "template0"}); pgerror.GetCode(err) != pgerror.ObjectNotInPrerequisiteState {
		t.Errorf("connecting to template0: %v, want 55000", err)
	}
}

// TestDropAndRenameDatabaseFollowPostgres pins DROP DATABASE and ALTER
// DATABASE ... RENAME: refused inside a transaction block, for the current
// database and while others are connected; WITH (FORCE) ends their
// connections; a dropped database's name may be used again, and its new
// tables get history names no earlier table had.
func TestDropAndRenameDatabaseFollowPostgres(t *testing.T) {
	main, store := newRecordingEngine(t, Config{}, isolation.Config{Record: true, Strategy: isolation.StrategyLatest})
	var terminated int
	admin := connect(t, main, "postgres", &terminated)
	mustQuery(t, admin, "CREATE DATABASE d")
	wantCode(t, admin, "CREATE DATABASE d", pgerror.DuplicateDatabase)
	wantCode(t, admin, "CREATE DATABASE e TEMPLATE nope", pgerror.InvalidCatalogName)
	wantCode(t, admin, "CREATE DATABASE e ENCODING 'LATIN1'", pgerror.FeatureNotSupported)
	wantCode(t, admin, "DROP DATABASE postgres", pgerror.ObjectInUse)
	wantCode(t, admin, "DROP DATABASE template1", pgerror.WrongObjectType)
	wantCode(t, admin, "ALTER DATABASE postgres RENAME TO p", pgerror.FeatureNotSupported)
	mustQuery(t, admin, "BEGIN")
	wantCode(t, admin, "DROP DATABASE d", pgerror.ActiveSqlTransaction)
	mustQuery(t, admin, "ROLLBACK")

	user := connect(t, main, "d", &terminated)
	mustQuery(t, user, "CREATE TABLE t (k int PRIMARY KEY)")
	mustQuery(t, user, "INSERT INTO t VALUES (1)")
	wantCode(t, admin, "DROP DATABASE d", pgerror.ObjectInUse)
	wantCode(t, admin, "ALTER DATABASE d RENAME TO d2", pgerror.ObjectInUse)
	if terminated != 0 {
		t.Fatalf("%d sessions terminated before FORCE", terminated)
	}
	mustQuery(t, admin, "DROP DATABASE d WITH (FORCE)")
	if terminated != 1 {
		t.Fatalf("DROP DATABASE ... WITH (FORCE) terminated %d sessions, want 1", terminated)
	}
	user.Close()
	mustQuery(t, admin, "DROP DATABASE IF EXISTS d")
	mustQuery(t, admin, "CREATE DATABASE d")
	mustQuery(t, admin, "ALTER DATABASE d RENAME TO d2")
	mustQuery(t, admin, "ALTER DATABASE d2 RENAME TO d")
	again := connect(t, main, "d", &terminated)
	mustQuery(t, again, "CREATE TABLE t (k int PRIMARY KEY)")
	mustQuery(t, again, "INSERT INTO t VALUES (1)")
	var tables []string
	for _, k := range store.History().Keys {
		tables = append(tables, k.Table)
	}
	if got := strings.Join(tables, " "); got != "d.public.t d.public.t#2" {
		t.Errorf("history tables %q, want %q", got, "d.public.t d.public.t#2")
	}
	if got := store.History().Txns; len(got) < 3 || got[len(got)-1].Outcome != history.Committed {
		t.Errorf("history %v: want the inserts committed", got)
	}
}

// TestCreateDatabaseFromTemplateCopiesObjectsAndRows pins CREATE DATABASE
// ... TEMPLATE, as Django's parallel test runner clones its test database:
// the copy has the template's tables, rows, indexes, constraints and
// sequence positions, and the two go their own ways after; a template
// others are connected to is refused (55006).
func TestCreateDatabaseFromTemplateCopiesObjectsAndRows(t *testing.T) {
	main, _ := newRecordingEngine(t, Config{}, isolation.Config{Record: true, Strategy: isolation.StrategyLatest})
	var terminated int
	admin := connect(t, main, "postgres", &terminated)
	mustQuery(t, admin, "CREATE DATABASE tmpl")
	src := connect(t, main, "tmpl", &terminated)
	for _, q := range []string{
		"CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE)",
		"CREATE TABLE book (id int PRIMARY KEY, author_id int REFERENCES author, title text)",
		"CREATE TABLE note (body text)",
		"CREATE INDEX book_title_idx ON book (title)",
		"INSERT INTO author (name) VALUES ('ann'), ('bob')",
		"INSERT INTO book VALUES (1, 1, 'first'), (2, 2, 'second')",
		"INSERT INTO note VALUES ('a'), ('b')",
	} {
		mustQuery(t, src, q)
	}
	wantCode(t, admin, "CREATE DATABASE copy TEMPLATE tmpl", pgerror.ObjectInUse)
	src.Close()
	mustQuery(t, admin, "CREATE DATABASE copy TEMPLATE tmpl")
	dst := connect(t, main, "copy", &terminated)
	if got := fmt.Sprint(mustQuery(t, dst, "SELECT a.name, b.title FROM book b JOIN author a ON a.id = b.author_id WHERE b.title >= 'f' ORDER BY 1")); got != "[[ann first] [bob second]]" {
		t.Errorf("copied rows: %s", got)
	}
	if got := fmt.Sprint(mustQuery(t, dst, "SELECT count(*) FROM note")); got != "[[2]]" {
		t.Errorf("copied rows without a primary key: %s", got)
	}
	if got := fmt.Sprint(mustQuery(t, dst, "INSERT INTO author (name) VALUES ('cy') RETURNING id")); got != "[[3]]" {
		t.Errorf("the copied sequence continues at %s, want 3", got)
	}
	wantCode(t, dst, "INSERT INTO author (name) VALUES ('ann')", pgerror.UniqueViolation)
	wantCode(t, dst, "INSERT INTO book VALUES (3, 99, 'x')", pgerror.ForeignKeyViolation)
	dst.Close()
	src = connect(t, main, "tmpl", &terminated)
	if got := fmt.Sprint(mustQuery(t, src, "SELECT count(*) FROM author")); got != "[[2]]" {
		t.Errorf("the template after its copy changed: %s authors", got)
	}
}
