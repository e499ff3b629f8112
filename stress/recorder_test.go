package stress

import (
	"bytes"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// record runs transactions through a recorder and reads the history back.
// Each transaction is its statements (op and result) and outcome.
func record(t *testing.T, workload string, txns []txnRecord) *history.History {
	t.Helper()
	var buf bytes.Buffer
	w, err := history.NewWriter(&buf, history.Header{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(w, "t", workload)
	r.initial(2)
	r.session(0, "S1")
	for i := range txns {
		rec := r.begin(0, history.Serializable)
		rec.stmts, rec.outcome, rec.code = txns[i].stmts, txns[i].outcome, txns[i].code
		rec.end = rec.start + 1
		r.finish(rec)
	}
	if err := r.close(); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadJSONL(&buf, "recorded")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	return h
}

func read(k int, v int64) stmtRecord {
	return stmtRecord{op: op{kind: opRead, key: k}, res: opResult{value: v}}
}

func write(k int) stmtRecord {
	return stmtRecord{op: op{kind: opWrite, key: k}, res: opResult{applied: true}}
}

// TestRecordedReadsNameTheirWriters: a read of value v names transaction
// v, value 0 names Init, a value no transaction wrote is a thin-air read.
func TestRecordedReadsNameTheirWriters(t *testing.T) {
	h := record(t, "mt", []txnRecord{
		{stmts: []stmtRecord{read(0, 0), write(0)}, outcome: history.Committed},
		{stmts: []stmtRecord{read(0, 1), read(1, 0)}, outcome: history.Committed},
	})
	ops := h.Txns[2].Ops
	if ops[0].Writer != 1 || ops[1].Writer != history.Init || ops[0].Value != 1 {
		t.Fatalf("reads name %d and %d, want T1 and init:\n%v", ops[0].Writer, ops[1].Writer, ops)
	}
	if r := oracle.Check(h, oracle.Options{Level: history.Serializable}); r.Verdict != oracle.Consistent {
		t.Fatalf("%s", r.Explanation.Text(h))
	}
	h = record(t, "mt", []txnRecord{{stmts: []stmtRecord{read(0, 99)}, outcome: history.Committed}})
	r := oracle.Check(h, oracle.Options{Level: history.ReadCommitted})
	if r.Verdict != oracle.Violation || r.Explanation.Structural == nil || r.Explanation.Structural.Kind != oracle.ThinAirRead {
		t.Fatalf("a read of a value nobody wrote: %v", r.Verdict)
	}
}

// TestUnansweredCommits: a transaction whose COMMIT got no answer is
// committed (with no end time) when another read its write, else pending
// with its writes alone.
func TestUnansweredCommits(t *testing.T) {
	h := record(t, "mt", []txnRecord{
		{stmts: []stmtRecord{read(0, 0), write(0)}, outcome: history.Pending},
		{stmts: []stmtRecord{read(1, 0), write(1)}, outcome: history.Pending},
		{stmts: []stmtRecord{read(0, 1)}, outcome: history.Committed},
	})
	if t1 := h.Txns[1]; t1.Outcome != history.Committed || t1.End != 0 || len(t1.Ops) != 2 {
		t.Errorf("the seen one: %s, end %d, %d ops; want committed, no end, 2 ops", t1.Outcome, t1.End, len(t1.Ops))
	}
	if t2 := h.Txns[2]; t2.Outcome != history.Pending || len(t2.Ops) != 1 || t2.Ops[0].Kind != history.OpWrite {
		t.Errorf("the unseen one: %s with %v; want pending with its write alone", t2.Outcome, t2.Ops)
	}
	if r := oracle.Check(h, oracle.Options{Level: history.Serializable, RealTime: true}); r.Verdict != oracle.Consistent {
		t.Fatalf("%s", r.Explanation.Text(h))
	}
}

// TestListOrders: the append workload's longest list read of a key
// becomes its version order, and two lists that are not prefixes of one
// another its incompatible order.
func TestListOrders(t *testing.T) {
	appendTo := func(k int) stmtRecord {
		return stmtRecord{op: op{kind: opAppend, key: k}, res: opResult{applied: true}}
	}
	readList := func(k int, list ...int64) stmtRecord {
		r := stmtRecord{op: op{kind: opRead, key: k}, res: opResult{list: list, absent: len(list) == 0}}
		if len(list) > 0 {
			r.res.value = list[len(list)-1]
		}
		return r
	}
	h := record(t, "append", []txnRecord{
		{stmts: []stmtRecord{appendTo(0)}, outcome: history.Committed},                       // T1
		{stmts: []stmtRecord{appendTo(0), appendTo(1)}, outcome: history.Committed},          // T2
		{stmts: []stmtRecord{readList(0, 1, 2), readList(1, 2)}, outcome: history.Committed}, // T3
		{stmts: []stmtRecord{readList(1, 4)}, outcome: history.Committed},                    // T4: a value nobody appended
		{stmts: []stmtRecord{readList(1)}, outcome: history.Committed},                       // T5: empty
	})
	if got := h.VersionOrder[h.Intern(history.Key{Table: "t", Name: "0"})]; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("key 0's order: %v, want [T1 T2]", got)
	}
	if len(h.IncompatibleOrders) != 1 {
		t.Fatalf("incompatible orders: %v, want key 1's", h.IncompatibleOrders)
	}
	if r := oracle.Check(h, oracle.Options{Level: history.ReadCommitted}); r.Verdict != oracle.Violation {
		t.Errorf("incompatible lists: %s, want a violation", r.Verdict)
	}
}
