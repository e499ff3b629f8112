package isolation

import (
	"fmt"
	"math/rand/v2"
	"os"
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
// testdata/power.txt (-rewrite regenerates it).
func TestAdversarialPowerReachesTheOutcomesTheAxiomsAllow(t *testing.T) {
	const programs, runs = 24, 600
	rng := rand.New(rand.NewPCG(2024, 1))
	reached := map[history.Level][2]int{}
	for pi := range programs {
		p := genPowerProgram(rng)
		for _, level := range history.Levels {
			allowed := allowedOutcomes(p, level)
			got := map[string]bool{}
			for r := range runs {
				strat := StrategyAdversarial
				if r%2 == 1 {
					strat = StrategyRandom
				}
				res, err := runProgram(p, level, strat, uint64(r), rand.New(rand.NewPCG(uint64(r), uint64(pi))))
				if err != nil {
					t.Fatal(err)
				}
				if !res.committed {
					continue
				}
				key := fmt.Sprint(res.reads)
				if !allowed[key] {
					t.Fatalf("program %d at %s: the engine produced %s, which the axioms forbid\n%s", pi, level, key, dumpHistory(res.h))
				}
				got[key] = true
			}
			c := reached[level]
			c[0] += len(got)
			c[1] += len(allowed)
			reached[level] = c
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# outcomes reached by the engine / allowed by the axioms, over %d programs\n", programs)
	for _, level := range history.Levels {
		c := reached[level]
		fmt.Fprintf(&out, "%-3s %4d / %4d  %5.1f%%\n", level, c[0], c[1], 100*float64(c[0])/float64(c[1]))
	}
	const golden = "testdata/power.txt"
	if *rewrite {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != out.String() {
		t.Errorf("adversarial power changed (run with -rewrite if intended):\n%s", out.String())
	}
	t.Log("\n" + out.String())
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
