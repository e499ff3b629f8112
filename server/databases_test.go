package server

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDropDatabaseWithForceEndsItsConnections pins the connection side of
// the databases: a startup naming an unknown database fails with FATAL
// 3D000, and DROP DATABASE ... WITH (FORCE) ends the connections to the
// database with 57P01, as pg_terminate_backend does, while the others go
// on.
func TestDropDatabaseWithForceEndsItsConnections(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := pgx.Connect(ctx, srv.DSN("u", "nope")); pgCode(err) != "3D000" {
		t.Fatalf("connecting to an unknown database: %v, want 3D000", err)
	}
	admin := connectPgx(t, srv.DSN("u", "postgres"), pgx.QueryExecModeSimpleProtocol)
	if _, err := admin.Exec(ctx, "CREATE DATABASE doomed"); err != nil {
		t.Fatal(err)
	}
	victim := connectPgx(t, srv.DSN("u", "doomed"), pgx.QueryExecModeSimpleProtocol)
	if _, err := victim.Exec(ctx, "CREATE TABLE t (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE doomed"); pgCode(err) != "55006" {
		t.Fatalf("DROP DATABASE with a connection open: %v, want 55006", err)
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE doomed WITH (FORCE)"); err != nil {
		t.Fatalf("DROP DATABASE ... WITH (FORCE): %v", err)
	}
	if _, err := victim.Exec(ctx, "SELECT 1"); pgCode(err) != "57P01" {
		t.Fatalf("the dropped database's connection: %v, want 57P01", err)
	}
	var n int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = 'doomed'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("pg_database after the drop: %d, %v", n, err)
	}
	if _, err := pgx.Connect(ctx, srv.DSN("u", "doomed")); pgCode(err) != "3D000" {
		t.Fatalf("connecting to the dropped database: %v, want 3D000", err)
	}
}
