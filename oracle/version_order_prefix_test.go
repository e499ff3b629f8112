package oracle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// versionOrderPrefixCases are histories whose version orders are prefixes
// (History.VersionOrderPrefix), as an Elle list-append import has them: the
// anomaly shows only through the writers the orders do not list, which the
// prefix inference puts after the last listed one. The orders alone
// ("listed") decide nothing; with the prefix marks ("with") they do.
var versionOrderPrefixCases = []versionOrderCase{
	{
		// T3 read x as [1] and T4 read y as [2]: T2's x and T1's y are in
		// no list, so each came after the other writer's version of its
		// key (a write cycle).
		name:    "G0",
		text:    "S1: [w x=1, w y=1]\nS2: [w x=2, w y=2]\nS3: [r x=1]\nS4: [r y=2]",
		orders:  map[string][]history.TxnID{"x": {1}, "y": {2}},
		without: "cccccc",
		with:    "vvvvvv",
		anomaly: "G0",
		reason:  "the version order of x shows a prefix of its versions ending with T1's, and T2's write of x is in no list read, so its version was installed after T1's (T3 read x = 1, the longest list)",
	},
	{
		// T1 read x empty and appended; T2 appended blindly; T3 read x as
		// [2]: T1's append, in no list, came after T2's, which T1 missed.
		name:    "lost update",
		text:    "S1: [r x=0, w x=1]\nS2: [w x=2]\nS3: [r x=2]",
		orders:  map[string][]history.TxnID{"x": {2}},
		without: "cccccc",
		with:    "ccccvv",
		anomaly: "lost update",
		reason:  "T1's write of x is in no list read, so its version was installed after T2's (T3 read x = 2, the longest list)",
	},
	{
		// T4 read y as [1], so T2's y came after T1's; T3 saw T2's y but
		// missed T1's x: read skew (G-single), named a long fork at PC,
		// the weakest level it breaks.
		name:    "G-single",
		text:    "S1: [w x=1, w y=1]\nS2: [w y=2]\nS3: [r y=2, r x=0]\nS4: [r y=1]",
		orders:  map[string][]history.TxnID{"y": {1}},
		without: "cccccc",
		with:    "cccvvv",
		anomaly: "long fork",
		reason:  "T2's write of y is in no list read, so its version was installed after T1's (T4 read y = 1, the longest list)",
	},
	{
		// The unlisted writer aborted: its version was never installed,
		// so the prefix puts nothing after T1.
		name:    "aborted unlisted writer",
		text:    "S1: [w x=1, w y=1]\nS2: [w x=2, w y=2]!\nS3: [r x=1]\nS4: [r y=0]",
		orders:  map[string][]history.TxnID{"x": {1}},
		without: "cccccc",
		with:    "cccccc",
	},
	{
		// Two writers no list shows follow the prefix but not one another:
		// T2 read T3's y, so T3's x is installed first, and that is
		// allowed.
		name:    "unlisted writers unordered",
		text:    "S1: [w x=1]\nS2: [r y=3, w x=2]\nS3: [w x=3, w y=3]\nS4: [r x=1]",
		orders:  map[string][]history.TxnID{"x": {1}},
		without: "cccccc",
		with:    "cccccc",
	},
}

// prefixHistory is versionOrderHistory with the orders of c marked as
// prefixes when prefix is set.
func prefixHistory(t *testing.T, c versionOrderCase, level history.Level, prefix bool) *history.History {
	h := versionOrderHistory(t, c, level, true)
	if prefix {
		h.VersionOrderPrefix = make([]bool, len(h.Keys))
		for name := range c.orders {
			h.VersionOrderPrefix[keyNamed(h, name)] = true
		}
	}
	return h
}

func TestVersionOrderPrefixRevealsAnomaliesOnlyThroughUnlistedWriters(t *testing.T) {
	for _, c := range versionOrderPrefixCases {
		for _, prefix := range []bool{false, true} {
			want := c.without
			if prefix {
				want = c.with
			}
			for i, level := range history.Levels {
				h := prefixHistory(t, c, level, prefix)
				opts := Options{Level: level}
				wantV := Consistent
				if want[i] == 'v' {
					wantV = Violation
				}
				r := Check(h, opts)
				brute, _ := BruteForce(h, opts)
				search, _, _ := Search(h, opts)
				if r.Verdict != wantV || brute != wantV || search != wantV {
					t.Errorf("%s, prefix %v, %v: Check %v, BruteForce %v, Search %v, want %v", c.name, prefix, level, r.Verdict, brute, search, wantV)
				}
			}
		}
	}
}

func TestVersionOrderPrefixViolationsNameTheReadThatShowedThePrefix(t *testing.T) {
	for _, c := range versionOrderPrefixCases {
		if c.reason == "" {
			continue
		}
		h := prefixHistory(t, c, history.Serializable, true)
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
		if weakest := strings.IndexByte(c.with, 'v'); e.Level != history.Levels[weakest] {
			t.Errorf("%s: violation at %v, want %v", c.name, e.Level, history.Levels[weakest])
		}
	}
}

// TestRecordedCommitOrderPuttingAnUnlistedWriterFirstIsNotAWitness: a
// recorded order that puts a writer the prefix does not list before the
// last listed one contradicts the version order, naming the longest read.
func TestRecordedCommitOrderPuttingAnUnlistedWriterFirstIsNotAWitness(t *testing.T) {
	h, err := miniHistory("S1: [w x=1]\nS2: [w x=2]\nS3: [r x=1]", history.Serializable)
	if err != nil {
		t.Fatal(err)
	}
	h.VersionOrder = [][]history.TxnID{{1}}
	h.VersionOrderPrefix = []bool{true}
	for _, c := range []struct {
		co   []history.TxnID
		fail bool
	}{{[]history.TxnID{0, 1, 3, 2}, false}, {[]history.TxnID{0, 2, 1, 3}, true}} {
		e, err := CheckOrder(h, c.co, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (e != nil) != c.fail {
			t.Fatalf("commit order %v: %+v, want failure %v", c.co, e, c.fail)
		}
		if e != nil && !strings.Contains(e.Text(h), "(T3 read x = 1, the longest list)") {
			t.Errorf("commit order %v: the explanation does not name the longest read:\n%s", c.co, e.Text(h))
		}
	}
}

// TestElleUnobservedAppendsCloseALostUpdate: an Elle list-append history in
// which T1 read x empty and appended, T2 appended, and the only read shows
// T2's append: T1's came after it (Elle's inference), a lost update from
// SI up, also after a JSONL round trip, which keeps the mark.
func TestElleUnobservedAppendsCloseALostUpdate(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:r :x []] [:append :x 1]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2]]}
{:type :ok, :process 2, :f :txn, :value [[:r :x [2]]]}
`
	h, err := history.ReadElleEDN(strings.NewReader(edn), "lost.edn")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := history.WriteJSONL(&buf, h, history.Header{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"prefix":true`) {
		t.Fatalf("the JSONL order event does not mark the prefix:\n%s", buf.String())
	}
	again, err := history.ReadJSONL(&buf, "lost.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*history.History{"edn": h, "jsonl": again} {
		for _, level := range history.Levels {
			r := Check(h, Options{Level: level})
			want := Consistent
			if level >= history.Snapshot {
				want = Violation
			}
			if r.Verdict != want {
				t.Fatalf("%s at %v: %v, want %v", name, level, r.Verdict, want)
			}
		}
		r := Check(h, Options{Level: history.Snapshot})
		if text := r.Explanation.Text(h); r.Explanation.Anomaly != "lost update" || !strings.Contains(text, "is in no list read") {
			t.Errorf("%s: explained as %s:\n%s", name, r.Explanation.Anomaly, text)
		}
	}
}

// TestPropertyVersionOrderPrefixExplanationsAreTrue: on random small
// histories whose version orders are often prefixes, every violation is
// explained at the brute force's weakest failing level by a closed cycle
// of true edges, and a version order edge joins either consecutive listed
// writers or a prefix's last listed writer and a committed writer of the
// key it does not list.
func TestPropertyVersionOrderPrefixExplanationsAreTrue(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	rng := rand.New(rand.NewPCG(seed, 0x9fe1))
	explained, inferred := 0, 0
	for i := range n {
		h, realTime := genSmallHistory(rng, prefixHistories)
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
		if e.Level != weakest || len(e.Cycle) == 0 {
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
			order := h.VersionOrder[ed.Key]
			switch {
			case consecutive(order, ed.From, ed.To):
			case unlisted(h, ed.Key, ed.From, ed.To) && h.Txns[ed.To].Outcome == history.Committed:
				inferred++
			default:
				t.Fatalf("case %d (seed %d): edge %d is not in the version order\n%s\n%s", i, seed, j, text, dumpHistory(h))
			}
		}
	}
	if explained == 0 || inferred == 0 {
		t.Fatalf("%d cases: %d violations explained, %d prefix edges: the test exercises nothing", n, explained, inferred)
	}
	t.Logf("%d cases: %d violations explained, %d prefix edges", n, explained, inferred)
}

// prefixOrdersOf cuts each key's commit-order version order (versionOrdersOf)
// to its first half, at least one writer, marked a prefix: what the longest
// list read of each key shows when reads lag behind the appends.
func prefixOrdersOf(h *history.History) ([][]history.TxnID, []bool) {
	orders := versionOrdersOf(h)
	prefix := make([]bool, len(orders))
	for k, order := range orders {
		if len(order) > 0 {
			orders[k] = order[:max(1, len(order)/2)]
			prefix[k] = true
		}
	}
	return orders, prefix
}

// TestGeneratedHistoriesStayConsistentWithPrefixOrders: generated
// histories given prefixes of their commit order's version orders stay
// consistent at every level, with and without the recorded order: every
// unlisted writer does come after the prefix.
func TestGeneratedHistoriesStayConsistentWithPrefixOrders(t *testing.T) {
	for _, level := range history.Levels {
		for seed := uint64(1); seed <= 3; seed++ {
			h := genRecordedHistory(level, 400, 8, seed)
			h.VersionOrder, h.VersionOrderPrefix = prefixOrdersOf(h)
			recorded := h.CommitOrder
			for _, withCO := range []bool{true, false} {
				h.CommitOrder = nil
				if withCO {
					h.CommitOrder = recorded
				}
				if r := Check(h, Options{Level: level}); r.Verdict != Consistent {
					t.Fatalf("%s seed %d, recorded order %v: %v\n%s", level, seed, withCO, r.Verdict, r.Explanation.Text(h))
				}
			}
		}
	}
}

// BenchmarkCheckWithVersionOrderPrefixes measures Check on generated
// histories given prefixes of their version orders (half of each key's
// writers unlisted), against the same histories without them:
//
//	go test ./oracle -run '^$' -bench CheckWithVersionOrderPrefixes
func BenchmarkCheckWithVersionOrderPrefixes(b *testing.B) {
	for _, level := range []history.Level{history.ReadCommitted, history.Causal, history.Serializable} {
		for _, n := range []int{10_000, 100_000} {
			h := genRecordedHistory(level, n, 32, 1)
			orders, prefix := prefixOrdersOf(h)
			for _, with := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/n=%d/prefixes=%v", level, n, with), func(b *testing.B) {
					h.VersionOrder, h.VersionOrderPrefix = nil, nil
					if with {
						h.VersionOrder, h.VersionOrderPrefix = orders, prefix
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

// TestElleStraddlingAppendsAreAWriteCycle: T1 appended 1 and 3 to x, T2
// appended 2, and the only read shows [1 2]: T1's 3 came after T2's 2
// (Elle's inference for an unobserved append), so T1's appends straddle
// T2's, a G0 at every level, explained by the read that showed the list.
func TestElleStraddlingAppendsAreAWriteCycle(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:append :x 1] [:append :x 3]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2]]}
{:type :ok, :process 2, :f :txn, :value [[:r :x [1 2]]]}
`
	h, err := history.ReadElleEDN(strings.NewReader(edn), "straddle.edn")
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range history.Levels {
		r := Check(h, Options{Level: level})
		if r.Verdict != Violation || r.Explanation.Anomaly != "G0" {
			t.Fatalf("%v: %v, want G0", level, r.Verdict)
		}
		want := "the version order of :x shows T2's version before T1's, T1's appends straddling T2's: a list shows an earlier one, none its last (T3 read :x = 2)"
		if text := r.Explanation.Text(h); !strings.Contains(text, want) {
			t.Errorf("%v: the explanation lacks %q:\n%s", level, want, text)
		}
	}
}
