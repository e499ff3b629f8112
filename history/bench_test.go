package history

import (
	"bytes"
	"flag"
	"fmt"
	"testing"
)

// large adds 10^6-transaction cases to the read benchmarks:
//
//	go test ./history -run '^$' -bench Read -benchmem -history.large
var large = flag.Bool("history.large", false, "also benchmark 10^6-transaction histories")

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
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				if _, err := ReadJSONL(bytes.NewReader(buf.Bytes()), "bench.jsonl"); err != nil {
					b.Fatal(err)
				}
			}
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
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				if _, err := ReadAWDIT(bytes.NewReader(buf.Bytes()), "bench.txt"); err != nil {
					b.Fatal(err)
				}
			}
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
