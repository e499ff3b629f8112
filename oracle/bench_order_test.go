package oracle

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// The PC/SI/SER benchmarks. Histories come from history.Generate (consistent
// by construction, serial for SI and SER). The 10^6-transaction sizes of
// BenchmarkCheckOrder need FICKLE_BENCH_HUGE=1:
//
//	FICKLE_BENCH_HUGE=1 go test ./oracle -run '^$' -bench 'CheckOrder|Search' -benchtime 1x
//
// Targets (issue 3): 10^6 transactions with a recorded order under 10 s;
// dbcop's reference shape without one under 1 s per history.

func benchSizes() []int {
	sizes := []int{10_000, 100_000}
	if os.Getenv("FICKLE_BENCH_HUGE") != "" {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// BenchmarkCheckOrder verifies the recorded commit order of n-transaction
// histories (16 sessions, 8 operations each) at SER and SI: CheckOrder
// alone, and Check, which also runs the structural checks and the causal
// saturation first.
func BenchmarkCheckOrder(b *testing.B) {
	for _, via := range []string{"CheckOrder", "Check"} {
		for _, level := range []history.Level{history.Serializable, history.Snapshot} {
			for _, n := range benchSizes() {
				b.Run(fmt.Sprintf("%s/%s/n=%d", via, level, n), func(b *testing.B) {
					h := history.Generate(history.GenOptions{Sessions: 16, Txns: n, OpsPerTxn: 8, Keys: max(n/4, 16),
						Level: level, CommitOrder: true, Seed: 11})
					opts := Options{Level: level}
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					cpu := cpuTime()
					for b.Loop() {
						if via == "Check" {
							if r := Check(h, opts); r.Verdict != Consistent || r.Steps != 0 {
								b.Fatalf("%v after %d search steps", r.Verdict, r.Steps)
							}
						} else if e, err := CheckOrder(h, h.CommitOrder, opts, nil); e != nil || err != nil {
							b.Fatalf("%v %+v", err, e)
						}
					}
					b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
					runtime.ReadMemStats(&after)
					b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
				})
			}
		}
	}
}

// dbcopShape generates histories of dbcop's reference shape (paper 002 §6:
// 6 sessions, 30 transactions each, 20 operations each, 60 variables per
// session), without a commit order.
func dbcopShape(level history.Level, seed uint64) *history.History {
	return history.Generate(history.GenOptions{Sessions: 6, Txns: 180, OpsPerTxn: 20, Keys: 360, Level: level, Seed: seed})
}

// BenchmarkSearch searches for a commit order of dbcop-shaped histories:
// consistent ones at their own level (SER, SI), and ones generated at PC
// checked at SI and SER, which are mostly violations. One op is one history.
func BenchmarkSearch(b *testing.B) {
	for _, c := range []struct{ gen, check history.Level }{
		{history.Serializable, history.Serializable},
		{history.Snapshot, history.Snapshot},
		{history.Prefix, history.Snapshot},
		{history.Prefix, history.Serializable},
	} {
		b.Run(fmt.Sprintf("gen=%s/check=%s", c.gen, c.check), func(b *testing.B) {
			var hs []*history.History
			for seed := range uint64(16) {
				hs = append(hs, dbcopShape(c.gen, seed+1))
			}
			var verdicts [3]int
			i := 0
			cpu := cpuTime()
			for b.Loop() {
				r := Check(hs[i%len(hs)], Options{Level: c.check})
				verdicts[r.Verdict]++
				i++
			}
			if verdicts[Unknown] > 0 {
				b.Fatalf("%d of %d checks undecided", verdicts[Unknown], i)
			}
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(i), "cpu-s/op")
			b.ReportMetric(float64(verdicts[Violation])/float64(i), "violations/op")
		})
	}
}

// TestSearchDecidesDbcopShapes: the search decides dbcop-shaped histories
// consistent by construction, at SER and SI, with a witness the literal
// verification accepts.
func TestSearchDecidesDbcopShapes(t *testing.T) {
	seeds := uint64(8)
	if testing.Short() {
		seeds = 2
	}
	for _, level := range []history.Level{history.Serializable, history.Snapshot, history.Prefix} {
		for seed := range seeds {
			h := dbcopShape(level, seed+1)
			v, co, why := Search(h, Options{Level: level})
			if v != Consistent {
				t.Fatalf("%s seed %d: %v %+v", level, seed+1, v, why)
			}
			if e, err := CheckOrder(h, co, Options{Level: level}, nil); err != nil || e != nil {
				t.Fatalf("%s seed %d: witness rejected: %v %+v", level, seed+1, err, e)
			}
		}
	}
}

// BenchmarkVerifyOrderRestricted checks one transaction's reads against a
// prebuilt order, as the isolation engine does for a commit: the cost must
// not grow with the history.
func BenchmarkVerifyOrderRestricted(b *testing.B) {
	for _, level := range []history.Level{history.Serializable, history.Snapshot, history.ReadAtomic} {
		for _, n := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/n=%d", level, n), func(b *testing.B) {
				h := history.Generate(history.GenOptions{Sessions: 16, Txns: n, OpsPerTxn: 8, Keys: max(n/4, 16),
					Level: level, CommitOrder: true, Seed: 13})
				o, err := NewSliceOrder(h, h.CommitOrder)
				if err != nil {
					b.Fatal(err)
				}
				opts := Options{Level: level}
				subset := []history.TxnID{h.CommitOrder[len(h.CommitOrder)-1]}
				for b.Loop() {
					if e := VerifyOrder(h, o, opts, subset); e != nil {
						b.Fatalf("%+v", e)
					}
				}
			})
		}
	}
}
