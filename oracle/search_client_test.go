package oracle

import (
	"math/rand/v2"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// matchTable is a ClientReads.Matches over a fixed set of matching
// (writer, key) versions, the same predicate for every statement.
type matchTable map[[2]uint32]bool

func (m matchTable) matches(_ history.TxnID, _ uint32, key history.KeyID, writer history.TxnID) bool {
	return m[[2]uint32{uint32(writer), uint32(key)}]
}

// TestCheckClientFillsInFilteredRows: a row a predicate read did not return
// must have been seen in a version that fails the predicate.
func TestCheckClientFillsInFilteredRows(t *testing.T) {
	// T1 writes x and y; T2 returns y's initial row, then a predicate read
	// over x returns nothing. Init's x matches the predicate and T1's does
	// not, so T2 saw T1's x: a fractured read, fine at RC only.
	b := history.NewBuilder()
	s1, s2 := b.Session("S1"), b.Session("S2")
	t1 := b.Txn(s1, history.Serializable).Write("x").Write("y").Commit()
	t2 := b.Txn(s2, history.Serializable).Read("y", history.Init).Commit()
	h := b.MustHistory()
	x := h.Intern(history.Key{Name: "x"})
	h.Txns[t2].Statements = []history.Statement{{}, {Predicate: "x <= 0"}}
	matches := matchTable{{uint32(history.Init), uint32(x)}: true}
	c := ClientReads{Missing: []MissingRead{{Txn: t2, Event: 1, Key: x}}, Matches: matches.matches}
	for _, level := range history.Levels {
		want := Violation
		if level == history.ReadCommitted {
			want = Consistent
		}
		v, co, _ := CheckClient(h, c, Options{Level: level})
		if v != want {
			t.Errorf("%s: CheckClient = %v, want %v", level, v, want)
		}
		if v == Consistent && (len(co) != 3 || co[1] != t1) {
			t.Errorf("%s: witness %v, want T1 before T2", level, co)
		}
	}
	// If nothing matches, the filtered row constrains nothing.
	c.Matches = matchTable{}.matches
	if v, _, _ := CheckClient(h, c, Options{Level: history.Serializable}); v != Consistent {
		t.Errorf("no matching version: CheckClient = %v, want consistent", v)
	}
	// If every version matches, the row could not have been filtered out.
	c.Matches = matchTable{{uint32(history.Init), uint32(x)}: true, {uint32(t1), uint32(x)}: true}.matches
	if v, _, _ := CheckClient(h, c, Options{Level: history.ReadCommitted}); v != Violation {
		t.Errorf("every version matches: CheckClient = %v, want violation", v)
	}
}

// TestPropertyCheckClientAgreesWithBruteForce: on random small histories with
// some reads removed (a random predicate under which the removed version
// fails), CheckClient is consistent iff the brute force finds a consistent
// full extension whose added reads all see non-matching versions.
func TestPropertyCheckClientAgreesWithBruteForce(t *testing.T) {
	n, seed := propertyCases(t, 1000)
	rng := rand.New(rand.NewPCG(seed, 0xc1e7))
	p := smallHistories
	p.maxTxns = 5
	for i := range n {
		full, realTime := genSmallHistory(rng, p)
		opts := Options{RealTime: realTime}
		if rng.IntN(3) == 0 {
			opts.Level = history.Levels[rng.IntN(len(history.Levels))]
		}
		matches := matchTable{}
		for w := range full.Txns {
			for k := range full.Keys {
				if rng.IntN(2) == 0 {
					matches[[2]uint32{uint32(w), uint32(k)}] = true
				}
			}
		}
		// Remove the reads of non-matching versions with probability 1/2.
		h := *full
		h.Txns = append([]history.Txn(nil), full.Txns...)
		var missing []MissingRead
		for id := range h.Txns {
			tx := &h.Txns[id]
			var ops []history.Op
			for _, op := range tx.Ops {
				if op.Kind == history.OpRead && op.Writer != tx.ID && !matches[[2]uint32{uint32(op.Writer), uint32(op.Key)}] && rng.IntN(2) == 0 {
					missing = append(missing, MissingRead{Txn: tx.ID, Event: op.Event, Key: op.Key})
					continue
				}
				ops = append(ops, op)
			}
			tx.Ops = ops
		}
		c := ClientReads{Missing: missing, Matches: matches.matches}
		got, co, _ := CheckClient(&h, c, opts)
		want := bruteClient(&h, c, opts)
		if got != want {
			t.Fatalf("case %d (seed %d): CheckClient = %v, brute force = %v, missing %v, level %v\n%s", i, seed, got, want, missing, opts.Level, dumpHistory(&h))
		}
		if got == Consistent && len(co) != len(h.Txns) {
			t.Fatalf("case %d: witness %v misses transactions", i, co)
		}
	}
}

// bruteClient tries every full extension: each missing pair read from any
// committed writer of the key (or Init) whose version does not match.
func bruteClient(h *history.History, c ClientReads, opts Options) Verdict {
	ix := newTxnIndex(h, levelsFor(h, opts))
	choices := make([][]history.TxnID, len(c.Missing))
	for i, m := range c.Missing {
		for w := range h.Txns {
			t := history.TxnID(w)
			if t != m.Txn && ix.get(t).commit && ix.writesKey(t, m.Key) && !c.Matches(m.Txn, m.Event, m.Key, t) {
				choices[i] = append(choices[i], t)
			}
		}
		if len(choices[i]) == 0 {
			return Violation
		}
	}
	pick := make([]int, len(choices))
	for {
		ext := extendHistory(h, func(yield func(MissingRead, history.TxnID)) {
			for i, m := range c.Missing {
				yield(m, choices[i][pick[i]])
			}
		})
		if v, _ := BruteForce(ext, opts); v == Consistent {
			return Consistent
		}
		i := 0
		for ; i < len(pick); i++ {
			if pick[i]++; pick[i] < len(choices[i]) {
				break
			}
			pick[i] = 0
		}
		if i == len(pick) {
			return Violation
		}
	}
}
