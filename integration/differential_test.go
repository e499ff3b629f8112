package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestDifferentialAgainstPostgres runs testdata/differential.sql one statement
// at a time against fickle and against PostgreSQL 15 over the simple protocol
// and requires, for each statement, the same rows in text form or the same
// SQLSTATE.
func TestDifferentialAgainstPostgres(t *testing.T) {
	stmts := readStatements(t, "testdata/differential.sql")
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	pgConn := connectPgx(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, db), pgx.QueryExecModeSimpleProtocol)
	srv := startFickle(t)
	fConn := connectPgx(t, srv.DSN(), pgx.QueryExecModeSimpleProtocol)
	for _, conn := range []*pgx.Conn{pgConn, fConn} {
		if _, err := conn.Exec(context.Background(), "SET TimeZone = 'UTC'"); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range stmts {
		want := runForDiff(pgConn, stmt)
		got := runForDiff(fConn, stmt)
		if got != want {
			t.Errorf("%s\n  PostgreSQL: %s\n  fickle:     %s", stmt, want, got)
		}
	}
}

// runForDiff runs one statement and renders its outcome: the rows as text, or
// the SQLSTATE of its error (messages differ between servers and are not
// compared).
func runForDiff(conn *pgx.Conn, sql string) string {
	ctx := context.Background()
	results, err := conn.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return "ERROR " + sqlState(err)
	}
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "%s", r.CommandTag.String())
		for _, row := range r.Rows {
			b.WriteString(" |")
			for i, v := range row {
				if i > 0 {
					b.WriteString(",")
				}
				if v == nil {
					b.WriteString("NULL")
				} else {
					b.WriteString(string(v))
				}
			}
		}
	}
	return b.String()
}

// readStatements splits a script into statements: lines are joined until one
// ends with ';'; comment lines are skipped.
func readStatements(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	var cur []string
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur = append(cur, line)
		if strings.HasSuffix(trimmed, ";") {
			stmts = append(stmts, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	if len(cur) > 0 {
		t.Fatalf("%s: unterminated statement: %s", path, strings.Join(cur, "\n"))
	}
	return stmts
}
