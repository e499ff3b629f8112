package server

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestSQLPrepareAndExecute pins SQL-level PREPARE and EXECUTE in simple
// queries, as pg_dump sends them: the statement joins the namespace of
// Parse messages, EXECUTE casts its arguments to the parameters' types
// and returns the statement's rows and tag, and the errors are
// PostgreSQL's.
func TestSQLPrepareAndExecute(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx := context.Background()
	conn := connectPgx(t, srv.DSN("tester", "fickle"), pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	run := func(sql string) (string, error) {
		results, err := pg.Exec(ctx, sql).ReadAll()
		if err != nil {
			return "", err
		}
		r := results[len(results)-1]
		out := r.CommandTag.String()
		for _, row := range r.Rows {
			out += " |"
			for _, v := range row {
				out += " " + string(v)
			}
		}
		return out, nil
	}
	for _, sql := range []string{"CREATE TABLE t (id int PRIMARY KEY, name text)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"} {
		if _, err := run(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, c := range []struct {
		sql, want, code string
	}{
		{sql: "PREPARE byid(int) AS SELECT name FROM t WHERE id = $1", want: "PREPARE"},
		{sql: "EXECUTE byid(2)", want: "SELECT 1 | b"},
		{sql: "EXECUTE byid('1')", want: "SELECT 1 | a"},
		{sql: "EXECUTE byid(1 + 1)", want: "SELECT 1 | b"},
		{sql: "PREPARE inferred AS SELECT $1::text || name FROM t WHERE id = $2", want: "PREPARE"},
		{sql: "EXECUTE inferred('x', 1)", want: "SELECT 1 | xa"},
		{sql: "PREPARE ins(int, text) AS INSERT INTO t VALUES ($1, $2)", want: "PREPARE"},
		{sql: "EXECUTE ins(3, 'c')", want: "INSERT 0 1"},
		{sql: "PREPARE noargs AS SELECT count(*) FROM t", want: "PREPARE"},
		{sql: "EXECUTE noargs", want: "SELECT 1 | 3"},
		{sql: "PREPARE byid AS SELECT 1", code: "42P05"},
		{sql: "EXECUTE nosuch", code: "26000"},
		{sql: "EXECUTE byid", code: "42601"},
		{sql: "EXECUTE byid('x')", code: "22P02"},
		{sql: "EXECUTE byid((SELECT 1))", code: "0A000"},
		{sql: "EXECUTE byid(2.4)", want: "SELECT 1 | b"},
		{sql: "PREPARE bad AS SELECT nosuch FROM t", code: "42703"},
		// A parameter's type has no typmod: bit takes any length and
		// char(5) does not pad, as in PostgreSQL.
		{sql: "PREPARE typmods(bit, char(5), varchar(2)) AS SELECT $1, $2 || '|', $3", want: "PREPARE"},
		{sql: "EXECUTE typmods('111', 'abc', 'abcd')", want: "SELECT 1 | 111 abc| abcd"},
		{sql: "PREPARE bits AS SELECT $1 & B'101'", want: "PREPARE"},
		{sql: "EXECUTE bits('111')", want: "SELECT 1 | 101"},
		{sql: "DEALLOCATE byid", want: "DEALLOCATE"},
		{sql: "EXECUTE byid(1)", code: "26000"},
	} {
		got, err := run(c.sql)
		switch {
		case c.code != "" && pgCode(err) != c.code:
			t.Errorf("%s: %q, %v; want %s", c.sql, got, err, c.code)
		case c.code == "" && err != nil:
			t.Errorf("%s: %v", c.sql, err)
		case c.code == "" && got != c.want:
			t.Errorf("%s: %q, want %q", c.sql, got, c.want)
		}
	}
	// The Parse message sees a statement PREPARE named.
	if _, err := pg.Prepare(ctx, "ins", "SELECT 1", nil); pgCode(err) != "42P05" {
		t.Errorf("Parse of a name PREPARE took: %v, want 42P05", err)
	}
}

// TestPreparedStatementsView pins pg_prepared_statements: the named
// statements of both PREPARE and Parse, with the query string that made
// each, its parameter types, and its executions counted by the plan
// PostgreSQL's plan cache would choose (custom for the first five with
// parameters, generic after them and for a statement without any).
func TestPreparedStatementsView(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx := context.Background()
	conn := connectPgx(t, srv.DSN("tester", "fickle"), pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	exec := func(sql string) []string {
		t.Helper()
		results, err := pg.Exec(ctx, sql).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		var rows []string
		for _, row := range results[len(results)-1].Rows {
			var line []string
			for _, v := range row {
				line = append(line, string(v))
			}
			rows = append(rows, strings.Join(line, " | "))
		}
		return rows
	}
	exec("PREPARE byid(int) AS SELECT $1 + 1; PREPARE one AS SELECT 1")
	for range 7 {
		exec("EXECUTE byid(1)")
	}
	exec("EXECUTE one")
	if _, err := pg.Prepare(ctx, "proto", "SELECT $1::text, $2 = 1.5", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Prepare(ctx, "", "SELECT 2", nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := pg.ExecPrepared(ctx, "proto", [][]byte{[]byte("a"), []byte("2")}, nil, nil).Read().Err; err != nil {
			t.Fatal(err)
		}
	}
	got := exec(`SELECT name, statement, parameter_types, from_sql, generic_plans, custom_plans,
		now() - prepare_time < interval '1 minute' FROM pg_prepared_statements ORDER BY name`)
	want := []string{
		"byid | PREPARE byid(int) AS SELECT $1 + 1; PREPARE one AS SELECT 1 | {integer} | t | 2 | 5 | t",
		"one | PREPARE byid(int) AS SELECT $1 + 1; PREPARE one AS SELECT 1 | {} | t | 1 | 0 | t",
		"proto | SELECT $1::text, $2 = 1.5 | {text,numeric} | f | 0 | 2 | t",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pg_prepared_statements:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	exec("SET plan_cache_mode = force_custom_plan; EXECUTE one; EXECUTE byid(1); DEALLOCATE proto")
	got = exec("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name")
	if want := "byid | 2 | 6\none | 2 | 0"; strings.Join(got, "\n") != want {
		t.Errorf("after force_custom_plan and DEALLOCATE:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	exec("DISCARD ALL") // deallocates every prepared statement
	if got := exec("SELECT name FROM pg_prepared_statements"); len(got) != 0 {
		t.Errorf("after DISCARD ALL: %q, want none", got)
	}
	if err := pg.Exec(ctx, "EXECUTE one").Close(); pgCode(err) != "26000" {
		t.Errorf("EXECUTE after DISCARD ALL: %v, want 26000", err)
	}
	// A parameter declared unknown is typed by its use, as one declared
	// with no type.
	exec("CREATE TABLE paths (p path); PREPARE unk(unknown, unknown, int) AS SELECT $1 || $3::text FROM paths WHERE p = $2")
	if got, want := exec("SELECT parameter_types FROM pg_prepared_statements"), "{text,path,integer}"; len(got) != 1 || got[0] != want {
		t.Errorf("parameter types of a PREPARE with unknown ones: %q, want %s", got, want)
	}
}
