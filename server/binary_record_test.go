package server

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRecordBinaryOutput holds the bytes PostgreSQL 15's record_send gave
// for anonymous records (nested, with arrays and NULLs), a composite type
// and an array of it, and checks fickle sends the same (pgx asks for
// records and composites in binary); a PostgreSQL at FICKLE_PGTEST_ADDR is
// checked against them too.
func TestRecordBinaryOutput(t *testing.T) {
	// {pair} stands for the OID of the composite type, which differs between servers.
	cases := []struct{ sql, hex string }{
		{"SELECT row('foo'::text, 42::int4)", "000000020000001900000003666f6f00000017000000040000002a"},
		{"SELECT row(1, array[1, null]::int4[], null::text)",
			"00000003000000170000000400000001000003ef0000002000000001000000010000001700000002000000010000000400000001ffffffff00000019ffffffff"},
		{"SELECT row(row(1, 'a'::text), 2.5::float8)",
			"00000002000008c90000001900000002000000170000000400000001000000190000000161000002bd000000084004000000000000"},
		{"SELECT row()", "00000000"},
		{"SELECT (1, 'x')::pair", "00000002000000170000000400000001000000190000000178"},
		{"SELECT array[(1, 'x')::pair, null]",
			"0000000100000001{pair}00000002000000010000001900000002000000170000000400000001000000190000000178ffffffff"},
	}
	srv := startSQLServer(t, Config{})
	dsns := map[string]string{"fickle": fmt.Sprintf("postgres://tester@%s/fickle?sslmode=disable", srv.Addr())}
	if addr := pgtestAddr(t); addr != "" {
		dsns["postgres"] = fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", addr)
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := pgconn.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			if _, err := c.Exec(ctx, "BEGIN; CREATE TYPE pair AS (n int4, s text)").ReadAll(); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = c.Exec(ctx, "ROLLBACK").ReadAll() }()
			oid := c.ExecParams(ctx, "SELECT 'pair'::regtype::oid", nil, nil, nil, []int16{1}).Read()
			if oid.Err != nil {
				t.Fatal(oid.Err)
			}
			for _, tc := range cases {
				res := c.ExecParams(ctx, tc.sql, nil, nil, nil, []int16{1}).Read()
				if res.Err != nil {
					t.Fatalf("%s: %v", tc.sql, res.Err)
				}
				want := strings.ReplaceAll(tc.hex, "{pair}", hex.EncodeToString(oid.Rows[0][0]))
				if got := hex.EncodeToString(res.Rows[0][0]); got != want {
					t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, want)
				}
			}
		})
	}
}

// TestBinaryOutputRefusedIsNotSupported pins that a result column asked
// for in binary whose binary form fickle does not write (int2vector) is
// refused with 0A000 at Bind, not with 42883, which PostgreSQL gives only
// for the types it has no send function for.
func TestBinaryOutputRefusedIsNotSupported(t *testing.T) {
	srv := startSQLServer(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, fmt.Sprintf("postgres://tester@%s/fickle?sslmode=disable", srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	res := c.ExecParams(ctx, "SELECT '1 2'::int2vector", nil, nil, nil, []int16{1}).Read()
	if got := fmt.Sprint(res.Err); got != "ERROR: binary output of type int2vector is not supported by fickle (SQLSTATE 0A000)" {
		t.Fatalf("got %s", got)
	}
}
