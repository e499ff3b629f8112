package explore

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
)

func testOptions(t *testing.T, scenario string) Options {
	return Options{Command: helperCommand(t, scenario), Dir: t.TempDir(), Jobs: 2, Timeout: 30 * time.Second}
}

// TestExploreFindsALostUpdateReplaysItAndShrinksIt: two workers that
// increment a counter by reading it and writing back read+1 lose an
// increment within a few runs; the failing run replays exactly ten times
// out of ten; shrinking names the read or reads that matter in SQL terms.
func TestExploreFindsALostUpdateReplaysItAndShrinksIt(t *testing.T) {
	opts := testOptions(t, "counter-lost-update")
	opts.Runs = 20
	sum, err := Explore(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failures) == 0 {
		t.Fatalf("no failure in %d runs", sum.Runs)
	}
	// A lost update needs no stale read: two increments that both read the
	// latest version before either writes lose one by timing alone (a busy
	// machine makes that likelier), and such a run has nothing to shrink.
	// Shrinking is tested on the first failure the adversary made.
	var first *Run
	var rec *Recording
	for _, f := range sum.Failures {
		if !strings.Contains(f.Output, "want 6") {
			t.Fatalf("run %d failed with output %q", f.Number, f.Output)
		}
		r, err := LoadRecording(f.History)
		if err != nil {
			t.Fatal(err)
		}
		if staleReads(r.History) > 0 {
			first, rec = f, r
			break
		}
	}
	if first == nil {
		t.Fatalf("none of the %d failures read a stale version", len(sum.Failures))
	}
	for i := range 10 {
		res, err := Replay(opts, rec, fmt.Sprintf("%s/replay-%d.jsonl", opts.Dir, i))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Run.Failed() || !res.Exact {
			t.Fatalf("replay %d: %s, exact %v, divergence %v", i+1, res.Run.Status(), res.Exact, res.Divergence)
		}
	}
	shrunk, stats, err := Shrink(opts, first, 60)
	if err != nil {
		t.Fatal(err)
	}
	if !shrunk.Failed() || stats.To > stats.From || stats.Runs == 0 || stats.Runs > 60 {
		t.Fatalf("shrunk run %s, stats %+v", shrunk.Status(), stats)
	}
	rep, err := BuildReport(shrunk, "fickle explore --replay ...")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.StaleReads) != stats.To && stats.To > 0 {
		t.Logf("the shrunk run has %d stale reads for %d kept choices", len(rep.StaleReads), stats.To)
	}
	text := rep.Text()
	for _, want := range []string{"want 6", "re-create it"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	for _, s := range rep.StaleReads {
		if s.Table != "counter" || s.Key != "1" || !strings.HasPrefix(s.SQL, "SELECT n FROM counter") && !strings.HasPrefix(s.SQL, "UPDATE counter") ||
			s.Connection == 0 || !strings.HasPrefix(s.ApplicationName, "worker-") || s.Served.Txn == s.Latest.Txn {
			t.Errorf("stale read not in the user's terms: %+v", s)
		}
	}
	if rep.Anomaly == nil {
		t.Errorf("the lost increment forms no anomaly:\n%s", text)
	}
	again, err := Replay(opts, mustLoad(t, shrunk.History), opts.Dir+"/replay-shrunk.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !again.Run.Failed() || !again.Exact {
		t.Fatalf("the shrunk run does not replay: %s, %v", again.Run.Status(), again.Divergence)
	}
}

func mustLoad(t *testing.T, path string) *Recording {
	t.Helper()
	rec, err := LoadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestExploreReportsNoFailureForACorrectCommand: the same counter with
// SELECT ... FOR UPDATE never loses an increment, and passing runs leave
// no files.
func TestExploreReportsNoFailureForACorrectCommand(t *testing.T) {
	opts := testOptions(t, "counter-locked")
	opts.Runs = 30
	if testing.Short() {
		opts.Runs = 8
	}
	sum, err := Explore(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failures) > 0 || sum.Runs != opts.Runs {
		f := sum.Failures[0]
		t.Fatalf("%d runs, %d failures; first: %s\n%s", sum.Runs, len(sum.Failures), f.Status(), f.Output)
	}
	if files, _ := os.ReadDir(opts.Dir); len(files) > 0 {
		t.Errorf("passing runs left %d files", len(files))
	}
}

// TestALockWaitIsOrderedAndReplays: a statement that waits for another
// connection's row lock hands the turn on (or the run would hang), its
// continuation after the lock is released has its place in the schedule,
// and the run replays exactly.
func TestALockWaitIsOrderedAndReplays(t *testing.T) {
	opts := testOptions(t, "lock-wait")
	opts.Runs, opts.Keep, opts.Timeout = 1, true, 20*time.Second
	sum, err := Explore(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failures) > 0 {
		t.Fatalf("the lock-wait run failed: %s\n%s", sum.Failures[0].Status(), sum.Failures[0].Output)
	}
	path := runFileName(opts.Dir, 1, "")
	rec := mustLoad(t, path)
	var order []string
	for _, st := range rec.Schedule {
		if st.Kind == stepExecute || st.Kind == stepCommit {
			order = append(order, fmt.Sprintf("%d %s %s", st.Session, st.Kind, st.Text))
		}
	}
	// Connections: 0 setup, 1 a, 2 b. b's commit releases the lock a waits
	// for; a's update, and its implicit commit, come after.
	want := []string{"2 execute UPDATE r SET v = 2 WHERE id = 1", "1 execute UPDATE r SET v = 1 WHERE id = 1", "2 commit ", "1 commit "}
	if !slices.Equal(filterSessions(order, "1 ", "2 "), want) {
		t.Fatalf("schedule of the two connections:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
	for i := range 3 {
		res, err := Replay(opts, rec, fmt.Sprintf("%s/replay-%d.jsonl", opts.Dir, i))
		if err != nil {
			t.Fatal(err)
		}
		if res.Run.Failed() || !res.Exact {
			t.Fatalf("replay %d: %s, %v", i+1, res.Run.Status(), res.Divergence)
		}
	}
}

// filterSessions keeps the lines of sessions with the given prefixes.
func filterSessions(lines []string, prefixes ...string) []string {
	var out []string
	for _, l := range lines {
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	return out
}

// TestAReplayThatLeavesItsRecordingSaysWhere: a recording whose next step
// the command does not make (here: a schedule edited to expect another
// statement) is a divergence that names the step expected and the one
// made, and the run still ends.
func TestAReplayThatLeavesItsRecordingSaysWhere(t *testing.T) {
	opts := testOptions(t, "counter-locked")
	opts.Runs, opts.Keep = 1, true
	if _, err := Explore(opts); err != nil {
		t.Fatal(err)
	}
	rec := mustLoad(t, runFileName(opts.Dir, 1, ""))
	edited := false
	for i, st := range rec.Schedule {
		if st.Kind == stepExecute && strings.HasPrefix(st.Text, "INSERT INTO counter") {
			rec.Schedule[i].Text = "INSERT INTO counter VALUES (2, 0)"
			edited = true
		}
	}
	if !edited {
		t.Fatal("no INSERT in the schedule")
	}
	res, err := Replay(opts, rec, opts.Dir+"/replay.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	d := res.Divergence
	if d == nil || res.Exact || d.Expected == nil || d.Expected.Text != "INSERT INTO counter VALUES (2, 0)" ||
		len(d.Got) != 1 || d.Got[0].Text != "INSERT INTO counter VALUES (1, 0)" ||
		!strings.Contains(d.Reason, "INSERT INTO counter VALUES (1, 0)") {
		t.Fatalf("divergence %+v", d)
	}
	if res.Run.Failed() {
		t.Fatalf("after the divergence the run should go on unordered: %s", res.Run.Status())
	}
}

// TestShardsTogetherRunTheRunsOfOneMachine: shards 1/3, 2/3 and 3/3 run
// disjoint sets of runs whose union, seeds included, is the runs of one
// unsharded exploration.
func TestShardsTogetherRunTheRunsOfOneMachine(t *testing.T) {
	collect := func(shard Shard) map[int]uint64 {
		opts := testOptions(t, "counter-locked")
		opts.Runs, opts.Shard, opts.Seed = 7, shard, 42
		var mu sync.Mutex
		got := map[int]uint64{}
		opts.Progress = func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			got[p.Last.Number] = p.Last.Seed
		}
		if _, err := Explore(opts); err != nil {
			t.Fatal(err)
		}
		return got
	}
	whole := collect(Shard{})
	union := map[int]uint64{}
	for k := 1; k <= 3; k++ {
		for n, seed := range collect(Shard{Index: k, Count: 3}) {
			if _, dup := union[n]; dup {
				t.Fatalf("run %d in two shards", n)
			}
			if (n-1)%3 != k-1 {
				t.Fatalf("shard %d/3 ran run %d", k, n)
			}
			union[n] = seed
		}
	}
	if !reflect.DeepEqual(whole, union) || len(whole) != 7 {
		t.Fatalf("one machine ran %v, the shards %v", whole, union)
	}
}

// TestParseShard pins the accepted and refused forms of --shard.
func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/3", Shard{1, 3}, true}, {"3/3", Shard{3, 3}, true}, {"1/1", Shard{1, 1}, true},
		{"0/3", Shard{}, false}, {"4/3", Shard{}, false}, {"1/0", Shard{}, false}, {"a/b", Shard{}, false},
		{"2", Shard{}, false}, {"", Shard{}, false}, {"1/3/5", Shard{}, false},
	} {
		got, err := ParseShard(c.in)
		var ue *UsageError
		if c.ok != (err == nil) || got != c.want || err != nil && !errors.As(err, &ue) {
			t.Errorf("ParseShard(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestBadCommandsAreUsageErrors: a command that does not exist and one
// that never connects are UsageErrors with one clear message; a command
// that runs too long fails its run as timed out.
func TestBadCommandsAreUsageErrors(t *testing.T) {
	opts := Options{Command: []string{"fickle-no-such-command"}, Dir: t.TempDir(), Runs: 1}
	_, err := Explore(opts)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `"fickle-no-such-command" not found`) {
		t.Errorf("missing command: %v", err)
	}
	opts = testOptions(t, "no-connect")
	opts.Runs = 3
	_, err = Explore(opts)
	if !errors.Is(err, ErrNeverConnected) || !errors.As(err, &ue) {
		t.Errorf("never connects: %v", err)
	}
	opts = testOptions(t, "hang")
	opts.Runs, opts.Timeout = 1, 3*time.Second // long enough for the command to start and connect on a loaded machine
	sum, err := Explore(opts)
	if err != nil || len(sum.Failures) != 1 || !sum.Failures[0].TimedOut || sum.Failures[0].Status() != "timed out" {
		t.Fatalf("hang: %v %+v", err, sum)
	}
}

// TestReplayRefusesAHistoryThatIsNotFickles: --replay of another file is
// a UsageError naming it.
func TestReplayRefusesAHistoryThatIsNotFickles(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"plume.txt":  "w(x,1,0,0)\n",
		"empty.json": "",
		"other.json": `{"format":"something-else","version":1}` + "\n",
	} {
		path := dir + "/" + name
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadRecording(path)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not a fickle history") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// staleReads counts the reads of h that were served an older version than
// the latest: the choices Shrink works on.
func staleReads(h *history.History) int {
	n := 0
	for _, t := range h.Txns {
		n += len(t.Stale)
	}
	return n
}
