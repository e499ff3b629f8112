package isolation

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestAdversarialPowerReachesTheOutcomesTheAxiomsAllow enumerates, for
// small random programs (2 or 3 sessions, 1 or 2 transactions of 1 to 3
// operations on 2 keys, every write a distinct value), every outcome (the
// value each read returns, every transaction committed) that the axioms
// allow at each level, and every outcome the engine produces over many
// interleavings and seeds. The engine must never produce an outcome the
// axioms forbid; the fraction it reaches per level is pinned in
// testdata/power.txt (-rewrite regenerates it). The engine's outcomes are
// enumerated exhaustively: every serial order of the transactions and
// every choice the engine makes (versions, places in co) through the
// chooser hook. With -long it explores 60 programs instead of 8. Writes
// are blind (Txn.Update), as in the pure axioms and --stale-writes; that
// SQL writes compute on the latest row (Txn.LockRow) is measured through
// SQL by integration's anomaly table.
func TestAdversarialPowerReachesTheOutcomesTheAxiomsAllow(t *testing.T) {
	programs, budget := 8, 4000
	if *longSoundness {
		programs, budget = 60, 50000
	}
	out, _ := measurePower(t, programs, budget, Config{}, nil)
	t.Log("\n" + out)
	if *longSoundness {
		return // the golden file pins the default run
	}
	checkGolden(t, "testdata/power.txt", out)
}

// TestAdversarialPowerUnderAStalenessHorizon measures what keeping the
// versions of only the last 1 to 3 transactions (Config.MaxStaleness)
// costs in adversarial power, on the programs of the power test: the
// engine still never produces an outcome the axioms forbid, and the
// fraction of the allowed ones it reaches is pinned in
// testdata/power_horizon.txt (-rewrite regenerates it), over the programs
// the test without a horizon explores. The programs have at most 6
// transactions, so from MaxStaleness 6 on nothing is lost.
func TestAdversarialPowerUnderAStalenessHorizon(t *testing.T) {
	programs, budget := 8, 4000
	if *longSoundness {
		programs, budget = 60, 50000
	}
	_, explored := measurePower(t, programs, budget, Config{}, nil)
	var out strings.Builder
	for _, n := range []int{1, 2, 3} {
		got, _ := measurePower(t, programs, budget, Config{MaxStaleness: n}, explored)
		fmt.Fprintf(&out, "# MaxStaleness %d\n%s", n, got)
	}
	t.Log("\n" + out.String())
	if !*longSoundness {
		checkGolden(t, "testdata/power_horizon.txt", out.String())
	}
}

// measurePower explores random programs exhaustively on stores configured
// by cfg (only the ones in only, when set) and returns, per level, how many
// of the outcomes the axioms allow the engine produced, and which programs
// it explored within budget runs per level; it fails on an outcome the
// axioms forbid.
func measurePower(t *testing.T, programs, budget int, cfg Config, only map[int]bool) (string, map[int]bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(2024, 1))
	reached := map[history.Level][2]int{}
	explored := map[int]bool{}
	for pi := range programs {
		p := genPowerProgram(rng)
		if only != nil && !only[pi] {
			continue
		}
		complete := true
		got := map[history.Level]map[string]bool{}
		for _, level := range history.Levels {
			got[level] = map[string]bool{}
			d := &dfs{}
			runs := 0
			for {
				r, err := runSerial(p, level, cfg, d.choose)
				if err != nil {
					t.Fatal(err)
				}
				if r.committed {
					got[level][fmt.Sprint(r.reads)] = true
				}
				if runs++; !d.next() {
					break
				}
				if runs == budget {
					complete = false
					break
				}
			}
			if !complete {
				break
			}
		}
		if !complete {
			continue
		}
		explored[pi] = true
		for _, level := range history.Levels {
			allowed := allowedOutcomes(p, level)
			for key := range got[level] {
				if !allowed[key] {
					t.Fatalf("program %d at %s: the engine produced %s, which the axioms forbid: %+v", pi, level, key, p.txns)
				}
			}
			c := reached[level]
			c[0] += len(got[level])
			c[1] += len(allowed)
			reached[level] = c
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# outcomes the engine can produce / outcomes the axioms allow, over %d small programs explored exhaustively\n", len(explored))
	for _, level := range history.Levels {
		c := reached[level]
		fmt.Fprintf(&out, "%-3s %4d / %4d  %5.1f%%\n", level, c[0], c[1], 100*float64(c[0])/float64(c[1]))
	}
	return out.String(), explored
}

// dfs enumerates the sequences of choices of a deterministic run, depth
// first: choose answers from the current prefix and extends it with 0;
// next moves to the following sequence.
type dfs struct {
	prefix, widths []int
	pos            int
}

func (d *dfs) choose(n int) int {
	if d.pos == len(d.prefix) {
		d.prefix = append(d.prefix, 0)
	}
	d.widths = append(d.widths, n)
	d.pos++
	return d.prefix[d.pos-1]
}

func (d *dfs) next() bool {
	for i := len(d.widths) - 1; i >= 0; i-- {
		if d.prefix[i]+1 < d.widths[i] {
			d.prefix = d.prefix[:i+1]
			d.prefix[i]++
			d.widths, d.pos = d.widths[:0], 0
			return true
		}
	}
	return false
}

// runSerial runs p's transactions one at a time, in the session order the
// chooser picks at every transaction boundary, with every engine choice
// (versions, places in co) made by the chooser too.
func runSerial(p program, level history.Level, cfg Config, choose func(int) int) (run, error) {
	cfg.Record = true
	s := NewStore(cfg)
	s.e.chooser = choose
	tab, err := s.CreateTable(TableSpec{Name: "t"})
	if err != nil {
		return run{}, err
	}
	sessions := map[int]*Session{}
	queues := map[int][]int{}
	var ids []int
	for i, t := range p.txns {
		if _, ok := sessions[t.session]; !ok {
			sessions[t.session] = s.NewSession()
			ids = append(ids, t.session)
		}
		queues[t.session] = append(queues[t.session], i)
	}
	out := run{committed: true}
	reads := map[int][]int{}
	for {
		var ready []int
		for _, id := range ids {
			if len(queues[id]) > 0 {
				ready = append(ready, id)
			}
		}
		if len(ready) == 0 {
			break
		}
		sid := ready[choose(len(ready))]
		ti := queues[sid][0]
		queues[sid] = queues[sid][1:]
		tx, err := sessions[sid].Begin(TxnOptions{Level: level})
		if err != nil {
			return out, err
		}
		failed := false
		for _, op := range p.txns[ti].ops {
			if op.write {
				err = tx.Update(bg, tab, []byte(op.key), []any{op.val})
			} else {
				var row []any
				var ok bool
				row, ok, err = tx.Get(bg, tab, []byte(op.key), ReadOptions{})
				v := 0
				if ok {
					v = row[0].(int)
				}
				reads[ti] = append(reads[ti], v)
			}
			if err != nil {
				failed = true
				break
			}
		}
		if failed {
			_ = tx.Rollback()
			out.committed = false
		} else if err := tx.Commit(bg); err != nil {
			out.committed = false
		}
	}
	for i := range p.txns {
		out.reads = append(out.reads, reads[i]...)
	}
	return out, nil
}

// genPowerProgram draws a small program whose writes all have distinct
// values, so that a read's value names its writer.
func genPowerProgram(rng *rand.Rand) program {
	var p program
	val := 0
	for s := range 2 + rng.IntN(2) {
		for range 1 + rng.IntN(2) {
			t := ptxn{session: s}
			for range 1 + rng.IntN(3) {
				op := pop{key: []string{"x", "y"}[rng.IntN(2)], write: rng.IntN(2) == 0}
				if op.write {
					val++
					op.val = val
				}
				t.ops = append(t.ops, op)
			}
			p.txns = append(p.txns, t)
		}
	}
	return p
}

// allowedOutcomes enumerates every assignment of a writer to each read of p
// (init, or another transaction's last write of the key; a read after the
// transaction's own write returns that) and keeps those whose history, all
// transactions committed at level, some commit order satisfies.
func allowedOutcomes(p program, level history.Level) map[string]bool {
	type slot struct {
		txn, op int
		own     int   // the value of the transaction's own earlier write, or -1
		cands   []int // values it may read
	}
	lastWrite := make([]map[string]int, len(p.txns))
	for i, t := range p.txns {
		lastWrite[i] = map[string]int{}
		for _, op := range t.ops {
			if op.write {
				lastWrite[i][op.key] = op.val
			}
		}
	}
	var slots []slot
	for i, t := range p.txns {
		mine := map[string]int{}
		for j, op := range t.ops {
			if op.write {
				mine[op.key] = op.val
				continue
			}
			s := slot{txn: i, op: j, own: -1}
			if v, ok := mine[op.key]; ok {
				s.own = v
				s.cands = []int{v}
			} else {
				s.cands = []int{0}
				for k, lw := range lastWrite {
					if v, ok := lw[op.key]; ok && k != i {
						s.cands = append(s.cands, v)
					}
				}
			}
			slots = append(slots, s)
		}
	}
	writerOf := map[int]int{} // value -> program txn
	for i, t := range p.txns {
		for _, op := range t.ops {
			if op.write {
				writerOf[op.val] = i
			}
		}
	}
	out := map[string]bool{}
	choice := make([]int, len(slots))
	var walk func(i int)
	walk = func(i int) {
		if i < len(slots) {
			for _, v := range slots[i].cands {
				choice[i] = v
				walk(i + 1)
			}
			return
		}
		h := &history.History{}
		sessions := map[int]history.SessionID{}
		h.Txns = append(h.Txns, history.Txn{ID: history.Init, Session: noSession, Outcome: history.Committed})
		for ti, t := range p.txns {
			sid, ok := sessions[t.session]
			if !ok {
				sid = history.SessionID(len(h.Sessions))
				sessions[t.session] = sid
				h.Sessions = append(h.Sessions, history.Session{ID: sid})
			}
			id := history.TxnID(ti + 1)
			h.Sessions[sid].Txns = append(h.Sessions[sid].Txns, id)
			h.Txns = append(h.Txns, history.Txn{ID: id, Session: sid, Level: level, Outcome: history.Committed})
		}
		si := 0
		for ti, t := range p.txns {
			ht := &h.Txns[ti+1]
			for j, op := range t.ops {
				k := h.Intern(history.Key{Table: "t", Name: op.key})
				if op.write {
					ht.Ops = append(ht.Ops, history.Op{Kind: history.OpWrite, Key: k, Event: uint32(j), Writer: ht.ID})
					continue
				}
				v := choice[si]
				si++
				w := history.Init
				if v != 0 {
					w = history.TxnID(writerOf[v] + 1)
				}
				ht.Ops = append(ht.Ops, history.Op{Kind: history.OpRead, Key: k, Event: uint32(j), Writer: w})
			}
		}
		if bruteCheck(h) == "" {
			out[fmt.Sprint(choice)] = true
		}
	}
	walk(0)
	return out
}
