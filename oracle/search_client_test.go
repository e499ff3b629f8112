package oracle

import (
	"math/rand/v2"
	"strings"
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

// Paper 000's example client histories in fickle's JSONL format. The
// figures are not in the paper's text; these follow their captions and the
// discussion of §3.2 and §5.
//
// clientFig2: T1 sets v to -2 in both rows; T2's SELECT ... WHERE v <= 0
// returns x2 as T1 wrote it but not x1, so it saw init's x1 although T1,
// which it read from, overwrote x1: consistent when T2 is RC (the paper's
// init < T1 < T2), not when it is SER (nor RA and above).
const clientFig2 = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"t","name":"x1"}
{"e":"key","k":1,"table":"t","name":"x2"}
{"e":"write","t":0,"k":0,"row":{"id":"x1","v":1}}
{"e":"write","t":0,"k":1,"row":{"id":"x2","v":1}}
{"e":"begin","t":1,"s":1,"level":"SER"}
{"e":"stmt","t":1,"sql":"UPDATE t SET v = -2","table":"t"}
{"e":"read","t":1,"r":[[0,0,"r"],[1,0,"r"]]}
{"e":"write","t":1,"k":0,"row":{"id":"x1","v":-2}}
{"e":"write","t":1,"k":1,"row":{"id":"x2","v":-2}}
{"e":"commit","t":1}
{"e":"begin","t":2,"s":2,"level":"LEVEL"}
{"e":"stmt","t":2,"sql":"SELECT * FROM t WHERE v <= 0","table":"t","pred":"v <= 0"}
{"e":"read","t":2,"r":[[1,1,"r",null,{"id":"x2","v":-2}]],"client":{"table":"t","where":[["v","<=",0]]}}
{"e":"commit","t":2}
`

// clientFig4 is Figure 4a: sessions T1 T2 T3 and T4 T5; T3 (PC) reads x4
// from T2 and x3 from T5, and its predicate read of table a (x1) returns
// nothing, which no version of x1 could change (no conflict); T5 (SER)
// reads x4 from T4 and its predicate read of table b (x2) returns nothing,
// although init's x2 matches: it must have seen T1's x2 (the one conflict,
// extension h_258). Consistent, witnessed by init T1 T4 T5 T2 T3. With T1's
// x2 matching too (X2 = 1) no version T5 could have seen fails its
// predicate: inconsistent at every level.
const clientFig4 = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"a","name":"x1"}
{"e":"key","k":1,"table":"b","name":"x2"}
{"e":"key","k":2,"table":"c","name":"x3"}
{"e":"key","k":3,"table":"c","name":"x4"}
{"e":"write","t":0,"k":0,"row":{"v":1}}
{"e":"write","t":0,"k":1,"row":{"v":1}}
{"e":"write","t":0,"k":2,"row":{"v":1}}
{"e":"write","t":0,"k":3,"row":{"v":1}}
{"e":"begin","t":1,"s":1}
{"e":"begin","t":2,"s":1}
{"e":"begin","t":3,"s":1,"level":"PC"}
{"e":"begin","t":4,"s":2}
{"e":"begin","t":5,"s":2,"level":"SER"}
{"e":"write","t":1,"k":1,"row":{"v":X2}}
{"e":"commit","t":1}
{"e":"write","t":2,"k":0,"row":{"v":2}}
{"e":"write","t":2,"k":3,"row":{"v":2}}
{"e":"commit","t":2}
{"e":"write","t":4,"k":3,"row":{"v":4}}
{"e":"commit","t":4}
{"e":"read","t":5,"r":[[3,4,"r"]]}
{"e":"stmt","t":5,"sql":"SELECT * FROM b WHERE v = 1","table":"b"}
{"e":"read","t":5,"r":[],"client":{"table":"b","where":[["v","=",1]]}}
{"e":"stmt","t":5,"sql":"UPDATE a, c SET v = 7","table":"a"}
{"e":"write","t":5,"k":0,"row":{"v":7}}
{"e":"write","t":5,"k":2,"row":{"v":7}}
{"e":"commit","t":5}
{"e":"read","t":3,"r":[[3,2,"r"],[2,5,"r"]]}
{"e":"stmt","t":3,"sql":"SELECT * FROM a WHERE v < 0","table":"a"}
{"e":"read","t":3,"r":[],"client":{"table":"a","where":[["v","<",0]]}}
{"e":"stmt","t":3,"sql":"INSERT INTO b ...","table":"b"}
{"e":"write","t":3,"k":1,"row":{"v":3}}
{"e":"commit","t":3}
`

// TestCheckRoutesPaperClientHistoriesToCheckClient: Check decides the
// paper's client histories, read from JSONL, at the levels the paper
// gives, through CheckClient (their client reads leave rows out).
func TestCheckRoutesPaperClientHistoriesToCheckClient(t *testing.T) {
	cases := []struct {
		name, jsonl string
		level       history.Level // Options.Level; zero: each transaction's own
		want        Verdict
	}{
		{"fig2 T2 at RC", strings.ReplaceAll(clientFig2, "LEVEL", "RC"), 0, Consistent},
		{"fig2 T2 at SER", strings.ReplaceAll(clientFig2, "LEVEL", "SER"), 0, Violation},
		{"fig2 all at RA", strings.ReplaceAll(clientFig2, "LEVEL", "RC"), history.ReadAtomic, Violation},
		{"fig4", strings.ReplaceAll(clientFig4, "X2", "5"), 0, Consistent},
		{"fig4 all at SER", strings.ReplaceAll(clientFig4, "X2", "5"), history.Serializable, Consistent},
		{"fig4 with a matching x2", strings.ReplaceAll(clientFig4, "X2", "1"), 0, Violation},
		{"fig4 with a matching x2 at RC", strings.ReplaceAll(clientFig4, "X2", "1"), history.ReadCommitted, Violation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := history.ReadJSONL(strings.NewReader(c.jsonl), c.name)
			if err != nil {
				t.Fatal(err)
			}
			r := Check(h, Options{Level: c.level})
			if r.Verdict != c.want {
				t.Fatalf("Check = %v, want %v (%+v)", r.Verdict, c.want, r.Explanation)
			}
			if r.Verdict == Violation && (r.Explanation == nil || r.Explanation.Anomaly == "") {
				t.Fatalf("violation without an explanation: %+v", r.Explanation)
			}
		})
	}
}

// TestCheckRejectsAReturnedRowItsPredicateRejects: a client read may not
// return a version that fails its own predicate.
func TestCheckRejectsAReturnedRowItsPredicateRejects(t *testing.T) {
	in := strings.ReplaceAll(strings.ReplaceAll(clientFig2, "LEVEL", "RC"), `"where":[["v","<=",0]]`, `"where":[["v",">",0]]`)
	h, err := history.ReadJSONL(strings.NewReader(in), "bad")
	if err != nil {
		t.Fatal(err)
	}
	r := Check(h, Options{Level: history.ReadCommitted})
	if r.Verdict != Violation || r.Explanation == nil || r.Explanation.Structural == nil ||
		!strings.Contains(r.Explanation.Structural.Reason, "which its predicate rejects") {
		t.Fatalf("Check = %v %+v, want a violation naming the returned row", r.Verdict, r.Explanation)
	}
}

// TestClientPredicateComparesByJSONType pins the semantics of the
// conditions of history.Condition on row images.
func TestClientPredicateComparesByJSONType(t *testing.T) {
	cases := []struct {
		value    string
		op       history.CompareOp
		constant string
		want     bool
	}{
		{"5", history.OpEq, "5", true},
		{"5", history.OpEq, "5.0", true},
		{"5", history.OpLt, "5.5", true},
		{"-2", history.OpLe, "0", true},
		{"9007199254740993", history.OpGt, "9007199254740992", true}, // exact for integers
		{"1e2", history.OpEq, "100", true},
		{"5", history.OpNe, "5", false},
		{`"abc"`, history.OpLt, `"abd"`, true},
		{`"B"`, history.OpLt, `"a"`, true}, // bytes, not a locale
		{`"x"`, history.OpEq, `"\u0078"`, true},
		{"true", history.OpGt, "false", true},
		{"false", history.OpEq, "false", true},
		{"null", history.OpNe, "1", false}, // NULL satisfies nothing
		{"", history.OpNe, "1", false},     // a missing column neither
		{`"5"`, history.OpEq, "5", false},  // nor another JSON type
		{"[5]", history.OpEq, "5", false},
	}
	for _, c := range cases {
		if got := satisfies([]byte(c.value), c.op, []byte(c.constant)); got != c.want {
			t.Errorf("%s %s %s = %v, want %v", c.value, c.op, c.constant, got, c.want)
		}
	}
}
