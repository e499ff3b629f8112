package integration

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

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

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestPgxEveryExecModeRoundTripsEveryType inserts one value of every supported
// type and a row of NULLs through parameters, and scans them back, in each of
// pgx's five query exec modes (binary and text formats both get exercised).
func TestPgxEveryExecModeRoundTripsEveryType(t *testing.T) {
	srv := startFickle(t)
	cases := typeCases()
	var cols []string
	for _, c := range cases {
		cols = append(cols, c.column+" "+c.sqlType)
	}
	for i, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connectPgx(t, srv.DSN(), mode)
			ctx := testCtx(t)
			table := fmt.Sprintf("types%d", i)
			if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (id integer PRIMARY KEY, %s)", table, strings.Join(cols, ", "))); err != nil {
				t.Fatalf("create table: %v", err)
			}
			for _, c := range cases {
				if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, %s) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET %s = EXCLUDED.%s", table, c.column, c.column, c.column), c.value); err != nil {
					t.Fatalf("insert %s: %v", c.sqlType, err)
				}
			}
			if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id) VALUES (2)", table)); err != nil {
				t.Fatalf("insert NULL row: %v", err)
			}
			for _, c := range cases {
				dst := c.scan()
				if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE id = $1", c.column, table), 1).Scan(dst); err != nil {
					t.Errorf("%s: scan: %v", c.sqlType, err)
					continue
				}
				got := reflect.ValueOf(dst).Elem().Interface()
				eq := c.equal
				if eq == nil {
					eq = func(a, b any) bool { return reflect.DeepEqual(a, b) }
				}
				if !eq(got, c.want) {
					t.Errorf("%s: got %#v, want %#v", c.sqlType, got, c.want)
				}
				var null any = "not null"
				if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE id = 2", c.column, table)).Scan(&null); err != nil {
					t.Errorf("%s: scan NULL: %v", c.sqlType, err)
				} else if null != nil {
					t.Errorf("%s: NULL came back as %#v", c.sqlType, null)
				}
			}
		})
	}
}

// TestPgxTransactionsSavepointsAndErrors runs a committed transaction, a
// savepoint rolled back to, and an error inside a transaction (which leaves
// it failed with 25P02 until ROLLBACK) in every exec mode.
func TestPgxTransactionsSavepointsAndErrors(t *testing.T) {
	srv := startFickle(t)
	for i, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connectPgx(t, srv.DSN(), mode)
			ctx := testCtx(t)
			table := fmt.Sprintf("kv%d", i)
			mustExec(t, conn, fmt.Sprintf("CREATE TABLE %s (k text PRIMARY KEY, v integer NOT NULL)", table))

			tx, err := conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			mustExecTx(t, tx, fmt.Sprintf("INSERT INTO %s VALUES ('a', 1), ('b', 2)", table))
			mustExecTx(t, tx, "SAVEPOINT s1")
			mustExecTx(t, tx, fmt.Sprintf("UPDATE %s SET v = 100 WHERE k = 'a'", table))
			mustExecTx(t, tx, "ROLLBACK TO SAVEPOINT s1")
			mustExecTx(t, tx, fmt.Sprintf("UPDATE %s SET v = v + 10 WHERE k = 'b'", table))
			if err := tx.Commit(ctx); err != nil {
				t.Fatalf("commit: %v", err)
			}
			if got := sumValues(t, conn, table); got != 13 {
				t.Errorf("after commit with savepoint rollback: sum = %d, want 13", got)
			}

			tx, err = conn.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			mustExecTx(t, tx, fmt.Sprintf("UPDATE %s SET v = 0", table))
			_, err = tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES ('a', 5)", table))
			if got := sqlState(err); got != "23505" {
				t.Fatalf("duplicate key: got %v (SQLSTATE %q), want 23505", err, got)
			}
			_, err = tx.Exec(ctx, fmt.Sprintf("SELECT v FROM %s", table))
			if got := sqlState(err); got != "25P02" {
				t.Errorf("statement in failed transaction: got %v (SQLSTATE %q), want 25P02", err, got)
			}
			if err := tx.Rollback(ctx); err != nil {
				t.Fatalf("rollback: %v", err)
			}
			if got := sumValues(t, conn, table); got != 13 {
				t.Errorf("after rolled-back transaction: sum = %d, want 13", got)
			}
		})
	}
}

// TestPgxBatchRunsStatementsInOrder sends a pgx Batch of writes and reads in
// one round trip.
func TestPgxBatchRunsStatementsInOrder(t *testing.T) {
	srv := startFickle(t)
	conn := connectPgx(t, srv.DSN(), pgx.QueryExecModeCacheStatement)
	ctx := testCtx(t)
	mustExec(t, conn, "CREATE TABLE items (id integer PRIMARY KEY, name text)")
	b := &pgx.Batch{}
	for i := 1; i <= 5; i++ {
		b.Queue("INSERT INTO items VALUES ($1, $2)", i, fmt.Sprintf("item-%d", i))
	}
	b.Queue("SELECT count(*) FROM items")
	b.Queue("SELECT name FROM items WHERE id = $1", 3)
	br := conn.SendBatch(ctx, b)
	for i := 1; i <= 5; i++ {
		if _, err := br.Exec(); err != nil {
			t.Fatalf("batch insert %d: %v", i, err)
		}
	}
	var n int64
	if err := br.QueryRow().Scan(&n); err != nil || n != 5 {
		t.Errorf("batch count: got %d, %v; want 5", n, err)
	}
	var name string
	if err := br.QueryRow().Scan(&name); err != nil || name != "item-3" {
		t.Errorf("batch select: got %q, %v; want item-3", name, err)
	}
	if err := br.Close(); err != nil {
		t.Fatalf("batch close: %v", err)
	}
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(testCtx(t), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func mustExecTx(t *testing.T, tx pgx.Tx, sql string, args ...any) {
	t.Helper()
	if _, err := tx.Exec(testCtx(t), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func sumValues(t *testing.T, conn *pgx.Conn, table string) int64 {
	t.Helper()
	var s int64
	if err := conn.QueryRow(testCtx(t), fmt.Sprintf("SELECT sum(v) FROM %s", table)).Scan(&s); err != nil {
		t.Fatalf("sum: %v", err)
	}
	return s
}
