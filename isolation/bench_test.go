package isolation

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
)

// tpcb is pgbench's TPC-B-like schema at scale 1 in the store.
type tpcb struct {
	s                                 *Store
	accounts, tellers, branches, hist TableID
	naccounts, ntellers, nbranches    int
}

func pk(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

func newTPCB(b testing.TB, cfg Config) *tpcb {
	s := NewStore(cfg)
	w := &tpcb{s: s, naccounts: 100000, ntellers: 10, nbranches: 1}
	w.accounts, _ = s.CreateTable(TableSpec{Name: "pgbench_accounts"})
	w.tellers, _ = s.CreateTable(TableSpec{Name: "pgbench_tellers"})
	w.branches, _ = s.CreateTable(TableSpec{Name: "pgbench_branches"})
	w.hist, _ = s.CreateTable(TableSpec{Name: "pgbench_history", HiddenRowID: true})
	tx, _ := s.NewSession().Begin(TxnOptions{})
	for i := 1; i <= w.naccounts; i++ {
		if _, err := tx.Insert(bg, w.accounts, pk(i), []any{int64(i), int64(1), int64(0), ""}); err != nil {
			b.Fatal(err)
		}
	}
	for i := 1; i <= w.ntellers; i++ {
		_, _ = tx.Insert(bg, w.tellers, pk(i), []any{int64(i), int64(1), int64(0)})
	}
	_, _ = tx.Insert(bg, w.branches, pk(1), []any{int64(1), int64(0)})
	if err := tx.Commit(bg); err != nil {
		b.Fatal(err)
	}
	// Loaded data is the initial state (fickle serve --load): without the
	// checkpoint a SER or PC transaction may legitimately be placed before
	// the load and find no rows to update.
	if _, err := s.Checkpoint(); err != nil {
		b.Fatal(err)
	}
	return w
}

// add is UPDATE table SET balance = balance + delta WHERE id = key.
func (w *tpcb) add(tx *Txn, tab TableID, key []byte, col int, delta int64) error {
	row, ok, err := tx.Get(bg, tab, key, ReadOptions{})
	if err != nil || !ok {
		return err
	}
	nr := append([]any(nil), row...)
	nr[col] = nr[col].(int64) + delta
	return tx.Update(bg, tab, key, nr)
}

func (w *tpcb) txn(sess *Session, rng *rand.Rand, level history.Level) error {
	aid, tid, delta := 1+rng.IntN(w.naccounts), 1+rng.IntN(w.ntellers), int64(rng.IntN(10001)-5000)
	tx, err := sess.Begin(TxnOptions{Level: level})
	if err != nil {
		return err
	}
	fail := func(err error) error { _ = tx.Rollback(); return err }
	if err := w.add(tx, w.accounts, pk(aid), 2, delta); err != nil {
		return fail(err)
	}
	if _, _, err := tx.Get(bg, w.accounts, pk(aid), ReadOptions{}); err != nil {
		return fail(err)
	}
	if err := w.add(tx, w.tellers, pk(tid), 2, delta); err != nil {
		return fail(err)
	}
	if err := w.add(tx, w.branches, pk(1), 1, delta); err != nil {
		return fail(err)
	}
	if _, err := tx.Insert(bg, w.hist, nil, []any{int64(tid), int64(1), int64(aid), delta}); err != nil {
		return fail(err)
	}
	return tx.Commit(bg)
}

// BenchmarkTPCB runs pgbench's TPC-B-like transaction through the store
// from 8 concurrent sessions; ns/op is per transaction.
func BenchmarkTPCB(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cfg   Config
		level history.Level
	}{
		{"latest", Config{Strategy: StrategyLatest}, history.ReadCommitted},
		{"latest-record", Config{Strategy: StrategyLatest, Record: true}, history.ReadCommitted},
		{"adversarial-record", Config{Strategy: StrategyAdversarial, Record: true}, history.ReadCommitted},
		{"latest-SI", Config{Strategy: StrategyLatest}, history.Snapshot},
		{"latest-SER", Config{Strategy: StrategyLatest}, history.Serializable},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := newTPCB(b, bc.cfg)
			var seq, failed atomic.Int64
			b.SetParallelism(4) // 8 sessions on 2 cores
			cpu0 := cpuTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				n := seq.Add(1)
				sess := w.s.NewSession()
				rng := rand.New(rand.NewPCG(uint64(n), 1))
				for pb.Next() {
					if err := w.txn(sess, rng, bc.level); err != nil {
						if c := pgerror.GetCode(err); c != pgerror.SerializationFailure && c != pgerror.DeadlockDetected {
							b.Error(err)
							return
						}
						failed.Add(1)
					}
				}
			})
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(failed.Load())/float64(b.N), "aborts/op")
		})
	}
}

// BenchmarkVersionMemory measures the heap held per stored version: one
// transaction per op updates one of 1,000 rows of four integers.
func BenchmarkVersionMemory(b *testing.B) {
	for _, record := range []bool{false, true} {
		b.Run(fmt.Sprintf("record=%v", record), func(b *testing.B) {
			s := NewStore(Config{Record: record})
			tab, _ := s.CreateTable(TableSpec{Name: "t"})
			sess := s.NewSession()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			i := 0
			for b.Loop() {
				tx, _ := sess.Begin(TxnOptions{})
				if err := tx.Update(bg, tab, pk(i%1000), []any{int64(i), int64(1), int64(2), int64(3)}); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(bg); err != nil {
					b.Fatal(err)
				}
				i++
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "B/version")
			runtime.KeepAlive(s)
		})
	}
}

// cpuTime returns the process's user and system CPU time in nanoseconds:
// a figure that, unlike wall time, a busy shared machine barely inflates.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestConcurrentSerializableTransfersKeepTheBalances runs the TPC-B
// transaction from 8 goroutines at SER (lock waits, wake-ups, deadlock
// checks and aborts under real concurrency; run it with -race): the branch
// balance must equal the sum of the committed deltas, as in any serial
// order, and every history the oracle's check of the recorded co accepts.
func TestConcurrentSerializableTransfersKeepTheBalances(t *testing.T) {
	w := newTPCB(t, Config{Strategy: StrategyAdversarial, Seed: 5, Record: true})
	var committed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess := w.s.NewSession()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for range 60 {
				delta := int64(rng.IntN(100))
				tx, err := sess.Begin(TxnOptions{Level: history.Serializable})
				if err != nil {
					t.Error(err)
					return
				}
				err = w.add(tx, w.branches, pk(1), 1, delta)
				if err == nil {
					err = w.add(tx, w.tellers, pk(1+rng.IntN(w.ntellers)), 2, delta)
				}
				if err == nil {
					err = tx.Commit(bg)
				} else {
					_ = tx.Rollback()
				}
				switch pgerror.GetCode(err) {
				case "":
					committed.Add(delta)
				case pgerror.SerializationFailure, pgerror.DeadlockDetected:
				default:
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	tx, _ := w.s.NewSession().Begin(TxnOptions{Level: history.Serializable, Strategy: StrategyLatest})
	row, _, err := tx.Get(bg, w.branches, pk(1), ReadOptions{Latest: true})
	if err != nil {
		t.Fatal(err)
	}
	if row[1].(int64) != committed.Load() {
		t.Fatalf("branch balance %d, committed deltas %d", row[1], committed.Load())
	}
	h := w.s.History()
	if ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{}, nil); err != nil || ex != nil {
		t.Fatalf("recorded co rejected: %v %+v", err, ex)
	}
}
