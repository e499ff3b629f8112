package integration

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// hermitageLevels are PostgreSQL's three distinct levels, as fickle's
// levels: READ COMMITTED, REPEATABLE READ (SI) and SERIALIZABLE.
var hermitageLevels = []history.Level{history.ReadCommitted, history.Snapshot, history.Serializable}

// hermitageSeeds is how many adversarial seeds each Hermitage case runs
// on fickle at each level (hermitageSeedsShort with -short), besides the
// run with the latest strategy and the --profile postgres run.
const (
	hermitageSeeds      = 10
	hermitageSeedsShort = 3
)

// outcomeRule is one "postgres LEVELS | a=x; b=y" or "fickle LEVELS | ..."
// line: at those levels, the outcomes named must be these values, unless
// another line of the same target, level and names allows the tuple.
type outcomeRule struct {
	levels []history.Level
	want   map[string]string
	names  string // the sorted names, the rule's group
}

// hermitageCase is a Hermitage test case of testdata/hermitage: the script
// and, per target, the outcomes it may have at each level.
type hermitageCase struct {
	name            string
	sc              *script
	postgres, ficle []outcomeRule
	// bugs maps levels to a known engine bug ("engine-bug LEVELS | why"):
	// fickle outcomes the axioms forbid at that level skip the level's
	// subtest with the reason instead of failing it, and a level that no
	// longer shows them fails, so that the line is removed.
	bugs map[history.Level]string
}

func loadHermitage(t *testing.T) []hermitageCase {
	t.Helper()
	files, err := filepath.Glob("testdata/hermitage/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/hermitage: %v", err)
	}
	var out []hermitageCase
	for _, f := range files {
		sc, err := parseScript(f)
		if err != nil {
			t.Fatal(err)
		}
		hc := hermitageCase{name: strings.TrimSuffix(filepath.Base(f), ".txt"), sc: sc}
		if hc.postgres, err = parseRules(sc.extra["postgres"]); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if hc.ficle, err = parseRules(sc.extra["fickle"]); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		hc.bugs = map[history.Level]string{}
		for _, line := range sc.extra["engine-bug"] {
			lv, why, _ := strings.Cut(line, "|")
			levels, err := parseLevels(strings.Fields(lv))
			if err != nil || len(levels) == 0 || strings.TrimSpace(why) == "" {
				t.Fatalf("%s: bad engine-bug line %q", f, line)
			}
			for _, l := range levels {
				hc.bugs[l] = strings.TrimSpace(why)
			}
		}
		for _, l := range hermitageLevels {
			if len(rulesAt(hc.postgres, l)) == 0 {
				t.Fatalf("%s: no postgres outcome at %s", f, l)
			}
		}
		out = append(out, hc)
	}
	return out
}

// parseRules reads "LEVELS | name=value; name=value" lines.
func parseRules(lines []string) ([]outcomeRule, error) {
	var rules []outcomeRule
	for _, line := range lines {
		lv, obs, ok := strings.Cut(line, "|")
		if !ok {
			return nil, fmt.Errorf("rule %q has no |", line)
		}
		levels, err := parseLevels(strings.Fields(lv))
		if err != nil || len(levels) == 0 {
			return nil, fmt.Errorf("rule %q: bad levels: %v", line, err)
		}
		r := outcomeRule{levels: levels, want: map[string]string{}}
		var names []string
		for _, kv := range strings.Split(obs, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return nil, fmt.Errorf("rule %q: %q is not name=value", line, kv)
			}
			r.want[k] = v
			names = append(names, k)
		}
		sort.Strings(names)
		r.names = strings.Join(names, " ")
		rules = append(rules, r)
	}
	return rules, nil
}

func rulesAt(rules []outcomeRule, level history.Level) []outcomeRule {
	var out []outcomeRule
	for _, r := range rules {
		if slices.Contains(r.levels, level) {
			out = append(out, r)
		}
	}
	return out
}

// violations returns, for every group of rules at level whose names the
// outcome matches none of, a description of what was seen.
func violations(rules []outcomeRule, level history.Level, obs map[string]string) []string {
	groups := map[string][]outcomeRule{}
	var order []string
	for _, r := range rulesAt(rules, level) {
		if _, ok := groups[r.names]; !ok {
			order = append(order, r.names)
		}
		groups[r.names] = append(groups[r.names], r)
	}
	var bad []string
	for _, names := range order {
		ok := slices.ContainsFunc(groups[names], func(r outcomeRule) bool {
			for k, v := range r.want {
				if obs[k] != v {
					return false
				}
			}
			return true
		})
		if !ok {
			var seen []string
			for _, k := range strings.Fields(names) {
				seen = append(seen, fmt.Sprintf("%s=%s", k, obs[k]))
			}
			bad = append(bad, strings.Join(seen, "; "))
		}
	}
	return bad
}

// TestHermitageOnPostgres runs Hermitage's PostgreSQL cases against a real
// PostgreSQL 15 at READ COMMITTED, REPEATABLE READ and SERIALIZABLE, and
// asserts PostgreSQL's documented outcome (the "postgres" lines).
func TestHermitageOnPostgres(t *testing.T) {
	cases := loadHermitage(t)
	port := startPostgres(t)
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, freshPostgresDB(t, port))
	for _, hc := range cases {
		for _, level := range hermitageLevels {
			t.Run(hc.name+"/"+level.String(), func(t *testing.T) {
				out := runScript(t, dsn, hc.sc, level, false, nil)
				for _, v := range violations(hc.postgres, level, out.obs) {
					t.Errorf("PostgreSQL at %s: %s", level, v)
				}
			})
		}
	}
}

// postgresProfileConfig is fickle serve --profile postgres: the latest
// strategy, real time, PostgreSQL's snapshots, and its first-updater-wins,
// EvalPlanQual re-checks and SSI.
func postgresProfileConfig() isolation.Config {
	return isolation.Config{Strategy: isolation.StrategyLatest, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}
}

// TestHermitageOnFickle runs the same cases against fickle at the same
// levels: with --profile postgres, whose outcome must be PostgreSQL's (the
// "postgres" lines) exactly, and with the latest strategy and over
// adversarial seeds of the axiomatic profile, whose outcomes must be ones
// the axioms allow (the "fickle" lines). Every recorded history must pass
// the oracle.
func TestHermitageOnFickle(t *testing.T) {
	cases := loadHermitage(t)
	for _, hc := range cases {
		for _, level := range hermitageLevels {
			t.Run(hc.name+"/"+level.String(), func(t *testing.T) {
				var bad []string
				seeds := hermitageSeeds
				if testing.Short() {
					seeds = hermitageSeedsShort
				}
				for seed := -2; seed < seeds; seed++ {
					cfg := isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: uint64(seed)}
					run, rules := fmt.Sprintf("seed %d", seed), hc.ficle
					switch seed {
					case -2:
						cfg, run = isolation.Config{Strategy: isolation.StrategyLatest}, "latest"
					case -1:
						cfg, run, rules = postgresProfileConfig(), "profile postgres", hc.postgres
					}
					f := startInProcess(t, cfg)
					out := runScript(t, f.dsn, hc.sc, level, false, func() { f.checkpoint(t) })
					f.stop(t)
					f.checkHistory(t, cfg.RealTime, fmt.Sprintf("%s at %s, %s", hc.name, level, run))
					for _, v := range violations(rules, level, out.obs) {
						bad = append(bad, fmt.Sprintf("fickle at %s, %s: not allowed: %s", level, run, v))
					}
				}
				switch bug := hc.bugs[level]; {
				case len(bad) > 0 && bug != "":
					t.Skipf("engine bug: %s\n%s", bug, strings.Join(bad, "\n"))
				case len(bad) > 0:
					t.Error(strings.Join(bad, "\n"))
				case bug != "":
					t.Errorf("every outcome is allowed now: remove the stale engine-bug line (%s)", bug)
				}
			})
		}
	}
}
