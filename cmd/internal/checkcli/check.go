// Package checkcli is the command that checks histories, shared by `fickle
// check` and the fickle-check binary: flags, loading in any format, the
// verdict at a level or at each transaction's own, explanations, exit codes.
// It imports only history and oracle (and internal/hugepages, which needs
// only the standard library), so that fickle-check stays free of the server
// and of cgo.
package checkcli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/hugepages"
	"github.com/fickle-db/fickle/oracle"
)

// Exit codes of a check.
const (
	Consistent = 0
	Violation  = 1
	BadInput   = 2
	Undecided  = 3
)

// defaultMaxSteps bounds the exponential PC/SI/SER search by default, so
// that a check never hangs: about half a minute of search.
const defaultMaxSteps = 10_000_000

// checkReport is one history's result, as printed by --json (one object a
// line).
type checkReport struct {
	File        string          `json:"file"`
	Level       string          `json:"level"`               // the level checked, or "own" for each transaction's own
	Verdict     string          `json:"verdict"`             // consistent, violation, unknown or error
	Strongest   string          `json:"strongest,omitempty"` // without --level: the strongest level that holds ("none")
	Error       string          `json:"error,omitempty"`
	Explanation json.RawMessage `json:"explanation,omitempty"`
	// Next, without --level, explains why the level above the strongest
	// does not hold.
	Next json.RawMessage `json:"next,omitempty"`
	// Note says, for a format whose checkers define read committed
	// otherwise, that the verdict at read committed differs under theirs.
	Note string `json:"note,omitempty"`
	Text string `json:"-"`
}

// Run runs a check with command-line args, as the program prog (the name
// its usage and errors give: "fickle check" or "fickle-check"), writing
// verdicts to stdout and errors to stderr, and returns the exit code.
func Run(prog string, args []string, stdout, stderr io.Writer) int {
	lowerGCTarget()
	adviseHugePages()
	fs := flag.NewFlagSet(prog, flag.ContinueOnError)
	fs.SetOutput(stderr)
	level := fs.String("level", "", "check every transaction at `LEVEL` (RC, RA, CC, PC, SI, SER or PostgreSQL's names; RC-BE or read-committed-be for Biswas and Enea's read committed, which AWDIT, dbcop and Plume check); default: report the strongest level that holds")
	format := fs.String("format", "auto", "input `FORMAT`: "+strings.Join(FormatNames(), ", ")+", or auto (by file name)")
	asJSON := fs.Bool("json", false, "print one JSON object per history")
	dotFile := fs.String("dot", "", "write the first violation's cycle to `FILE` for Graphviz")
	realtime := fs.Bool("realtime", false, "add real time: a transaction sees every transaction that committed before it began")
	maxSteps := fs.Int64("max-steps", defaultMaxSteps, "bound the PC/SI/SER search to `N` steps (0: no bound); past it the verdict is unknown, exit 3")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags] FILE...\n\n"+
			"Checks each history and explains the first violation as a cycle.\n"+
			"Exit status: 0 consistent, 1 violation, 2 unusable input, 3 undecided.\n\nflags:\n", prog)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return BadInput
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return BadInput
	}
	opts := oracle.Options{RealTime: *realtime, MaxSteps: *maxSteps}
	if *level != "" {
		l, d, err := oracle.ParseRCLevel(*level)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
			return BadInput
		}
		opts.Level, opts.RC = l, d
	}
	exit := Consistent
	dotWritten := false
	for _, path := range fs.Args() {
		h, f, rep := loadReport(path, *format)
		code := BadInput
		if h != nil {
			var expl *oracle.Explanation
			rep, expl, code = checkOne(path, h, opts)
			if rep.Note = readCommittedNote(h, f, opts, rep); rep.Note != "" {
				rep.Text += "note: " + rep.Note + "\n"
			}
			if expl != nil && *dotFile != "" && !dotWritten {
				dotWritten = true
				if err := os.WriteFile(*dotFile, []byte(expl.DOT(h)), 0o644); err != nil {
					fmt.Fprintf(stderr, "%s: %v\n", prog, err)
					code = BadInput
				}
			}
		}
		printReport(rep, *asJSON, prog, stdout, stderr)
		exit = worse(exit, code)
	}
	return exit
}

// worse orders exit codes: bad input over undecided over violation over
// consistent.
func worse(a, b int) int {
	rank := map[int]int{Consistent: 0, Violation: 1, Undecided: 2, BadInput: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// LoadHistory reads path in format (a name of history.Formats, or auto to
// detect it from the file) and returns the history and its format. Errors
// name the file (and the line, when the importer knows it).
func LoadHistory(path, format string) (*history.History, history.Format, error) {
	f, err := history.ParseFormat(format)
	if err == nil && f == history.FormatAuto {
		f, err = history.Detect(path)
	}
	var h *history.History
	if err == nil {
		h, err = history.Import(path, f)
	}
	if err != nil && !strings.Contains(err.Error(), path) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return h, f, err
}

// loadReport is LoadHistory with its failure as a report.
func loadReport(path, format string) (*history.History, history.Format, checkReport) {
	h, f, err := LoadHistory(path, format)
	rep := checkReport{File: path, Verdict: "error"}
	if err != nil {
		rep.Error = err.Error()
	}
	return h, f, rep
}

// lowerGCTarget makes the collector run when the heap has grown by half
// since the last collection instead of Go's default of doubling, unless
// GOGC says otherwise: a check keeps its whole history live and allocates
// while it reads, so the default lets the peak reach twice the history. At
// half, the peak is about a tenth lower for about the same processor time
// (docs/benchmarks.md, the checkers against AWDIT).
func lowerGCTarget() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// adviseHugePages asks once for transparent huge pages for the heap
// (internal/hugepages): reading a big history is mostly first touches of
// fresh memory and TLB misses, a third of the processor time of a check of
// 300,000 transactions.
var adviseHugePages = sync.OnceFunc(func() { hugepages.Advise(1 << 30) })

// readCommittedNote says when a history in a format whose checkers hold
// read committed to Biswas and Enea's definition (AWDIT, dbcop, Plume)
// fails fickle's read committed but holds under theirs, so that a user
// comparing verdicts knows which definition each tool applied.
func readCommittedNote(h *history.History, f history.Format, opts oracle.Options, rep checkReport) string {
	tools := history.ReadCommittedBETools(f)
	failedRC := rep.Verdict == "violation" && opts.Level == history.ReadCommitted || rep.Strongest == "none"
	if tools == "" || opts.RC != oracle.RCSessionOrder || !failedRC {
		return ""
	}
	be := oracle.Check(h, oracle.Options{Level: history.ReadCommitted, RC: oracle.RCBiswasEnea, RealTime: opts.RealTime, MaxSteps: opts.MaxSteps})
	if be.Verdict != oracle.Consistent {
		return ""
	}
	return fmt.Sprintf("the history satisfies read committed as Biswas and Enea define it, the definition of %s "+
		"(fickle check --level read-committed-be); fickle's read committed (paper 000) also makes a session's earlier transactions visible to its reads", tools)
}

// checkOne checks h: at opts.Level when set, else at each transaction's own
// level (when the history records levels) together with the strongest
// uniform level that holds.
func checkOne(path string, h *history.History, opts oracle.Options) (checkReport, *oracle.Explanation, int) {
	rep := checkReport{File: path, Level: "own"}
	pb := newProgressBar(path)
	opts.Progress = pb.update
	defer pb.finish()
	var res oracle.Result
	var text strings.Builder
	if opts.Level != history.LevelUnknown {
		rep.Level = oracle.LevelName(opts.Level, opts.RC)
		res = checkLevel(h, opts)
		fmt.Fprintf(&text, "%s: %s at %s\n", path, res.Verdict, rep.Level)
		if res.Verdict == oracle.Unknown {
			text.WriteString(undecided(res, opts.MaxSteps))
		}
	} else {
		strongest, results := oracle.StrongestLevel(h, opts)
		rep.Strongest = "none"
		if strongest != history.LevelUnknown {
			rep.Strongest = strongest.String()
		}
		last := results[len(results)-1]
		if hasLevels(h) {
			res = oracle.Check(h, opts)
			fmt.Fprintf(&text, "%s: %s at each transaction's level; strongest level that holds: %s\n", path, res.Verdict, rep.Strongest)
		} else {
			// No recorded levels: the verdict is whether any level holds.
			res = last
			if strongest != history.LevelUnknown {
				res = oracle.Result{Verdict: oracle.Consistent, Level: strongest}
			}
			fmt.Fprintf(&text, "%s: strongest level that holds: %s\n", path, rep.Strongest)
		}
		if last.Explanation != nil {
			if j, err := last.Explanation.JSON(h); err == nil {
				rep.Next = j
			}
		}
		if res.Explanation == nil && last.Explanation != nil {
			// Consistent at its own levels, but say why it is no stronger.
			fmt.Fprintf(&text, "not %s:\n%s", last.Level, indent(last.Explanation.Text(h)))
		}
		if last.Verdict == oracle.Unknown {
			text.WriteString(undecided(last, opts.MaxSteps))
		}
	}
	rep.Verdict = res.Verdict.String()
	if res.Explanation != nil {
		text.WriteString(indent(res.Explanation.Text(h)))
		if j, err := res.Explanation.JSON(h); err == nil {
			rep.Explanation = j
		}
	}
	rep.Text = text.String()
	switch res.Verdict {
	case oracle.Consistent:
		return rep, nil, Consistent
	case oracle.Violation:
		return rep, res.Explanation, Violation
	}
	return rep, nil, Undecided
}

// undecided says which level the search could not decide within maxSteps
// and which --max-steps to give it.
func undecided(r oracle.Result, maxSteps int64) string {
	if maxSteps <= 0 {
		return fmt.Sprintf("%s: undecided after %d search steps\n", r.Level, r.Steps)
	}
	return fmt.Sprintf("%s: undecided: the search for a commit order used its budget of %d steps; "+
		"run again with --max-steps %d for a budget ten times larger, or --max-steps 0 for none\n", r.Level, maxSteps, 10*maxSteps)
}

// hasLevels reports whether any transaction of h records its level.
func hasLevels(h *history.History) bool {
	for i := 1; i < len(h.Txns); i++ {
		if h.Txns[i].Level != history.LevelUnknown {
			return true
		}
	}
	return false
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "  " + strings.Join(lines, "\n  ") + "\n"
}

func printReport(rep checkReport, asJSON bool, prog string, stdout, stderr io.Writer) {
	if asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintln(stdout, string(b))
		return
	}
	if rep.Error != "" {
		fmt.Fprintf(stderr, "%s: %s\n", prog, rep.Error)
		return
	}
	fmt.Fprint(stdout, rep.Text)
}

// FormatNames lists the formats a check reads, for flags' help.
func FormatNames() []string {
	names := make([]string, len(history.Formats))
	for i, f := range history.Formats {
		names[i] = string(f)
	}
	return names
}

// progressBar draws the progress of a check on stderr when stderr is a
// terminal and the check has run for more than a second.
type progressBar struct {
	name    string
	enabled bool
	start   time.Time
	last    time.Time
	drawn   bool
}

func newProgressBar(name string) *progressBar {
	st, err := os.Stderr.Stat()
	return &progressBar{name: name, enabled: err == nil && st.Mode()&os.ModeCharDevice != 0, start: time.Now()}
}

func (p *progressBar) update(done, total int64) {
	if !p.enabled || total <= 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	fill := int(done * width / total)
	fmt.Fprintf(os.Stderr, "\r%s [%s%s] %3d%%", p.name, strings.Repeat("#", fill), strings.Repeat(".", width-fill), done*100/total)
	p.drawn = true
}

func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprintf(os.Stderr, "\r%s\r", strings.Repeat(" ", len(p.name)+40))
	}
}
