package isolation

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestRewriteRowsCallsItsFunctionOutsideTheStore pins that ALTER TABLE's
// function may use the store (a default that reads a table or advances a
// sequence): it ran under the store's lock, and such a call hung the server.
func TestRewriteRowsCallsItsFunctionOutsideTheStore(t *testing.T) {
	f := newFixture(t, Config{})
	other, err := f.s.CreateTable(TableSpec{Name: "other", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	for _, k := range []string{"a", "b"} {
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, k})
		must(t, err)
	}
	must(t, tx.Commit(bg))

	tx = begin(t, f.s.NewSession(), history.ReadCommitted)
	done := make(chan error, 1)
	go func() {
		_, err := f.s.RewriteRows(f.tab, func(r RowRewrite) []any {
			row, ok, err := tx.Get(bg, f.tab, []byte(r.Key), ReadOptions{})
			if err == nil && !ok {
				err = fmt.Errorf("own read of %s found nothing", r.Key)
			}
			if err == nil {
				_, err = tx.Insert(bg, other, []byte(r.Key), []any{row[1]})
			}
			if err != nil {
				panic(err)
			}
			return append(append([]any(nil), r.Row...), "new")
		})
		done <- err
	}()
	select {
	case err := <-done:
		must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("RewriteRows did not return: its function waited for the store")
	}
	for _, k := range []string{"a", "b"} {
		row, ok, err := tx.Get(bg, f.tab, []byte(k), ReadOptions{})
		if err != nil || !ok || len(row) != 3 || row[2] != "new" {
			t.Fatalf("%s after rewrite: %v %v %v", k, row, ok, err)
		}
	}
	must(t, tx.Commit(bg))
}

// TestRewriteRowsGivesEachKeysLatestRowFirst pins the order of the calls:
// keys in key order, each with its latest row (the own pending write, else
// the newest committed version) first and marked, so that ALTER TABLE
// computes a volatile default once per row from it; a deleted key has no
// latest row.
func TestRewriteRowsGivesEachKeysLatestRowFirst(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	for _, k := range []string{"a", "b", "c"} {
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, k + "1"})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	must(t, tx.Update(bg, f.tab, []byte("a"), []any{"a", "a2"}))
	must(t, tx.Delete(bg, f.tab, []byte("b")))
	var calls []string
	_, err := f.s.RewriteRows(f.tab, func(r RowRewrite) []any {
		calls = append(calls, fmt.Sprintf("%s %v %v", r.Key, r.Row[1], r.Latest))
		return append([]any(nil), r.Row...)
	})
	must(t, err)
	want := []string{"a a2 true", "a a1 false", "b b1 false", "c c1 true"}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("calls %q, want %q", calls, want)
	}
	must(t, tx.Commit(bg))
}

// TestRewriteRowsRefusesRowsWrittenMeanwhile pins that a row written to
// the table while the function runs (a default that inserts into its own
// table) fails the rewrite with 55006 and leaves every row as it was,
// instead of keeping a row of the old shape.
func TestRewriteRowsRefusesRowsWrittenMeanwhile(t *testing.T) {
	f := newFixture(t, Config{})
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	_, err = f.s.RewriteRows(f.tab, func(r RowRewrite) []any {
		if _, err := tx.Insert(bg, f.tab, []byte("z"), []any{"z", 2}); err != nil {
			panic(err)
		}
		return append(append([]any(nil), r.Row...), "new")
	})
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe.Code != pgerror.ObjectInUse {
		t.Fatalf("rewrite with a row written meanwhile: %v, want 55006", err)
	}
	row, _, err := tx.Get(bg, f.tab, []byte("a"), ReadOptions{})
	if err != nil || len(row) != 2 {
		t.Fatalf("a after the failed rewrite: %v %v, want its old row", row, err)
	}
}

// TestRewriteRowsRestoresRowsWithoutColumns pins the rollback of a rewrite
// that leaves rows with no column (DROP COLUMN of the last one): each
// version gets its own old row back.
func TestRewriteRowsRestoresRowsWithoutColumns(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	must(t, tx.Commit(bg))
	old := begin(t, f.s.NewSession(), history.Snapshot)
	if _, _, err := old.Get(bg, f.tab, []byte("a"), ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	tx = begin(t, s, history.ReadCommitted)
	must(t, tx.Update(bg, f.tab, []byte("a"), []any{"a", 2}))
	must(t, tx.Commit(bg))
	restore, err := f.s.RewriteRows(f.tab, func(RowRewrite) []any { return nil })
	must(t, err)
	restore()
	for tx, want := range map[*Txn]int{old: 1, begin(t, s, history.ReadCommitted): 2} {
		row, ok, err := tx.Get(bg, f.tab, []byte("a"), ReadOptions{})
		if err != nil || !ok || len(row) != 2 || row[1] != want {
			t.Fatalf("a after restore: %v %v %v, want [a %d]", row, ok, err, want)
		}
	}
}
