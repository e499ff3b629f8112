package oracle

import (
	"flag"
	"fmt"
	"runtime"
	"syscall"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// benchHuge adds the 10^6-transaction sizes to BenchmarkSaturate:
//
//	go test ./oracle -run '^$' -bench Saturate -benchtime 1x -huge
var benchHuge = flag.Bool("huge", false, "include 10^6-transaction histories in BenchmarkSaturate")

// genHistory generates a history consistent at level (history.Generate), n
// transactions over k sessions, about 8 operations each.
func genHistory(level history.Level, n, k int, seed uint64) *history.History {
	return history.Generate(history.GenOptions{
		Sessions: k, Txns: n, OpsPerTxn: 8, Keys: max(n/4, 16), Level: level, Seed: seed,
	})
}

// TestGeneratedHistoriesAreConsistent checks the saturation against
// histories that are consistent by construction: every level, and mixed
// levels, at a few seeds and sizes.
func TestGeneratedHistoriesAreConsistent(t *testing.T) {
	for _, level := range []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal} {
		for seed := uint64(1); seed <= 20; seed++ {
			h := genHistory(level, 300, 1+int(seed%8), seed)
			if r := Check(h, Options{Level: level}); r.Verdict != Consistent {
				t.Fatalf("%s seed %d: %s\n%s", level, seed, r.Verdict, r.Explanation.Text(h))
			}
		}
	}
	for seed := uint64(1); seed <= 20; seed++ {
		h := history.Generate(history.GenOptions{Sessions: 6, Txns: 200, Mixed: true, AbortRate: 0.1, Seed: seed})
		for i := range h.Txns {
			h.Txns[i].Level = min(h.Txns[i].Level, history.Causal)
		}
		if r := Check(h, Options{}); r.Verdict != Consistent {
			t.Fatalf("mixed seed %d: %s\n%s", seed, r.Verdict, r.Explanation.Text(h))
		}
	}
}

// cpuSeconds returns the process's user and system CPU time, which unlike
// wall time does not count the time other processes of a shared machine
// take (the GC's concurrent work is included).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// BenchmarkSaturate checks generated histories of 10^4 and 10^5
// transactions (10^6 with -huge) at RC, RA and CC, 16 and 64 sessions, and
// reports the CPU time and the bytes allocated per check.
func BenchmarkSaturate(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if *benchHuge {
		sizes = append(sizes, 1_000_000)
	}
	for _, level := range []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal} {
		for _, n := range sizes {
			for _, k := range []int{16, 64} {
				b.Run(fmt.Sprintf("%s/n=%d/k=%d", level, n, k), func(b *testing.B) {
					h := genHistory(level, n, k, 7)
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					cpu := cpuSeconds()
					for b.Loop() {
						if r := Check(h, Options{Level: level}); r.Verdict != Consistent {
							b.Fatalf("%s", r.Verdict)
						}
					}
					b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
					runtime.ReadMemStats(&after)
					b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
				})
			}
		}
	}
}

// BenchmarkStrongestLevel finds the strongest level of generated histories
// with their recorded commit order (32 sessions, 8 operations a
// transaction), as fickle check does without --level: generated at SER
// (the recorded order witnesses every level) and at PC (the order fails at
// SI and SER, which the windows around its failures decide), 10^4 and 10^5
// transactions (10^6 with -huge):
//
//	go test ./oracle -run '^$' -bench StrongestLevel -benchtime 1x [-huge]
func BenchmarkStrongestLevel(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if *benchHuge {
		sizes = append(sizes, 1_000_000)
	}
	for _, level := range []history.Level{history.Serializable, history.Prefix} {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("gen=%s/n=%d", level, n), func(b *testing.B) {
				h := history.Generate(history.GenOptions{Sessions: 32, Txns: n, OpsPerTxn: 8, Keys: max(n/4, 16),
					Level: level, CommitOrder: true, Seed: 7})
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				cpu := cpuSeconds()
				var got history.Level
				for b.Loop() {
					var results []Result
					got, results = StrongestLevel(h, Options{MaxSteps: 10_000_000})
					if last := results[len(results)-1]; last.Verdict == Unknown {
						b.Fatalf("undecided at %s after %d steps", last.Level, last.Steps)
					}
					if got < level {
						b.Fatalf("strongest level %s, want at least %s", got, level)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
				b.ReportMetric(float64(got), "level")
			})
		}
	}
}
