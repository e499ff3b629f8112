package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/fickle-db/fickle/stress"
)

func init() {
	commands["stress"] = command{
		summary: "run a concurrent workload against any PostgreSQL-wire database and check its isolation",
		run:     func(args []string) int { return stressMain(args, os.Stdout, os.Stderr) },
	}
}

// Exit statuses of fickle stress.
const (
	stressHolds     = 0 // the requested level held over a complete run
	stressViolation = 1 // the history violates the requested level
	stressFailed    = 2 // bad flags, no database, or a run that ended early
	stressUndecided = 3 // the checker ran out of --max-steps
)

func stressMain(args []string, stdout, stderr io.Writer) int {
	var cfg stress.Config
	var asJSON bool
	fs := flag.NewFlagSet("stress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DSN, "dsn", os.Getenv("DATABASE_URL"), "connect to `URL` (default $DATABASE_URL)")
	fs.IntVar(&cfg.Sessions, "sessions", stress.DefaultSessions, "run `N` concurrent sessions, one connection each")
	fs.IntVar(&cfg.Txns, "txns", 0, fmt.Sprintf("attempt `M` transactions in all, committed or aborted (default %d, or unbounded with --duration)", stress.DefaultTxns))
	fs.IntVar(&cfg.Objects, "objects", stress.DefaultObjects, "the table has `K` rows, the objects the transactions read and write")
	fs.StringVar(&cfg.Dist, "dist", "uniform", "how transactions pick objects: "+strings.Join(stress.Distributions, ", "))
	fs.StringVar(&cfg.Level, "level", "serializable", "every transaction's isolation `LEVEL`: read-committed, repeatable-read, serializable, or fickle's read-atomic, causal, prefix, snapshot")
	fs.DurationVar(&cfg.Duration, "duration", 0, "stop after `D` (with --txns: whichever comes first)")
	fs.StringVar(&cfg.Workload, "workload", "mt", "`W`: mt (mini-transactions), rw (read/write mix), append (list-append over arrays), cas (compare-and-set)")
	fs.StringVar(&cfg.HistoryPath, "history", "", "keep the client-side history in `FILE` (fickle's JSONL format)")
	fs.StringVar(&cfg.Table, "table", stress.DefaultTable, "create, and drop first, table `NAME`")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed `S` of the transactions' programs")
	fs.Int64Var(&cfg.MaxSteps, "max-steps", stress.DefaultMaxSteps, "bound the general checker's search to `N` steps (rw, append, and levels below SI)")
	fs.BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: fickle stress --dsn URL [flags]

Runs concurrent transactions against the database at URL (which it gives a
table of its own), records what each read and wrote with its start and end
times, and checks the history: mini-transactions and compare-and-sets with
linear-time checks of SER, SI, strict SER and linearizability, the others with
fickle check's checker. Nothing is retried: serialization failures are aborted
transactions. Exit status: 0 the level held, 1 a violation of the level, 2 bad
flags or a run that ended early (its history is still checked), 3 undecided.

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return stressHolds
		}
		return stressFailed
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fickle stress: unexpected argument %q\n", fs.Arg(0))
		return stressFailed
	}
	// The first interrupt ends the run (its history is still checked);
	// a second one kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	rep, err := stress.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "fickle stress: %v\n", err)
		return stressFailed
	}
	if asJSON {
		b, err := rep.JSON()
		if err != nil {
			fmt.Fprintf(stderr, "fickle stress: %v\n", err)
			return stressFailed
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprint(stdout, rep.Text())
	}
	return stressExit(rep)
}

// stressExit is the exit status for a report: the requested level's
// verdict first, then whether the run completed.
func stressExit(rep *stress.Report) int {
	c, ok := rep.Requested()
	switch {
	case ok && c.Verdict == stress.Violated:
		return stressViolation
	case rep.RunError != nil || rep.HistoryError != nil || !ok:
		return stressFailed
	case c.Verdict == stress.Undecided:
		return stressUndecided
	}
	return stressHolds
}
