package isolation

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
)

// postgresProfile is the engine's part of fickle serve --profile postgres.
func postgresProfile() Config {
	return Config{Strategy: StrategyLatest, Record: true, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}
}

// pgStep is one step of a profile scenario: session s does op on keys
// and gets want: "ok", the SQLSTATE of the error, or "ssi" for SSI's
// serialization failure (40001 naming a reason code, as PostgreSQL's do).
//
//	begin LEVEL | begin-ro LEVEL | read k... | scan | scan-v v (ScanIndex
//	of the unique index on the second column) | write k | insert k [v] |
//	lock k (Txn.LockRow for a write, RowLockNoKeyUpdate) | commit | rollback
type pgStep struct {
	s    int
	op   string
	want string
}

// runPGSteps runs steps on a fresh store with cfg and reports the first
// step whose outcome differs, then checks the recorded history with the
// oracle (real time included).
func runPGSteps(t *testing.T, cfg Config, steps []pgStep) {
	t.Helper()
	f := newFixture(t, cfg)
	seed := begin(t, f.s.NewSession(), history.ReadCommitted)
	for _, k := range []string{"x", "y", "z"} {
		_, err := seed.Insert(bg, f.tab, []byte(k), []any{k, nil})
		must(t, err)
	}
	must(t, seed.Commit(bg))
	sessions := map[int]*Session{}
	txns := map[int]*Txn{}
	for i, st := range steps {
		if sessions[st.s] == nil {
			sessions[st.s] = f.s.NewSession()
		}
		words := strings.Fields(st.op)
		tx := txns[st.s]
		if tx != nil {
			tx.Statement(history.Statement{SQL: st.op})
		}
		var err error
		switch words[0] {
		case "begin", "begin-ro":
			lv, perr := history.ParseLevel(words[1])
			must(t, perr)
			txns[st.s], err = sessions[st.s].Begin(TxnOptions{Level: lv, ReadOnly: words[0] == "begin-ro"})
		case "read":
			for _, k := range words[1:] {
				if _, _, err = tx.Get(bg, f.tab, []byte(k), ReadOptions{}); err != nil {
					break
				}
			}
		case "scan":
			err = tx.Scan(bg, f.tab, Span{}, ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil })
		case "write":
			err = tx.Update(bg, f.tab, []byte(words[1]), []any{words[1], nil})
		case "scan-v":
			err = tx.ScanIndex(bg, f.idx, ExactSpan([]byte(words[1])), ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil })
		case "insert":
			row := []any{words[1], nil}
			if len(words) > 2 {
				row[1] = words[2]
			}
			_, err = tx.Insert(bg, f.tab, []byte(words[1]), row)
		case "lock":
			_, err = tx.LockRow(bg, f.tab, []byte(words[1]), LockRequest{Mode: RowLockNoKeyUpdate, Write: true})
		case "commit":
			err = tx.Commit(bg)
		case "rollback":
			err = tx.Rollback()
		default:
			t.Fatalf("step %d: unknown op %q", i+1, st.op)
		}
		got := "ok"
		if err != nil {
			got = string(pgerror.GetCode(err))
			var pe *pgerror.Error
			if errors.As(err, &pe) && strings.HasPrefix(pe.Detail, "Reason code: ") {
				got = "ssi"
			}
		}
		if got != st.want {
			t.Fatalf("step %d (s%d %s): got %s (%v), want %s", i+1, st.s, st.op, got, err, st.want)
		}
	}
	h := f.s.History()
	if ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{RealTime: cfg.RealTime}, nil); err != nil || ex != nil {
		t.Fatalf("history fails its own commit order: %v %v", err, ex)
	}
}

// TestProfilePostgresFirstUpdaterWins pins PostgreSQL's REPEATABLE READ
// and SERIALIZABLE rule under Config.PostgresConcurrency: writing or
// locking a row whose latest version committed after the snapshot fails
// the statement with 40001, not the COMMIT; a row committed before the
// snapshot, or changed by no one, is written. The axiomatic engine lets
// the SER write through and decides at COMMIT.
func TestProfilePostgresFirstUpdaterWins(t *testing.T) {
	const ser = "40001"
	cases := []struct {
		name  string
		cfg   Config
		steps []pgStep
	}{
		{"SI update after a concurrent update", postgresProfile(), []pgStep{
			{1, "begin SI", "ok"}, {1, "read z", "ok"},
			{2, "begin SI", "ok"}, {2, "write x", "ok"}, {2, "commit", "ok"},
			{1, "write x", ser}, {1, "rollback", "ok"}}},
		{"SER update after a concurrent update", postgresProfile(), []pgStep{
			{1, "begin SER", "ok"}, {1, "read z", "ok"},
			{2, "begin SER", "ok"}, {2, "write x", "ok"}, {2, "commit", "ok"},
			{1, "write x", ser}, {1, "commit", ser}}},
		{"SER lock for write after a concurrent delete-free update", postgresProfile(), []pgStep{
			{1, "begin SER", "ok"}, {1, "read z", "ok"},
			{2, "begin RC", "ok"}, {2, "write x", "ok"}, {2, "commit", "ok"},
			{1, "lock x", ser}}},
		{"SER update of a row committed before the snapshot", postgresProfile(), []pgStep{
			{2, "begin SER", "ok"}, {2, "write x", "ok"}, {2, "commit", "ok"},
			{1, "begin SER", "ok"}, {1, "read x", "ok"}, {1, "write x", "ok"}, {1, "commit", "ok"}}},
		{"SER update of an unchanged row", postgresProfile(), []pgStep{
			{1, "begin SER", "ok"}, {1, "read z", "ok"},
			{2, "begin SER", "ok"}, {2, "write y", "ok"}, {2, "commit", "ok"},
			{1, "write x", "ok"}, {1, "commit", "ok"}}},
		{"axiomatic SER update after a concurrent update fails at commit", Config{Record: true, RealTime: true}, []pgStep{
			{1, "begin SER", "ok"}, {1, "read x", "ok"},
			{2, "begin SER", "ok"}, {2, "write x", "ok"}, {2, "commit", "ok"},
			{1, "write x", "ok"}, {1, "commit", ser}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runPGSteps(t, c.cfg, c.steps) })
	}
}

// TestProfilePostgresSSIDangerousStructures pins the SSI emulation on
// PostgreSQL's dangerous structures T_in -rw-> T_pivot -rw-> T_out: where
// each fails (the statement that closes the structure, the COMMIT, or the
// next read of a doomed pivot), and that structures PostgreSQL lets
// commit (no T_in; a read-only T_in that took its snapshot before T_out
// committed) commit.
func TestProfilePostgresSSIDangerousStructures(t *testing.T) {
	const ser = "ssi"
	cases := []struct {
		name  string
		steps []pgStep
	}{
		{"write skew: the second committer fails at commit", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin SER", "ok"},
			{1, "read x y", "ok"}, {2, "read x y", "ok"},
			{1, "write x", "ok"}, {2, "write y", "ok"},
			{1, "commit", "ok"}, {2, "commit", ser}}},
		{"predicate write skew: inserts into scanned tables", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin SER", "ok"},
			{1, "scan", "ok"}, {2, "scan", "ok"},
			{1, "insert a", "ok"}, {2, "insert b", "ok"},
			{1, "commit", "ok"}, {2, "commit", ser}}},
		{"index-range write skew: inserts into scanned index ranges", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin SER", "ok"},
			{1, "scan-v 5", "ok"}, {2, "scan-v 6", "ok"},
			{1, "insert a 6", "ok"}, {2, "insert b 5", "ok"},
			{1, "commit", "ok"}, {2, "commit", ser}}},
		{"inserts outside the scanned index ranges do not conflict", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin SER", "ok"},
			{1, "scan-v 5", "ok"}, {2, "scan-v 6", "ok"},
			{1, "insert a 7", "ok"}, {2, "insert b 8", "ok"},
			{1, "commit", "ok"}, {2, "commit", "ok"}}},
		{"read-only anomaly: the pivot's write fails", []pgStep{
			{1, "begin SER", "ok"}, {1, "read x y", "ok"},
			{2, "begin SER", "ok"}, {2, "write y", "ok"}, {2, "commit", "ok"},
			{3, "begin SER", "ok"}, {3, "read x y", "ok"}, {3, "commit", "ok"},
			{1, "write x", ser}, {1, "rollback", "ok"}}},
		{"read-only T_in whose snapshot predates T_out's commit is harmless", []pgStep{
			{1, "begin SER", "ok"}, {1, "read x y", "ok"},
			{3, "begin-ro SER", "ok"}, {3, "read z", "ok"},
			{2, "begin SER", "ok"}, {2, "write y", "ok"}, {2, "commit", "ok"},
			{3, "read x", "ok"},
			{1, "write x", "ok"}, {1, "commit", "ok"},
			{3, "commit", "ok"}}},
		{"the same T_in not declared read-only makes the pivot's write fail", []pgStep{
			{1, "begin SER", "ok"}, {1, "read x y", "ok"},
			{3, "begin SER", "ok"}, {3, "read z", "ok"},
			{2, "begin SER", "ok"}, {2, "write y", "ok"}, {2, "commit", "ok"},
			{3, "read x", "ok"},
			{1, "write x", ser}, {1, "rollback", "ok"},
			{3, "commit", "ok"}}},
		{"rw chain without T_in commits", []pgStep{
			{1, "begin SER", "ok"}, {1, "read x", "ok"},
			{2, "begin SER", "ok"}, {2, "write x", "ok"}, {2, "commit", "ok"},
			{1, "write y", "ok"}, {1, "commit", "ok"}}},
		{"T_out's commit dooms the pending pivot: its next read fails", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin SER", "ok"},
			{1, "write x", "ok"}, {2, "write y", "ok"},
			{1, "read y", "ok"}, {2, "read x", "ok"},
			{1, "commit", "ok"}, {2, "read z", ser}, {2, "rollback", "ok"}}},
		{"the doomed pivot's read of its own write fails too", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin SER", "ok"},
			{1, "write x", "ok"}, {2, "write y", "ok"},
			{1, "read y", "ok"}, {2, "read x", "ok"},
			{1, "commit", "ok"}, {2, "read y", ser}, {2, "rollback", "ok"}}},
		{"RC and SER never conflict", []pgStep{
			{1, "begin SER", "ok"}, {2, "begin RC", "ok"},
			{1, "read x y", "ok"}, {2, "read x y", "ok"},
			{1, "write x", "ok"}, {2, "write y", "ok"},
			{1, "commit", "ok"}, {2, "commit", "ok"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runPGSteps(t, postgresProfile(), c.steps) })
	}
}

// TestProfilePostgresAxiomaticDefaultUnchanged pins that the structures
// SSI fails early are decided at COMMIT by the axioms without the
// profile: the read-only anomaly's pivot writes, then cannot commit.
func TestProfilePostgresAxiomaticDefaultUnchanged(t *testing.T) {
	runPGSteps(t, Config{Strategy: StrategyLatest, Record: true, RealTime: true}, []pgStep{
		{1, "begin SER", "ok"}, {1, "read x y", "ok"},
		{2, "begin SER", "ok"}, {2, "write y", "ok"}, {2, "commit", "ok"},
		{3, "begin SER", "ok"}, {3, "read x y", "ok"}, {3, "commit", "ok"},
		{1, "write x", "ok"}, {1, "commit", "40001"}})
}

// TestProfilePostgresHistoriesSatisfyTheStrictLevels runs random
// mixed-level workloads under Config.PostgresConcurrency (first-updater-
// wins, first-statement snapshots and SSI on top of the levels) with the
// latest and adversarial strategies, and checks every history with the
// oracle's strict variants: what the profile adds must never make a
// history the axioms forbid. Some transactions must fail SSI's way, so
// that the test exercises it.
func TestProfilePostgresHistoriesSatisfyTheStrictLevels(t *testing.T) {
	cases := 300
	if *longSoundness {
		cases = 30000
	}
	opts := oracle.Options{RealTime: true}
	aborted := 0
	for c := range cases {
		rng := rand.New(rand.NewPCG(uint64(c), 17))
		w := genWorkload(rng, 8+8*(c%2))
		cfg := postgresProfile()
		if c%2 == 1 {
			cfg.Strategy, cfg.Seed = StrategyAdversarial, uint64(c)
		}
		s, err := runWorkload(w, cfg, rng)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		h := s.History()
		if ex, err := oracle.CheckOrder(h, h.CommitOrder, opts, nil); err != nil || ex != nil {
			t.Fatalf("case %d: the oracle rejects the recorded co: %v %+v\n%s", c, err, ex, dumpHistory(h))
		}
		if r := oracle.Check(h, opts); r.Verdict != oracle.Consistent {
			t.Fatalf("case %d: the oracle says %s: %+v\n%s", c, r.Verdict, r.Explanation, dumpHistory(h))
		}
		for _, tx := range h.Txns {
			if tx.Outcome == history.ServerAborted && tx.Level == history.Serializable {
				aborted++
			}
		}
	}
	if aborted == 0 {
		t.Fatal("no SER transaction was aborted: the workloads do not exercise SSI")
	}
	t.Logf("%d SER transactions aborted by the server over %d workloads", aborted, cases)
}
