package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/stress"
)

// stressCheck returns the report's check of the named level.
func stressCheck(t *testing.T, rep *stress.Report, name string) stress.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %s check:\n%s", name, rep.Text())
	return stress.Check{}
}

// runStressOn runs fickle stress's workload against dsn and fails the test
// when the run does not complete.
func runStressOn(t *testing.T, cfg stress.Config) *stress.Report {
	t.Helper()
	cfg.HistoryPath = filepath.Join(t.TempDir(), "stress.jsonl")
	rep, err := stress.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunError != nil || rep.HistoryError != nil {
		t.Fatalf("the run failed: %v %v\n%s", rep.RunError, rep.HistoryError, rep.Text())
	}
	t.Logf("%s, %s: %d committed, %d aborted %v, %.0f txn/s; checks: %s", rep.Workload, rep.Level, rep.Committed, rep.Aborted,
		rep.AbortCodes, rep.Throughput, checkSummary(rep))
	return rep
}

func checkSummary(rep *stress.Report) string {
	var parts []string
	for _, c := range rep.Checks {
		p := fmt.Sprintf("%s %s (%.2f s)", c.Name, c.Verdict, c.Elapsed.Seconds())
		if c.Found > 0 {
			p += fmt.Sprintf(" %v", c.Anomalies)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// TestStressPostgres runs fickle stress against a real PostgreSQL 15: at
// SERIALIZABLE the mini-transaction histories are serializable and strictly
// serializable and the compare-and-set ones linearizable, at REPEATABLE
// READ they satisfy SI, and at READ COMMITTED 8 sessions on 3 hot objects
// lose updates, which the check finds and names.
func TestStressPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few thousand transactions against PostgreSQL; skipped with -short")
	}
	port := startPostgres(t)
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, freshPostgresDB(t, port))
	t.Run("serializable", func(t *testing.T) {
		rep := runStressOn(t, stress.Config{DSN: dsn, Sessions: 8, Txns: 2000, Objects: 10, Level: "serializable"})
		for _, name := range []string{"SER", "SI", "strict SER"} {
			if c := stressCheck(t, rep, name); c.Verdict != stress.Holds {
				t.Errorf("%s: %s\n%s", name, c.Verdict, rep.Text())
			}
		}
	})
	t.Run("serializable compare-and-set", func(t *testing.T) {
		rep := runStressOn(t, stress.Config{DSN: dsn, Sessions: 8, Txns: 2000, Objects: 5, Level: "serializable", Workload: "cas"})
		for _, name := range []string{"linearizable", "strict SER"} {
			if c := stressCheck(t, rep, name); c.Verdict != stress.Holds {
				t.Errorf("%s: %s\n%s", name, c.Verdict, rep.Text())
			}
		}
	})
	t.Run("repeatable read", func(t *testing.T) {
		rep := runStressOn(t, stress.Config{DSN: dsn, Sessions: 8, Txns: 2000, Objects: 10, Level: "repeatable-read"})
		if c := stressCheck(t, rep, "SI"); c.Verdict != stress.Holds || !c.Requested {
			t.Errorf("SI: %+v\n%s", c, rep.Text())
		}
	})
	t.Run("read committed", func(t *testing.T) {
		// Hot rows deadlock now and then, and PostgreSQL takes a second
		// (deadlock_timeout) to see each: fewer transactions here.
		rep := runStressOn(t, stress.Config{DSN: dsn, Sessions: 8, Txns: 1000, Objects: 3, Level: "read-committed", Dist: "hotspot"})
		if c := stressCheck(t, rep, "RC"); c.Verdict != stress.Holds || !c.Requested {
			t.Errorf("RC: %+v\n%s", c, rep.Text())
		}
		for _, name := range []string{"SER", "SI"} {
			if c := stressCheck(t, rep, name); c.Verdict != stress.Violated || c.Anomalies["lost update"] == 0 {
				t.Errorf("%s: %s %v, want lost updates\n%s", name, c.Verdict, c.Anomalies, rep.Text())
			}
		}
	})
	t.Run("general workloads", func(t *testing.T) {
		for _, w := range []string{"rw", "append"} {
			rep := runStressOn(t, stress.Config{DSN: dsn, Sessions: 4, Txns: 300, Objects: 10, Level: "serializable", Workload: w})
			if c, ok := rep.Requested(); !ok || c.Verdict != stress.Holds {
				t.Errorf("%s: %+v\n%s", w, c, rep.Text())
			}
		}
	})
}

// TestStressCommandAgainstFickle runs `fickle stress` against `fickle
// serve`: a complete run exits 0 with a JSON report; a server killed
// mid-run ends the run with exit status 2 and a message naming the lost
// connection, and its history parses up to its last complete transaction.
func TestStressCommandAgainstFickle(t *testing.T) {
	srv := startFickle(t, "--isolation", "serializable", "--strategy", "adversarial", "--realtime")
	dir := t.TempDir()
	out, err := exec.Command(fickleBin, "stress", "--dsn", srv.DSN(), "--txns", "300", "--objects", "4", "--json",
		"--history", filepath.Join(dir, "complete.jsonl")).Output()
	if err != nil {
		t.Fatalf("fickle stress: %v\n%s", err, out)
	}
	var rep struct {
		Committed int `json:"committed"`
		Checks    []struct {
			Name, Verdict string
			Requested     bool
		} `json:"checks"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Committed == 0 || len(rep.Checks) == 0 {
		t.Fatalf("report: %s", out)
	}
	for _, c := range rep.Checks {
		if c.Verdict != stress.Holds {
			t.Errorf("fickle --realtime at SER: %s %s", c.Name, c.Verdict)
		}
	}

	victim := startFickle(t, "--isolation", "serializable")
	path := filepath.Join(dir, "cut.jsonl")
	cmd := exec.Command(fickleBin, "stress", "--dsn", victim.DSN(), "--duration", "1m", "--objects", "4", "--history", path)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), `"e":"commit"`) >= 50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 50 commits within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := victim.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit status %d (%v), want 2\n%s%s", code, err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "the run ended early") || !strings.Contains(stdout.String(), "lost its connection") {
		t.Errorf("no message naming the lost connection:\n%s", stdout.String())
	}
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		t.Fatalf("the history of the cut run does not parse: %v", err)
	}
	if len(h.Txns) < 51 {
		t.Errorf("the cut history has %d transactions", len(h.Txns)-1)
	}
	if !strings.Contains(stdout.String(), "checks:") {
		t.Errorf("the cut history was not checked:\n%s", stdout.String())
	}
}
