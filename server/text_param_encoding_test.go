package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestTextParameterMustBeUTF8 pins that a text-format Bind parameter that is
// not UTF-8 fails with 22021 naming its first bad bytes, before its type's
// input sees it (so an int4 or uuid parameter does not report 22P02), as
// PostgreSQL's Bind does (checked too when FICKLE_PGTEST_ADDR is set);
// lib/pq's TestDecodeScan sends such parameters.
func TestTextParameterMustBeUTF8(t *testing.T) {
	dsns := fickleAndPostgres(t)
	cases := []struct {
		sql   string
		value string
		want  string
	}{
		{"SELECT $1::int4", "\x00\xbcaN", `22021 invalid byte sequence for encoding "UTF8": 0x00`},
		{"SELECT $1::uuid", "\xa0\uef19\x9c", `22021 invalid byte sequence for encoding "UTF8": 0xa0`},
		{"SELECT $1::text", "ok \xe2\x82", `22021 invalid byte sequence for encoding "UTF8": 0xe2 0x82`},
		{"SELECT $1::text", "caf\xc3\xa9", ""},
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
			for _, tc := range cases {
				_, err := c.ExecParams(ctx, tc.sql, [][]byte{[]byte(tc.value)}, nil, []int16{0}, nil).Close()
				got := ""
				var pe *pgconn.PgError
				if errors.As(err, &pe) {
					got = pe.Code + " " + pe.Message
				} else if err != nil {
					t.Fatalf("%s with %q: %v", tc.sql, tc.value, err)
				}
				if got != tc.want {
					t.Errorf("%s with %q: got %q, want %q", tc.sql, tc.value, got, tc.want)
				}
			}
		})
	}
}
