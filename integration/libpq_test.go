package integration

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/lib/pq"
)

func openLibpq(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	return db
}

func pqCode(err error) string {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

// TestLibpqTransactionsAndErrors drives fickle through database/sql and lib/pq:
// a committed transaction with a savepoint, a failed transaction rolled back,
// NULLs, and errors with their SQLSTATEs; the pool stays usable throughout.
func TestLibpqTransactionsAndErrors(t *testing.T) {
	srv := startFickle(t)
	db := openLibpq(t, srv.DSN())
	ctx := testCtx(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE notes (id serial PRIMARY KEY, body text, stars integer CHECK (stars BETWEEN 0 AND 5))"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var id int
	if err := tx.QueryRowContext(ctx, "INSERT INTO notes (body, stars) VALUES ($1, $2) RETURNING id", "first", 3).Scan(&id); err != nil {
		t.Fatalf("insert returning: %v", err)
	}
	for _, q := range []string{"SAVEPOINT sp", "INSERT INTO notes (body, stars) VALUES (NULL, NULL)", "ROLLBACK TO SAVEPOINT sp", "INSERT INTO notes (body, stars) VALUES (NULL, 5)"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}

	rows, err := db.QueryContext(ctx, "SELECT body, stars FROM notes ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]any
	for rows.Next() {
		var body sql.NullString
		var stars sql.NullInt64
		if err := rows.Scan(&body, &stars); err != nil {
			t.Fatal(err)
		}
		got = append(got, [2]any{body, stars})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := [][2]any{
		{sql.NullString{String: "first", Valid: true}, sql.NullInt64{Int64: 3, Valid: true}},
		{sql.NullString{}, sql.NullInt64{Int64: 5, Valid: true}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows: got %v, want %v", got, want)
	}

	for _, c := range []struct{ sql, code string }{
		{"INSERT INTO notes (id, body, stars) VALUES (1, 'dup', 1)", "23505"},
		{"INSERT INTO notes (body, stars) VALUES ('bad', 9)", "23514"},
		{"SELECT nope FROM notes", "42703"},
		{"SELECT * FROM missing_table", "42P01"},
		{"SELEC 1", "42601"},
		{"SELECT 1/0", "22012"},
		{"SELECT 'abc'::integer", "22P02"},
	} {
		_, err := db.ExecContext(ctx, c.sql)
		if got := pqCode(err); got != c.code {
			t.Errorf("%s: got %v (SQLSTATE %q), want %s", c.sql, err, got, c.code)
		}
	}

	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE notes SET stars = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE notes SET stars = 10"); pqCode(err) != "23514" {
		t.Fatalf("check violation in transaction: got %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	var total int64
	if err := db.QueryRowContext(ctx, "SELECT sum(stars) FROM notes").Scan(&total); err != nil || total != 8 {
		t.Errorf("after rollback: sum = %d, %v; want 8", total, err)
	}
}

// TestLibpqRoundTripsEveryType sends every supported type as a text-format
// parameter through lib/pq and reads it back as text, comparing with
// PostgreSQL's canonical output.
func TestLibpqRoundTripsEveryType(t *testing.T) {
	srv := startFickle(t)
	db := openLibpq(t, srv.DSN())
	ctx := testCtx(t)
	cases := []struct{ typ, in, out string }{
		{"boolean", "yes", "true"},
		{"smallint", "-7", "-7"},
		{"integer", "2147483647", "2147483647"},
		{"bigint", "-9223372036854775808", "-9223372036854775808"},
		{"real", "1.5", "1.5"},
		{"double precision", "0.1", "0.1"},
		{"numeric(10,3)", "3.14159", "3.142"},
		{"text", "plain", "plain"},
		{"varchar(4)", "abcd", "abcd"},
		{"char(3)", "a", "a  "},
		{"bytea", `\x00ff`, `\x00ff`},
		{"date", "2024-02-29", "2024-02-29T00:00:00Z"},
		{"timestamp", "2024-02-29 13:14:15.5", "2024-02-29T13:14:15.5Z"},
		{"interval", "1 day 02:03:04", "1 day 02:03:04"},
		{"uuid", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"jsonb", `{"b":1, "a":2}`, `{"a": 2, "b": 1}`},
	}
	for _, c := range cases {
		var got string
		err := db.QueryRowContext(ctx, "SELECT $1::"+c.typ, c.in).Scan(&got)
		if err != nil {
			t.Errorf("%s: %v", c.typ, err)
			continue
		}
		if c.typ == "date" || c.typ == "timestamp" {
			// lib/pq parses date/time columns into time.Time and formats them
			// with RFC 3339 when scanning into a string.
			got = normalizeLibpqTime(got)
		}
		if got != c.out {
			t.Errorf("%s: sent %q, got %q, want %q", c.typ, c.in, got, c.out)
		}
	}
}

func normalizeLibpqTime(s string) string {
	if tm, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return tm.UTC().Format(time.RFC3339Nano)
	}
	return s
}
