package history

import (
	"path/filepath"
	"testing"
)

// TestFileLogReadsBackWhatItWroteSoFar: ReadBack sees every transaction
// logged before it, the open ones as pending, and none logged after it,
// even when the function it returned runs later.
func TestFileLogReadsBackWhatItWroteSoFar(t *testing.T) {
	l, err := CreateFileLog(filepath.Join(t.TempDir(), "h.jsonl"), Header{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	x := Key{Table: "t", Name: "x"}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.Session(0, ""))
	must(l.Begin(1, 0, Serializable, 0, ""))
	must(l.Write(1, WriteItem{Key: x}))
	must(l.CommitOrder(1, Init))
	must(l.Commit(1, 0))
	must(l.Begin(2, 0, Serializable, 0, ""))
	must(l.Read(2, []ReadItem{{Key: x, Writer: 1}}))
	read, err := l.ReadBack()
	must(err)
	must(l.CommitOrder(2, 1))
	must(l.Commit(2, 0))
	h, err := read()
	must(err)
	if len(h.Txns) != 3 || h.Txns[1].Outcome != Committed || h.Txns[2].Outcome != Pending {
		t.Fatalf("read back %d transactions: %+v", len(h.Txns), h.Txns)
	}
	if ops := h.Txns[2].Ops; len(ops) != 1 || ops[0].Writer != 1 {
		t.Fatalf("the open transaction's reads: %+v", ops)
	}
}
