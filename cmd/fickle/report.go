package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fickle-db/fickle/cmd/internal/checkcli"
	"github.com/fickle-db/fickle/explore"
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/historyview"
	"github.com/fickle-db/fickle/oracle"
)

func init() {
	commands["report"] = command{
		summary: "render a history as a self-contained HTML page",
		run:     func(args []string) int { return reportMain(args, os.Stdout, os.Stderr) },
	}
}

// reportMain runs fickle report HISTORY -o FILE.html: exit 0 when the page
// is written, 2 on bad input, 1 when it cannot be written.
func reportMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "report.html", "write the page to `FILE`")
	format := fs.String("format", "auto", "input `FORMAT`: "+strings.Join(checkcli.FormatNames(), ", ")+", or auto (by file name)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: fickle report [flags] HISTORY

Renders HISTORY as one HTML page that needs no network: sessions as lanes,
transactions on them, write-read edges, the reads fickle served stale, and the
checker's dependency cycle (a violation of the transactions' own levels, or
else the anomaly the history forms at SERIALIZABLE).

flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "fickle report: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() != 1 {
		return bad("want one history file, got %d arguments", fs.NArg())
	}
	path := fs.Arg(0)
	h, _, err := checkcli.LoadHistory(path, *format)
	if err != nil {
		return bad("%v", err)
	}
	opts := historyview.Options{Title: filepath.Base(path), SessionNames: explore.SessionNames(h, path)}
	if res := oracle.Check(h, oracle.Options{MaxSteps: 50_000_000}); res.Verdict == oracle.Violation {
		opts.Cycle, opts.CycleNote = res.Explanation, "the history violates its transactions' own levels"
	} else if res := oracle.Check(h, oracle.Options{Level: history.Serializable, MaxSteps: 50_000_000}); res.Verdict == oracle.Violation {
		opts.Cycle, opts.CycleNote = res.Explanation, "allowed by the transactions' own levels; SERIALIZABLE would forbid it"
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintf(stderr, "fickle report: %v\n", err)
		return 1
	}
	if err := historyview.Render(f, h, opts); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "fickle report: %v\n", err)
		return 1
	}
	if err := f.Close(); err != nil {
		fmt.Fprintf(stderr, "fickle report: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %d sessions, %d transactions\n", *out, len(h.Sessions), len(h.Txns)-1)
	return 0
}
