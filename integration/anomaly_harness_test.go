package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
	"github.com/fickle-db/fickle/server"
)

// inprocFickle is a fickle server running in the test process, so that
// each run can have its own isolation.Config (seed, strategy, real time)
// without the serve command's flags.
type inprocFickle struct {
	srv   *server.Server
	store *isolation.Store
	dsn   string
}

// startInProcess starts a server on a free port over a fresh memory
// engine configured by cfg (Record is forced on, so that the run's history
// can be checked). Call stop when done with it.
func startInProcess(t testing.TB, cfg isolation.Config) *inprocFickle {
	t.Helper()
	cfg.Record = true
	engine, store, err := server.NewMemoryEngine(cfg)
	if err != nil {
		t.Fatalf("memory engine: %v", err)
	}
	srv, err := server.New(server.Config{Engine: engine, Logf: t.Logf})
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	if _, err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("start: %v", err)
	}
	return &inprocFickle{srv: srv, store: store, dsn: srv.DSN("fickle", "fickle")}
}

// stop shuts the server down, ending every session still open.
func (f *inprocFickle) stop(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

// checkpoint folds the state loaded so far (a scenario's setup) into the
// initial state, so that reads of it are reads from init.
func (f *inprocFickle) checkpoint(t testing.TB) {
	t.Helper()
	if _, err := f.store.Checkpoint(); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
}

// checkHistory fails the test when the run's recorded history is not
// consistent at each transaction's own level (with real time when the
// store had it): whatever the adversary chose must be allowed.
func (f *inprocFickle) checkHistory(t testing.TB, realTime bool, what string) {
	t.Helper()
	h := f.store.History()
	res := oracle.Check(h, oracle.Options{RealTime: realTime})
	if res.Verdict != oracle.Consistent {
		why := ""
		if res.Explanation != nil {
			why = res.Explanation.Text(h)
		}
		var jsonl strings.Builder
		_ = history.WriteJSONL(&jsonl, h, history.Header{})
		t.Errorf("%s: the recorded history is %v at its levels: %s\n%s", what, res.Verdict, why, jsonl.String())
	}
}
