package history

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// large adds 10^6-transaction cases to the read benchmarks:
//
//	go test ./history -run '^$' -bench Read -benchmem -history.large
var large = flag.Bool("history.large", false, "also benchmark 10^6-transaction histories")

// benchFiles names recorded histories for BenchmarkReadFiles, for example a
// pgbench history in JSONL beside its plume export:
//
//	go test ./history -run '^$' -bench ReadFiles -benchmem -history.files a.jsonl,a.plume
var benchFiles = flag.String("history.files", "", "comma-separated history `FILES` to benchmark reading (format by name)")

func benchSizes() []int {
	if *large {
		return []int{10_000, 100_000, 1_000_000}
	}
	return []int{10_000, 100_000}
}

func benchHistory(n int) *History {
	return Generate(GenOptions{Txns: n, Sessions: 32, OpsPerTxn: 8, Keys: n / 4, Seed: 1, CommitOrder: true})
}

func BenchmarkReadJSONL(b *testing.B) {
	for _, n := range benchSizes() {
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, benchHistory(n), Header{}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("txns=%d", n), func(b *testing.B) {
			benchRead(b, buf.Bytes(), ReadJSONL)
		})
	}
}

func BenchmarkReadAWDIT(b *testing.B) {
	for _, n := range benchSizes() {
		var buf bytes.Buffer
		if err := WriteAWDIT(&buf, benchHistory(n)); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("txns=%d", n), func(b *testing.B) {
			benchRead(b, buf.Bytes(), ReadAWDIT)
		})
	}
}

func BenchmarkReadFiles(b *testing.B) {
	if *benchFiles == "" {
		b.Skip("no -history.files given")
	}
	for _, path := range strings.Split(*benchFiles, ",") {
		f, err := Detect(path)
		if err != nil {
			b.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			benchRead(b, data, func(r io.Reader, name string) (*History, error) { return Read(r, name, f) })
		})
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("txns=%d", n), func(b *testing.B) {
			for b.Loop() {
				benchHistory(n)
			}
		})
	}
}

// benchRead times read over data and reports, besides the usual figures,
// cpu-s/op (user and system CPU time of the process, which on a shared
// machine says more than wall time) and live-MB: the heap the history holds
// once read (after a collection).
func benchRead(b *testing.B, data []byte, read func(io.Reader, string) (*History, error)) {
	b.SetBytes(int64(len(data)))
	var h *History
	start := cpuTime()
	for b.Loop() {
		var err error
		if h, err = read(bytes.NewReader(data), "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
	h = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h, _ = read(bytes.NewReader(data), "bench")
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "live-MB")
	runtime.KeepAlive(h)
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkReadPlume(b *testing.B) {
	for _, n := range benchSizes() {
		var buf bytes.Buffer
		if err := WritePlume(&buf, benchHistory(n)); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("txns=%d", n), func(b *testing.B) {
			benchRead(b, buf.Bytes(), ReadPlume)
		})
	}
}
