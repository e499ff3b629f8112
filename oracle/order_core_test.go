package oracle

import (
	"math/rand/v2"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// withTinyWindows makes repairOrder's windows small enough for the
// brute-force checker's histories, for the duration of a test.
func withTinyWindows(t *testing.T) {
	saved := coreWindows
	coreWindows = [...]int{0, 1, 2}
	t.Cleanup(func() { coreWindows = saved })
}

// TestPropertyRepairOrderIsExact: on random small histories with a random
// recorded order, repairOrder's verdicts are exact: a Consistent order
// satisfies the literal axioms, and a Violation (a window without a commit
// order) is one for the brute force too; so are Check's and
// StrongestLevel's, which use it.
func TestPropertyRepairOrderIsExact(t *testing.T) {
	withTinyWindows(t)
	n, seed := propertyCases(t, 2000)
	rng := rand.New(rand.NewPCG(seed, 0xc07e))
	var decided [3]int
	for i := range n {
		h, realTime := genSmallHistory(rng, smallHistories)
		opts := Options{RealTime: realTime}
		if rng.IntN(2) == 0 {
			opts.Level = history.Levels[rng.IntN(len(history.Levels))]
		}
		h.CommitOrder = randomOrder(rng, h)
		if checkWellFormed(h) != nil || checkStructure(newIndex(h, levelsFor(h, opts))) != nil {
			continue
		}
		want := bruteForceDecides(t, h, opts)
		co, got, why, _ := repairOrder(h, h.CommitOrder, levelsFor(h, opts), opts, 0)
		decided[got]++
		switch {
		case got == Consistent && !bruteOrderSatisfies(h, co, opts):
			t.Fatalf("case %d (seed %d): repaired order %v fails the axioms\n%s", i, seed, co, dumpHistory(h))
		case got == Violation && want != Violation:
			t.Fatalf("case %d (seed %d): a window found a violation the brute force does not: %+v\n%s", i, seed, why, dumpHistory(h))
		case got == Violation && (why == nil || len(why.Cycle) == 0 && why.Structural == nil):
			t.Fatalf("case %d (seed %d): violation without a cycle: %+v", i, seed, why)
		}
		if r := Check(h, opts); r.Verdict != Unknown && r.Verdict != want {
			t.Fatalf("case %d (seed %d): Check = %v, BruteForce = %v\n%s", i, seed, r.Verdict, want, dumpHistory(h))
		}
		if opts.Level != history.LevelUnknown {
			continue
		}
		wantLevel := history.LevelUnknown
		for _, l := range history.Levels {
			if v, _ := BruteForce(h, Options{Level: l, RealTime: realTime}); v != Consistent {
				break
			}
			wantLevel = l
		}
		gotLevel, results := StrongestLevel(h, opts)
		if last := results[len(results)-1]; last.Verdict != Unknown && gotLevel != wantLevel {
			t.Fatalf("case %d (seed %d): StrongestLevel = %v, brute force %v\n%s", i, seed, gotLevel, wantLevel, dumpHistory(h))
		}
	}
	if decided[Consistent] == 0 || decided[Violation] == 0 {
		t.Fatalf("repairOrder decided one way only: %v (consistent, violation, unknown)", decided)
	}
	t.Logf("repairOrder: %d consistent, %d violations, %d undecided", decided[Consistent], decided[Violation], decided[Unknown])
}

// TestSubHistoryKeepsSessionOrderAndDropsReadsFromOutside pins the
// sub-history windows are searched on.
func TestSubHistoryKeepsSessionOrderAndDropsReadsFromOutside(t *testing.T) {
	b := history.NewBuilder()
	s1, s2 := b.Session("S1"), b.Session("S2")
	t1 := b.Txn(s1, history.Serializable).Write("x").Commit()
	t2 := b.Txn(s2, history.Serializable).Read("x", t1).Write("y").Commit()
	t3 := b.Txn(s1, history.Serializable).Read("y", t2).Read("x", t1).Commit()
	b.CommitOrder(history.Init, t1, t2, t3)
	h := b.MustHistory()
	sub, orig := subHistory(h, []history.TxnID{history.Init, t3, t2}, sessionPositions(h))
	if err := sub.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(orig) != 3 || orig[1] != t2 || orig[2] != t3 {
		t.Fatalf("orig = %v", orig)
	}
	// T2's read of x from T1 (outside) is dropped; T3 keeps its read of y.
	if n := len(sub.Txns[1].Ops); n != 1 || sub.Txns[1].Ops[0].Kind != history.OpWrite {
		t.Errorf("T2's ops in the window: %+v", sub.Txns[1].Ops)
	}
	if ops := sub.Txns[2].Ops; len(ops) != 1 || ops[0].Writer != 1 {
		t.Errorf("T3's ops in the window: %+v", ops)
	}
	if len(sub.Sessions) != 2 || len(sub.CommitOrder) != 3 || sub.CommitOrder[1] != 1 || sub.Txns[2].Name != "T3" {
		t.Errorf("sessions %+v, order %v, names %q %q", sub.Sessions, sub.CommitOrder, sub.Txns[1].Name, sub.Txns[2].Name)
	}
}
