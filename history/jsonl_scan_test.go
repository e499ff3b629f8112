package history

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestScanExpansionMatchesANaiveModel writes random runs whose reads are
// compact scan events (snapshots as of a random place in a commit order
// that grows by insertions anywhere, with overridden and filtered keys),
// reads them back, and compares every expanded read with a naive model:
// the commit order as a plain slice, versions found by walking it.
func TestScanExpansionMatchesANaiveModel(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var out bytes.Buffer
		w, _ := NewWriter(&out, Header{})
		b := NewBuilder()
		nKeys := 1 + rng.IntN(6)
		keys := make([]Key, nKeys)
		for i := range keys {
			table := "a"
			if rng.IntN(3) == 0 {
				table = "b"
			}
			keys[i] = Key{Table: table, Name: strconv.Itoa(i)}
			b.Key(table, keys[i].Name)
			w.key(keys[i])
		}
		// Init writes some keys; the rest start as tombstones.
		for i, k := range keys {
			if rng.IntN(2) == 0 {
				w.Write(Init, WriteItem{Key: k, HasValue: true, Value: int64(i)})
				b.InitWrite(KeyID(i), int64(i))
			}
		}
		s := b.Session("s")
		w.Session(0, "s")
		co := []TxnID{Init}
		writes := map[TxnID]map[KeyID]bool{Init: {}} // committed txn -> key -> tombstone
		for _, op := range b.h.Txns[Init].Ops {
			writes[Init][op.Key] = false
		}
		latest := func(k KeyID, asof TxnID) (TxnID, bool) {
			w, del := Init, true
			for _, t := range co {
				if d, ok := writes[t][k]; ok {
					w, del = t, d
				}
				if t == asof {
					break
				}
			}
			return w, del
		}
		// Every tenth run inserts many transactions right after Init,
		// which exhausts the label gaps and makes the reader relabel.
		nTxns, crowd := 12, seed%10 == 0
		if crowd {
			nTxns = 80
		}
		for i := 1; i <= nTxns; i++ {
			id := TxnID(i)
			tb := b.Txn(s, Serializable)
			w.Begin(id, 0, Serializable, 0, "")
			asof := co[rng.IntN(len(co))]
			table := []string{"", "a", "b"}[rng.IntN(3)]
			var sc Scan
			sc.Table, sc.AsOf = table, asof
			tb.Stmt(Statement{Table: table})
			w.Stmt(id, Statement{Table: table})
			overridden := map[KeyID]bool{}
			for k := range keys {
				if rng.IntN(4) == 0 {
					wr := co[rng.IntN(len(co))]
					if _, ok := writes[wr][KeyID(k)]; !ok {
						wr = Init
					}
					it := ReadItem{Key: keys[k], Writer: wr, Tombstone: wr == Init && !slices.ContainsFunc(b.h.Txns[Init].Ops, func(o Op) bool { return o.Key == KeyID(k) })}
					it.Returned = !it.Tombstone
					sc.Except = append(sc.Except, it)
					overridden[KeyID(k)] = true
					op := Op{Kind: OpRead, Key: KeyID(k), Writer: wr}
					if it.Returned {
						op.Flags |= FlagReturned
					}
					if it.Tombstone {
						op.Flags |= FlagTombstone
					}
					tb.Op(op)
				}
			}
			filtered := map[KeyID]bool{}
			for k := range keys {
				if rng.IntN(3) == 0 {
					filtered[KeyID(k)] = true
					sc.Filtered = append(sc.Filtered, keys[k])
				}
			}
			for k, key := range keys {
				if overridden[KeyID(k)] || (table != "" && key.Table != table) {
					continue
				}
				wr, del := latest(KeyID(k), asof)
				op := Op{Kind: OpRead, Key: KeyID(k), Writer: wr}
				switch {
				case del:
					op.Flags |= FlagTombstone
				case !filtered[KeyID(k)]:
					op.Flags |= FlagReturned
				}
				tb.Op(op)
			}
			w.Scan(id, sc)
			mine := map[KeyID]bool{}
			for k := range keys {
				if rng.IntN(3) == 0 {
					del := rng.IntN(4) == 0
					mine[KeyID(k)] = del
					w.Stmt(id, Statement{})
					w.Write(id, WriteItem{Key: keys[k], Tombstone: del})
					op := Op{Kind: OpWrite, Key: KeyID(k)}
					if del {
						op.Flags = FlagTombstone
					}
					tb.Stmt(Statement{}).Op(op)
				}
			}
			if rng.IntN(5) == 0 {
				w.Abort(id, ClientAborted, "", 0)
				tb.Abort()
			} else {
				w.Commit(id, 0)
				tb.Commit()
				writes[id] = mine
			}
			pos := rng.IntN(len(co))
			if crowd && rng.IntN(4) != 0 {
				pos = 0
			}
			w.CommitOrder(id, co[pos])
			co = slices.Insert(co, pos+1, id)
		}
		w.Close()
		b.h.CommitOrder = co
		want := b.MustHistory()
		got, err := ReadJSONL(&out, "scan.jsonl")
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if a, g := dumpString(want), dumpString(got); a != g {
			t.Fatalf("seed %d: expansion differs:\nwant:\n%s\ngot:\n%s", seed, a, g)
		}
	}
}

// TestCommitOrderLabelsSurviveRelabeling inserts transactions at random
// places, and many at one place (which exhausts the label gaps and forces
// relabeling), and checks the order and the labels against a plain slice.
func TestCommitOrderLabelsSurviveRelabeling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := newCoTracker()
	naive := []TxnID{Init}
	const n = 5000
	c.grow(n + 1)
	for i := 1; i <= n; i++ {
		pos := 0 // right after Init: the worst case for the gaps
		if i%3 == 0 {
			pos = rng.IntN(len(naive))
		}
		if err := c.insertAfter(TxnID(i), naive[pos]); err != nil {
			t.Fatal(err)
		}
		naive = slices.Insert(naive, pos+1, TxnID(i))
	}
	if c.gen == 0 {
		t.Fatal("no relabeling happened: the test does not exercise it")
	}
	if got := c.order(); !slices.Equal(got, naive) {
		t.Fatal("commit order differs from the naive one")
	}
	for i := 1; i < len(naive); i++ {
		if c.label[naive[i-1]] >= c.label[naive[i]] {
			t.Fatalf("labels out of order at %d", i)
		}
	}
	if err := c.insertAfter(5, Init); err == nil {
		t.Fatal("placing a transaction twice succeeded")
	}
	if err := c.insertAfter(n+7, n+8); err == nil {
		t.Fatal("placing after an unplaced transaction succeeded")
	}
}
