package main

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestServeMemoryCeilingStopsAStatementAndLivesOn: with --max-memory 200MB
// a statement that accumulates a billion rows fails with 53200 (the
// server's memory passed the ceiling) well before its statement_timeout,
// and the session, another one, and the data live on.
func TestServeMemoryCeilingStopsAStatementAndLivesOn(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 300 MB")
	}
	r := startServe(t, "--max-memory", "200MB", "--strategy", "latest")
	c, other := r.connect(t), r.connect(t)
	ctx := context.Background()
	if _, err := other.Exec(ctx, "CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "SET statement_timeout = '60s'"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := c.Exec(ctx, "SELECT length(string_agg(g::text, ',')) FROM generate_series(1, 1000000000) g")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53200" {
		t.Fatalf("the statement ended with %v after %v, want 53200", err, time.Since(start))
	}
	t.Logf("53200 after %v: %s", time.Since(start), pe.Detail)
	if got := queryString(t, c, "SELECT count(*)::text FROM kept"); got != "1" {
		t.Fatalf("after 53200 the session reads %s rows, want 1", got)
	}
	if got := queryString(t, other, "SELECT count(*)::text FROM kept"); got != "1" {
		t.Fatalf("after 53200 another session reads %s rows, want 1", got)
	}
}

// TestServeRecordAloneKeepsTheHistoryInATemporaryFile: --record without
// --history logs to a temporary file that fickle_check() reads back, and
// that is removed when the server stops.
func TestServeRecordAloneKeepsTheHistoryInATemporaryFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	r := startServe(t, "--record")
	c := r.connect(t)
	if _, err := c.Exec(context.Background(), "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Fatalf("%d files in TMPDIR while serving, want the history", len(files))
	}
	if got := queryString(t, c, "SELECT verdict FROM fickle_check() WHERE level = 'own'"); got != "consistent" {
		t.Fatalf("fickle_check() says %s", got)
	}
	c.Close(context.Background())
	if code := r.shutdown(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("%s left in TMPDIR after the server stopped", files[0].Name())
	}
}
