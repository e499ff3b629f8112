package fickletest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/fickletest"
)

// innerEnv makes the inner tests below run: they are run by the outer
// tests in a child process, whose output the outer tests read.
const innerEnv = "FICKLETEST_INNER"

func inner(t *testing.T) {
	if os.Getenv(innerEnv) == "" {
		t.Skip("run by the outer tests")
	}
}

// lostIncrements runs two read-then-write increments of a counter on two
// connections, interleaved, and returns the counter.
func lostIncrements(t *testing.T, dsn string) int {
	ctx := context.Background()
	connect := func(app string) *pgx.Conn {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = app
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	a, b := connect("a"), connect("b")
	for _, q := range []string{"CREATE TABLE c (id int PRIMARY KEY, n int)", "INSERT INTO c VALUES (1, 0)", "SELECT fickle_checkpoint()"} {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ta, _ := a.Begin(ctx)
	tb, _ := b.Begin(ctx)
	var na, nb int
	if err := ta.QueryRow(ctx, "SELECT n FROM c WHERE id = 1").Scan(&na); err != nil {
		t.Fatal(err)
	}
	if err := tb.QueryRow(ctx, "SELECT n FROM c WHERE id = 1").Scan(&nb); err != nil {
		t.Fatal(err)
	}
	if _, err := ta.Exec(ctx, "UPDATE c SET n = $1 WHERE id = 1", na+1); err != nil {
		t.Fatal(err)
	}
	if err := ta.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Exec(ctx, "UPDATE c SET n = $1 WHERE id = 1", nb+1); err != nil {
		t.Fatal(err)
	}
	if err := tb.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := a.QueryRow(ctx, "SELECT n FROM c WHERE id = 1 FOR SHARE").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestInnerLostIncrement(t *testing.T) {
	inner(t)
	dsn := fickletest.Start(t, fickletest.Level("read-committed"))
	if n := lostIncrements(t, dsn); n != 2 {
		t.Fatalf("counter = %d after two increments", n)
	}
}

func TestInnerExplore(t *testing.T) {
	inner(t)
	fickletest.Explore(t, 5, func(t *testing.T, dsn string) {
		if n := lostIncrements(t, dsn); n != 2 {
			t.Fatalf("counter = %d after two increments", n)
		}
	}, fickletest.Seed(7))
}

// runInner runs an inner test in a child process with env added.
func runInner(t *testing.T, name string, env ...string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^"+name+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), innerEnv+"=1"), env...)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

var seedLine = regexp.MustCompile(`fickle seed (\d+): rerun with FICKLE_SEED=(\d+) go test -run '([^']+)'`)

// TestAFailingTestGetsTheStaleReadsAndTheSeedThatReproducesIt: the lost
// increment fails the inner test (two READ COMMITTED transactions read
// the same value, as they would on PostgreSQL); its log names the anomaly
// in SQL terms (the second transaction read the counter, which the first
// then changed, and wrote its own value: a non-repeatable read, or a lost
// update when its UPDATE also read the old version) and the seed, and
// FICKLE_SEED makes the next run use it.
func TestAFailingTestGetsTheStaleReadsAndTheSeedThatReproducesIt(t *testing.T) {
	out := runInner(t, "TestInnerLostIncrement")
	m := seedLine.FindStringSubmatch(out)
	if m == nil || m[1] != m[2] || m[3] != "^TestInnerLostIncrement$" {
		t.Fatalf("no seed line in the failing test's output:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestInnerLostIncrement", "counter = 1 after two increments", `"SELECT n FROM c WHERE id = 1"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "a non-repeatable read, which") && !strings.Contains(out, "a lost update, which") {
		t.Errorf("output names neither a non-repeatable read nor a lost update:\n%s", out)
	}
	again := runInner(t, "TestInnerLostIncrement", fickletest.SeedEnv+"="+m[1])
	if m2 := seedLine.FindStringSubmatch(again); m2 == nil || m2[1] != m[1] {
		t.Fatalf("FICKLE_SEED=%s ran another seed:\n%s", m[1], again)
	}
}

// TestExploreRunsOneSubtestPerSeedAndStopsAtTheFirstFailure: Explore's
// subtests are named by their seed, which FICKLE_SEED runs alone.
func TestExploreRunsOneSubtestPerSeedAndStopsAtTheFirstFailure(t *testing.T) {
	out := runInner(t, "TestInnerExplore")
	runs := regexp.MustCompile(`=== RUN   TestInnerExplore/seed=(\d+)`).FindAllStringSubmatch(out, -1)
	if len(runs) != 1 || !strings.Contains(out, "--- FAIL: TestInnerExplore/seed="+runs[0][1]) {
		t.Fatalf("want the first seed to fail and stop the exploration:\n%s", out)
	}
	again := runInner(t, "TestInnerExplore", fickletest.SeedEnv+"="+runs[0][1])
	if !strings.Contains(again, fmt.Sprintf("=== RUN   TestInnerExplore/seed=%s\n", runs[0][1])) || strings.Count(again, "=== RUN   TestInnerExplore/") != 1 {
		t.Fatalf("FICKLE_SEED=%s should run that seed alone:\n%s", runs[0][1], again)
	}
}

// TestAPassingTestStaysQuiet: a test that reads and writes without trouble
// passes, its history checked at cleanup.
func TestAPassingTestStaysQuiet(t *testing.T) {
	ctx := context.Background()
	dsn := fickletest.Start(t, fickletest.Strategy("latest"), fickletest.Seed(1))
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, "SELECT 41 + 1").Scan(&n); err != nil || n != 42 {
		t.Fatalf("got %d, %v", n, err)
	}
}
