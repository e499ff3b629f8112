package isolation

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestReplayReissuesTheRecordedChoices runs random workloads with the
// adversarial strategy, then runs each again, same schedule, with the
// latest strategy and another seed but the first history as Config.Replay:
// the second history must be the first, read for read and place for place.
func TestReplayReissuesTheRecordedChoices(t *testing.T) {
	for c := range 200 {
		w := genWorkload(rand.New(rand.NewPCG(uint64(c), 3)), 12)
		first, err := runWorkload(w, Config{Strategy: StrategyAdversarial, Seed: uint64(c)}, rand.New(rand.NewPCG(uint64(c), 4)))
		if err != nil {
			t.Fatal(err)
		}
		h1 := first.History()
		again, err := runWorkload(w, Config{Strategy: StrategyLatest, Seed: 999, Replay: h1}, rand.New(rand.NewPCG(uint64(c), 4)))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := dumpHistory(h1), dumpHistory(again.History()); a != b {
			t.Fatalf("case %d: the replay differs\nrecorded:\n%s\nreplayed:\n%s", c, a, b)
		}
	}
}

// TestReplayWithoutAReadFallsBackToTheStrategy deletes the recorded reads
// of a transaction: its replayed reads take the latest valid version.
func TestReplayWithoutAReadFallsBackToTheStrategy(t *testing.T) {
	env := newScenarioEnv()
	for _, cmd := range []string{"begin s1", "write s1 x=1", "commit s1", "begin s2 strategy=oldest", "read s2 x", "commit s2"} {
		env.run(cmd)
	}
	rec := env.s.History()
	if rec.Txns[2].Ops[0].Writer != 0 {
		t.Fatalf("setup: s2 read from T%d, want init", rec.Txns[2].Ops[0].Writer)
	}
	replay := func(h *Store) string {
		e := &scenarioEnv{}
		e.reset(Config{Strategy: StrategyLatest, Replay: h.History()})
		var out string
		for _, cmd := range []string{"begin s1", "write s1 x=1", "commit s1", "begin s2", "read s2 x", "commit s2"} {
			out = e.run(cmd)
			if cmd == "read s2 x" {
				return out
			}
		}
		return out
	}
	if got := replay(env.s); got != "x=absent (T0)" {
		t.Fatalf("replay read %s, want the recorded stale version", got)
	}
	env.s.e.rec.h.Txns[2].Ops = nil // shrink: forget the choice
	if got := replay(env.s); got != "x=1 (T1)" {
		t.Fatalf("replay without the read gave %s, want the latest version", got)
	}
}

// TestReplayAfterACheckpointFollowsTheRecording: a recording that went
// through a checkpoint (fixtures, then the test) holds what followed it,
// with each session's transactions numbered from the checkpoint; a replay
// going through the same checkpoint re-issues the recorded choices from
// there, also in sessions that ran transactions before it.
func TestReplayAfterACheckpointFollowsTheRecording(t *testing.T) {
	run := func(cfg Config) *history.History {
		var buf strings.Builder
		log, err := history.NewWriter(&buf, history.Header{})
		must(t, err)
		cfg.Log = log
		f := newFixture(t, cfg)
		a, b := f.s.NewSession(), f.s.NewSession()
		for _, s := range []*Session{a, b} { // both sessions work before the checkpoint
			tx := begin(t, s, history.ReadCommitted)
			_, _, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{})
			must(t, err)
			must(t, tx.Commit(bg))
		}
		tx := begin(t, a, history.ReadCommitted)
		_, err = tx.Insert(bg, f.tab, []byte("x"), []any{"x", 1})
		must(t, err)
		must(t, tx.Commit(bg))
		_, err = f.s.Checkpoint()
		must(t, err)
		tx = begin(t, a, history.ReadCommitted)
		must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", 2}))
		must(t, tx.Commit(bg))
		r, err := b.Begin(TxnOptions{Level: history.ReadCommitted})
		must(t, err)
		_, _, err = r.Get(bg, f.tab, []byte("x"), ReadOptions{})
		must(t, err)
		must(t, r.Commit(bg))
		must(t, log.Close())
		h, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
		must(t, err)
		return h
	}
	rec := run(Config{Strategy: StrategyOldest})
	if rec.Checkpoints != 1 || rec.Txns[2].Ops[0].Writer != history.Init {
		t.Fatalf("setup: %d checkpoints, b read x from T%d; want 1 and init's version", rec.Checkpoints, rec.Txns[2].Ops[0].Writer)
	}
	again := run(Config{Strategy: StrategyLatest, Replay: rec})
	if a, b := dumpHistory(rec), dumpHistory(again); a != b {
		t.Fatalf("the replay differs\nrecorded:\n%s\nreplayed:\n%s", a, b)
	}
}
