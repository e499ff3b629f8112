package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/fickle-db/fickle/wire"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fickle-db/fickle/isolation"
)

// startSQLServer starts a server over a fresh in-memory sqlexec engine.
func startSQLServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	engine, _, err := NewMemoryEngine(isolation.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine = engine
	return startTestServer(t, cfg)
}

var execModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

func connectPgx(t *testing.T, dsn string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestPgxExecModes(t *testing.T) {
	srv := startSQLServer(t, Config{})
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn := connectPgx(t, srv.DSN("tester", "db"), mode)
			table := fmt.Sprintf("t_%d", int(mode))
			if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id integer PRIMARY KEY, name text, amount numeric(10,2))"); err != nil {
				t.Fatalf("create: %v", err)
			}
			for i := 1; i <= 3; i++ {
				tag, err := conn.Exec(ctx, "INSERT INTO "+table+" (id, name, amount) VALUES ($1, $2, $3)", i, fmt.Sprint("n", i), "1.50")
				if err != nil {
					t.Fatalf("insert: %v", err)
				}
				if tag.String() != "INSERT 0 1" {
					t.Fatalf("tag %q", tag)
				}
			}
			var name string
			var amount pgtype.Numeric
			if err := conn.QueryRow(ctx, "SELECT name, amount FROM "+table+" WHERE id = $1", 2).Scan(&name, &amount); err != nil {
				t.Fatalf("select: %v", err)
			}
			if v, _ := amount.Value(); name != "n2" || v != "1.50" {
				t.Fatalf("got %q %v", name, v)
			}
			var n int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 3 {
				t.Fatalf("count = %d, %v", n, err)
			}

			// A transaction with a savepoint and an error inside it.
			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "UPDATE "+table+" SET name = 'changed' WHERE id = 1"); err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "SAVEPOINT sp"); err != nil {
				t.Fatal(err)
			}
			_, err = tx.Exec(ctx, "INSERT INTO "+table+" (id) VALUES (1)")
			if pgCode(err) != "23505" {
				t.Fatalf("duplicate insert: %v", err)
			}
			_, err = tx.Exec(ctx, "SELECT 1")
			if pgCode(err) != "25P02" {
				t.Fatalf("statement in failed transaction: %v", err)
			}
			if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT sp"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, "SELECT name FROM "+table+" WHERE id = 1").Scan(&name); err != nil || name != "changed" {
				t.Fatalf("after commit: %q %v", name, err)
			}

			// An error then ROLLBACK leaves nothing behind.
			tx, err = conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tx.Exec(ctx, "DELETE FROM "+table)
			_, err = tx.Exec(ctx, "SELECT 1/0")
			if pgCode(err) != "22012" {
				t.Fatalf("division by zero: %v", err)
			}
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 3 {
				t.Fatalf("count after rollback = %d, %v", n, err)
			}

			// A batch.
			b := &pgx.Batch{}
			b.Queue("INSERT INTO "+table+" (id, name) VALUES ($1, $2)", 10, "batch")
			b.Queue("SELECT name FROM "+table+" WHERE id = $1", 10)
			b.Queue("SELECT count(*) FROM " + table)
			br := conn.SendBatch(ctx, b)
			if _, err := br.Exec(); err != nil {
				t.Fatalf("batch insert: %v", err)
			}
			if err := br.QueryRow().Scan(&name); err != nil || name != "batch" {
				t.Fatalf("batch select: %q %v", name, err)
			}
			if err := br.QueryRow().Scan(&n); err != nil || n != 4 {
				t.Fatalf("batch count: %d %v", n, err)
			}
			if err := br.Close(); err != nil {
				t.Fatal(err)
			}

			// The connection stays usable after a syntax error.
			_, err = conn.Exec(ctx, "SELEC 1")
			if pgCode(err) != "42601" {
				t.Fatalf("syntax error: %v", err)
			}
			if err := conn.QueryRow(ctx, "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
				t.Fatalf("after error: %d %v", n, err)
			}
		})
	}
}

func TestPgxAuthentication(t *testing.T) {
	tests := []struct {
		name     string
		password string
		dsnPass  string
		method   wire.AuthMethod // the server's
		asked    string          // what the client asks for in a startup parameter
		wantCode string
	}{
		{name: "scram", password: "pw", dsnPass: "pw"},
		{name: "scram wrong password", password: "pw", dsnPass: "nope", wantCode: "28P01"},
		{name: "md5 chosen by the server", password: "pw", dsnPass: "pw", method: wire.AuthMD5},
		{name: "cleartext chosen by the server", password: "pw", dsnPass: "pw", method: wire.AuthPassword},
		{name: "md5 wrong password", password: "pw", dsnPass: "x", method: wire.AuthMD5, wantCode: "28P01"},
		{name: "a client asking for cleartext still does SCRAM", password: "pw", dsnPass: "nope", asked: "password", wantCode: "28P01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startTestServer(t, Config{Password: tt.password, AuthMethod: tt.method})
			cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://u:%s@%s/db?sslmode=disable", tt.dsnPass, srv.Addr()))
			if err != nil {
				t.Fatal(err)
			}
			if tt.asked != "" {
				cfg.RuntimeParams["fickle.auth_method"] = tt.asked
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if tt.wantCode != "" {
				if pgCode(err) != tt.wantCode {
					t.Fatalf("connect: %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer conn.Close(ctx)
			var v int64
			if err := conn.QueryRow(ctx, "ROWS 1", pgx.QueryExecModeSimpleProtocol).Scan(&v, new(string)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
