package isolation

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestCheckpointFoldsCommittedStateIntoInitAndStartsANewHistory(t *testing.T) {
	f := newFixture(t, Config{Record: true})
	a, b := f.s.NewSession(), f.s.NewSession()
	tx := begin(t, a, history.ReadCommitted)
	for _, k := range []string{"x", "y"} {
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, k})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	tx = begin(t, a, history.ReadCommitted)
	must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", "x2"}))
	must(t, tx.Delete(bg, f.tab, []byte("y")))
	must(t, tx.Commit(bg))

	reader := begin(t, b, history.ReadCommitted)
	_, _, err := reader.Get(bg, f.tab, []byte("x"), ReadOptions{})
	must(t, err)
	_, err = f.s.Checkpoint()
	wantCode(t, err, pgerror.ObjectInUse)
	must(t, reader.Commit(bg))

	caller := begin(t, b, history.Serializable) // the checkpoint's own statement
	old, err := f.s.Checkpoint()
	must(t, err)
	if len(old.Txns) != 5 || old.CommitOrder == nil || old.Txns[4].Outcome != history.Pending || len(old.Txns[4].Ops) != 0 {
		t.Fatalf("old history has %d transactions, want init, 3 ended and the caller's, pending and empty", len(old.Txns))
	}
	row, ok, err := caller.Get(bg, f.tab, []byte("x"), ReadOptions{})
	if err != nil || !ok || row[1] != "x2" {
		t.Fatalf("after checkpoint x = %v %v %v, want x2", row, ok, err)
	}
	if _, ok, _ := caller.Get(bg, f.tab, []byte("y"), ReadOptions{}); ok {
		t.Fatal("deleted row survived the checkpoint")
	}
	must(t, caller.Commit(bg))
	h := f.s.History()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(h.Txns) != 2 || h.Txns[1].Ops[0].Writer != history.Init || len(h.Txns[0].Ops) != 1 {
		t.Fatalf("new history: %s", dumpHistory(h))
	}
	tb := f.s.e.tables[f.tab]
	ks, _ := tb.keys.Get("x")
	if len(ks.versions()) != 1 || ks.versions()[0].w != f.s.e.init {
		t.Fatalf("x keeps %d versions after the checkpoint, want init's only", len(ks.versions()))
	}
	// The unique index was rebuilt from the folded state: y's value is free.
	tx = begin(t, a, history.ReadCommitted)
	_, err = tx.Insert(bg, f.tab, []byte("z"), []any{"z", "y"})
	must(t, err)
	_, err = tx.Insert(bg, f.tab, []byte("w"), []any{"w", "x2"})
	wantCode(t, err, pgerror.UniqueViolation)
}

// TestCheckpointKeepsLoggedTransactionIDsFresh streams two histories
// separated by a checkpoint to one log: the store numbers the second
// history's transactions from 1 again, but the log must give them ids it
// has not used, or a reader rejects the second begin of an id.
func TestCheckpointKeepsLoggedTransactionIDsFresh(t *testing.T) {
	var buf bytes.Buffer
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	f := newFixture(t, Config{Record: true, Log: log})
	a, b := f.s.NewSession(), f.s.NewSession()
	for _, k := range []string{"x", "y"} {
		tx := begin(t, a, history.ReadCommitted)
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, k})
		must(t, err)
		must(t, tx.Commit(bg))
	}
	_, err = f.s.Checkpoint()
	must(t, err)
	tx := begin(t, b, history.Serializable)
	must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", "x2"}))
	must(t, tx.Commit(bg))
	tx = begin(t, a, history.Serializable)
	row, _, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{Latest: true})
	must(t, err)
	must(t, tx.Commit(bg))
	must(t, log.Close())
	text := buf.String()

	h, err := history.ReadJSONL(&buf, "log")
	if err != nil {
		t.Fatalf("the log does not read back: %v\n%s", err, text)
	}
	// The reader keeps the history after the last checkpoint: init, the
	// update, and the read of it, under ids after the first history's.
	if len(h.Txns) != 3 || row[1] != "x2" {
		t.Fatalf("read back %d transactions (want 3), x = %v:\n%s", len(h.Txns), row, text)
	}
	upd, rd := h.Txns[1], h.Txns[2]
	if len(rd.Ops) != 1 || rd.Ops[0].Writer != upd.ID || upd.Outcome != history.Committed {
		t.Fatalf("the read of x does not name the update's id:\n%s", text)
	}
	if !strings.Contains(text, `{"e":"begin","t":3,`) {
		t.Fatalf("the first transaction after the checkpoint is not logged as T3:\n%s", text)
	}
}
