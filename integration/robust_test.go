package integration

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fickle-db/fickle/internal/testcert"
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

// TestListenerSurvivesRunningOutOfFileDescriptors runs fickle with room
// for only a few file descriptors and opens more connections than fit:
// those beyond fail, and once they are closed the server accepts again.
func TestListenerSurvivesRunningOutOfFileDescriptors(t *testing.T) {
	srv := startFickleUnder(t, []string{"sh", "-c", `ulimit -n 24 && exec "$0" "$@"`})
	var held []net.Conn
	for range 40 {
		nc, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", srv.Host, srv.Port), time.Second)
		if err != nil {
			break
		}
		held = append(held, nc)
	}
	time.Sleep(200 * time.Millisecond) // the server meets EMFILE and backs off
	for _, nc := range held {
		nc.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, srv.DSN())
		if err == nil {
			conn.Close(ctx)
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the server no longer accepts after running out of file descriptors: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPsqlConnectsOverTLS runs psql with sslmode=require and verify-full
// (against the certificate fickle was given) and with --tls auto, and
// checks that psql sees an encrypted connection; without TLS, psql's
// sslmode=require fails with the message PostgreSQL's refusal gives.
func TestPsqlConnectsOverTLS(t *testing.T) {
	psql := pgTool(t, "psql")
	dir := t.TempDir()
	_, certFile, keyFile := testcert.Write(t, dir)
	run := func(srv *fickleServer, mode string) (string, error) {
		dsn := fmt.Sprintf("host=localhost port=%d user=fickle dbname=fickle sslmode=%s", srv.Port, mode)
		out, err := exec.Command(psql, dsn, "-XAtc", "SELECT 1").CombinedOutput()
		return string(out), err
	}
	withCert := startFickle(t, "--tls-cert", certFile, "--tls-key", keyFile)
	for _, mode := range []string{"require", "verify-full sslrootcert=" + certFile} {
		if out, err := run(withCert, mode); err != nil || strings.TrimSpace(out) != "1" {
			t.Errorf("sslmode=%s: %v\n%s", mode, err, out)
		}
	}
	if out, err := run(startFickle(t, "--tls", "auto"), "require"); err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("--tls auto, sslmode=require: %v\n%s", err, out)
	}
	out, err := run(startFickle(t), "require")
	if err == nil || !strings.Contains(out, "server does not support SSL, but SSL was required") {
		t.Errorf("sslmode=require without TLS: %v\n%s", err, out)
	}
}
