package explore

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// Run is one run of the command against a fresh server.
type Run struct {
	// Number is the run's number, from 1; Seed its seed (RunSeed).
	Number int    `json:"run"`
	Seed   uint64 `json:"seed"`
	// ExitCode is the command's exit status (-1 when it was killed or did
	// not start); TimedOut says it ran out of time.
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// StartError says why the command could not start.
	StartError string `json:"start_error,omitempty"`
	// Output is the tail of the command's output.
	Output string `json:"-"`
	// Connections are the application names of the command's
	// connections, in connection order (connection i+1's at i).
	Connections []string `json:"connections"`
	// History and Schedule are the files the run left (removed for a
	// passing run unless asked to keep them).
	History  string `json:"history"`
	Schedule string `json:"schedule"`
	// Violation is set when --check found the history violating the
	// levels: a bug in fickle.
	Violation *oracle.Result `json:"-"`
	// Divergence is set when a replay left its recording.
	Divergence *Divergence `json:"divergence,omitempty"`
	// ServerError is a failure of the server itself (its history could not
	// be written, it did not shut down).
	ServerError string `json:"server_error,omitempty"`
	// memory is the history as the store kept it (exhaustive runs): its
	// transaction ids are the ones the read choices name.
	memory *history.History
}

// Failed reports whether the run found something: the command failed or
// timed out, or the history violates the levels.
func (r *Run) Failed() bool {
	return r.ExitCode != 0 || r.TimedOut || r.Violation != nil
}

// Status says in a few words how the run ended.
func (r *Run) Status() string {
	switch {
	case r.Violation != nil:
		return fmt.Sprintf("history violates %s (%s): a bug in fickle", r.Violation.Explanation.Level, r.Violation.Explanation.Anomaly)
	case r.TimedOut:
		return "timed out"
	case r.StartError != "":
		return "could not start: " + r.StartError
	case r.ExitCode != 0:
		return fmt.Sprintf("exit status %d", r.ExitCode)
	}
	return "passed"
}

// runSpec is what one run does: the run's identity, where its files go,
// and for a replay the recording it follows.
type runSpec struct {
	number      int
	seed        uint64
	historyPath string
	replay      *history.History
	script      []Step
	// observe, when set, sees every read's choice (exhaustive mode); the
	// run then also keeps its history in memory (Run.memory).
	observe func(isolation.ReadChoice)
}

// schedulePath is the schedule file beside a history file.
func schedulePath(historyPath string) string {
	return strings.TrimSuffix(historyPath, ".jsonl") + ".schedule.jsonl"
}

// execute runs the command once against a fresh server.
func execute(o *Options, spec runSpec) *Run {
	r := &Run{Number: spec.number, Seed: spec.seed, History: spec.historyPath, Schedule: schedulePath(spec.historyPath)}
	in, err := startServer(o.Server, spec.seed, spec.historyPath, spec)
	if err != nil {
		r.ExitCode, r.ServerError = -1, err.Error()
		return r
	}
	res := runCommand(o.Command, in.env(spec.seed), o.Timeout)
	steps, div, apps, err := in.stop()
	r.ExitCode, r.TimedOut, r.Output = res.ExitCode, res.TimedOut, string(res.Output)
	if res.Err != nil {
		r.StartError = res.Err.Error()
	}
	r.Connections, r.Divergence = apps, div
	if spec.observe != nil {
		r.memory = in.store.History()
	}
	if err != nil {
		r.ServerError = err.Error()
	}
	if err := writeSchedule(r.Schedule, steps); err != nil && r.ServerError == "" {
		r.ServerError = err.Error()
	}
	if o.Check && r.ServerError == "" {
		r.Violation = checkHistory(r.History, o.Server)
	}
	return r
}

// checkHistory checks a run's history at each transaction's level; it
// returns the result when the history violates them.
func checkHistory(path string, cfg ServerConfig) *oracle.Result {
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		return nil
	}
	res := oracle.Check(h, oracle.Options{RealTime: cfg.RealTime || cfg.Postgres, MaxSteps: checkBudget})
	if res.Verdict != oracle.Violation {
		return nil
	}
	return &res
}

// checkBudget bounds the oracle's searches on a run's history; the
// server's recorded commit order normally makes the check linear.
const checkBudget = 50_000_000

// scheduleHeader is the first line of a schedule file.
type scheduleHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

const scheduleFormat = "fickle-schedule"

// writeSchedule writes a run's steps, one JSON object a line after the
// header.
func writeSchedule(path string, steps []Step) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(scheduleHeader{Format: scheduleFormat, Version: 1}); err != nil {
		f.Close()
		return err
	}
	for _, st := range steps {
		if err := enc.Encode(st); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readSchedule reads a schedule file; a missing file is no schedule.
func readSchedule(path string) ([]Step, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var hdr scheduleHeader
	if !sc.Scan() || json.Unmarshal(sc.Bytes(), &hdr) != nil || hdr.Format != scheduleFormat {
		return nil, fmt.Errorf("%s: not a fickle schedule", path)
	}
	if hdr.Version != 1 {
		return nil, fmt.Errorf("%s: schedule version %d is newer than this fickle reads", path, hdr.Version)
	}
	steps := []Step{}
	for line := 2; sc.Scan(); line++ {
		var st Step
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		steps = append(steps, st)
	}
	return steps, sc.Err()
}

// removeFiles deletes a passing run's files.
func (r *Run) removeFiles() {
	os.Remove(r.History)
	os.Remove(r.Schedule)
}

// runFileName is the history file of run n in dir.
func runFileName(dir string, n int, suffix string) string {
	return filepath.Join(dir, fmt.Sprintf("run-%06d%s.jsonl", n, suffix))
}
