package stress

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fickle-db/fickle/explore"
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
	"github.com/jackc/pgx/v5"
)

// startFickle starts an in-process fickle server for the test, at level
// with the adversarial strategy (the default), and returns its DSN and a
// function that stops it. When the test ends the server stops, and its own
// history is checked: a client-side history that fails proves nothing if
// the server broke its own levels.
func startFickle(t *testing.T, cfg explore.ServerConfig, seed uint64) (string, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.jsonl")
	srv, err := explore.StartServer(cfg, seed, path)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if _, err := srv.Stop(); err != nil {
				t.Errorf("stopping fickle: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		stop()
		h, err := history.Import(path, history.FormatFickle)
		if err != nil {
			t.Fatalf("reading the server's history: %v", err)
		}
		if r := oracle.Check(h, oracle.Options{RealTime: cfg.RealTime, MaxSteps: 20_000_000}); r.Verdict == oracle.Violation {
			t.Errorf("BUG IN FICKLE: the server's history violates its levels:\n%s", r.Explanation.Text(h))
		}
	})
	return srv.DSN(), stop
}

func runStress(t *testing.T, cfg Config) *Report {
	t.Helper()
	if cfg.HistoryPath == "" {
		cfg.HistoryPath = filepath.Join(t.TempDir(), "stress.jsonl")
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RunError != nil || rep.HistoryError != nil {
		t.Fatalf("the run failed: %v %v\n%s", rep.RunError, rep.HistoryError, rep.Text())
	}
	return rep
}

func checkNamed(rep *Report, name string) (Check, bool) {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// TestMiniTransactionsAgainstFickle: against fickle at each of its levels
// (adversarial strategy), the mt workload's history satisfies that level;
// at RC the serializability check finds lost updates, at SI write skews.
// How often the sessions' transactions overlap depends on the machine's
// load, so a level whose anomaly a run did not show runs again, up to
// four runs in all, each of which must satisfy the level.
func TestMiniTransactionsAgainstFickle(t *testing.T) {
	for i, c := range []struct {
		level   string
		anomaly string // an anomaly the SER check must name
	}{
		{"read-committed", "lost update"},
		{"read-atomic", ""},
		{"causal", ""},
		{"prefix", ""},
		{"repeatable-read", "write skew"},
		{"serializable", ""},
	} {
		t.Run(c.level, func(t *testing.T) {
			l, _ := history.ParseLevel(c.level)
			var seen []map[string]int
			for run := 0; run < 4; run++ {
				seed := uint64(10*i + run)
				dsn, stop := startFickle(t, explore.ServerConfig{Level: l}, seed+1)
				rep := runStress(t, Config{DSN: dsn, Sessions: 8, Txns: 600, Objects: 2, Level: c.level, Seed: seed})
				stop()
				if req, ok := rep.Requested(); !ok || req.Verdict != Holds {
					t.Fatalf("the %s check: %+v\n%s", c.level, req, rep.Text())
				}
				ser, _ := checkNamed(rep, "SER")
				if c.anomaly == "" || ser.Anomalies[c.anomaly] > 0 {
					t.Logf("%s: %d committed, %d aborted; SER: %d violations %v", c.level, rep.Committed, rep.Aborted, ser.Found, ser.Anomalies)
					return
				}
				seen = append(seen, ser.Anomalies)
			}
			t.Fatalf("SER: no %s in 4 runs, whose violations were %v", c.anomaly, seen)
		})
	}
}

// TestStrictSerializabilityAgainstFickle: fickle with real time at SER is
// strictly serializable, and its compare-and-set histories linearizable.
func TestStrictSerializabilityAgainstFickle(t *testing.T) {
	for _, w := range []string{"mt", "cas"} {
		dsn, _ := startFickle(t, explore.ServerConfig{Level: history.Serializable, RealTime: true}, 7)
		rep := runStress(t, Config{DSN: dsn, Sessions: 6, Txns: 400, Objects: 3, Workload: w})
		for _, name := range []string{"SER", "strict SER", "linearizable"} {
			if c, ok := checkNamed(rep, name); ok && c.Verdict != Holds {
				t.Errorf("%s, %s: %s\n%s", w, name, c.Verdict, rep.Text())
			}
		}
	}
}

// TestGeneralWorkloadsAgainstFickle: the rw and append histories of fickle
// at SI satisfy SI (the general checker decides them).
func TestGeneralWorkloadsAgainstFickle(t *testing.T) {
	for _, w := range []string{"rw", "append"} {
		dsn, _ := startFickle(t, explore.ServerConfig{Level: history.Snapshot}, 3)
		rep := runStress(t, Config{DSN: dsn, Sessions: 4, Txns: 200, Objects: 5, Workload: w, Level: "snapshot"})
		if req, ok := rep.Requested(); !ok || req.Verdict != Holds || req.Method != "general checker" {
			t.Errorf("%s: %+v\n%s", w, req, rep.Text())
		}
	}
}

// TestRunErrors: a database that cannot be reached, a level the database
// does not have, a table dropped mid-run and a server that goes away end
// the run with a message naming the cause; the history of a run that
// started parses up to its last complete transaction.
func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Run(ctx, Config{DSN: "postgres://x@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"}); err == nil || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("no server: %v", err)
	}
	if _, err := Run(ctx, Config{DSN: "postgres://x@127.0.0.1:1/x", Workload: "nope"}); err == nil || !strings.Contains(err.Error(), "--workload") {
		t.Errorf("bad workload: %v", err)
	}

	t.Run("server gone", func(t *testing.T) {
		dsn, stop := startFickle(t, explore.ServerConfig{Level: history.Serializable}, 5)
		rep, path := runUntil(t, Config{DSN: dsn}, stop)
		// A server that shuts down says so (57P01) to the sessions it
		// can still tell; the others lose their connection.
		if rep.RunError == nil || !strings.Contains(rep.RunError.Error(), "57P01") && !strings.Contains(rep.RunError.Error(), "lost its connection") {
			t.Errorf("run error %v, want the server's shutdown or a lost connection", rep.RunError)
		}
		checkedAnyway(t, rep, path)
	})
	t.Run("table dropped", func(t *testing.T) {
		dsn, _ := startFickle(t, explore.ServerConfig{Level: history.ReadCommitted}, 6)
		rep, path := runUntil(t, Config{DSN: dsn, Level: "read-committed"}, func() {
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, "DROP TABLE "+DefaultTable); err != nil {
				t.Fatal(err)
			}
		})
		if rep.RunError == nil || !strings.Contains(rep.RunError.Error(), "42P01") {
			t.Errorf("run error %v, want SQLSTATE 42P01", rep.RunError)
		}
		checkedAnyway(t, rep, path)
	})
}

// runUntil starts a long run of cfg, calls interrupt once some
// transactions have committed, and returns the run's report and history
// path.
func runUntil(t *testing.T, cfg Config, interrupt func()) (*Report, string) {
	t.Helper()
	cfg.HistoryPath = filepath.Join(t.TempDir(), "stress.jsonl")
	cfg.Sessions, cfg.Objects, cfg.Duration = 4, 5, time.Minute
	done := make(chan *Report, 1)
	go func() {
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(cfg.HistoryPath)
		if bytes.Count(b, []byte(`"e":"commit"`)) >= 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no 20 commits within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	interrupt()
	rep := <-done
	if rep == nil {
		t.Fatal("no report")
	}
	return rep, cfg.HistoryPath
}

// checkedAnyway: the history of a run that ended early parses and was
// checked.
func checkedAnyway(t *testing.T, rep *Report, path string) {
	t.Helper()
	if rep.HistoryError != nil || len(rep.Checks) == 0 {
		t.Errorf("the history was not checked: %v\n%s", rep.HistoryError, rep.Text())
	}
	h, err := history.Import(path, history.FormatFickle)
	if err != nil {
		t.Fatalf("the history does not parse: %v", err)
	}
	if len(h.Txns) < 21 {
		t.Errorf("the history has %d transactions", len(h.Txns)-1)
	}
}
