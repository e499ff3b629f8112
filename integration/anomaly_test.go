package integration

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// anomalyRatesOut, when set, makes TestAnomalyTableThroughSQL write the
// rates it measured as a Markdown table to that file:
//
//	go test ./integration -run AnomalyTable -anomaly-rates ../docs/anomaly-rates.md
var anomalyRatesOut = flag.String("anomaly-rates", "", "write the measured anomaly rates (Markdown) to this `file`")

// Seeds per level in TestAnomalyTableThroughSQL: a level that allows the
// anomaly must produce it within allowedSeeds; one that forbids it must not
// produce it in forbiddenSeeds (forbiddenSeedsShort with -short).
const (
	allowedSeeds        = 50
	forbiddenSeeds      = 200
	forbiddenSeedsShort = 50
)

// anomalyScript is a scenario of testdata/anomalies: the script, the
// levels that allow the anomaly, and the outcomes that mean it happened.
type anomalyScript struct {
	name    string
	sc      *script
	allowed []history.Level
	want    map[string]string
	// gaps names allowed levels at which the engine is known not to reach
	// the anomaly within the seeds (a "gap LEVEL why" line): the level's
	// subtest is skipped with that reason when no seed produced it, and
	// fails as usual if the gap line is stale.
	gaps map[history.Level]string
	// staleWrites names levels run with isolation.Config.StaleWrites (a
	// "stale-writes LEVELS" line): the anomaly needs a write that computes
	// on the version its statement read, which only the pure axioms of
	// --stale-writes allow there (an UPDATE otherwise re-reads the row's
	// latest version under its lock, which those levels cannot explain
	// after a stale read, and fails with 40001).
	staleWrites []history.Level
}

func loadAnomalyScripts(t *testing.T) []anomalyScript {
	t.Helper()
	files, err := filepath.Glob("testdata/anomalies/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in testdata/anomalies: %v", err)
	}
	var out []anomalyScript
	for _, f := range files {
		sc, err := parseScript(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.extra["allowed"]) != 1 || len(sc.extra["anomaly"]) != 1 {
			t.Fatalf("%s: needs exactly one allowed and one anomaly line", f)
		}
		allowed, err := parseLevels(strings.Fields(sc.extra["allowed"][0]))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, err := parseObservations(sc.extra["anomaly"][0])
		if err != nil || len(want) == 0 {
			t.Fatalf("%s: bad anomaly line: %v", f, err)
		}
		gaps := map[history.Level]string{}
		for _, g := range sc.extra["gap"] {
			name, why, _ := strings.Cut(g, " ")
			l, err := history.ParseLevel(name)
			if err != nil || !slices.Contains(allowed, l) {
				t.Fatalf("%s: gap %q must name an allowed level", f, g)
			}
			gaps[l] = strings.TrimSpace(why)
		}
		var stale []history.Level
		for _, line := range sc.extra["stale-writes"] {
			levels, err := parseLevels(strings.Fields(line))
			if err != nil {
				t.Fatalf("%s: bad stale-writes line: %v", f, err)
			}
			stale = append(stale, levels...)
		}
		out = append(out, anomalyScript{name: strings.TrimSuffix(filepath.Base(f), ".txt"), sc: sc, allowed: allowed, want: want, gaps: gaps, staleWrites: stale})
	}
	return out
}

// produced reports whether a run showed the anomaly: every statement
// succeeded (a 40001 or 40P01 means the level prevented it; nothing is
// retried), every transaction committed, and every named outcome is the
// anomaly's.
func (a anomalyScript) produced(out runOutcome) bool {
	if out.aborted != "" || out.rolledBack {
		return false
	}
	for k, v := range a.want {
		if out.obs[k] != v {
			return false
		}
	}
	return true
}

// anomalyRate is what TestAnomalyTableThroughSQL measured for one anomaly at
// one level.
type anomalyRate struct {
	allowed     bool
	hits, seeds int
	first       int // first seed that produced it, -1 if none
	aborts      int // runs ended by 40001 or 40P01
}

// TestAnomalyTableThroughSQL is DESIGN §3's anomaly table end to end: each
// anomaly of testdata/anomalies is a SQL scenario on several pgx
// connections, run at every level (BEGIN ISOLATION LEVEL or SET LOCAL
// fickle.isolation) against a fresh in-process server per seed with the
// adversarial strategy. A level that allows the anomaly must produce it
// within 50 seeds; a level that forbids it must never produce it in 200
// (50 with -short). Every run's recorded history must be consistent at its
// levels. It logs the rate per level (a table with -v).
func TestAnomalyTableThroughSQL(t *testing.T) {
	scripts := loadAnomalyScripts(t)
	rates := map[string]map[history.Level]anomalyRate{}
	for _, a := range scripts {
		rates[a.name] = map[history.Level]anomalyRate{}
		t.Run(a.name, func(t *testing.T) {
			for _, level := range history.Levels {
				t.Run(level.String(), func(t *testing.T) {
					r := measureAnomaly(t, a, level)
					rates[a.name][level] = r
					t.Logf("%s at %s: %d of %d seeds (first %d, %d aborted with 40001/40P01)", a.name, level, r.hits, r.seeds, r.first, r.aborts)
					switch {
					case r.allowed && r.first < 0 && a.gaps[level] != "":
						t.Skipf("engine gap: %s", a.gaps[level])
					case r.allowed && r.first >= 0 && a.gaps[level] != "":
						t.Errorf("%s at %s is produced now (seed %d): remove the stale gap line", a.name, level, r.first)
					case r.allowed && r.first < 0:
						t.Errorf("%s is allowed at %s but no seed of %d produced it", a.name, level, r.seeds)
					case !r.allowed && r.hits > 0:
						t.Errorf("%s is forbidden at %s but %d of %d seeds produced it (first: seed %d)", a.name, level, r.hits, r.seeds, r.first)
					}
				})
			}
		})
	}
	table := anomalyRateTable(scripts, rates)
	if testing.Verbose() {
		t.Logf("anomaly rates (runs producing it / seeds run):\n%s", table)
	}
	if *anomalyRatesOut != "" && !t.Failed() {
		if err := os.WriteFile(*anomalyRatesOut, []byte(anomalyRatesDoc(table)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// measureAnomaly runs one anomaly at one level over its seeds.
func measureAnomaly(t *testing.T, a anomalyScript, level history.Level) anomalyRate {
	r := anomalyRate{allowed: slices.Contains(a.allowed, level), first: -1, seeds: forbiddenSeeds}
	if r.allowed {
		r.seeds = allowedSeeds
	} else if testing.Short() {
		r.seeds = forbiddenSeedsShort
	}
	for seed := range r.seeds {
		cfg := isolation.Config{Seed: uint64(seed), Strategy: isolation.StrategyAdversarial, StaleWrites: slices.Contains(a.staleWrites, level)}
		f := startInProcess(t, cfg)
		out := runScript(t, f.dsn, a.sc, level, true, func() { f.checkpoint(t) })
		f.stop(t)
		f.checkHistory(t, false, fmt.Sprintf("%s at %s seed %d", a.name, level, seed))
		switch out.aborted {
		case "":
		case "40001", "40P01":
			r.aborts++
		default:
			t.Fatalf("%s at %s seed %d: unexpected error %s (outcomes %v)", a.name, level, seed, out.aborted, out.obs)
		}
		if a.produced(out) {
			r.hits++
			if r.first < 0 {
				r.first = seed
			}
		}
	}
	return r
}

// anomalyRateTable renders the rates as a Markdown table, one row per
// anomaly, one column per level; forbidden cells are marked.
func anomalyRateTable(scripts []anomalyScript, rates map[string]map[history.Level]anomalyRate) string {
	var b strings.Builder
	b.WriteString("| anomaly |")
	for _, l := range history.Levels {
		fmt.Fprintf(&b, " %s |", l)
	}
	b.WriteString("\n|---|")
	for range history.Levels {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
	for _, a := range scripts {
		fmt.Fprintf(&b, "| %s |", a.name)
		for _, l := range history.Levels {
			r, ok := rates[a.name][l]
			switch {
			case !ok:
				b.WriteString(" - |")
			case r.allowed && slices.Contains(a.staleWrites, l):
				fmt.Fprintf(&b, " %d/%d (first seed %d, --stale-writes) |", r.hits, r.seeds, r.first)
			case r.allowed:
				fmt.Fprintf(&b, " %d/%d (first seed %d) |", r.hits, r.seeds, r.first)
			default:
				fmt.Fprintf(&b, " forbidden: %d/%d |", r.hits, r.seeds)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// anomalyRatesDoc is docs/anomaly-rates.md around the measured table.
func anomalyRatesDoc(table string) string {
	short := ""
	if testing.Short() {
		short = fmt.Sprintf(" (measured with -short: %d seeds at forbidden levels)", forbiddenSeedsShort)
	}
	return `# Anomaly rates through SQL

Measured by ` + "`TestAnomalyTableThroughSQL`" + ` (integration/anomaly_test.go)` + short + `:
each anomaly of DESIGN.md §3's table is a SQL scenario on several pgx connections
(integration/testdata/anomalies/), run against a fresh in-process server per seed with
` + "`isolation.Config{Strategy: StrategyAdversarial, Seed: seed}`" + `, at every level.
A cell is "runs that produced the anomaly / seeds run": a run produces it when every
statement succeeds, every transaction commits and the reads see the anomaly's values;
a 40001 counts as not produced and nothing is retried. Allowed levels run seeds 0 to
49 and must produce it; forbidden levels run seeds 0 to 199 and must never produce it.
An allowed cell that no seed reaches is a known engine gap, named by a "gap" line in the
scenario file (its subtest is skipped with that reason). Cells marked --stale-writes ran with
` + "`Config.StaleWrites`" + `: by default an UPDATE computes on the row's latest version under its
lock (DESIGN §4), which RA, CC and PC cannot explain after the stale read that a lost update
needs, so there the lost update is reachable only with the pure axioms of --stale-writes
(and fails with 40001 without it).

Regenerate with:

    go test ./integration -run AnomalyTableThroughSQL -anomaly-rates ../docs/anomaly-rates.md

` + table
}

// TestSetFickleStrategyAdversarialOverridesServerDefault runs the
// lost-update-after-commit scenario on servers whose default strategy is
// latest, each connection choosing the
// adversary with SET fickle.strategy = 'adversarial': the anomaly must
// then appear within allowedSeeds at RC, as it does when the server's
// default is adversarial.
func TestSetFickleStrategyAdversarialOverridesServerDefault(t *testing.T) {
	var a anomalyScript
	for _, s := range loadAnomalyScripts(t) {
		if s.name == "lost-update-after-commit" {
			a = s
		}
	}
	if a.sc == nil {
		t.Fatal("no lost-update-after-commit scenario")
	}
	withSet := *a.sc
	withSet.steps = nil
	for _, c := range a.sc.conns() {
		withSet.steps = append(withSet.steps, step{conn: c, sql: "SET fickle.strategy = 'adversarial'"})
	}
	withSet.steps = append(withSet.steps, a.sc.steps...)
	for seed := range allowedSeeds {
		f := startInProcess(t, isolation.Config{Seed: uint64(seed)})
		out := runScript(t, f.dsn, &withSet, history.ReadCommitted, true, func() { f.checkpoint(t) })
		f.stop(t)
		if out.aborted != "" {
			t.Fatalf("seed %d: error %s", seed, out.aborted)
		}
		if a.produced(out) {
			t.Logf("produced with seed %d", seed)
			return
		}
	}
	t.Errorf("SET fickle.strategy = 'adversarial' on a server whose default is latest: no seed of %d produced the lost update that Config{Strategy: StrategyAdversarial} produces", allowedSeeds)
}
