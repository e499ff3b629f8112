package oracle

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// genSerialMiniHistory builds a mini-transaction history of n transactions
// over k sessions and keys keys, executed serially (so strictly
// serializable), with real-time intervals that overlap their neighbours'
// and agree with the serial order. The transaction shapes are those of
// fickle stress --workload mt.
func genSerialMiniHistory(n, k, keys int, seed uint64) *history.History {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := history.NewBuilder()
	sess := make([]history.SessionID, k)
	for i := range sess {
		sess[i] = b.Session("S" + strconv.Itoa(i+1))
	}
	ids := make([]history.KeyID, keys)
	names := make([]string, keys)
	for i := range ids {
		names[i] = strconv.Itoa(i)
		ids[i] = b.Key("t", names[i])
		b.InitWrite(ids[i], 0)
	}
	latest := make([]history.TxnID, keys)
	for i := 0; i < n; i++ {
		tb := b.Txn(sess[i%k], history.Serializable).Table("t")
		id := tb.ID()
		x, y := rng.IntN(keys), rng.IntN(keys)
		read := func(x int) { tb.ReadValue(names[x], latest[x], int64(latest[x])) }
		var writes []int
		switch rng.IntN(5) {
		case 0:
			read(x)
		case 1:
			read(x)
			read(y)
		case 2:
			read(x)
			writes = []int{x}
		case 3:
			read(x)
			read(y)
			writes = []int{x}
		case 4:
			read(x)
			writes = []int{x}
			if y != x {
				read(y)
				writes = append(writes, y)
			}
		}
		for _, w := range writes {
			tb.WriteValue(names[w], int64(id))
			latest[w] = id
		}
		tb.Times(int64(i)*10+1, int64(i)*10+26)
		tb.Commit()
	}
	return b.MustHistory()
}

// TestSerialMiniHistoriesHold: serial executions pass every check.
func TestSerialMiniHistoriesHold(t *testing.T) {
	h := genSerialMiniHistory(5000, 8, 50, 3)
	for _, o := range []Options{{Level: history.Snapshot}, {Level: history.Serializable}, {Level: history.Serializable, RealTime: true}} {
		r, err := CheckMini(h, o)
		if err != nil || r.Verdict != Consistent {
			t.Fatalf("%s real time %v: %v %v %v", o.Level, o.RealTime, r.Verdict, err, r.Violations)
		}
	}
}

// BenchmarkCheckMini measures the mini-transaction checks on serial
// histories of 10^5 transactions (10^6 with -huge):
//
//	go test ./oracle -run '^$' -bench CheckMini -benchtime 3x -huge
func BenchmarkCheckMini(b *testing.B) {
	sizes := []int{100_000}
	if *benchHuge {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		h := genSerialMiniHistory(n, 16, n/10, 1)
		for _, c := range []struct {
			name string
			opts Options
		}{
			{"SER", Options{Level: history.Serializable}},
			{"SI", Options{Level: history.Snapshot}},
			{"strict-SER", Options{Level: history.Serializable, RealTime: true}},
		} {
			b.Run(fmt.Sprintf("%s/txns=%d", c.name, n), func(b *testing.B) {
				cpu := cpuSeconds()
				for b.Loop() {
					r, err := CheckMini(h, c.opts)
					if err != nil || r.Verdict != Consistent {
						b.Fatalf("%v %v", r.Verdict, err)
					}
				}
				b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
			})
		}
	}
}
