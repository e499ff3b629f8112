// Command genhist writes a random history that is consistent at a given
// level (history.Generate) in any format fickle exports, as the input of
// the checker benchmarks (bench/checkers.sh):
//
//	go run ./bench/genhist -n 1000000 -sessions 32 -level RC -format plume -o h.txt
//
// -shape awdit gives the shape of AWDIT's own generator (awdit generate,
// whose histories are causal): about five operations a transaction, four
// reads in five, one session per square root of the operations, a key per
// ten transactions.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/fickle-db/fickle/history"
)

func main() {
	n := flag.Int("n", 10_000, "number of transactions")
	sessions := flag.Int("sessions", 32, "number of sessions")
	ops := flag.Int("ops", 8, "operations per transaction")
	keys := flag.Int("keys", 0, "number of keys (default n/4)")
	level := flag.String("level", "CC", "the level the history is consistent at (RC, RA, CC, PC, SI, SER)")
	format := flag.String("format", "plume", "output format: fickle, awdit, plume, dbcop, dbcop-hist, elle")
	seed := flag.Uint64("seed", 1, "random seed")
	shape := flag.String("shape", "fickle", "fickle (the flags above) or awdit (AWDIT's generator's shape; -sessions, -ops and -keys ignored)")
	out := flag.String("o", "-", "output file (- for standard output)")
	flag.Parse()
	readRatio := 0.5
	switch *shape {
	case "fickle":
	case "awdit":
		*ops, readRatio = 5, 0.8
		*sessions = int(math.Ceil(math.Sqrt(float64(5 * *n))))
		*keys = max(*n/10, 16)
	default:
		fmt.Fprintf(os.Stderr, "genhist: unknown shape %q\n", *shape)
		os.Exit(2)
	}
	if err := run(*n, *sessions, *ops, *keys, readRatio, *level, *format, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genhist:", err)
		os.Exit(2)
	}
}

func run(n, sessions, ops, keys int, readRatio float64, levelName, formatName string, seed uint64, out string) error {
	level, err := history.ParseLevel(levelName)
	if err != nil {
		return err
	}
	f, err := history.ParseFormat(formatName)
	if err != nil {
		return err
	}
	if keys <= 0 {
		keys = max(n/4, 16)
	}
	h := history.Generate(history.GenOptions{
		Sessions: sessions, Txns: n, OpsPerTxn: ops, Keys: keys, ReadRatio: readRatio, Level: level, Seed: seed,
	})
	w := os.Stdout
	if out != "-" {
		if w, err = os.Create(out); err != nil {
			return err
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := history.Export(bw, h, f); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return w.Close()
}
