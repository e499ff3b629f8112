package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestRegressFixesAgainstPostgres runs testdata/regress_fixes.sql, the
// statements of PostgreSQL's regression suite that fickle once answered
// wrongly (bench/pgregress found them), one at a time against fickle and
// PostgreSQL 15 in sessions started as pg_regress starts them (TimeZone
// PST8PDT, DateStyle "Postgres, MDY"), and requires the same column names,
// rows and command tags, or the same SQLSTATE.
func TestRegressFixesAgainstPostgres(t *testing.T) {
	stmts := readStatements(t, "testdata/regress_fixes.sql")
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	const startup = "&timezone=PST8PDT&datestyle=Postgres,%20MDY"
	pgConn := connectPgx(t, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable%s", port, db, startup), pgx.QueryExecModeSimpleProtocol)
	srv := startFickle(t, "--realtime")
	fConn := connectPgx(t, srv.DSN()+startup, pgx.QueryExecModeSimpleProtocol)
	for _, stmt := range stmts {
		want := runForRegressDiff(pgConn, stmt)
		got := runForRegressDiff(fConn, stmt)
		if got != want {
			t.Errorf("%s\n  PostgreSQL: %s\n  fickle:     %s", stmt, want, got)
		}
	}
}

// runForRegressDiff renders a statement's outcome like runForDiff, with
// the column names, which a client reading rows by name depends on as much
// as on the values.
func runForRegressDiff(conn *pgx.Conn, sql string) string {
	results, err := conn.PgConn().Exec(context.Background(), sql).ReadAll()
	if err != nil {
		return "ERROR " + sqlState(err)
	}
	var b strings.Builder
	for _, r := range results {
		names := make([]string, len(r.FieldDescriptions))
		for i, f := range r.FieldDescriptions {
			names[i] = f.Name
		}
		fmt.Fprintf(&b, "%s [%s]", r.CommandTag.String(), strings.Join(names, ","))
		for _, row := range r.Rows {
			b.WriteString(" |")
			for i, v := range row {
				if i > 0 {
					b.WriteString(",")
				}
				if v == nil {
					b.WriteString("NULL")
				} else {
					b.Write(v)
				}
			}
		}
	}
	return b.String()
}
