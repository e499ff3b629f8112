package sqlexec

import (
	"context"
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// TestPLpgSQLErrorContextNamesFunctionLineAndStatement pins the CONTEXT
// of errors raised in PL/pgSQL to what PostgreSQL 15 sends for the same
// functions: the failing SQL statement, then each function on the way out
// with the line (counted in the body as written) and the statement's kind.
func TestPLpgSQLErrorContextNamesFunctionLineAndStatement(t *testing.T) {
	s := contextSession(t)
	mustRun(t, s, "CREATE TABLE u (id int PRIMARY KEY)")
	mustRun(t, s, `CREATE FUNCTION f1() RETURNS int LANGUAGE plpgsql AS $$
declare x int;
begin
  raise exception 'boom';
end $$`)
	mustRun(t, s, `CREATE FUNCTION f2() RETURNS int LANGUAGE plpgsql AS $$
begin
  perform 1/0;
  return 1;
end $$`)
	mustRun(t, s, `CREATE FUNCTION f3(a int, b text) RETURNS int LANGUAGE plpgsql AS $$
begin
  insert into u values (1);
  if a > 0 then insert into u values (1); end if;
  return 1;
end $$`)
	mustRun(t, s, `CREATE FUNCTION f6() RETURNS int LANGUAGE plpgsql AS $$ begin
  return f1();
end $$`)
	mustRun(t, s, `CREATE FUNCTION f8() RETURNS int LANGUAGE plpgsql AS $$
begin
  execute 'select 1/0';
  return 1;
end $$`)
	mustRun(t, s, `CREATE FUNCTION f9() RETURNS int LANGUAGE plpgsql AS $$
begin
  begin
    raise exception 'inner';
  exception when others then
    raise;
  end;
end $$`)
	mustRun(t, s, `CREATE FUNCTION f10() RETURNS text LANGUAGE plpgsql AS $$
declare c text;
begin
  begin
    perform 1/0;
  exception when others then
    get stacked diagnostics c = pg_exception_context;
  end;
  return c;
end $$`)
	mustRun(t, s, `CREATE FUNCTION g4(a int) RETURNS int LANGUAGE plpgsql AS $$
begin
  return (select a/0);
end $$`)
	mustRun(t, s, `CREATE FUNCTION g5(a int) RETURNS int LANGUAGE plpgsql AS $$
declare x int := a/0;
begin
  return x;
end $$`)
	mustRun(t, s, `CREATE FUNCTION g6() RETURNS int LANGUAGE plpgsql AS $$
declare x int;
begin
  x := (select 1/0);
  return x;
end $$`)
	for _, tc := range []struct{ sql, where string }{
		{"SELECT g4(1)", "SQL expression \"(select a/0)\"\nPL/pgSQL function g4(integer) line 3 at RETURN"},
		{"SELECT g5(1)", "PL/pgSQL function g5(integer) line 2 during statement block local variable initialization"},
		{"SELECT g6()", "PL/pgSQL assignment \"x := (select 1/0)\"\nPL/pgSQL function g6() line 4 at assignment"},
		{"SELECT f1()", "PL/pgSQL function f1() line 4 at RAISE"},
		{"SELECT f2()", "SQL statement \"SELECT 1/0\"\nPL/pgSQL function f2() line 3 at PERFORM"},
		{"SELECT f3(1, 'x')", "SQL statement \"insert into u values (1)\"\nPL/pgSQL function f3(integer,text) line 4 at SQL statement"},
		{"SELECT f6()", "PL/pgSQL function f1() line 4 at RAISE\nPL/pgSQL function f6() line 2 at RETURN"},
		{"SELECT f8()", "SQL statement \"select 1/0\"\nPL/pgSQL function f8() line 3 at EXECUTE"},
		{"SELECT f9()", "PL/pgSQL function f9() line 4 at RAISE"},
		{"DO $$ begin raise exception 'in do'; end $$", "PL/pgSQL function inline_code_block line 1 at RAISE"},
	} {
		pe := executeError(t, s, tc.sql)
		if pe.Where != tc.where {
			t.Errorf("%s: CONTEXT\n%s\nwant\n%s", tc.sql, pe.Where, tc.where)
		}
	}
	res := mustQuery(t, s, "SELECT f10()")
	if got, want := res[0][0], "SQL statement \"SELECT 1/0\"\nPL/pgSQL function f10() line 5 at PERFORM"; got != want {
		t.Errorf("PG_EXCEPTION_CONTEXT %q, want %q", got, want)
	}
}

// TestPLpgSQLPreparationErrorsPointIntoTheQuery pins how PostgreSQL's SPI
// reports an error found while preparing a query of a PL/pgSQL body: one
// with a position points into the query as the body has it (QUERY and its
// LINE pointer, counted in characters, for an assignment from the start of
// its target), one without names the query in a CONTEXT line.
func TestPLpgSQLPreparationErrorsPointIntoTheQuery(t *testing.T) {
	s := contextSession(t)
	mustRun(t, s, `CREATE FUNCTION p1() RETURNS int LANGUAGE plpgsql AS $$
declare r record;
begin
  select 1 as a into r;
  return r.b;
end $$`)
	mustRun(t, s, `CREATE FUNCTION p2() RETURNS int LANGUAGE plpgsql AS $$
begin
  insert into nosuchtable values (1);
  return 1;
end $$`)
	mustRun(t, s, `CREATE FUNCTION p3() RETURNS int LANGUAGE plpgsql AS $$
declare ü int;
begin
  ü := 'é' || nosuch;
  return 1;
end $$`)
	mustRun(t, s, `CREATE FUNCTION p4() RETURNS int LANGUAGE plpgsql AS $$
begin
  return 1 + 'abc';
end $$`)
	for _, tc := range []struct {
		sql, query string
		pos        int
		where      string
	}{
		{"SELECT p1()", "", 0, "SQL expression \"r.b\"\nPL/pgSQL function p1() line 5 at RETURN"},
		{"SELECT p2()", "insert into nosuchtable values (1)", 13, "PL/pgSQL function p2() line 3 at SQL statement"},
		{"SELECT p3()", "ü := 'é' || nosuch", 13, "PL/pgSQL function p3() line 4 at assignment"},
		{"SELECT p4()", "1 + 'abc'", 5, "PL/pgSQL function p4() line 3 at RETURN"},
	} {
		pe := executeError(t, s, tc.sql)
		if pe.InternalQuery != tc.query || pe.InternalPosition != tc.pos || pe.Position != 0 || pe.Where != tc.where {
			t.Errorf("%s: QUERY %q at %d (position %d), CONTEXT\n%s\nwant QUERY %q at %d, CONTEXT\n%s",
				tc.sql, pe.InternalQuery, pe.InternalPosition, pe.Position, pe.Where, tc.query, tc.pos, tc.where)
		}
	}
}

// contextSession is a session of a fresh engine for the CONTEXT tests.
func contextSession(t *testing.T) *Session {
	t.Helper()
	store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return eng.NewSession(SessionInfo{User: "h"})
}

// executeError runs sql, which must fail with a PostgreSQL error, and
// returns the error.
func executeError(t *testing.T, s *Session, sql string) *pgerror.Error {
	t.Helper()
	sts, err := s.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Execute(context.Background(), p, nil)
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%s: got %v, want an error", sql, err)
	}
	return pe
}
