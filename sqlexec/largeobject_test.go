package sqlexec

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
)

func newLoTestEngine(t *testing.T) *Engine {
	t.Helper()
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

func loText(t *testing.T, s *Session, oid int) string {
	t.Helper()
	res, err := runResult(s, fmt.Sprintf("SELECT encode(lo_get(%d), 'escape')", oid))
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows[0][0].(string)
}

// TestLargeObjectWriteWaitsForConcurrentWriter: a write to a page another
// transaction is writing waits for it, as an UPDATE of the row would, and
// then writes over its outcome: the committed page, or the old one after
// a rollback.
func TestLargeObjectWriteWaitsForConcurrentWriter(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			eng := newLoTestEngine(t)
			a := eng.NewSession(SessionInfo{User: "tester"})
			b := eng.NewSession(SessionInfo{User: "tester"})
			mustRun(t, a, "SELECT lo_from_bytea(5000, 'xxxxxxxx')")
			if err := a.Begin(TxnOptions{}, true); err != nil {
				t.Fatal(err)
			}
			mustRun(t, a, "SELECT lo_put(5000, 0, 'a')")
			done := make(chan error, 1)
			go func() { done <- runOne(b, "SELECT lo_put(5000, 2, 'b')") }()
			select {
			case err := <-done:
				t.Fatalf("the second writer did not wait for the first: %v", err)
			case <-time.After(100 * time.Millisecond):
			}
			var err error
			if commit {
				err = a.Commit()
			} else {
				err = a.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{true: "axbxxxxx", false: "xxbxxxxx"}[commit]
			if got := loText(t, a, 5000); got != want {
				t.Fatalf("large object holds %q, want %q", got, want)
			}
		})
	}
}

// TestLargeObjectConcurrentSessions runs sessions in parallel that create,
// write, read and unlink large objects of their own and write to a shared
// one; run with -race. Every new OID is distinct and every failure a
// SQLSTATE error, never an internal one.
func TestLargeObjectConcurrentSessions(t *testing.T) {
	eng := newLoTestEngine(t)
	mustRun(t, eng.NewSession(SessionInfo{User: "tester"}), "SELECT lo_create(6000)")
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := eng.NewSession(SessionInfo{User: "tester"})
			defer s.Close()
			for i := 0; i < 20; i++ {
				res, err := runResult(s, "SELECT lo_from_bytea(0, repeat('w', 3000)::bytea)")
				if err != nil {
					t.Errorf("lo_from_bytea: %v", err)
					return
				}
				oid := res.Rows[0][0].(int64)
				mu.Lock()
				if seen[oid] {
					t.Errorf("OID %d handed out twice", oid)
				}
				seen[oid] = true
				mu.Unlock()
				for _, sql := range []string{
					fmt.Sprintf("SELECT lo_put(%d, %d, 'x')", oid, 2040+i),
					fmt.Sprintf("SELECT lo_put(6000, %d, '%d')", w*10+i%10, w),
					fmt.Sprintf("SELECT length(lo_get(%d)), length(lo_get(6000))", oid),
					fmt.Sprintf("SELECT lo_unlink(%d)", oid),
				} {
					if err := runOne(s, sql); err != nil && pgerror.GetCode(err) == pgerror.InternalError {
						t.Errorf("%s: %v", sql, err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	res, err := runResult(eng.NewSession(SessionInfo{User: "tester"}), "SELECT count(*) FROM pg_largeobject_metadata")
	if err != nil || res.Rows[0][0].(int64) != 1 {
		t.Fatalf("large objects left: %v %v", res, err)
	}
}
