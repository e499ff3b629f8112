package oracle

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// The seeded property tests compare the clever checkers with the dumb one
// (STYLE §7): random small histories (up to 7 transactions, 4 sessions,
// mixed levels, client rollbacks, sometimes real time), where BruteForce
// tries every commit order.
//
// By default they run a few thousand cases. Set FICKLE_ORACLE_LONG=N to run
// N cases per test (the acceptance run uses 100000):
//
//	FICKLE_ORACLE_LONG=100000 go test ./oracle -run Property -timeout 1h
//
// A failure prints its seed; FICKLE_ORACLE_SEED=S replays from that seed.
func propertyCases(t *testing.T, def int) (n int, seed uint64) {
	n = def
	if testing.Short() {
		n = def / 10
	}
	if s := os.Getenv("FICKLE_ORACLE_LONG"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			t.Fatalf("FICKLE_ORACLE_LONG=%q: want a positive number of cases", s)
		}
		n = v
	}
	seed = 1
	if s := os.Getenv("FICKLE_ORACLE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("FICKLE_ORACLE_SEED=%q: %v", s, err)
		}
		seed = v
	}
	return n, seed
}

// genParams shapes the random histories.
type genParams struct {
	maxTxns, maxSessions, keys, maxOps int
	abortPct, realTimePct              int
	// versionOrderPct is the share of histories given version orders
	// (History.VersionOrder) drawn from a hidden commit order, and
	// wrongOrderPct the share of those made inconsistent with it.
	versionOrderPct, wrongOrderPct int
	// prefixPct is the share of keys with a version order whose order is
	// cut short and marked a prefix (History.VersionOrderPrefix), as an
	// Elle list-append import marks its longest lists.
	prefixPct int
}

var smallHistories = genParams{maxTxns: 7, maxSessions: 4, keys: 3, maxOps: 4, abortPct: 15, realTimePct: 15}

// orderedHistories are smallHistories with version orders, as an Elle
// list-append import has them.
var orderedHistories = genParams{maxTxns: 7, maxSessions: 4, keys: 3, maxOps: 4, abortPct: 15, realTimePct: 15,
	versionOrderPct: 80, wrongOrderPct: 25}

// prefixHistories are orderedHistories whose version orders are often
// prefixes.
var prefixHistories = genParams{maxTxns: 7, maxSessions: 4, keys: 3, maxOps: 4, abortPct: 15, realTimePct: 15,
	versionOrderPct: 80, wrongOrderPct: 25, prefixPct: 60}

// genSmallHistory builds a random well-formed history: no structural defects
// (reads name committed writers of the key, never a session successor, and
// a transaction reads its own write once it made one), mixed levels unless
// level is set. It reports whether real time should be checked.
func genSmallHistory(rng *rand.Rand, p genParams) (*history.History, bool) {
	b := history.NewBuilder()
	nSess := 1 + rng.IntN(p.maxSessions)
	sess := make([]history.SessionID, nSess)
	for i := range sess {
		sess[i] = b.Session("S" + strconv.Itoa(i+1))
	}
	type op struct {
		write bool
		key   int
	}
	type txn struct {
		tb        *history.TxnBuilder
		session   int
		ops       []op
		committed bool
	}
	nTxns := 1 + rng.IntN(p.maxTxns)
	txns := make([]txn, nTxns)
	realTime := rng.IntN(100) < p.realTimePct
	clock := int64(1)
	for i := range txns {
		s := rng.IntN(nSess)
		level := history.Levels[rng.IntN(len(history.Levels))]
		tb := b.Txn(sess[s], level)
		ops := make([]op, 1+rng.IntN(p.maxOps))
		for j := range ops {
			ops[j] = op{write: rng.IntN(2) == 0, key: rng.IntN(p.keys)}
		}
		txns[i] = txn{tb: tb, session: s, ops: ops, committed: rng.IntN(100) >= p.abortPct}
		if realTime && rng.IntN(3) > 0 {
			start := clock + rng.Int64N(3)
			tb.Times(start, start+1+rng.Int64N(4))
			clock = start + rng.Int64N(2)
		}
	}
	keyName := func(k int) string { return string(rune('x' + k)) }
	for i := range txns {
		x := &txns[i]
		wrote := map[int]bool{}
		for _, o := range x.ops {
			if o.write {
				x.tb.Write(keyName(o.key))
				wrote[o.key] = true
				continue
			}
			if wrote[o.key] {
				x.tb.Read(keyName(o.key), x.tb.ID())
				continue
			}
			cands := []history.TxnID{history.Init}
			for j := range txns {
				y := &txns[j]
				if j == i || !y.committed || y.session == x.session && j > i {
					continue
				}
				for _, yo := range y.ops {
					if yo.write && yo.key == o.key {
						cands = append(cands, y.tb.ID())
						break
					}
				}
			}
			x.tb.Read(keyName(o.key), cands[rng.IntN(len(cands))])
		}
		if x.committed {
			x.tb.Commit()
		} else {
			x.tb.Abort()
		}
	}
	h := b.MustHistory()
	if p.versionOrderPct > 0 && rng.IntN(100) < p.versionOrderPct {
		addVersionOrders(rng, h, rng.IntN(100) < p.wrongOrderPct)
	}
	if h.VersionOrder != nil && p.prefixPct > 0 {
		markPrefixes(rng, h, p.prefixPct)
	}
	return h, realTime
}

// addVersionOrders gives h, for each key, the order of some of its
// committed writers in a hidden random commit order (a linear extension of
// session order, which the reads may or may not allow). With wrong, one
// key's order is spoiled: two writers swapped, or an aborted writer listed.
func addVersionOrders(rng *rand.Rand, h *history.History, wrong bool) {
	hidden := randomOrder(rng, h)
	h.VersionOrder = make([][]history.TxnID, len(h.Keys))
	for k := range h.Keys {
		var order []history.TxnID
		for _, t := range hidden[1:] {
			if h.Txns[t].Outcome == history.Committed && writesKey(h, t, history.KeyID(k)) && rng.IntN(4) > 0 {
				order = append(order, t)
			}
		}
		h.VersionOrder[k] = order
	}
	if !wrong {
		return
	}
	k := rng.IntN(len(h.Keys))
	order := h.VersionOrder[k]
	var aborted []history.TxnID
	for i := 1; i < len(h.Txns); i++ {
		if t := history.TxnID(i); h.Txns[i].Outcome != history.Committed && writesKey(h, t, history.KeyID(k)) {
			aborted = append(aborted, t)
		}
	}
	switch {
	case len(aborted) > 0 && rng.IntN(4) == 0:
		i := rng.IntN(len(order) + 1)
		h.VersionOrder[k] = append(order[:i:i], append([]history.TxnID{aborted[rng.IntN(len(aborted))]}, order[i:]...)...)
	case len(order) >= 2:
		i, j := rng.IntN(len(order)), rng.IntN(len(order))
		order[i], order[j] = order[j], order[i]
	}
}

// markPrefixes cuts pct percent of h's non-empty version orders at a
// random length (at least one writer) and marks them prefixes: the writers
// cut off, and those addVersionOrders left out before the cut, must then
// follow the last one kept, which the hidden order may or may not allow.
func markPrefixes(rng *rand.Rand, h *history.History, pct int) {
	h.VersionOrderPrefix = make([]bool, len(h.Keys))
	for k, order := range h.VersionOrder {
		if len(order) > 0 && rng.IntN(100) < pct {
			h.VersionOrder[k] = order[:1+rng.IntN(len(order))]
			h.VersionOrderPrefix[k] = true
		}
	}
}

// writesKey reports whether t writes k.
func writesKey(h *history.History, t history.TxnID, k history.KeyID) bool {
	for _, op := range h.Txns[t].Ops {
		if op.Kind == history.OpWrite && op.Key == k {
			return true
		}
	}
	return false
}

// TestPropertySearchAgreesWithBruteForce: on random small histories, the
// search, Check and the brute force give the same verdict, mixed or at each
// single level, and every witness the search returns passes both CheckOrder
// and the literal axioms.
func TestPropertySearchAgreesWithBruteForce(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	agreeWithBruteForce(t, n, seed, rand.New(rand.NewPCG(seed, 0xfeed)), smallHistories)
}

// TestPropertyVersionOrdersAgreeWithBruteForce: the same with version
// orders drawn from a hidden commit order, some of them spoiled, which
// the brute force takes literally (co orders each key's listed writers as
// listed).
func TestPropertyVersionOrdersAgreeWithBruteForce(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	if changed := agreeWithBruteForce(t, n, seed, rand.New(rand.NewPCG(seed, 0x0bde)), orderedHistories); changed == 0 {
		t.Fatal("no version order changed a verdict: the generator does not exercise them")
	}
}

// TestPropertyVersionOrderPrefixesAgreeWithBruteForce: the same with
// version orders that are often prefixes, whose unlisted committed writers
// the brute force puts after the last listed one; some of those prefixes
// must decide a verdict the listed pairs alone do not.
func TestPropertyVersionOrderPrefixesAgreeWithBruteForce(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	agreeWithBruteForce(t, n, seed, rand.New(rand.NewPCG(seed, 0x9f1e)), prefixHistories)
	rng := rand.New(rand.NewPCG(seed, 0x9f1f))
	decided := 0
	for range n {
		h, realTime := genSmallHistory(rng, prefixHistories)
		if h.VersionOrderPrefix == nil {
			continue
		}
		opts := Options{RealTime: realTime}
		want := bruteForceDecides(t, h, opts)
		listedOnly := *h
		listedOnly.VersionOrderPrefix = nil
		if v := bruteForceDecides(t, &listedOnly, opts); v != want {
			decided++
			if v != Consistent || want != Violation {
				t.Fatalf("marking prefixes turned %v into %v: they may only add constraints\n%s", v, want, dumpHistory(h))
			}
		}
	}
	if decided == 0 {
		t.Fatal("no prefix mark changed a verdict: the generator does not exercise them")
	}
	t.Logf("%d histories decided by a prefix mark", decided)
}

// TestPropertyCheckOrderRespectsVersionOrderPrefixes: CheckOrder and the
// literal axioms agree on random commit orders of histories whose version
// orders are often prefixes.
func TestPropertyCheckOrderRespectsVersionOrderPrefixes(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	checkOrderAgrees(t, n, seed, rand.New(rand.NewPCG(seed, 0x9c0d)), prefixHistories)
}

// bruteForceDecides is BruteForce's verdict, which must not be Unknown:
// the generated histories are valid and small enough for it, and two
// Unknowns would compare equal.
func bruteForceDecides(t *testing.T, h *history.History, opts Options) Verdict {
	t.Helper()
	v, _ := BruteForce(h, opts)
	if v == Unknown {
		t.Fatalf("the brute force did not decide (invalid or too large a history)\n%s", dumpHistory(h))
	}
	return v
}

// agreeWithBruteForce runs n cases of the histories p draws through the
// search, Check and BruteForce. It returns how many histories' version
// orders changed the brute force's verdict.
func agreeWithBruteForce(t *testing.T, n int, seed uint64, rng *rand.Rand, p genParams) (changed int) {
	var verdicts [3]int
	for i := range n {
		h, realTime := genSmallHistory(rng, p)
		level := history.LevelUnknown
		if rng.IntN(3) == 0 {
			level = history.Levels[rng.IntN(len(history.Levels))]
		}
		// Both definitions of read committed, for the RC transactions.
		opts := Options{Level: level, RealTime: realTime, RC: RCDefinition(rng.IntN(2))}
		if rng.IntN(2) == 0 {
			// A recorded order, right or wrong: Check verifies it and falls
			// back to the search when it fails.
			h.CommitOrder = randomOrder(rng, h)
		}
		want := bruteForceDecides(t, h, opts)
		if h.VersionOrder != nil {
			unordered := *h
			unordered.VersionOrder = nil
			if v := bruteForceDecides(t, &unordered, opts); v != want {
				changed++
			}
		}
		got, co, why := Search(h, opts)
		if got == Unknown {
			t.Fatalf("case %d (seed %d): the search did not decide: %v\n%s", i, seed, why, dumpHistory(h))
		}
		verdicts[got]++
		if got != want {
			t.Fatalf("case %d (seed %d): Search = %v, BruteForce = %v, level %v (%v), real time %v\n%s", i, seed, got, want, level, opts.RC, realTime, dumpHistory(h))
		}
		if co != nil && !bruteOrderSatisfies(h, co, opts) {
			t.Fatalf("case %d (seed %d): the search's witness %v fails the literal axioms\n%s", i, seed, co, dumpHistory(h))
		}
		if r := Check(h, opts); r.Verdict != Unknown && r.Verdict != want {
			t.Fatalf("case %d (seed %d): Check = %v, BruteForce = %v, level %v (%v), real time %v\n%s", i, seed, r.Verdict, want, level, opts.RC, realTime, dumpHistory(h))
		}
	}
	if verdicts[Consistent] == 0 || verdicts[Violation] == 0 {
		t.Fatalf("the generator is one-sided: %d consistent, %d violations", verdicts[Consistent], verdicts[Violation])
	}
	t.Logf("%d cases: %d consistent, %d violations, %d decided by a version order", n, verdicts[Consistent], verdicts[Violation], changed)
	return changed
}

// TestPropertyCheckOrderAgreesWithLiteralAxioms: for random commit orders
// (linear extensions of session order, half of them of so ∪ wr too),
// CheckOrder accepts exactly the orders on which the axioms literally hold,
// whole and restricted to every transaction in turn.
func TestPropertyCheckOrderAgreesWithLiteralAxioms(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	checkOrderAgrees(t, n, seed, rand.New(rand.NewPCG(seed, 0xc0de)), smallHistories)
}

// TestPropertyCheckOrderRespectsVersionOrders: the same with version
// orders, some of which the random commit orders reverse.
func TestPropertyCheckOrderRespectsVersionOrders(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	checkOrderAgrees(t, n, seed, rand.New(rand.NewPCG(seed, 0x0c0d)), orderedHistories)
}

// checkOrderAgrees runs n cases of the histories p draws, each with a
// random commit order, through CheckOrder, VerifyOrder and the literal
// axioms.
func checkOrderAgrees(t *testing.T, n int, seed uint64, rng *rand.Rand, p genParams) {
	accepted := 0
	for i := range n {
		h, realTime := genSmallHistory(rng, p)
		level := history.LevelUnknown
		if rng.IntN(3) == 0 {
			level = history.Levels[rng.IntN(len(history.Levels))]
		}
		opts := Options{Level: level, RealTime: realTime, RC: RCDefinition(rng.IntN(2))}
		co := randomOrder(rng, h)
		want := bruteOrderSatisfies(h, co, opts)
		e, err := CheckOrder(h, co, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (e == nil) != want {
			t.Fatalf("case %d (seed %d): CheckOrder(%v) = %+v, literal axioms say %v, level %v (%v), real time %v\n%s", i, seed, co, e, want, level, opts.RC, realTime, dumpHistory(h))
		}
		if want {
			accepted++
		}
		// Positions are labels, not indexes: a view with gaps agrees.
		if e := VerifyOrder(h, gappedOrder(t, h, co), opts, nil); (e == nil) != want {
			t.Fatalf("case %d (seed %d): VerifyOrder over a gapped view = %+v, literal axioms say %v\n%s", i, seed, e, want, dumpHistory(h))
		}
		// Restricted to each transaction, the failures add up to the whole.
		anyFails := false
		for id := 1; id < len(h.Txns); id++ {
			e, _ := CheckOrder(h, co, opts, []history.TxnID{history.TxnID(id)})
			anyFails = anyFails || e != nil
		}
		if anyFails == want {
			t.Fatalf("case %d (seed %d): per-transaction checks say failing=%v, whole check says consistent=%v\n%s", i, seed, anyFails, want, dumpHistory(h))
		}
	}
	if accepted == 0 || accepted == n {
		t.Fatalf("one-sided: %d of %d orders accepted", accepted, n)
	}
	t.Logf("%d orders: %d accepted", n, accepted)
}

// gappedView is an OrderView whose positions are spread out (7p+3), as an
// order-maintenance structure's labels would be.
type gappedView struct{ o *SliceOrder }

func gappedOrder(t *testing.T, h *history.History, co []history.TxnID) gappedView {
	o, err := NewSliceOrder(h, co)
	if err != nil {
		t.Fatal(err)
	}
	return gappedView{o}
}

func (g gappedView) Pos(t history.TxnID) (uint64, bool) {
	p, ok := g.o.Pos(t)
	return 7*p + 3, ok
}

func (g gappedView) NextWriter(k history.KeyID, p uint64) (history.TxnID, uint64, bool) {
	t, q, ok := g.o.NextWriter(k, (p-3)/7)
	return t, 7*q + 3, ok
}

func (g gappedView) PrevWriter(k history.KeyID, p uint64) (history.TxnID, uint64, bool) {
	if p <= 3 {
		return 0, 0, false
	}
	t, q, ok := g.o.PrevWriter(k, (p-3+6)/7)
	return t, 7*q + 3, ok
}

// randomOrder returns a random linear extension of session order (Init
// first); half the time it also extends wr, so that it often passes.
func randomOrder(rng *rand.Rand, h *history.History) []history.TxnID {
	extendWR := rng.IntN(2) == 0
	next := make([]int, len(h.Sessions))
	co := []history.TxnID{history.Init}
	placed := map[history.TxnID]bool{history.Init: true}
	for {
		var ready []history.TxnID
		for s := range h.Sessions {
			if next[s] >= len(h.Sessions[s].Txns) {
				continue
			}
			t := h.Sessions[s].Txns[next[s]]
			ok := true
			if extendWR {
				for _, op := range h.Txns[t].Ops {
					if op.Kind == history.OpRead && op.Writer != t && !placed[op.Writer] {
						ok = false
					}
				}
			}
			if ok {
				ready = append(ready, t)
			}
		}
		if len(ready) == 0 {
			break
		}
		t := ready[rng.IntN(len(ready))]
		co = append(co, t)
		placed[t] = true
		next[h.Txns[t].Session]++
	}
	for s := range h.Sessions { // wr made a cycle: finish by session order
		for ; next[s] < len(h.Sessions[s].Txns); next[s]++ {
			co = append(co, h.Sessions[s].Txns[next[s]])
		}
	}
	return co
}

// dumpHistory prints a history for a failing case.
func dumpHistory(h *history.History) string {
	out := ""
	for _, s := range h.Sessions {
		out += s.Name + ":"
		for _, id := range s.Txns {
			t := &h.Txns[id]
			out += " T" + strconv.Itoa(int(id)) + "[" + t.Level.String() + " " + t.Outcome.String()
			if t.Start != 0 {
				out += " " + strconv.FormatInt(t.Start, 10) + ".." + strconv.FormatInt(t.End, 10)
			}
			out += ":"
			for _, op := range t.Ops {
				if op.Kind == history.OpWrite {
					out += " w" + h.Keys[op.Key].Name
				} else {
					out += " r" + h.Keys[op.Key].Name + "←" + strconv.Itoa(int(op.Writer))
				}
			}
			out += "]"
		}
		out += "\n"
	}
	for k, order := range h.VersionOrder {
		if len(order) > 0 {
			out += "version order of " + h.Keys[k].Name + ":"
			for _, t := range order {
				out += " T" + strconv.Itoa(int(t))
			}
			if k < len(h.VersionOrderPrefix) && h.VersionOrderPrefix[k] {
				out += " (a prefix)"
			}
			out += "\n"
		}
	}
	return out
}

// FuzzSearchAgreesWithBruteForce explores generator seeds beyond the fixed
// ones: go test ./oracle -run '^$' -fuzz FuzzSearchAgreesWithBruteForce.
func FuzzSearchAgreesWithBruteForce(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1 << 40} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, seed uint64, levelByte uint8) {
		rng := rand.New(rand.NewPCG(seed, 0xf022))
		h, realTime := genSmallHistory(rng, smallHistories)
		opts := Options{RealTime: realTime}
		if i := int(levelByte) % (len(history.Levels) + 1); i > 0 {
			opts.Level = history.Levels[i-1]
		}
		want := bruteForceDecides(t, h, opts)
		got, co, _ := Search(h, opts)
		if got != want {
			t.Fatalf("Search = %v, BruteForce = %v\n%s", got, want, dumpHistory(h))
		}
		if co != nil {
			if e, err := CheckOrder(h, co, opts, nil); err != nil || e != nil {
				t.Fatalf("witness %v rejected: %v %+v", co, err, e)
			}
		}
	})
}
