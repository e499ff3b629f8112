package isolation

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestAnomalyTableAllowedLevelsReachItForbiddenNever runs every anomaly of
// DESIGN §3 (testdata/anomalies.txt) at every level with the adversarial
// strategy, the transactions run one after another as a script: a level that allows the anomaly must
// produce it within 50 seeds, a level that forbids it never in 200. Every
// run's history must also pass the brute-force check. The rates per level
// are pinned in testdata/anomaly_rates.txt (-rewrite regenerates it).
func TestAnomalyTableAllowedLevelsReachItForbiddenNever(t *testing.T) {
	rates := anomalyRates(t, Config{}, true)
	checkGolden(t, "testdata/anomaly_rates.txt", rates)
	t.Log("\n" + rates)
}

// TestAnomalyTableUnderAStalenessHorizon measures what keeping the versions
// of only the last 1 to 3 transactions (Config.MaxStaleness) costs the
// anomaly table: forbidden anomalies stay unreachable and every history
// passes the brute-force check; an allowed one disappears when it needs a
// read of a state older than the horizon (a long fork's last reader reads
// x from init three transactions later). The rates are pinned in
// testdata/anomaly_rates_horizon.txt (-rewrite regenerates it); the table
// of 2 to 4 transactions is untouched from MaxStaleness 4 on.
func TestAnomalyTableUnderAStalenessHorizon(t *testing.T) {
	var out strings.Builder
	for _, n := range []int{1, 2, 3} {
		fmt.Fprintf(&out, "# MaxStaleness %d\n%s", n, anomalyRates(t, Config{MaxStaleness: n}, false))
	}
	checkGolden(t, "testdata/anomaly_rates_horizon.txt", out.String())
	t.Log("\n" + out.String())
}

// anomalyRates runs the anomaly table on stores configured by cfg (with
// the adversarial strategy and each seed) and returns the rates; every
// history must pass the brute-force check, and no forbidden anomaly may
// occur. With reachable, every allowed one must occur within 50 seeds.
func anomalyRates(t *testing.T, cfg Config, reachable bool) string {
	t.Helper()
	fh, err := os.Open("testdata/anomalies.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	const seeds, within = 200, 50
	var rates strings.Builder
	fmt.Fprintf(&rates, "# anomaly: runs out of %d adversarial seeds that produce it, per level\n", seeds)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("bad line %q", line)
		}
		name := strings.TrimSpace(f[0])
		prog, err := parseProgram(f[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		allowed := strings.Fields(f[2])
		want := prog.expectedReads()
		fmt.Fprintf(&rates, "%-20s", name)
		for _, level := range history.Levels {
			hits, first := 0, -1
			for seed := range seeds {
				cfg.Strategy, cfg.Seed = StrategyAdversarial, uint64(seed)
				r, err := runProgram(prog, level, cfg, nil)
				if err != nil {
					t.Fatalf("%s at %s seed %d: %v", name, level, seed, err)
				}
				if why := bruteCheck(r.h); why != "" {
					t.Fatalf("%s at %s seed %d: %s\n%s", name, level, seed, why, dumpHistory(r.h))
				}
				if r.committed && slices.Equal(r.reads, want) {
					hits++
					if first < 0 {
						first = seed
					}
				}
			}
			ok := slices.Contains(allowed, level.String())
			switch {
			case reachable && ok && (first < 0 || first >= within):
				t.Errorf("%s is allowed at %s but the first of %d seeds producing it is %d", name, level, seeds, first)
			case !ok && hits > 0:
				t.Errorf("%s is forbidden at %s but %d of %d seeds produced it (first %d)", name, level, hits, seeds, first)
			}
			fmt.Fprintf(&rates, " %s=%d", level, hits)
		}
		rates.WriteByte('\n')
	}
	return rates.String()
}

// checkGolden compares got with the golden file, or rewrites it (-rewrite).
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *rewrite {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s changed (run with -rewrite if intended):\n%s", golden, got)
	}
}
