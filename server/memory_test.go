package server

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
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

// TestBulkLoadRaisesTheCollectorsTargetUntilTheLastEnds: overlapping COPY
// FROMs raise GOGC once and the last to end puts back what was there.
func TestBulkLoadRaisesTheCollectorsTargetUntilTheLastEnds(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: bulk loads leave the collector's target alone")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	current := func() int {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return int(s[0].Value.Uint64())
	}
	leaveA := enterBulkLoad()
	if got := current(); got != bulkLoadGCPercent {
		t.Fatalf("during a COPY, GOGC = %d, want %d", got, bulkLoadGCPercent)
	}
	leaveB := enterBulkLoad()
	leaveA()
	if got := current(); got != bulkLoadGCPercent {
		t.Fatalf("after the first of two overlapping COPYs, GOGC = %d, want %d", got, bulkLoadGCPercent)
	}
	leaveB()
	if got := current(); got != 150 {
		t.Fatalf("after both COPYs, GOGC = %d, want the 150 from before", got)
	}
	debug.SetGCPercent(500)
	leave := enterBulkLoad()
	if got := current(); got != 500 {
		t.Fatalf("a COPY lowered GOGC from 500 to %d", got)
	}
	leave()
}
