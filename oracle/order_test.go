package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestCheckOrderRejectsMalformedOrders: an order that is not a commit order
// of the history is an error, not a verdict.
func TestCheckOrderRejectsMalformedOrders(t *testing.T) {
	h := parseShorthand(t, "S1:[w x=1][w x=2] S2:[r x=1]", history.Serializable)
	for _, c := range []struct {
		name string
		co   []history.TxnID
		want string
	}{
		{"empty", nil, "does not start with Init"},
		{"Init not first", []history.TxnID{1, 0, 2, 3}, "does not start with Init"},
		{"missing", []history.TxnID{0, 1, 2}, "misses committed transaction 3"},
		{"twice", []history.TxnID{0, 1, 2, 3, 2}, "twice"},
		{"out of range", []history.TxnID{0, 1, 2, 3, 9}, "out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckOrder(h, c.co, Options{}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestCheckOrderExplainsTheOverwrittenRead: the explanation of a failing
// order is the cycle between the order the level forces and the one given.
func TestCheckOrderExplainsTheOverwrittenRead(t *testing.T) {
	// Lost update at SI in the order init T1 T2: T2 reads x from init, and
	// T1, which writes x, is in T2's snapshot through Conflict.
	h := parseShorthand(t, "S1:[r x=0, w x=1] S2:[r x=0, w x=2]", history.Snapshot)
	e, err := CheckOrder(h, []history.TxnID{0, 1, 2}, Options{}, nil)
	if err != nil || e == nil {
		t.Fatalf("CheckOrder = %+v, %v; want a violation", e, err)
	}
	if e.Level != history.Snapshot || len(e.Cycle) != 2 {
		t.Fatalf("explanation %+v, want a two-edge cycle at SI", e)
	}
	forced, given := e.Cycle[0], e.Cycle[1]
	if forced.From != 1 || forced.To != history.Init || forced.Via != 2 || given.From != history.Init || given.To != 1 {
		t.Fatalf("cycle %+v, want T1 → init (forced by T2's read) and init → T1 (given)", e.Cycle)
	}
	if !strings.Contains(forced.Reason, "T2") || !strings.Contains(forced.Reason, "x") {
		t.Fatalf("reason %q does not name the reader and the key", forced.Reason)
	}
}

// TestVerifyOrderRestrictedChecksOnlyTheSubset: a restricted check looks at
// the reads of the given transactions only, as the isolation engine needs
// when it tests a position for a committing transaction.
func TestVerifyOrderRestrictedChecksOnlyTheSubset(t *testing.T) {
	// Write skew at SER in the order init T1 T2: only T2's read of x fails.
	h := parseShorthand(t, "S1:[r x=0, r y=0, w x=1] S2:[r x=0, r y=0, w y=1]", history.Serializable)
	co := []history.TxnID{0, 1, 2}
	for _, c := range []struct {
		subset []history.TxnID
		fails  bool
	}{
		{[]history.TxnID{1}, false},
		{[]history.TxnID{2}, true},
		{[]history.TxnID{1, 2}, true},
		{nil, true},
	} {
		e, err := CheckOrder(h, co, Options{}, c.subset)
		if err != nil || (e != nil) != c.fails {
			t.Errorf("subset %v: %+v %v, want failing=%v", c.subset, e, err, c.fails)
		}
	}
}

// TestRealTimeMakesStaleReadsViolations: a read-only SER transaction may read
// the past, unless real time says it began after the write committed.
func TestRealTimeMakesStaleReadsViolations(t *testing.T) {
	b := history.NewBuilder()
	s1, s2 := b.Session("S1"), b.Session("S2")
	w := b.Txn(s1, history.Serializable).Write("x").Times(10, 20).Commit()
	r := b.Txn(s2, history.Serializable).Read("x", history.Init).Times(30, 40).Commit()
	h := b.MustHistory()
	for _, level := range history.Levels {
		for _, realTime := range []bool{false, true} {
			want := Consistent
			if realTime {
				want = Violation
			}
			opts := Options{Level: level, RealTime: realTime}
			if v, _ := BruteForce(h, opts); v != want {
				t.Errorf("%s real time %v: BruteForce = %v, want %v", level, realTime, v, want)
			}
			if v, _, _ := Search(h, opts); v != want {
				t.Errorf("%s real time %v: Search = %v, want %v", level, realTime, v, want)
			}
			e, _ := CheckOrder(h, []history.TxnID{0, r, w}, opts, nil)
			if (e == nil) != (want == Consistent) {
				t.Errorf("%s real time %v: CheckOrder(init T2 T1) = %+v", level, realTime, e)
			}
		}
	}
}

// TestCheckOrderWithManySources: a reader that saw many transactions (past
// the small-set threshold, with big writers among them) is checked like a
// reader of a few: RA sees every source, RC the earlier statements' only.
func TestCheckOrderWithManySources(t *testing.T) {
	for _, c := range []struct {
		name      string
		level     history.Level
		staleLast bool // the stale read of x is the reader's last statement
		bigWriter bool
		want      bool
	}{
		{"RA stale", history.ReadAtomic, true, false, false},
		{"RA stale big writer", history.ReadAtomic, true, true, false},
		{"RA stale first", history.ReadAtomic, false, false, false},
		{"RC stale last", history.ReadCommitted, true, false, false},
		{"RC stale last big writer", history.ReadCommitted, true, true, false},
		{"RC stale first", history.ReadCommitted, false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := history.NewBuilder()
			t1 := b.Txn(b.Session("S0"), history.Serializable).Write("x").Commit()
			var writers []history.TxnID
			for i := range 24 {
				tb := b.Txn(b.Session(fmt.Sprintf("S%d", i+1)), history.Serializable).Write(fmt.Sprintf("k%d", i))
				if i == 7 {
					tb.Write("x")
					if c.bigWriter {
						for j := range 80 {
							tb.Write(fmt.Sprintf("big%d", j))
						}
					}
				}
				writers = append(writers, tb.Commit())
			}
			rb := b.Txn(b.Session("R"), c.level)
			if !c.staleLast {
				rb.Read("x", t1)
			}
			for i, w := range writers {
				rb.Read(fmt.Sprintf("k%d", i), w)
			}
			if c.staleLast {
				rb.Read("x", t1)
			}
			r := rb.Commit()
			h := b.MustHistory()
			co := append(append([]history.TxnID{history.Init, t1}, writers...), r)
			e, err := CheckOrder(h, co, Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (e == nil) != c.want {
				t.Fatalf("CheckOrder = %+v, want consistent=%v", e, c.want)
			}
			if lit := bruteOrderSatisfies(h, co, Options{}); lit != c.want {
				t.Fatalf("the literal axioms say %v, want %v", lit, c.want)
			}
		})
	}
}

// TestCheckOrderWithoutClocksAgrees: past the clocks' memory budget the
// causal check walks each reader's past; its verdicts are the clocks'.
func TestCheckOrderWithoutClocksAgrees(t *testing.T) {
	n, seed := propertyCases(t, 1000)
	rng := rand.New(rand.NewPCG(seed, 0xb0d9e7))
	budget := causalClockBudget
	t.Cleanup(func() { causalClockBudget = budget })
	for i := range n {
		h, realTime := genSmallHistory(rng, smallHistories)
		opts := Options{Level: history.Causal, RealTime: realTime}
		co := randomOrder(rng, h)
		causalClockBudget = budget
		withClocks, err := CheckOrder(h, co, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		causalClockBudget = 0
		walked, err := CheckOrder(h, co, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (withClocks == nil) != (walked == nil) {
			t.Fatalf("case %d (seed %d): with clocks %+v, walking %+v\n%s", i, seed, withClocks, walked, dumpHistory(h))
		}
	}
}
