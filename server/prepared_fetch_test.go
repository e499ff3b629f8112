package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestFetchPreparedBeforeItsCursorReturnsTheCursorsRows pins a FETCH
// prepared before its cursor exists (described as NoData): bound after
// DECLARE, its portal describes and returns the cursor's columns and rows,
// through Bind/Describe/Execute and through SQL EXECUTE, as in PostgreSQL
// (checked too when FICKLE_PGTEST_ADDR is set); pgx's
// TestConnQueryPreparedCursorFetch does so.
func TestFetchPreparedBeforeItsCursorReturnsTheCursorsRows(t *testing.T) {
	dsns := fickleAndPostgres(t)
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := pgconn.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)
			sd, err := c.Prepare(ctx, "f", `FETCH 2 IN "cur"`, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sd.Fields) != 0 {
				t.Fatalf("FETCH prepared before its cursor described %d columns, want none", len(sd.Fields))
			}
			if _, err := c.Exec(ctx, `BEGIN; DECLARE "cur" CURSOR FOR SELECT n, n::text AS s FROM generate_series(1, 3) n`).ReadAll(); err != nil {
				t.Fatal(err)
			}
			res := c.ExecStatement(ctx, sd, nil, nil, nil).Read()
			if res.Err != nil {
				t.Fatalf("Execute: %v", res.Err)
			}
			if got := fmt.Sprintf("%d %s %s %q", len(res.FieldDescriptions), res.FieldDescriptions[0].Name, res.FieldDescriptions[1].Name, res.Rows); got != `2 n s [["1" "1"] ["2" "2"]]` {
				t.Fatalf("Execute: %s", got)
			}
			results, err := c.Exec(ctx, "EXECUTE f").ReadAll()
			if err != nil {
				t.Fatalf("EXECUTE: %v", err)
			}
			if got := fmt.Sprintf("%d %q %s", len(results[0].FieldDescriptions), results[0].Rows, results[0].CommandTag); got != `2 [["3" "3"]] FETCH 1` {
				t.Fatalf("EXECUTE: %s", got)
			}
		})
	}
}
