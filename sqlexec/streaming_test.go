package sqlexec

import (
	"context"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

// streamingSession is a session of a fresh engine for the streaming tests.
func streamingSession(t *testing.T) *Session {
	t.Helper()
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "u"})
	t.Cleanup(s.Close)
	return s
}

// runMeasured runs sql under a context that ends after timeout and
// returns its rows, how long it took, how far the heap (sampled every
// millisecond while it ran) grew above where it started, and its error.
// The collector runs at GOGC 10 meanwhile, so that the heap sampled is
// close to the live heap: at the default a loaded machine let garbage
// alone reach the bound.
func runMeasured(t *testing.T, s *Session, sql string, timeout time.Duration) ([][]any, time.Duration, uint64, error) {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sts, err := s.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Prepare(sts[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	res, err := s.Execute(ctx, p, nil)
	elapsed := time.Since(start)
	close(done)
	wg.Wait()
	var rows [][]any
	if res != nil {
		rows = res.Rows
	}
	return rows, elapsed, max(peak, base) - base, err
}

// streamingHeapBound is the live heap a streamed statement may add: a
// materialized one adds tens of bytes per row, hundreds of MB here.
const streamingHeapBound = 32 << 20

// TestSetReturningFunctionsStreamIntoAggregates pins streaming execution:
// an aggregate over millions of rows of a set-returning function in FROM
// (with and without ORDINALITY, joined, or of several calls in a select
// list counted by the aggregate of an enclosing level) answers right while
// the live heap stays far below what the rows would take materialized.
func TestSetReturningFunctionsStreamIntoAggregates(t *testing.T) {
	s := streamingSession(t)
	cases := []struct {
		sql  string
		want int64
	}{
		{"SELECT count(*) FROM generate_series(1, 3000000)", 3000000},
		{"SELECT sum(g) FROM generate_series(1, 3000000) g", 4500001500000},
		{"SELECT max(o) FROM generate_series(1, 3000000) WITH ORDINALITY AS t(g, o)", 3000000},
		{"SELECT count(*) FROM generate_series(1, 3) a, generate_series(1, 1000000) b WHERE b % 2 = 0", 1500000},
		{"SELECT count(*) FROM unnest(array[1, 2, 3]) u, generate_series(1, 1000000) g", 3000000},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			rows, _, grew, err := runMeasured(t, s, c.sql, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0][0] != c.want {
				t.Fatalf("got %v, want %d", rows, c.want)
			}
			if grew > streamingHeapBound {
				t.Fatalf("the live heap grew %d MB, want under %d MB: the rows were materialized", grew>>20, streamingHeapBound>>20)
			}
		})
	}
}

// TestCountOverABillionRowsStopsAtItsTimeout: the acceptance statement of
// issue 12 runs in constant memory until its statement timeout stops it
// with 57014, within a bound generous for a loaded machine.
func TestCountOverABillionRowsStopsAtItsTimeout(t *testing.T) {
	s := streamingSession(t)
	_, elapsed, grew, err := runMeasured(t, s, "SELECT count(*) FROM generate_series(1, 1e9)", time.Second)
	if pgerror.GetCode(err) != pgerror.QueryCanceled {
		t.Fatalf("got %v, want 57014", err)
	}
	if elapsed > 10*time.Second {
		t.Fatalf("stopped after %v, want within 10 s of a 1 s timeout", elapsed)
	}
	if grew > streamingHeapBound {
		t.Fatalf("the live heap grew %d MB, want under %d MB", grew>>20, streamingHeapBound>>20)
	}
}

// TestSelectListSetCallsAdvanceInLockstep pins what streaming the calls of
// a select list keeps: as many rows as the longest call, the shorter ones
// padded with NULL, an error of any call failing the statement.
func TestSelectListSetCallsAdvanceInLockstep(t *testing.T) {
	s := streamingSession(t)
	rows := mustQuery(t, s, "SELECT generate_series(1, 3), generate_series(1, 2), unnest(array['a'])")
	want := [][]any{{int64(1), int64(1), "a"}, {int64(2), int64(2), nil}, {int64(3), nil, nil}}
	if len(rows) != len(want) {
		t.Fatalf("got %v, want %v", rows, want)
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Fatalf("got %v, want %v", rows, want)
			}
		}
	}
	wantCode(t, s, "SELECT generate_series(1, 3), generate_series(1, 2, 0)", pgerror.InvalidParameterValue)
	if rows := mustQuery(t, s, "SELECT generate_series(1, 0), generate_series(1, NULL)"); len(rows) != 0 {
		t.Fatalf("got %v, want no rows", rows)
	}
}
