package server

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// liveHeap is the heap the last garbage collection left live.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestResultRowsReachTheClientAsTheyAreMade: a SELECT of millions of rows
// sends them as it makes them, through the simple and the extended
// protocol: the live heap, measured while the client reads, stays far
// below what holding the rows takes (over 100 bytes a row).
func TestResultRowsReachTheClientAsTheyAreMade(t *testing.T) {
	const n = 1_000_000
	const bound = 32 << 20
	srv := startSQLServer(t, Config{})
	dsn := "postgres://tester@" + srv.Addr().String() + "/fickle?sslmode=disable"
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connectPgx(t, dsn, mode)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			base := liveHeap()
			rows, err := conn.Query(ctx, "SELECT g FROM generate_series(1, $1::numeric) g", n)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			var peak uint64
			for rows.Next() {
				got++
				if got%(n/5) == 0 {
					peak = max(peak, liveHeap())
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Fatalf("got %d rows, want %d", got, n)
			}
			if tag := rows.CommandTag().String(); tag != "SELECT "+strconv.Itoa(n) {
				t.Fatalf("command tag %q", tag)
			}
			if peak > base+bound {
				t.Fatalf("the live heap grew by %d MB while the client read %d rows (bound %d MB)", (peak-base)>>20, n, bound>>20)
			}
			t.Logf("live heap growth while reading %d rows: %d kB", n, int64(peak-base)>>10)
		})
	}
}

// oneRowServer starts a server with a table one_row of one row, and a
// session on it that the tests take the table's lock from.
func oneRowServer(t *testing.T) (*Server, *pgx.Conn) {
	t.Helper()
	srv := startSQLServer(t, Config{})
	dsn := "postgres://tester@" + srv.Addr().String() + "/fickle?sslmode=disable"
	other := connectPgx(t, dsn, pgx.QueryExecModeSimpleProtocol)
	if _, err := other.Exec(context.Background(), "CREATE TABLE one_row (id int PRIMARY KEY); INSERT INTO one_row VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	return srv, other
}

// TestDisconnectedClientStopsItsStreamedStatement: a client that goes
// away in the middle of an endless result ends its statement, and with
// it the implicit transaction's table lock, which another session then
// takes.
func TestDisconnectedClientStopsItsStreamedStatement(t *testing.T) {
	srv, other := oneRowServer(t)
	ctx := context.Background()
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SELECT g FROM one_row, generate_series(1, 1e12) g"})
	for rowsSeen := 0; rowsSeen < 1000; {
		switch m := c.receive().(type) {
		case *pgproto3.DataRow:
			rowsSeen++
		case *pgproto3.ErrorResponse:
			t.Fatalf("%s %s", m.Code, m.Message)
		}
	}
	c.nc.Close()
	start := time.Now()
	if _, err := other.Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '20s'; LOCK TABLE one_row IN ACCESS EXCLUSIVE MODE; COMMIT"); err != nil {
		t.Fatalf("the disconnected client's statement still holds its lock: %v", err)
	}
	t.Logf("the lock came free %v after the client closed", time.Since(start))
}

// TestStreamedResultStopsAtStatementTimeout: a result streaming to a
// client that keeps reading fails with 57014 soon after the
// statement_timeout, after the rows it sent.
func TestStreamedResultStopsAtStatementTimeout(t *testing.T) {
	srv := startSQLServer(t, Config{})
	c := dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SET statement_timeout = '300ms'"})
	c.untilReady()
	start := time.Now()
	c.send(&pgproto3.Query{String: "SELECT g FROM generate_series(1, 1e12) g"})
	rows := 0
	for {
		m := c.receive()
		if _, ok := m.(*pgproto3.DataRow); ok {
			rows++
			continue
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			if e.Code != "57014" {
				t.Fatalf("the statement failed with %s, want 57014", e.Code)
			}
			break
		}
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			t.Fatal("the statement ended without an error")
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the statement stopped %v after it started (timeout 300ms)", d)
	}
	if rows == 0 {
		t.Fatal("no row reached the client before the timeout")
	}
	c.untilReady()
}

// TestDisconnectedClientStopsItsSilentStatement: a client that goes away
// while a statement that sends nothing until its end runs (no failed write
// tells the server) ends that statement through the disconnect watcher,
// and with it the implicit transaction's table lock; also when the
// statement comes right after others (the watcher's timer still armed from
// them) and after an idle pause (the timer lapsed).
func TestDisconnectedClientStopsItsSilentStatement(t *testing.T) {
	srv, other := oneRowServer(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		before int           // short statements before the endless one
		pause  time.Duration // idle time after them
	}{
		{"first statement", 0, 0},
		{"right after others", 50, 0},
		{"after an idle pause", 3, 2 * clientGoneInterval},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, srv, nil)
			for i := 0; i < tc.before; i++ {
				c.send(&pgproto3.Query{String: "SELECT 1"})
				for {
					if _, ok := c.receive().(*pgproto3.ReadyForQuery); ok {
						break
					}
				}
			}
			time.Sleep(tc.pause)
			c.send(&pgproto3.Query{String: "SELECT count(*) FROM one_row, generate_series(1, 1e12) g"})
			time.Sleep(100 * time.Millisecond)
			c.nc.Close()
			start := time.Now()
			if _, err := other.Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '20s'; LOCK TABLE one_row IN ACCESS EXCLUSIVE MODE; COMMIT"); err != nil {
				t.Fatalf("the disconnected client's statement still holds its lock: %v", err)
			}
			if waited := time.Since(start); waited > 5*clientGoneInterval {
				t.Fatalf("the lock came free %v after the client closed; the watcher checks every %v", waited, clientGoneInterval)
			}
		})
	}
}
