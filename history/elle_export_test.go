package history

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// listAppendExample is a small recorded history: two sessions, a commit
// order, a read of Init, reads of others' and of its own appends, a
// delete, a client rollback and a pending transaction.
func listAppendExample() *History {
	b := NewBuilder()
	s0, s1 := b.Session("a"), b.Session("b")
	t1 := b.Txn(s0, Serializable).ReadAbsent("1", Init).WriteValue("1", 10).WriteValue("2", 20).Commit()
	tb := b.Txn(s1, Snapshot)
	tb.ReadValue("1", t1, 10).WriteValue("1", 11)
	tb.ReadValue("1", tb.ID(), 11)
	t2 := tb.Commit()
	t3 := b.Txn(s0, ReadCommitted).ReadValue("1", t2, 11).Delete("2").Commit()
	b.Txn(s1, Serializable).WriteValue("1", 12).Abort()
	b.Txn(s0, Serializable).ReadValue("2", t3, 0).WriteValue("3", 30).End(Pending)
	b.CommitOrder(t1, t2, t3, 4)
	return b.MustHistory()
}

// TestWriteElleListAppendGolden pins the list-append EDN of a small
// recorded history: appends, reads as the lists of the versions up to the
// one read in commit order ([] for Init, the transaction's own appends
// for its own write), a delete as a fresh value, and invocations with nil
// reads.
func TestWriteElleListAppendGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteElleEDNModel(&buf, listAppendExample(), ElleListAppend); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/elle-list-append.edn", buf.Bytes())
}

// TestElleModelChoice pins ElleModelOf (list-append for list-append
// imports, rw-register otherwise), ParseElleModel, and the refusal to write
// list-append without a version order.
func TestElleModelChoice(t *testing.T) {
	la, err := ReadElleEDN(strings.NewReader("{:type :ok, :process 0, :f :txn, :value [[:append 1 1] [:r 1 [1]]]}\n"), "la")
	if err != nil {
		t.Fatal(err)
	}
	rw, err := ReadElleEDN(strings.NewReader("{:type :ok, :process 0, :f :txn, :value [[:w 1 1] [:r 1 1]]}\n"), "rw")
	if err != nil {
		t.Fatal(err)
	}
	if ElleModelOf(la) != ElleListAppend || ElleModelOf(rw) != ElleRWRegister || ElleModelOf(listAppendExample()) != ElleRWRegister {
		t.Errorf("models: list-append import %s, rw-register import %s, recorded history %s", ElleModelOf(la), ElleModelOf(rw), ElleModelOf(listAppendExample()))
	}
	for in, want := range map[string]ElleModel{"": ElleAuto, "Auto": ElleAuto, "list-append": ElleListAppend, " rw-register": ElleRWRegister} {
		if got, err := ParseElleModel(in); err != nil || got != want {
			t.Errorf("ParseElleModel(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := ParseElleModel("set"); err == nil || !strings.Contains(err.Error(), "list-append") {
		t.Errorf("ParseElleModel(set) = %v, want an error listing the models", err)
	}
	err = WriteElleEDNModel(&bytes.Buffer{}, rw, ElleListAppend)
	if err == nil || !strings.Contains(err.Error(), "version order") || CheckElleListAppend(rw) == nil {
		t.Errorf("list-append export of an rw-register history: %v, want a version-order error", err)
	}
}

// TestElleListAppendRoundTripsGeneratedHistories exports generated
// histories with a commit order (mixed levels, client rollbacks) as
// list-append and imports them back: the same committed history, and each
// key's version order is its observed writers in commit order.
func TestElleListAppendRoundTripsGeneratedHistories(t *testing.T) {
	for seed := uint64(0); seed < 25; seed++ {
		h := Generate(GenOptions{Txns: 60, Sessions: 1 + int(seed%6), Keys: 2 + int(seed%9), Seed: seed,
			Mixed: true, AbortRate: 0.15, OpsPerTxn: 1 + int(seed%10), CommitOrder: true})
		var buf bytes.Buffer
		if err := WriteElleEDNModel(&buf, h, ElleListAppend); err != nil {
			t.Fatal(err)
		}
		exported := buf.String()
		got, err := ReadElleEDN(&buf, "rt")
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, exported)
		}
		if a, b := canonical(h, true), canonical(got, true); a != b {
			t.Fatalf("seed %d: list-append round trip changed the history:\n%s\nvs\n%s", seed, a, b)
		}
		if len(got.IncompatibleOrders) > 0 {
			t.Fatalf("seed %d: incompatible orders %v in a history with a commit order", seed, got.IncompatibleOrders)
		}
		// The export lists sessions in order, so places match.
		orig := make(map[TxnID]TxnID)
		for i, sess := range got.Sessions {
			for j, id := range sess.Txns {
				orig[id] = h.Sessions[i].Txns[j]
			}
		}
		pos := make(map[TxnID]int)
		for i, id := range h.CommitOrder {
			pos[id] = i
		}
		for k, order := range got.VersionOrder {
			for i, id := range order {
				o := orig[id]
				if h.Txns[o].Outcome != Committed || (i > 0 && pos[orig[order[i-1]]] >= pos[o]) {
					t.Fatalf("seed %d key %s: version order %v is not committed writers in commit order %v", seed, got.Keys[k], order, h.CommitOrder)
				}
			}
		}
	}
}

// TestElleImportReportsIncompatibleOrders pins the import of reads whose
// lists are not prefixes of one another: the key and both reads are
// recorded (the first such read in the file, and the longest list), the
// key gets no version order, and other keys keep theirs.
func TestElleImportReportsIncompatibleOrders(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:append 1 1] [:append 2 5]]}
{:type :ok, :process 1, :f :txn, :value [[:append 1 2]]}
{:type :ok, :process 2, :f :txn, :value [[:append 1 3]]}
{:type :ok, :process 3, :f :txn, :value [[:r 2 [5]] [:r 1 [1 2]]]}
{:type :ok, :process 4, :f :txn, :value [[:r 1 [1 3]] [:r 1 [1 2]]]}
{:type :ok, :process 5, :f :txn, :value [[:r 1 [1 2 9]]]}
`
	h, err := ReadElleEDN(strings.NewReader(edn), "inc.edn")
	if err != nil {
		t.Fatal(err)
	}
	want := []IncompatibleOrder{{Key: 0, Reads: [2]ListRead{{Txn: 5, Op: 0, List: []int64{1, 3}}, {Txn: 6, Op: 0, List: []int64{1, 2, 9}}},
		Others: []ListRead{{Txn: 4, Op: 1, List: []int64{1, 2}}, {Txn: 5, Op: 1, List: []int64{1, 2}}}}}
	if !reflect.DeepEqual(h.IncompatibleOrders, want) {
		t.Errorf("incompatible orders %+v, want %+v", h.IncompatibleOrders, want)
	}
	if h.VersionOrder[0] != nil || !reflect.DeepEqual(h.VersionOrder[1], []TxnID{1}) {
		t.Errorf("version orders %v, want none for key 1 and [T1] for key 2", h.VersionOrder)
	}
	var buf bytes.Buffer
	if err := WriteElleEDN(&buf, h); err != nil {
		t.Fatal(err)
	}
	got, err := ReadElleEDN(&buf, "again")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.IncompatibleOrders) != 1 || got.IncompatibleOrders[0].Key != 0 {
		t.Errorf("after a round trip, incompatible orders %+v, want one for key 1:\n%s", got.IncompatibleOrders, buf.String())
	}
}
