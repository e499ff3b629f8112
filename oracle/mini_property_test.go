package oracle

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// genMiniHistory builds a random read-modify-write history by simulating
// sessions that run mini-transactions (paper 001, Def. 8: one or two
// reads, at most two writes, each after a read of its key) and read,
// mostly, the latest committed version of a key, sometimes an older one
// or, for a repeated read, another one; a few transactions end rolled back
// by the client, pending or aborted by the server. Values are the writers'
// ids. With times, transactions get overlapping real-time intervals.
func genMiniHistory(rng *rand.Rand, maxTxns, keys int) *history.History {
	b := history.NewBuilder()
	nSess := 1 + rng.IntN(4)
	sess := make([]history.SessionID, nSess)
	for i := range sess {
		sess[i] = b.Session("S" + strconv.Itoa(i+1))
	}
	key := func(k int) string { return string(rune('x' + k)) }
	versions := make([][]history.TxnID, keys) // committed writers, oldest first (Init first)
	for k := range versions {
		versions[k] = []history.TxnID{history.Init}
	}
	stale := rng.IntN(4) // how often reads are stale, in quarters
	timed := rng.IntN(2) == 0
	clock := int64(1)
	n := 1 + rng.IntN(maxTxns)
	for i := 0; i < n; i++ {
		tb := b.Txn(sess[rng.IntN(nSess)], history.Serializable)
		id := tb.ID()
		x, y := rng.IntN(keys), rng.IntN(keys)
		read := func(k int) history.TxnID {
			vs := versions[k]
			w := vs[len(vs)-1]
			if rng.IntN(4) < stale {
				w = vs[rng.IntN(len(vs))]
			}
			tb.ReadValue(key(k), w, int64(w))
			return w
		}
		var writes []int
		switch rng.IntN(6) {
		case 0: // R(x)
			read(x)
		case 1: // R(x) R(y), or R(x) R(x)
			read(x)
			read(y)
		case 2: // R(x) W(x)
			read(x)
			writes = []int{x}
		case 3: // R(x) R(y) W(x)
			read(x)
			read(y)
			writes = []int{x}
		case 4: // R(x) R(y) W(x) W(y)
			read(x)
			if y != x {
				read(y)
				writes = []int{x, y}
			} else {
				writes = []int{x}
			}
		case 5: // R(x) W(x) R(x): a read of its own write
			read(x)
			tb.WriteValue(key(x), int64(id))
			tb.ReadValue(key(x), id, int64(id))
			writes = nil
			versions[x] = append(versions[x], id)
		}
		for _, k := range writes {
			tb.WriteValue(key(k), int64(id))
		}
		outcome := history.Committed
		switch r := rng.IntN(20); {
		case r == 0:
			outcome = history.ClientAborted
		case r == 1:
			outcome = history.Pending
		case r == 2:
			outcome = history.ServerAborted
		}
		tb.End(outcome)
		if outcome == history.Committed {
			for _, k := range writes {
				versions[k] = append(versions[k], id)
			}
		} else if last := &versions[x]; len(*last) > 0 && (*last)[len(*last)-1] == id {
			*last = (*last)[:len(*last)-1] // case 5's write did not commit
		}
		if timed && rng.IntN(5) > 0 {
			start := clock + rng.Int64N(3)
			tb.Times(start, start+1+rng.Int64N(4))
			clock = start + rng.Int64N(3)
		}
	}
	return b.MustHistory()
}

// TestMiniAgreesWithCheck: on random read-modify-write histories, the
// linear-time checks of SI and SER, with and without real time, give
// oracle.Check's verdict.
func TestMiniAgreesWithCheck(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	rng := rand.New(rand.NewPCG(seed, 14))
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		h := genMiniHistory(rng, 8, 2+rng.IntN(2))
		for _, opts := range []Options{
			{Level: history.Snapshot}, {Level: history.Serializable},
			{Level: history.Snapshot, RealTime: true}, {Level: history.Serializable, RealTime: true},
		} {
			mini, err := CheckMini(h, opts)
			if err != nil {
				t.Fatalf("case %d: %v\n%s", i, err, dump(h))
			}
			opts.MaxSteps = 50_000_000
			general := Check(h, opts)
			if general.Verdict == Unknown {
				continue
			}
			counts[opts.Level.String()+"/"+strconv.FormatBool(opts.RealTime)+"/"+mini.Verdict.String()]++
			if mini.Verdict != general.Verdict {
				why := ""
				if general.Explanation != nil {
					why = general.Explanation.Text(h)
				}
				t.Fatalf("case %d (seed %d), %s real time %v: mini says %s, Check says %s\n%s\n%s",
					i, seed, opts.Level, opts.RealTime, mini.Verdict, general.Verdict, why, dump(h))
			}
		}
	}
	t.Logf("verdicts over %d histories: %v", n, counts)
}

// genLightweightHistory builds a random history of lightweight
// transactions on one or two keys: inserts (a read of Init's tombstone and
// a write), compare-and-sets and reads, each its own transaction in a
// session of its own (linearizability knows no sessions), mostly with a
// real-time interval; reads and compare-and-sets mostly see the latest
// version, sometimes an older one.
func genLightweightHistory(rng *rand.Rand, maxTxns int) *history.History {
	b := history.NewBuilder()
	keys := 1 + rng.IntN(2)
	versions := make([][]history.TxnID, keys)
	for k := range versions {
		versions[k] = []history.TxnID{history.Init}
	}
	stale := rng.IntN(3)
	clock := int64(1)
	n := 1 + rng.IntN(maxTxns)
	for i := 0; i < n; i++ {
		tb := b.Txn(b.Session("S"+strconv.Itoa(i+1)), history.Serializable)
		k := rng.IntN(keys)
		name := string(rune('x' + k))
		vs := versions[k]
		w := vs[len(vs)-1]
		if rng.IntN(6) < stale {
			w = vs[rng.IntN(len(vs))]
		}
		tb.ReadValue(name, w, int64(w))
		write := rng.IntN(3) > 0
		if write {
			tb.WriteValue(name, int64(tb.ID()))
			versions[k] = append(versions[k], tb.ID())
		}
		tb.Commit()
		if rng.IntN(8) > 0 {
			start := clock + rng.Int64N(3)
			end := start + 1 + rng.Int64N(4)
			if rng.IntN(10) == 0 {
				end = 0 // outcome seen late: no end time
			}
			tb.Times(start, end)
			clock = start + rng.Int64N(3)
		}
	}
	return b.MustHistory()
}

// TestLinearizableAgreesWithCheck: on random lightweight-transaction
// histories, CheckLinearizable gives the verdict of oracle.Check at SER
// with real time, and so does CheckMini.
func TestLinearizableAgreesWithCheck(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	rng := rand.New(rand.NewPCG(seed, 1414))
	counts := map[Verdict]int{}
	opts := Options{Level: history.Serializable, RealTime: true}
	for i := 0; i < n; i++ {
		h := genLightweightHistory(rng, 10)
		lin, err := CheckLinearizable(h)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, dump(h))
		}
		mini, err := CheckMini(h, opts)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		general := Check(h, Options{Level: history.Serializable, RealTime: true, MaxSteps: 50_000_000})
		if general.Verdict == Unknown {
			continue
		}
		counts[lin.Verdict]++
		if lin.Verdict != general.Verdict || mini.Verdict != general.Verdict {
			t.Fatalf("case %d (seed %d): linearizability %s, mini SSER %s, Check %s\n%s", i, seed, lin.Verdict, mini.Verdict, general.Verdict, dump(h))
		}
	}
	t.Logf("verdicts over %d histories: %v", n, counts)
}

// TestLinearizableRejectsOtherShapes: a transaction of two keys is no
// lightweight transaction.
func TestLinearizableRejectsOtherShapes(t *testing.T) {
	h, err := parseMiniHistory([]string{"S1: r x 0, r y 0, w x 1"})
	if err != nil {
		t.Fatal(err)
	}
	var nm *NotMiniError
	if _, err := CheckLinearizable(h); !errors.As(err, &nm) {
		t.Fatalf("got %v, want a NotMiniError", err)
	}
}

// dump renders h one transaction a line, for failure messages.
func dump(h *history.History) string {
	var b strings.Builder
	_ = h.Dump(&b)
	return b.String()
}
