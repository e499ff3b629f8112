package stress

import (
	"errors"
	"fmt"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// Check verdicts.
const (
	Holds      = "holds"
	Violated   = "violated"
	Undecided  = "undecided"
	NotChecked = "not checked"
)

// maxShown bounds the violations the text report explains.
const maxShown = 3

// Check is one level checked on the run's history.
type Check struct {
	// Name is the level: RC, RA, CC, PC, SI, SER, strict SER or
	// linearizable.
	Name string `json:"name"`
	// Requested marks the run's own level.
	Requested bool `json:"requested,omitempty"`
	// Method is "mini-transaction check" (oracle.CheckMini and
	// CheckLinearizable, linear time) or "general checker" (oracle.Check).
	Method  string `json:"method"`
	Verdict string `json:"verdict"`
	// Why says why a level is undecided or was not checked.
	Why string `json:"why,omitempty"`
	// Found counts the violations; Anomalies counts them by name.
	Found     int            `json:"found,omitempty"`
	Anomalies map[string]int `json:"anomalies,omitempty"`
	// Violations explains each violation (the first 1000), a cycle in
	// the user's terms as fickle check prints it; the text report shows
	// the first few.
	Violations []string `json:"violations,omitempty"`
	// Elapsed is the check's time; levels decided together (the general
	// checker's, level by level) give it with the last of them.
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
}

// check reads the history at path back and checks it: mini-transaction
// and compare-and-set histories with the linear-time checks (SER, SI and
// strict SER; linearizability for cas) and, below SI, the requested level
// with the general checker; the other workloads with the general checker,
// every level up to the strongest that holds.
func (rep *Report) check(path string, cfg Config) {
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		rep.HistoryError = err
		return
	}
	requested, _ := history.ParseLevel(cfg.Level)
	if cfg.Workload == "mt" || cfg.Workload == "cas" {
		mini := []struct {
			name  string
			level history.Level
			rt    bool
		}{{"SER", history.Serializable, false}, {"SI", history.Snapshot, false}, {"strict SER", history.Serializable, true}}
		if cfg.Workload == "cas" {
			rep.add(h, "linearizable", false, func() (oracle.MiniResult, error) { return oracle.CheckLinearizable(h) })
		}
		var notMini error
		for _, m := range mini {
			err := rep.add(h, m.name, m.level == requested && !m.rt, func() (oracle.MiniResult, error) {
				return oracle.CheckMini(h, oracle.Options{Level: m.level, RealTime: m.rt})
			})
			notMini = errors.Join(notMini, err)
		}
		if notMini != nil || requested < history.Snapshot {
			rep.general(h, requested, cfg.MaxSteps)
		}
		return
	}
	rep.strongest(h, requested, cfg.MaxSteps)
}

// add runs one mini-transaction check and adds its result; a history
// outside the check's class is reported as not checked, and returned.
func (rep *Report) add(h *history.History, name string, requested bool, run func() (oracle.MiniResult, error)) error {
	began := time.Now()
	res, err := run()
	c := Check{Name: name, Requested: requested, Method: "mini-transaction check", Elapsed: time.Since(began)}
	if err != nil {
		// The general checker decides the requested level instead.
		c.Verdict, c.Why, c.Requested = NotChecked, err.Error(), false
		rep.Checks = append(rep.Checks, c)
		return err
	}
	c.Verdict, c.Found, c.Anomalies = Holds, res.Found, res.Anomalies
	if res.Verdict == oracle.Violation {
		c.Verdict = Violated
		for _, v := range res.Violations {
			c.Violations = append(c.Violations, v.Text(h))
		}
	}
	if res.Skipped != "" {
		c.Why = "cycle search skipped: " + res.Skipped
	}
	rep.Checks = append(rep.Checks, c)
	return nil
}

// general checks the requested level with oracle.Check.
func (rep *Report) general(h *history.History, level history.Level, maxSteps int64) {
	began := time.Now()
	res := oracle.Check(h, oracle.Options{Level: level, MaxSteps: maxSteps})
	rep.Checks = append(rep.Checks, fromResult(h, res, true, time.Since(began), maxSteps))
}

// strongest checks every level up to the strongest that holds with
// oracle.StrongestLevel; the requested level is the one with its name, or
// is decided by the levels checked (below a level that holds, above one
// that fails).
func (rep *Report) strongest(h *history.History, requested history.Level, maxSteps int64) {
	began := time.Now()
	_, results := oracle.StrongestLevel(h, oracle.Options{MaxSteps: maxSteps})
	elapsed := time.Since(began)
	found := false
	for i, r := range results {
		c := fromResult(h, r, r.Level == requested, 0, maxSteps)
		if i == len(results)-1 {
			c.Elapsed = elapsed // the levels were decided together
		}
		found = found || c.Requested
		rep.Checks = append(rep.Checks, c)
	}
	if found || len(results) == 0 {
		return
	}
	last := results[len(results)-1]
	c := Check{Name: requested.String(), Requested: true, Method: "general checker", Verdict: Holds,
		Why: fmt.Sprintf("implied: %s holds", last.Level)}
	switch last.Verdict {
	case oracle.Violation:
		c.Verdict, c.Why = Violated, fmt.Sprintf("implied: %s does not hold", last.Level)
	case oracle.Unknown:
		c.Verdict, c.Why = Undecided, fmt.Sprintf("%s is undecided", last.Level)
	}
	rep.Checks = append(rep.Checks, c)
}

// fromResult turns an oracle.Result into a Check.
func fromResult(h *history.History, r oracle.Result, requested bool, elapsed time.Duration, maxSteps int64) Check {
	c := Check{Name: r.Level.String(), Requested: requested, Method: "general checker", Elapsed: elapsed}
	switch r.Verdict {
	case oracle.Consistent:
		c.Verdict = Holds
	case oracle.Violation:
		c.Verdict, c.Found = Violated, 1
		if r.Explanation != nil {
			c.Anomalies = map[string]int{r.Explanation.Anomaly: 1}
			c.Violations = []string{r.Explanation.Text(h)}
		}
	default:
		c.Verdict = Undecided
		c.Why = fmt.Sprintf("the search ran out of its %d steps (--max-steps)", maxSteps)
	}
	return c
}
