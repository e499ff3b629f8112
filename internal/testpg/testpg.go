// Package testpg connects tests to the PostgreSQL 15 they compare fickle
// with: the one FICKLE_TEST_PG names (a DSN). Without it a test skips,
// unless FICKLE_REQUIRE_PG=1 (CI) makes its absence a failure.
package testpg

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DSN returns FICKLE_TEST_PG, skipping the test (failing it under
// FICKLE_REQUIRE_PG=1) when it is not set.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("FICKLE_TEST_PG")
	if dsn == "" {
		if os.Getenv("FICKLE_REQUIRE_PG") == "1" {
			t.Fatal("FICKLE_TEST_PG is not set (FICKLE_REQUIRE_PG=1)")
		}
		t.Skip("FICKLE_TEST_PG is not set: no PostgreSQL to compare with")
	}
	return dsn
}

// Connect connects to FICKLE_TEST_PG's PostgreSQL and closes the
// connection when the test ends.
func Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
