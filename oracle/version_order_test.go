package oracle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// versionOrderCase is a history in DESIGN §3's notation (transactions are
// T1, T2, ... in the order written) whose version orders, by key name and
// transaction id, reveal an anomaly the reads alone do not: the verdict at
// each level, RC to SER, without and with the version order.
type versionOrderCase struct {
	name    string
	text    string
	orders  map[string][]history.TxnID
	without string // one letter per level, RC..SER: c consistent, v violation
	with    string
	anomaly string // the anomaly named at the weakest level violated, with the order
	reason  string // a part of the version order edge's reason
}

var versionOrderCases = []versionOrderCase{
	{
		// Elle list-append: T3 read x as [1 2] and T4 read y as [2 1], so
		// T1's x precedes T2's and T2's y precedes T1's.
		name:    "G0",
		text:    "S1: [w x=1, w y=1]\nS2: [w x=2, w y=2]\nS3: [r x=2]\nS4: [r y=1]",
		orders:  map[string][]history.TxnID{"x": {1, 2}, "y": {2, 1}},
		without: "cccccc",
		with:    "vvvvvv",
		anomaly: "G0",
		reason:  "the version order of x shows T1's version before T2's (T3 read x = 2)",
	},
	{
		// T1 read x as [] and appended 1; T3 read [2 1]: T2's append was
		// installed before T1's, which T1's read missed.
		name:    "lost update",
		text:    "S1: [r x=0, w x=1]\nS2: [w x=2]\nS3: [r x=1]",
		orders:  map[string][]history.TxnID{"x": {2, 1}},
		without: "cccccc",
		with:    "ccccvv",
		anomaly: "lost update",
		reason:  "the version order of x shows T2's version before T1's (T3 read x = 1)",
	},
	{
		// T3 read y as [1 2] and x as []: it saw T2, which follows T1,
		// but missed T1's x (read skew, Adya's G-single: one
		// anti-dependency). PC is the weakest level it breaks, and the
		// checker names every cycle that breaks PC first a long fork
		// (DESIGN §3's row for PC).
		name:    "G-single",
		text:    "S1: [w x=1, w y=1]\nS2: [w y=2]\nS3: [r y=2, r x=0]",
		orders:  map[string][]history.TxnID{"y": {1, 2}},
		without: "cccccc",
		with:    "cccvvv",
		anomaly: "long fork",
		reason:  "the version order of y shows T1's version before T2's (T3 read y = 2)",
	},
	{
		// T1 and T2 both appended to x after reading it in one session
		// each; the order [1 2] is consistent with every level.
		name:    "consistent order",
		text:    "S1: [r x=0, w x=1]\nS2: [r x=1, w x=2]\nS3: [r x=2]",
		orders:  map[string][]history.TxnID{"x": {1, 2}},
		without: "cccccc",
		with:    "cccccc",
	},
	{
		// The reversed order of the same history is a G1c: T2 read T1's
		// version, so T1 committed first, yet the order puts T2's first.
		// No read shows both versions (T3's list ends with T2's), so none
		// is named.
		name:    "order against wr",
		text:    "S1: [r x=0, w x=1]\nS2: [r x=1, w x=2]\nS3: [r x=2]",
		orders:  map[string][]history.TxnID{"x": {2, 1}},
		without: "cccccc",
		with:    "vvvvvv",
		anomaly: "G1c",
		reason:  "T2 -ww x-> T1: the version order of x shows T2's version before T1's\n",
	},
}

func versionOrderHistory(t *testing.T, c versionOrderCase, level history.Level, withOrder bool) *history.History {
	t.Helper()
	h, err := miniHistory(c.text, level)
	if err != nil {
		t.Fatal(err)
	}
	if withOrder {
		h.VersionOrder = make([][]history.TxnID, len(h.Keys))
		for name, order := range c.orders {
			k := keyNamed(h, name)
			if k < 0 {
				t.Fatalf("no key %s", name)
			}
			h.VersionOrder[k] = order
		}
	}
	return h
}

// keyNamed returns the id of the key named name, or -1.
func keyNamed(h *history.History, name string) int {
	for k, key := range h.Keys {
		if key.Name == name {
			return k
		}
	}
	return -1
}

func TestVersionOrderRevealsAnomaliesAtEachLevel(t *testing.T) {
	for _, c := range versionOrderCases {
		for _, withOrder := range []bool{false, true} {
			want := c.without
			if withOrder {
				want = c.with
			}
			for i, level := range history.Levels {
				h := versionOrderHistory(t, c, level, withOrder)
				opts := Options{Level: level}
				r := Check(h, opts)
				brute, _ := BruteForce(h, opts)
				search, _, _ := Search(h, opts)
				wantV := Consistent
				if want[i] == 'v' {
					wantV = Violation
				}
				if r.Verdict != wantV || brute != wantV || search != wantV {
					t.Errorf("%s, version order %v, %v: Check %v, BruteForce %v, Search %v, want %v", c.name, withOrder, level, r.Verdict, brute, search, wantV)
				}
			}
		}
	}
}

func TestVersionOrderViolationsNameTheAnomalyAndTheRevealingRead(t *testing.T) {
	for _, c := range versionOrderCases {
		if c.anomaly == "" {
			continue
		}
		h := versionOrderHistory(t, c, history.Serializable, true)
		_, results := StrongestLevel(h, Options{})
		last := results[len(results)-1]
		if last.Verdict != Violation || last.Explanation == nil {
			t.Fatalf("%s: StrongestLevel ends with %+v, want a violation", c.name, last)
		}
		e := last.Explanation
		text := e.Text(h)
		if e.Anomaly != c.anomaly || !strings.Contains(text, c.reason) {
			t.Errorf("%s: explained as %s, want %s with %q:\n%s", c.name, e.Anomaly, c.anomaly, c.reason, text)
		}
		weakest := strings.IndexByte(c.with, 'v')
		if e.Level != history.Levels[weakest] {
			t.Errorf("%s: violation at %v, want %v", c.name, e.Level, history.Levels[weakest])
		}
	}
}

func TestRecordedCommitOrderAgainstTheVersionOrderIsNotAWitness(t *testing.T) {
	// S1: [w x=1] S2: [w x=2] S3: [r x=2] with the order [1 2]: the
	// recorded T2, T3, T1 satisfies the reads but reverses the order.
	h, err := miniHistory("S1: [w x=1]\nS2: [w x=2]\nS3: [r x=2]", history.Serializable)
	if err != nil {
		t.Fatal(err)
	}
	h.VersionOrder = [][]history.TxnID{{1, 2}}
	h.CommitOrder = []history.TxnID{history.Init, 2, 3, 1}
	e, err := CheckOrder(h, h.CommitOrder, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e == nil || !strings.Contains(e.Text(h), "the commit order puts T2 (session S2) before T1 (session S1)") {
		t.Fatalf("CheckOrder accepts an order that reverses the version order: %+v", e)
	}
	if r := Check(h, Options{}); r.Verdict != Consistent {
		t.Fatalf("Check = %v, want consistent (T1, T2, T3 is a witness): %s", r.Verdict, r.Explanation.Text(h))
	}
	h.VersionOrder = [][]history.TxnID{{2, 1}}
	if e, _ := CheckOrder(h, h.CommitOrder, Options{}, nil); e != nil {
		t.Fatalf("CheckOrder rejects an order that agrees with the version order [2 1]: %s", e.Text(h))
	}
}

func TestVersionOrderNamingANonWriterOrAnAbortedWriterIsStructural(t *testing.T) {
	cases := []struct {
		name, text string
		order      []history.TxnID
		kind       StructuralKind
		anomaly    string
		reason     string
	}{
		{
			name:    "non-writer",
			text:    "S1: [w x=1]\nS2: [r x=1]",
			order:   []history.TxnID{1, 2},
			kind:    Malformed,
			anomaly: "malformed history",
			reason:  "the version order of x names T2, which never wrote x",
		},
		{
			name:    "client-aborted writer",
			text:    "S1: [w x=1]!\nS2: [w x=2]\nS3: [r x=2]",
			order:   []history.TxnID{1, 2},
			kind:    AbortedRead,
			anomaly: "G1a",
			reason:  "the version order of x shows a version installed by T1, which was client-aborted (T3 read x = 2, a version after it)",
		},
		{
			name:    "pending writer, nobody read past it",
			text:    "S1: [w x=1]?\nS2: [w x=2]",
			order:   []history.TxnID{2, 1},
			kind:    AbortedRead,
			anomaly: "G1a",
			reason:  "the version order of x shows a version installed by T1, which never committed",
		},
	}
	for _, c := range cases {
		for _, level := range history.Levels {
			h, err := miniHistory(c.text, level)
			if err != nil {
				t.Fatal(err)
			}
			h.VersionOrder = [][]history.TxnID{c.order}
			r := Check(h, Options{Level: level})
			if r.Verdict != Violation || r.Explanation.Structural == nil {
				t.Fatalf("%s at %v: %+v, want a structural violation", c.name, level, r)
			}
			s := r.Explanation.Structural
			if s.Kind != c.kind || r.Explanation.Anomaly != c.anomaly || s.Reason != c.reason {
				t.Errorf("%s at %v: %v %q: %s, want %v %q: %s", c.name, level, s.Kind, r.Explanation.Anomaly, s.Reason, c.kind, c.anomaly, c.reason)
			}
			if v, _ := BruteForce(h, Options{Level: level}); v != Violation {
				t.Errorf("%s at %v: BruteForce = %v, want violation", c.name, level, v)
			}
		}
	}
}

// TestElleListAppendG0IsFoundThroughTheVersionOrder: an Elle list-append
// history whose reads show x's appends as [1 2] and y's as [2 1] is a G0
// at every level, as Elle reports it, also after a JSONL round trip.
func TestElleListAppendG0IsFoundThroughTheVersionOrder(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:append :x 1] [:append :y 1]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2] [:append :y 2]]}
{:type :ok, :process 2, :f :txn, :value [[:r :x [1 2]]]}
{:type :ok, :process 3, :f :txn, :value [[:r :y [2 1]]]}
`
	h, err := history.ReadElleEDN(strings.NewReader(edn), "g0.edn")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := history.WriteJSONL(&buf, h, history.Header{}); err != nil {
		t.Fatal(err)
	}
	again, err := history.ReadJSONL(&buf, "g0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*history.History{"edn": h, "jsonl": again} {
		for _, level := range history.Levels {
			r := Check(h, Options{Level: level})
			if r.Verdict != Violation || r.Explanation.Anomaly != "G0" || r.Explanation.Level != history.ReadCommitted {
				t.Fatalf("%s at %v: %v, want G0 at RC", name, level, r.Verdict)
			}
			text := r.Explanation.Text(h)
			if !strings.Contains(text, "the version order of :x shows") || !strings.Contains(text, "the version order of :y shows") {
				t.Errorf("%s at %v: the explanation does not name both version orders:\n%s", name, level, text)
			}
		}
	}
}

// genRecordedHistory is genHistory with the simulated commit order
// recorded.
func genRecordedHistory(level history.Level, n, k int, seed uint64) *history.History {
	return history.Generate(history.GenOptions{
		Sessions: k, Txns: n, OpsPerTxn: 8, Keys: max(n/4, 16), Level: level, Seed: seed, CommitOrder: true,
	})
}

// versionOrdersOf returns, per key, the committed writers of the key in
// h's recorded commit order: the version order an observer of every
// version would see.
func versionOrdersOf(h *history.History) [][]history.TxnID {
	orders := make([][]history.TxnID, len(h.Keys))
	for _, t := range h.CommitOrder {
		if t == history.Init || h.Txns[t].Outcome != history.Committed {
			continue
		}
		for _, op := range h.Txns[t].Ops {
			if k := op.Key; op.Kind == history.OpWrite && (len(orders[k]) == 0 || orders[k][len(orders[k])-1] != t) {
				orders[k] = append(orders[k], t)
			}
		}
	}
	return orders
}

// TestGeneratedHistoriesStayConsistentWithTheirVersionOrders: histories
// consistent by construction, given the version orders of their own commit
// order, stay consistent at every level, with the recorded order (which
// then agrees with them) and without it (the search must respect them).
func TestGeneratedHistoriesStayConsistentWithTheirVersionOrders(t *testing.T) {
	for _, level := range history.Levels {
		for seed := uint64(1); seed <= 5; seed++ {
			h := genRecordedHistory(level, 200, 1+int(seed%6), seed)
			h.VersionOrder = versionOrdersOf(h)
			if len(h.VersionOrder[0]) < 2 {
				t.Fatalf("%s seed %d: version order %v of k0: the test needs several writers", level, seed, h.VersionOrder[0])
			}
			if r := Check(h, Options{Level: level}); r.Verdict != Consistent {
				t.Fatalf("%s seed %d, recorded order: %s\n%s", level, seed, r.Verdict, r.Explanation.Text(h))
			}
			h.CommitOrder = nil
			if r := Check(h, Options{Level: level, MaxSteps: 1_000_000}); r.Verdict != Consistent {
				t.Fatalf("%s seed %d, no recorded order: %s", level, seed, r.Verdict)
			}
		}
	}
}

// BenchmarkCheckWithVersionOrders measures Check on generated histories
// given the version orders of their commit order (every write observed),
// against the same histories without them:
//
//	go test ./oracle -run '^$' -bench CheckWithVersionOrders
func BenchmarkCheckWithVersionOrders(b *testing.B) {
	for _, level := range []history.Level{history.ReadCommitted, history.Causal, history.Serializable} {
		for _, n := range []int{10_000, 100_000} {
			h := genRecordedHistory(level, n, 32, 1)
			orders := versionOrdersOf(h)
			for _, with := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/n=%d/orders=%v", level, n, with), func(b *testing.B) {
					h.VersionOrder = nil
					if with {
						h.VersionOrder = orders
					}
					for b.Loop() {
						if r := Check(h, Options{Level: level}); r.Verdict != Consistent {
							b.Fatal(r.Verdict)
						}
					}
				})
			}
		}
	}
}

// TestPropertyVersionOrderExplanationsAreTrue: on random small histories
// with version orders, a violation is explained at the weakest level the
// brute force finds violated, by a closed cycle whose edges are relations
// of the history, and an edge said to come from a version order does: its
// writers are consecutive in the key's order.
func TestPropertyVersionOrderExplanationsAreTrue(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	rng := rand.New(rand.NewPCG(seed, 0x0bdf))
	explained, known := 0, 0
	for i := range n {
		h, realTime := genSmallHistory(rng, orderedHistories)
		level := history.Levels[rng.IntN(len(history.Levels))]
		r := Check(h, Options{Level: level, RealTime: realTime})
		if r.Verdict != Violation || r.Explanation.Structural != nil {
			continue
		}
		e := r.Explanation
		weakest := history.LevelUnknown
		for _, l := range history.Levels {
			if v, _ := BruteForce(h, Options{Level: l, RealTime: realTime}); v == Violation {
				weakest = l
				break
			}
		}
		text := e.Text(h)
		if e.Level != weakest || len(e.Cycle) == 0 || strings.Contains(text, "?") {
			t.Fatalf("case %d (seed %d): explained at %v (brute force: %v)\n%s\n%s", i, seed, e.Level, weakest, text, dumpHistory(h))
		}
		explained++
		for j, ed := range e.Cycle {
			if next := e.Cycle[(j+1)%len(e.Cycle)]; ed.To != next.From {
				t.Fatalf("case %d (seed %d): the cycle is not closed at edge %d\n%s\n%s", i, seed, j, text, dumpHistory(h))
			}
			if why := edgeFalsehood(h, ed); why != "" {
				t.Fatalf("case %d (seed %d): edge %d: %s\n%s\n%s", i, seed, j, why, text, dumpHistory(h))
			}
			if !strings.HasPrefix(ed.Reason, "the version order of ") {
				continue
			}
			known++
			if !consecutive(h.VersionOrder[ed.Key], ed.From, ed.To) {
				t.Fatalf("case %d (seed %d): edge %d is not in the version order\n%s\n%s", i, seed, j, text, dumpHistory(h))
			}
		}
	}
	if explained == 0 || known == 0 {
		t.Fatalf("%d cases: %d violations explained, %d version order edges: the test exercises nothing", n, explained, known)
	}
	t.Logf("%d cases: %d violations explained, %d version order edges", n, explained, known)
}

// consecutive reports whether b follows a directly in order.
func consecutive(order []history.TxnID, a, b history.TxnID) bool {
	for i := 1; i < len(order); i++ {
		if order[i-1] == a && order[i] == b {
			return true
		}
	}
	return false
}
