package isolation

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// rekeyFixture is a table keyed by its rows' first value (a string),
// holding keys, committed.
func rekeyFixture(t *testing.T, cfg Config, keys ...string) (*Store, TableID) {
	t.Helper()
	s := NewStore(cfg)
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	for _, k := range keys {
		_, err := tx.Insert(bg, tab, []byte(k), []any{k})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	return s, tab
}

// scanKeys lists the keys and first values of the rows tx sees, in scan
// order.
func scanKeys(t *testing.T, tx *Txn, tab TableID) (keys []string, vals []any) {
	t.Helper()
	must(t, tx.Scan(bg, tab, Span{}, ReadOptions{}, func(k []byte, row []any) (bool, error) {
		keys = append(keys, string(k))
		vals = append(vals, row[0])
		return true, nil
	}))
	return keys, vals
}

// TestRekeyToRowIDsKeepsStoredRowsAndAppendsFreshIDs pins the rekeyed
// table: the stored rows keep their keys, and rows inserted without a key
// get ids that differ from every stored key, even one a prefix of another
// or of the length of a plain row id, and sort after them all.
func TestRekeyToRowIDsKeepsStoredRowsAndAppendsFreshIDs(t *testing.T) {
	stored := []string{"a", "zz", "zz\x00", "12345678"}
	s, tab := rekeyFixture(t, Config{}, stored...)
	_, err := s.RekeyToRowIDs(tab)
	must(t, err)
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	var fresh []string
	for _, v := range []string{"a", "zz"} { // the old key's values again
		k, err := tx.Insert(bg, tab, nil, []any{v})
		must(t, err)
		fresh = append(fresh, string(k))
	}
	must(t, tx.Commit(bg))
	for _, k := range fresh {
		if slices.Contains(stored, k) {
			t.Fatalf("new row id %q is a stored key", k)
		}
	}
	if fresh[0] == fresh[1] {
		t.Fatalf("two new rows got the same id %q", fresh[0])
	}
	tx = begin(t, s.NewSession(), history.ReadCommitted)
	keys, vals := scanKeys(t, tx, tab)
	want := append(slices.Sorted(slices.Values(stored)), fresh...)
	if !slices.Equal(keys, want) || vals[len(vals)-2] != "a" || vals[len(vals)-1] != "zz" {
		t.Fatalf("scan after rekey: keys %q values %v, want keys %q", keys, vals, want)
	}
	row, ok, err := tx.Get(bg, tab, []byte("zz"), ReadOptions{})
	if err != nil || !ok || row[0] != "zz" {
		t.Fatalf("stored row zz after rekey: %v %v %v", row, ok, err)
	}
	must(t, tx.Commit(bg))
}

// TestRekeyToRowIDsOfAnEmptyTableGivesPlainRowIDs pins that a table with
// no key stored gets the ids of a table keyed by row ids from the start.
func TestRekeyToRowIDsOfAnEmptyTableGivesPlainRowIDs(t *testing.T) {
	s, tab := rekeyFixture(t, Config{})
	_, err := s.RekeyToRowIDs(tab)
	must(t, err)
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	k, err := tx.Insert(bg, tab, nil, []any{"x"})
	must(t, err)
	if !bytes.Equal(k, []byte{0, 0, 0, 0, 0, 0, 0, 1}) {
		t.Fatalf("first row id %q", k)
	}
	must(t, tx.Commit(bg))
}

// TestRekeyToRowIDsRestoreKeysByPrimaryKeyAgain pins the rollback of the
// DDL: after the rows written since are discarded and restore runs, an
// insert needs a key again and the rows are as before.
func TestRekeyToRowIDsRestoreKeysByPrimaryKeyAgain(t *testing.T) {
	s, tab := rekeyFixture(t, Config{}, "a", "b")
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	restore, err := s.RekeyToRowIDs(tab)
	must(t, err)
	_, err = tx.Insert(bg, tab, nil, []any{"a"})
	must(t, err)
	must(t, tx.Rollback())
	restore()
	tx = begin(t, s.NewSession(), history.ReadCommitted)
	if _, err := tx.Insert(bg, tab, nil, []any{"c"}); err == nil {
		t.Fatal("insert without a key after restore succeeded")
	}
	must(t, tx.Rollback())
	tx = begin(t, s.NewSession(), history.ReadCommitted)
	if _, err := tx.Insert(bg, tab, []byte("a"), []any{"a"}); err == nil {
		t.Fatal("insert of stored key a after restore succeeded")
	}
	must(t, tx.Rollback())
	tx = begin(t, s.NewSession(), history.ReadCommitted)
	if keys, _ := scanKeys(t, tx, tab); !slices.Equal(keys, []string{"a", "b"}) {
		t.Fatalf("rows after restore: %q", keys)
	}
	must(t, tx.Commit(bg))
}

// TestRekeyToRowIDsKeepsRowIdentityInTheHistory pins that a stored row is
// one key of the history before and after the rekey (under the same name),
// and that the new rows' names differ from every stored key's, even ones
// that look like them.
func TestRekeyToRowIDsKeepsRowIdentityInTheHistory(t *testing.T) {
	s, tab := rekeyFixture(t, Config{Record: true}, "a", "#1", "##2")
	_, err := s.RekeyToRowIDs(tab)
	must(t, err)
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	must(t, tx.Update(bg, tab, []byte("a"), []any{"a2"}))
	_, err = tx.Insert(bg, tab, nil, []any{"new"})
	must(t, err)
	must(t, tx.Commit(bg))
	h := s.History()
	var names []string
	for _, k := range h.Keys {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"a", "#1", "##2", "###1"}) {
		t.Fatalf("history keys %q", names)
	}
	writers := map[string]int{}
	for _, ht := range h.Txns {
		for _, op := range ht.Ops {
			if op.Kind == history.OpWrite {
				writers[h.Keys[op.Key].Name]++
			}
		}
	}
	if writers["a"] != 2 {
		t.Fatalf("writes of a before and after the rekey: %v", writers)
	}
}

// TestRekeyToRowIDsLeavesARowIDTableAlone pins that a table keyed by row
// ids already keeps its ids.
func TestRekeyToRowIDsLeavesARowIDTableAlone(t *testing.T) {
	s := NewStore(Config{})
	tab, err := s.CreateTable(TableSpec{Name: "h", HiddenRowID: true})
	must(t, err)
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	_, err = tx.Insert(bg, tab, nil, []any{"x"})
	must(t, err)
	restore, err := s.RekeyToRowIDs(tab)
	must(t, err)
	restore()
	k, err := tx.Insert(bg, tab, nil, []any{"y"})
	must(t, err)
	if !bytes.Equal(k, []byte{0, 0, 0, 0, 0, 0, 0, 2}) || strings.Contains(string(k), "x") {
		t.Fatalf("second row id %q", k)
	}
	must(t, tx.Commit(bg))
}

// TestRekeyToRowIDsAgainAfterARollbackNamesIDsApart pins a rekey rolled
// back after a row was inserted, then done again: the first row id keeps
// its key and name, the new ids are other keys with other names.
func TestRekeyToRowIDsAgainAfterARollbackNamesIDsApart(t *testing.T) {
	s, tab := rekeyFixture(t, Config{Record: true}, "a")
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	restore, err := s.RekeyToRowIDs(tab)
	must(t, err)
	first, err := tx.Insert(bg, tab, nil, []any{"x"})
	must(t, err)
	must(t, tx.Rollback())
	restore()
	_, err = s.RekeyToRowIDs(tab)
	must(t, err)
	tx = begin(t, s.NewSession(), history.ReadCommitted)
	second, err := tx.Insert(bg, tab, nil, []any{"y"})
	must(t, err)
	must(t, tx.Commit(bg))
	if bytes.Equal(first, second) {
		t.Fatalf("the second rekey's row id %q is the first's", second)
	}
	var names []string
	for _, k := range s.History().Keys {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"a", "#1", "##1"}) {
		t.Fatalf("history keys %q", names)
	}
}
