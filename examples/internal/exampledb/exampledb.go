// Package exampledb gives the examples' tests their database and says which
// version of an example they test.
//
// A test connects to DATABASE_URL when it is set (fickle explore sets it for
// every run, and so can a developer pointing the test at PostgreSQL), and to
// an in-process fickle server started by fickletest otherwise. It tests the
// fixed version of the example unless FICKLE_EXAMPLE=buggy.
//
// The tests do not rely on real time, which no isolation level promises
// (fickle adds it only with --realtime): after loading their fixtures they
// call Checkpoint, so that every later transaction starts from them, and
// they read the final state with a locking read, which sees the latest
// committed version.
package exampledb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fickle-db/fickle/fickletest"
)

// VariantEnv selects the version of an example under test: "buggy" or
// "fixed" (the default).
const VariantEnv = "FICKLE_EXAMPLE"

// Buggy reports whether the test runs the buggy version.
func Buggy(t testing.TB) bool {
	switch v := os.Getenv(VariantEnv); v {
	case "buggy":
		return true
	case "", "fixed":
		return false
	default:
		t.Fatalf("%s=%q: want buggy or fixed", VariantEnv, v)
		return false
	}
}

// DSN returns DATABASE_URL, or starts a fickle server for the test.
func DSN(t testing.TB) string {
	if dsn := os.Getenv("DATABASE_URL"); dsn != "" {
		return dsn
	}
	return fickletest.Start(t)
}

// Connect opens a connection named by application_name, closed when the
// test ends: fickle's reports name connections by it, and a replay matches
// connections by it.
func Connect(t testing.TB, dsn, name string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["application_name"] = name
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connecting %s: %v", name, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// Exec runs statements on conn, failing the test on the first error.
func Exec(t testing.TB, conn *pgx.Conn, statements ...string) {
	t.Helper()
	for _, s := range statements {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// Checkpoint makes the committed state the initial state of every later
// transaction (fickle's fickle_checkpoint()); on PostgreSQL, which has no
// such function, it does nothing: there, a transaction that begins after a
// commit sees it.
func Checkpoint(t testing.TB, conn *pgx.Conn) {
	t.Helper()
	_, err := conn.Exec(context.Background(), "SELECT fickle_checkpoint()")
	var pe *pgconn.PgError
	if err != nil && !(errors.As(err, &pe) && pe.Code == "42883") { // undefined_function
		t.Fatalf("checkpoint: %v", err)
	}
}

// Retry runs f until it does not fail with a serialization failure
// (40001) or a deadlock (40P01), as an application must around a
// SERIALIZABLE or REPEATABLE READ transaction; it gives up after 100 tries.
func Retry(f func() error) error {
	var err error
	for range 100 {
		err = f()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "40001" && pe.Code != "40P01" {
			return err
		}
	}
	return err
}

// Worker names the i-th worker's connection.
func Worker(i int) string { return fmt.Sprintf("worker-%d", i) }
