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
				r, err := runProgram(prog, level, StrategyAdversarial, uint64(seed), nil)
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
			case ok && (first < 0 || first >= within):
				t.Errorf("%s is allowed at %s but the first of %d seeds producing it is %d", name, level, seeds, first)
			case !ok && hits > 0:
				t.Errorf("%s is forbidden at %s but %d of %d seeds produced it (first %d)", name, level, hits, seeds, first)
			}
			fmt.Fprintf(&rates, " %s=%d", level, hits)
		}
		rates.WriteByte('\n')
	}
	const golden = "testdata/anomaly_rates.txt"
	if *rewrite {
		if err := os.WriteFile(golden, []byte(rates.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != rates.String() {
		t.Errorf("rates changed (run with -rewrite if intended):\n%s", rates.String())
	}
	t.Log("\n" + rates.String())
}
