package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestPsqlScriptRunsAndMatchesPostgres runs testdata/script.sql (DDL, DML,
// transactions, savepoints, COPY FROM STDIN and TO STDOUT) with psql and
// ON_ERROR_STOP against fickle, then against PostgreSQL 15, and requires
// identical output.
func TestPsqlScriptRunsAndMatchesPostgres(t *testing.T) {
	psql := pgTool(t, "psql")
	// A relative path: psql prints it in NOTICE lines, and both runs must agree.
	script := filepath.Join("testdata", "script.sql")
	args := func(port int, db, user string) []string {
		return []string{"-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", user, "-d", db, "-f", script}
	}
	srv := startFickle(t)
	got, err := runTool(t, 60*time.Second, nil, psql, args(srv.Port, "fickle", "fickle")...)
	if err != nil {
		t.Fatalf("psql against fickle: %v\n%s", err, got)
	}
	golden := filepath.Join("testdata", "script.out")
	if os.Getenv("FICKLE_REWRITE") == "1" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden output (FICKLE_REWRITE=1 writes it): %v", err)
	}
	if got != string(want) {
		t.Errorf("psql output against fickle differs from %s:\n%s", golden, lineDiff(string(want), got))
	}

	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	pgOut, err := runTool(t, 60*time.Second, nil, psql, args(port, db, "postgres")...)
	if err != nil {
		t.Fatalf("psql against PostgreSQL: %v\n%s", err, pgOut)
	}
	if pgOut != got {
		t.Errorf("fickle and PostgreSQL print different output for %s:\n%s", script, lineDiff(pgOut, got))
	}
}
