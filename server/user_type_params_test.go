package server

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestParseTakesUserTypeParameterOIDs pins that a Parse may declare its
// parameters with the OIDs of user-defined enums, ranges and composite
// types and of their arrays, in the transaction that created them too (pgx
// sends the OIDs it described in its cache_describe mode), as PostgreSQL
// accepts them (checked too when FICKLE_PGTEST_ADDR is set).
func TestParseTakesUserTypeParameterOIDs(t *testing.T) {
	dsns := fickleAndPostgres(t)
	cases := []struct{ typ, value string }{
		{"fruit", "pear"},
		{"fruit[]", "{apple,pear}"},
		{"floatrange", "[1.5,2)"},
		{"pair", "(1,x)"},
		{"pair[]", `{"(1,x)","(2,y)"}`},
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
			if _, err := c.Exec(ctx, `BEGIN;
				CREATE TYPE fruit AS ENUM ('apple', 'pear');
				CREATE TYPE floatrange AS RANGE (subtype = float8);
				CREATE TYPE pair AS (n int, s text)`).ReadAll(); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = c.Exec(ctx, "ROLLBACK").ReadAll() }()
			for _, tc := range cases {
				res := c.ExecParams(ctx, "SELECT $1::regtype::oid", [][]byte{[]byte(tc.typ)}, nil, nil, nil).Read()
				if res.Err != nil {
					t.Fatalf("OID of %s: %v", tc.typ, res.Err)
				}
				oid, _ := strconv.ParseUint(string(res.Rows[0][0]), 10, 32)
				res = c.ExecParams(ctx, "SELECT $1::text, pg_typeof($1)::text", [][]byte{[]byte(tc.value)}, []uint32{uint32(oid)}, nil, nil).Read()
				if res.Err != nil {
					t.Fatalf("$1 declared %s: %v", tc.typ, res.Err)
				}
				if got := string(res.Rows[0][0]) + " " + string(res.Rows[0][1]); got != tc.value+" "+tc.typ {
					t.Errorf("$1 declared %s: got %q", tc.typ, got)
				}
			}
		})
	}
}
