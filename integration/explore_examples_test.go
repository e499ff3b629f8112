package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/explore"
)

// exampleTests are the examples' tests: the package and the test to run.
var exampleTests = []struct{ pkg, test string }{
	{"bank", "TestTransfersKeepTheTotal"},
	{"booking", "TestAShowIsNeverOverbooked"},
	{"signup", "TestEveryNameIsRegisteredOnce"},
	{"wiki", "TestNoEditIsLost"},
}

// buildExampleTest compiles an example's test binary, as a user would run
// it under fickle explore.
func buildExampleTest(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), pkg+".test")
	out, err := exec.Command("go", "test", "-c", "-o", bin, "../examples/"+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go test -c %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// TestExploreFindsEachExamplesBugAndNoneInItsFix runs fickle explore on the
// examples' test binaries as a user would (DATABASE_URL set per run): the
// buggy version of each fails within 20 runs, its failure shrinks to a few
// stale reads named in SQL terms, and the shrunk run replays 10 times out
// of 10; the fixed version passes 200 runs (20 with -short). Against
// PostgreSQL 15 both versions pass: the examples' workers take turns, and
// PostgreSQL shows every transaction the commits before it, which READ
// COMMITTED does not promise.
func TestExploreFindsEachExamplesBugAndNoneInItsFix(t *testing.T) {
	fixedRuns := 200
	if testing.Short() {
		fixedRuns = 20
	}
	for _, ex := range exampleTests {
		t.Run(ex.pkg, func(t *testing.T) {
			bin := buildExampleTest(t, ex.pkg)
			opts := explore.Options{Command: []string{bin, "-test.run", "^" + ex.test + "$"}, Dir: t.TempDir(), Timeout: time.Minute}
			t.Run("buggy", func(t *testing.T) {
				t.Setenv("FICKLE_EXAMPLE", "buggy")
				o := opts
				o.Runs = 20
				sum, err := explore.Explore(o)
				if err != nil {
					t.Fatal(err)
				}
				if len(sum.Failures) == 0 {
					t.Fatalf("the bug was not found in %d runs", sum.Runs)
				}
				shrunk, stats, err := explore.Shrink(o, sum.Failures[0], 100)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := explore.BuildReport(shrunk, "")
				if err != nil {
					t.Fatal(err)
				}
				rep.Shrink = stats
				t.Logf("found in run %d; shrunk from %d stale reads to %d in %d runs:\n%s", sum.Failures[0].Number, stats.From, stats.To, stats.Runs, rep.Text())
				if n := len(rep.StaleReads); n < 1 || n > 3 {
					t.Errorf("the shrunk failure has %d stale reads, want 1 to 3", n)
				}
				for _, s := range rep.StaleReads {
					if s.SQL == "" || s.Table == "" || s.Key == "" || !strings.HasPrefix(s.ApplicationName, "worker-") || s.Served.Txn == s.Latest.Txn {
						t.Errorf("stale read not in SQL terms: %+v", s)
					}
				}
				if rep.Anomaly == nil || len(rep.Anomaly.Reads) == 0 {
					t.Errorf("the stale reads form no anomaly the oracle names")
				}
				rec, err := explore.LoadRecording(shrunk.History)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 10 {
					res, err := explore.Replay(o, rec, filepath.Join(o.Dir, fmt.Sprintf("replay-%d.jsonl", i)))
					if err != nil {
						t.Fatal(err)
					}
					if !res.Run.Failed() || !res.Exact {
						t.Fatalf("replay %d of the shrunk run: %s, divergence %v", i+1, res.Run.Status(), res.Divergence)
					}
				}
			})
			t.Run("fixed", func(t *testing.T) {
				o := opts
				o.Runs = fixedRuns
				sum, err := explore.Explore(o)
				if err != nil {
					t.Fatal(err)
				}
				if len(sum.Failures) > 0 {
					f := sum.Failures[0]
					t.Fatalf("run %d of the fixed version failed: %s\n%s", f.Number, f.Status(), f.Output)
				}
			})
			t.Run("postgres", func(t *testing.T) {
				port := startPostgres(t)
				for _, variant := range []string{"buggy", "fixed"} {
					for range 3 {
						cmd := exec.Command(bin, "-test.run", "^"+ex.test+"$")
						cmd.Env = append(os.Environ(), "FICKLE_EXAMPLE="+variant,
							fmt.Sprintf("DATABASE_URL=postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, freshPostgresDB(t, port)))
						if out, err := cmd.CombinedOutput(); err != nil {
							t.Fatalf("the %s version fails on PostgreSQL: %v\n%s", variant, err, out)
						}
					}
				}
			})
		})
	}
}
