package isolation

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
)

// TestSoundnessUnderAStalenessHorizon drives the random workloads of the
// soundness test through stores that keep only the versions of the last
// 1 to 4 transactions of co (Config.MaxStaleness), or of the last ones that
// keep 3 to 22 entries (MaxKept), or both, so that the horizon moves
// several times in every run, with and without real time and
// PostgreSQL's statement snapshots: every history must satisfy its levels
// (the brute-force reading of the axioms and the oracle, against the
// recorded co), and transactions the horizon dooms are server aborts.
func TestSoundnessUnderAStalenessHorizon(t *testing.T) {
	cases := 400
	if *longSoundness {
		cases = 50000
	}
	if testing.Short() {
		cases = 100
	}
	first := 0
	if *soundnessCase >= 0 {
		first, cases = *soundnessCase, *soundnessCase+1
	}
	var txns, aborts int
	for c := first; c < cases; c++ {
		rng := rand.New(rand.NewPCG(uint64(c), 13))
		w := genWorkload(rng, 24)
		strat := strategies[c%len(strategies)]
		cfg := Config{Strategy: strat, Seed: uint64(c), MaxStaleness: 1 + c%4}
		switch c % 3 {
		case 1: // a bound in entries kept only
			cfg.MaxStaleness, cfg.MaxKept = 0, 3+c%20
		case 2:
			cfg.MaxKept = 3 + c%20
		}
		opts := oracle.Options{}
		if c%5 == 4 {
			cfg.RealTime, cfg.StatementSnapshots = true, c%2 == 0
			opts.RealTime = true
		}
		s, err := runWorkload(w, cfg, rng)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		h := s.History()
		if err := h.Validate(); err != nil {
			t.Fatalf("case %d: invalid history: %v\n%s", c, err, dumpHistory(h))
		}
		if !opts.RealTime {
			if why := bruteCheck(h); why != "" {
				t.Fatalf("case %d (strategy %d): %s\n%s", c, strat, why, dumpHistory(h))
			}
		}
		if ex, err := oracle.CheckOrder(h, h.CommitOrder, opts, nil); err != nil || ex != nil {
			t.Fatalf("case %d (strategy %d): the oracle rejects the recorded co: %v %+v\n%s", c, strat, err, ex, dumpHistory(h))
		}
		if r := oracle.Check(h, opts); r.Verdict != oracle.Consistent {
			t.Fatalf("case %d (strategy %d): the oracle says %s: %+v\n%s", c, strat, r.Verdict, r.Explanation, dumpHistory(h))
		}
		for _, tx := range h.Txns[1:] {
			if tx.Outcome == history.ServerAborted {
				aborts++
			}
		}
		txns += len(h.Txns) - 1
	}
	t.Logf("%d workloads, %d transactions, %d server aborts", cases-first, txns, aborts)
}

// horizonRun runs random transactions on a store with an index on its
// rows' value modulo 4: every tenth transaction in a new session (closing
// the last), levels in turn, two reads and an update of hot keys (an
// insert or a delete of a cold one now and then), one in seven rolled back.
type horizonRun struct {
	s    *Store
	tab  TableID
	rng  *rand.Rand
	sess *Session
	i    int
}

func newHorizonRun(t *testing.T, cfg Config) *horizonRun {
	t.Helper()
	s := NewStore(cfg)
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	_, err = s.CreateIndex(tab, IndexSpec{Name: "t_v", Key: func(_ []byte, row []any) ([]byte, bool) {
		return bucketKey(row[0].(int) % 4), false
	}})
	must(t, err)
	return &horizonRun{s: s, tab: tab, rng: rand.New(rand.NewPCG(1, 2))}
}

// run runs n more transactions.
func (r *horizonRun) run(t *testing.T, n int) {
	t.Helper()
	for end := r.i + n; r.i < end; r.i++ {
		if r.i%10 == 0 {
			if r.sess != nil {
				r.sess.Close()
			}
			r.sess = r.s.NewSession()
		}
		tx, err := r.sess.Begin(TxnOptions{Level: history.Levels[r.i%len(history.Levels)]})
		must(t, err)
		if err := r.txn(tx); err != nil {
			wantCode(t, err, pgerror.SerializationFailure)
			must(t, tx.Rollback())
			continue
		}
		if r.i%7 == 3 {
			must(t, tx.Rollback())
			continue
		}
		if err := tx.Commit(bg); err != nil {
			wantCode(t, err, pgerror.SerializationFailure)
		}
	}
}

func (r *horizonRun) txn(tx *Txn) error {
	hot := func() []byte { return fmt.Appendf(nil, "h%d", r.rng.IntN(5)) }
	tx.Statement(history.Statement{SQL: "select"})
	for range 2 {
		if _, _, err := tx.Get(bg, r.tab, hot(), ReadOptions{}); err != nil {
			return err
		}
	}
	tx.Statement(history.Statement{SQL: "update"})
	if err := tx.Update(bg, r.tab, hot(), []any{r.rng.IntN(100)}); err != nil {
		return err
	}
	cold := fmt.Appendf(nil, "c%d", r.rng.IntN(5))
	switch r.rng.IntN(4) {
	case 0:
		tx.Statement(history.Statement{SQL: "insert"})
		if _, err := tx.Insert(bg, r.tab, cold, []any{r.rng.IntN(100)}); pgerror.GetCode(err) != pgerror.UniqueViolation {
			return err
		}
	case 1:
		tx.Statement(history.Statement{SQL: "delete"})
		return tx.Delete(bg, r.tab, cold)
	}
	return nil
}

// TestHorizonBoundsWhatTheStoreKeeps runs thousands of transactions through
// a store that keeps the versions of the last 50 and checks that what it
// holds stays bounded by that, not by the run's length: places in co,
// versions, index entries (every one given by a kept version), the keys
// awaiting collection, the readers a key remembers, clocks; that the
// recorded history still satisfies its levels; and, without a recorded
// history, that the live heap does not grow from the middle of a run to its
// end.
func TestHorizonBoundsWhatTheStoreKeeps(t *testing.T) {
	const keep = 50
	bound := keep + collectSlack(keep) + 1 // transactions after the horizon
	r := newHorizonRun(t, Config{Strategy: StrategyAdversarial, Record: true, MaxStaleness: keep})
	r.run(t, 3000)
	e := r.s.e
	if e.co.n > bound+1 {
		t.Errorf("co holds %d places, want at most %d", e.co.n, bound+1)
	}
	tb := e.tables[r.tab]
	versions := 0
	tb.keys.Scan(func(k string, ks *keyState) bool {
		versions += len(ks.versions())
		if len(ks.windowReaders()) > bound {
			t.Errorf("key %s remembers %d readers, want at most %d", k, len(ks.windowReaders()), bound)
		}
		return true
	})
	if most := tb.keys.Len() + 2*bound; versions > most {
		t.Errorf("%d versions of %d keys kept, want at most %d", versions, tb.keys.Len(), most)
	}
	if len(e.dirty) > tb.keys.Len() {
		t.Errorf("%d keys await collection, more than the %d keys", len(e.dirty), tb.keys.Len())
	}
	ix := tb.indexes[0]
	ix.entries.Scan(func(ik string, ent *indexEntry) bool {
		for _, ks := range ent.list() {
			if ent.has(ks) && !e.indexed(tb, ix, ks, ik) {
				t.Errorf("index entry %x lists %s, which no kept version puts there", ik, ks.key)
			}
		}
		if len(ent.list()) > 2*ent.size()+8 {
			t.Errorf("index entry %x keeps %d keys for %d live ones", ik, len(ent.list()), ent.size())
		}
		return true
	})
	for sess := range e.open {
		if len(sess.vc) > bound {
			t.Errorf("a session's clock has %d entries, want at most %d", len(sess.vc), bound)
		}
	}
	h := r.s.History()
	if ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{}, nil); err != nil || ex != nil {
		t.Fatalf("the oracle rejects the recorded co: %v %+v", err, ex)
	}

	r = newHorizonRun(t, Config{Strategy: StrategyAdversarial, MaxStaleness: keep})
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	r.run(t, 10000)
	mid := heap()
	r.run(t, 10000)
	end := heap()
	runtime.KeepAlive(r)
	if end > mid+256<<10 {
		t.Errorf("the live heap grew from %d to %d bytes over the last 10,000 transactions", mid, end)
	}
}

// TestHorizonDoomsOnlyTransactionsThatNeedWhatItCollected: with versions
// kept for the last 2 transactions, a transaction reads a key, then 5
// updates of the hot key x commit and it reads again. At READ COMMITTED it
// goes on (its later reads only need a floor, which the horizon raises);
// at the other levels it goes on when it read the cold key y, whose version
// stays the base, and fails with 40001 "snapshot too old" when it read x,
// whose version was collected (no snapshot at or after the horizon, no
// staleness check of a later read, explains that read any more). The
// failed transactions are recorded as server aborts and every history
// satisfies its levels.
func TestHorizonDoomsOnlyTransactionsThatNeedWhatItCollected(t *testing.T) {
	for _, level := range history.Levels {
		for _, key := range []string{"x", "y"} {
			tooOld := key == "x" && level != history.ReadCommitted
			t.Run(fmt.Sprintf("%s_reads_%s", level, key), func(t *testing.T) {
				f := newFixture(t, Config{Record: true, MaxStaleness: 2})
				w := f.s.NewSession()
				update := func(v int) {
					tx := begin(t, w, history.ReadCommitted)
					must(t, tx.Update(bg, f.tab, []byte("x"), []any{v, nil}))
					must(t, tx.Commit(bg))
				}
				update(0)
				reader := begin(t, f.s.NewSession(), level)
				_, _, err := reader.Get(bg, f.tab, []byte(key), ReadOptions{})
				must(t, err)
				for v := 1; v <= 5; v++ {
					update(v)
				}
				_, _, err = reader.Get(bg, f.tab, []byte("z"), ReadOptions{})
				if tooOld {
					wantCode(t, err, pgerror.SerializationFailure)
					if !strings.Contains(err.Error(), "snapshot too old") {
						t.Fatalf("error %v, want snapshot too old", err)
					}
					must(t, reader.Rollback())
				} else {
					must(t, err)
					must(t, reader.Commit(bg))
				}
				h := f.s.History()
				if got := h.Txns[reader.ID()].Outcome; (got == history.ServerAborted) != tooOld {
					t.Fatalf("the reader ended %s", got)
				}
				if ex, err := oracle.CheckOrder(h, h.CommitOrder, oracle.Options{}, nil); err != nil || ex != nil {
					t.Fatalf("the oracle rejects the recorded co: %v %+v\n%s", err, ex, dumpHistory(h))
				}
			})
		}
	}
}

// TestMaxKeptBoundsTheReadSetsKeptAfterTheHorizon: snapshot transactions
// that each scan a 200-row table keep their reads while they follow the
// horizon (later writers are placed by them); with MaxKept 2,000 what the
// ended ones keep stays near that, however many scanned.
func TestMaxKeptBoundsTheReadSetsKeptAfterTheHorizon(t *testing.T) {
	const kept = 2000
	f := newFixture(t, Config{Strategy: StrategyAdversarial, MaxKept: kept})
	s := f.s.NewSession()
	load := begin(t, s, history.ReadCommitted)
	for k := range 200 {
		_, err := load.Insert(bg, f.tab, fmt.Appendf(nil, "k%03d", k), []any{k, nil})
		must(t, err)
	}
	must(t, load.Commit(bg))
	for i := range 300 {
		tx := begin(t, s, history.Snapshot)
		must(t, tx.Scan(bg, f.tab, Span{}, ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil }))
		must(t, tx.Update(bg, f.tab, fmt.Appendf(nil, "k%03d", i%200), []any{i, nil}))
		if err := tx.Commit(bg); err != nil {
			wantCode(t, err, pgerror.SerializationFailure)
		}
	}
	e := f.s.e
	reads := 0
	for nd := e.co.head.next; nd != nil; nd = nd.next {
		if nd.t.rd != nil {
			reads += len(nd.t.rd.reads)
		}
	}
	if most := kept + collectSlack(kept) + 201; e.kept > most || reads > most {
		t.Fatalf("the transactions after the horizon keep %d entries, %d of them reads; want at most %d", e.kept, reads, most)
	}
}
