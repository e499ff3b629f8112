package stress

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Report is the summary of a run: what ran, what the database answered,
// and which levels the history satisfies.
type Report struct {
	Workload string `json:"workload"`
	Level    string `json:"level"`
	Dist     string `json:"dist"`
	Sessions int    `json:"sessions"`
	Objects  int    `json:"objects"`
	Database string `json:"database"`
	// Committed and Aborted count the transactions that ended so (aborted:
	// by the server, or rolled back after the error that ended the run),
	// AbortCodes the aborts by SQLSTATE; Indeterminate those whose COMMIT
	// got no answer.
	Committed     int            `json:"committed"`
	Aborted       int            `json:"aborted"`
	AbortCodes    map[string]int `json:"abort_codes,omitempty"`
	Indeterminate int            `json:"indeterminate,omitempty"`
	Elapsed       time.Duration  `json:"elapsed_ns"`
	// Throughput is committed transactions per second.
	Throughput float64 `json:"throughput"`
	// RunError is what ended the run early, if anything, and
	// FailedSessions how many sessions it stopped.
	RunError       error `json:"-"`
	FailedSessions int   `json:"failed_sessions,omitempty"`
	// HistoryPath is where the history is (empty when it was temporary);
	// HistoryError says why it could not be read back.
	HistoryPath  string  `json:"history,omitempty"`
	HistoryError error   `json:"-"`
	Checks       []Check `json:"checks"`
}

func newReport(cfg Config, run *runner, elapsed time.Duration) *Report {
	run.mu.Lock()
	defer run.mu.Unlock()
	rep := &Report{Workload: cfg.Workload, Level: cfg.Level, Dist: cfg.Dist, Sessions: cfg.Sessions, Objects: cfg.Objects,
		Database: redact(cfg.DSN), Committed: run.mu.committed, Aborted: run.mu.aborted, AbortCodes: run.mu.codes,
		Indeterminate: run.mu.indeterminate, Elapsed: elapsed, RunError: run.mu.err, FailedSessions: run.mu.failed}
	if s := elapsed.Seconds(); s > 0 {
		rep.Throughput = float64(rep.Committed) / s
	}
	return rep
}

// Requested returns the check of the run's own level, or false when the
// history could not be checked.
func (rep *Report) Requested() (Check, bool) {
	for _, c := range rep.Checks {
		if c.Requested {
			return c, true
		}
	}
	return Check{}, false
}

// Text renders the report for people.
func (rep *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fickle stress: workload %s, %d sessions, %d objects (%s), level %s, %s\n",
		rep.Workload, rep.Sessions, rep.Objects, rep.Dist, rep.Level, rep.Database)
	fmt.Fprintf(&b, "transactions: %d committed, %d aborted%s", rep.Committed, rep.Aborted, counts(rep.AbortCodes, "SQLSTATE "))
	if rep.Indeterminate > 0 {
		fmt.Fprintf(&b, ", %d indeterminate (COMMIT unanswered)", rep.Indeterminate)
	}
	fmt.Fprintf(&b, "\nthroughput: %.0f committed transactions/s over %.1f s\n", rep.Throughput, rep.Elapsed.Seconds())
	if rep.RunError != nil {
		fmt.Fprintf(&b, "the run ended early: %v\n", rep.RunError)
		if rep.FailedSessions > 1 {
			fmt.Fprintf(&b, "  (%d sessions failed)\n", rep.FailedSessions)
		}
	}
	if rep.HistoryPath != "" {
		fmt.Fprintf(&b, "history: %s\n", rep.HistoryPath)
	}
	if rep.HistoryError != nil {
		fmt.Fprintf(&b, "the history could not be read back: %v\n", rep.HistoryError)
		return b.String()
	}
	b.WriteString("checks:\n")
	for _, c := range rep.Checks {
		name := c.Name
		if c.Requested {
			name += " (requested)"
		}
		fmt.Fprintf(&b, "  %-24s %-10s %s", name, c.Verdict, c.Method)
		if c.Elapsed > 0 {
			fmt.Fprintf(&b, ", %.2f s", c.Elapsed.Seconds())
		}
		if c.Found > 0 {
			fmt.Fprintf(&b, "; %d violation%s%s", c.Found, plural(c.Found), counts(c.Anomalies, ""))
		}
		if c.Why != "" {
			fmt.Fprintf(&b, "; %s", c.Why)
		}
		b.WriteString("\n")
	}
	var held, failed []string
	for _, c := range rep.Checks {
		switch c.Verdict {
		case Holds:
			held = append(held, c.Name)
		case Violated:
			failed = append(failed, c.Name)
		}
	}
	fmt.Fprintf(&b, "levels that held: %s; violated: %s\n", list(held), list(failed))
	if c, ok := rep.shown(); ok {
		shown := c.Violations[:min(len(c.Violations), maxShown)]
		fmt.Fprintf(&b, "\n%s: %d of %d violation%s (--json lists them all)\n", c.Name, len(shown), c.Found, plural(c.Found))
		for _, v := range shown {
			b.WriteString(indent(v))
		}
	}
	return b.String()
}

// shown returns the check whose violations the text explains: the
// requested one when it failed, else the first that failed (the others
// mostly repeat its violations).
func (rep *Report) shown() (Check, bool) {
	if c, ok := rep.Requested(); ok && len(c.Violations) > 0 {
		return c, true
	}
	for _, c := range rep.Checks {
		if len(c.Violations) > 0 {
			return c, true
		}
	}
	return Check{}, false
}

// JSON renders the report as one JSON object.
func (rep *Report) JSON() ([]byte, error) {
	type alias Report
	out := struct {
		*alias
		RunError     string `json:"run_error,omitempty"`
		HistoryError string `json:"history_error,omitempty"`
	}{alias: (*alias)(rep)}
	if rep.RunError != nil {
		out.RunError = rep.RunError.Error()
	}
	if rep.HistoryError != nil {
		out.HistoryError = rep.HistoryError.Error()
	}
	return json.Marshal(out)
}

// counts renders ": a ×3, b ×1" in decreasing count, or "".
func counts(m map[string]int, prefix string) string {
	if len(m) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(names, func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s%s ×%d", prefix, n, m[n])
	}
	return ": " + strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n") + "\n"
}
