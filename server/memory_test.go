package server

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestStatementsPastTheMemoryCeilingFailWith53200: while the memory in use
// is past Config.MaxMemory the running statement fails with 53200, other
// sessions and the server live on, and once memory is back under the
// ceiling statements run again.
func TestStatementsPastTheMemoryCeilingFailWith53200(t *testing.T) {
	var used atomic.Uint64
	srv := startTestServer(t, Config{MaxMemory: 1000, MemoryInUse: used.Load})
	c, other := dialRaw(t, srv, nil), dialRaw(t, srv, nil)
	c.send(&pgproto3.Query{String: "SLEEP 10000"})
	time.Sleep(50 * time.Millisecond)
	used.Store(1001)
	start := time.Now()
	if code := errorCode(c.untilReady()); code != "53200" {
		t.Fatalf("the statement running past the ceiling failed with %q, want 53200", code)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the statement failed %v after memory passed the ceiling", d)
	}
	used.Store(999)
	time.Sleep(2 * memoryCheckInterval)
	for _, conn := range []*rawConn{c, other} {
		conn.send(&pgproto3.Query{String: "ROWS 1"})
		if code := errorCode(conn.untilReady()); code != "" {
			t.Fatalf("a statement under the ceiling failed with %s", code)
		}
	}
}
