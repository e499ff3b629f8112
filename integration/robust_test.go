package integration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDeepStatementsAnswer54001AndTheServerLives sends, through the simple
// and the extended protocol, the statements that used to overflow the
// embedded parser's C stack and kill every session: each now fails with
// PostgreSQL's 54001, and the server, its other sessions and the same
// connection go on.
func TestDeepStatementsAnswer54001AndTheServerLives(t *testing.T) {
	srv := startFickle(t)
	ctx := context.Background()
	bystander, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer bystander.Close(ctx)
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		"SELECT 1" + strings.Repeat("+1", 40000),
		"SELECT 'a'" + strings.Repeat("||'a'", 100000),
		"SELECT 1" + strings.Repeat(" UNION ALL SELECT 1", 100000),
		"SELECT '{}'::jsonb" + strings.Repeat("->'a'", 100000),
	} {
		for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeDescribeExec} {
			_, err := conn.Exec(ctx, sql, mode)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "54001" {
				t.Fatalf("%.40s... (%v): %v, want 54001", sql, mode, err)
			}
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT 1"+strings.Repeat("+1", 3000)).Scan(&n); err != nil || n != 3001 {
		t.Fatalf("a chain PostgreSQL accepts: %d, %v", n, err)
	}
	if err := bystander.QueryRow(ctx, "SELECT 2").Scan(&n); err != nil || n != 2 {
		t.Fatalf("another session after the deep statements: %d, %v", n, err)
	}
}
