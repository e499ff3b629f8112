package isolation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// valueKey indexes a row by its second column, as text.
func valueKey(_ []byte, row []any) ([]byte, bool) {
	if row[1] == nil {
		return nil, true
	}
	return []byte(fmt.Sprint(row[1])), false
}

// loadRows commits rows (primary key, value) in one transaction.
func loadRows(t *testing.T, s *Store, tab TableID, rows [][2]string) {
	t.Helper()
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	for _, r := range rows {
		var v any
		if r[1] != "" {
			v = r[1]
		}
		_, err := tx.Insert(context.Background(), tab, []byte(r[0]), []any{r[0], v})
		must(t, err)
	}
	must(t, tx.Commit(context.Background()))
}

// TestCreateIndexOnExistingRowsFindsEveryVersionAndPendingWrite builds
// indexes over rows whose index keys are not in primary-key order, with
// older versions and another transaction's pending write, and reads every
// index key back through both the range path and, for the unique index,
// the exact path.
func TestCreateIndexOnExistingRowsFindsEveryVersionAndPendingWrite(t *testing.T) {
	for _, unique := range []bool{false, true} {
		t.Run(fmt.Sprintf("unique=%v", unique), func(t *testing.T) {
			s := NewStore(Config{Strategy: StrategyLatest})
			tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
			must(t, err)
			loadRows(t, s, tab, [][2]string{{"a", "30"}, {"b", "10"}, {"c", "20"}, {"d", ""}})
			up := begin(t, s.NewSession(), history.ReadCommitted)
			must(t, up.Update(context.Background(), tab, []byte("a"), []any{"a", "40"}))
			must(t, up.Commit(context.Background()))
			pending := begin(t, s.NewSession(), history.ReadCommitted)
			_, err = pending.Insert(context.Background(), tab, []byte("e"), []any{"e", "05"})
			must(t, err)

			ix, err := s.CreateIndex(tab, IndexSpec{Name: "t_v", Unique: unique, Key: valueKey})
			must(t, err)
			// The index lists every key some version or pending write put
			// under an index key, so that a scan can choose among them: a
			// look-up of a's old value finds a (at its latest version,
			// which the executor re-checks); the reader does not see e.
			reader := begin(t, s.NewSession(), history.ReadCommitted)
			for _, c := range []struct{ ik, want string }{
				{"05", ""}, {"10", "b"}, {"20", "c"}, {"30", "a"}, {"40", "a"}, {"50", ""},
			} {
				if got := indexedKeys(t, reader, ix, c.ik); got != c.want {
					t.Errorf("index key %s: rows %q, want %q", c.ik, got, c.want)
				}
			}
			var all []string
			must(t, reader.ScanIndex(context.Background(), ix, Span{}, ReadOptions{}, func(k []byte, _ []any) (bool, error) {
				all = append(all, string(k))
				return true, nil
			}))
			// d's NULL is indexed under the empty key, first; a is listed
			// once though two of its versions are indexed.
			if want := []string{"d", "b", "c", "a"}; !slices.Equal(all, want) {
				t.Errorf("full scan in index order: %v, want %v", all, want)
			}
			// The pending writer's own row is found through the new index.
			var own []string
			must(t, pending.ScanIndex(context.Background(), ix, ExactSpan([]byte("05")), ReadOptions{}, func(k []byte, _ []any) (bool, error) {
				own = append(own, string(k))
				return true, nil
			}))
			if !slices.Equal(own, []string{"e"}) {
				t.Errorf("the pending writer's own row: %v, want [e]", own)
			}
		})
	}
}

// TestCreateUniqueIndexNamesTheFirstDuplicateInPrimaryKeyOrder pins the
// key a failed unique index build names: the first row, in primary-key
// order, whose index key an earlier row has; older versions, NULLs and
// deleted rows never conflict.
func TestCreateUniqueIndexNamesTheFirstDuplicateInPrimaryKeyOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		rows [][2]string
		want string // the duplicated key named, "" when the build succeeds
	}{
		{"no duplicates", [][2]string{{"a", "2"}, {"b", "1"}, {"c", "3"}}, ""},
		{"nulls repeat freely", [][2]string{{"a", ""}, {"b", ""}, {"c", "1"}}, ""},
		{"one pair", [][2]string{{"a", "1"}, {"b", "2"}, {"c", "1"}}, "c"},
		{"the earlier of two pairs by primary key", [][2]string{{"a", "9"}, {"b", "1"}, {"c", "1"}, {"d", "9"}}, "c"},
		{"pairs out of index order", [][2]string{{"a", "5"}, {"b", "7"}, {"c", "7"}, {"d", "5"}, {"e", "5"}}, "c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewStore(Config{Strategy: StrategyLatest})
			tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
			must(t, err)
			loadRows(t, s, tab, c.rows)
			_, err = s.CreateIndex(tab, IndexSpec{Name: "t_v", Unique: true, Key: valueKey})
			if c.want == "" {
				must(t, err)
				return
			}
			wantCode(t, err, pgerror.UniqueViolation)
			if pe := pgerror.Flatten(err); pe.Detail != "Key "+c.want+" is duplicated." {
				t.Errorf("error %v, want the detail to name key %s", err, c.want)
			}
		})
	}
	// A row updated away from a shared value, or deleted, no longer holds it.
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	loadRows(t, s, tab, [][2]string{{"a", "1"}, {"b", "1"}, {"c", "1"}})
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	must(t, tx.Update(context.Background(), tab, []byte("a"), []any{"a", "2"}))
	must(t, tx.Delete(context.Background(), tab, []byte("b")))
	must(t, tx.Commit(context.Background()))
	_, err = s.CreateIndex(tab, IndexSpec{Name: "t_v", Unique: true, Key: valueKey})
	must(t, err)
}

// TestBuiltIndexEntriesGrowApart pins that the entries a build makes from
// one slab stay apart: rows added after the build under the index keys of
// neighbouring entries, and a row updated from one to another, leave every
// entry listing exactly its own keys (the updated row under both, in the
// order they were entered: the executor re-checks the row).
func TestBuiltIndexEntriesGrowApart(t *testing.T) {
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	loadRows(t, s, tab, [][2]string{{"a", "1"}, {"b", "2"}, {"c", "3"}})
	ix, err := s.CreateIndex(tab, IndexSpec{Name: "t_v", Key: valueKey})
	must(t, err)
	loadRows(t, s, tab, [][2]string{{"d", "1"}, {"e", "2"}, {"f", "1"}})
	up := begin(t, s.NewSession(), history.ReadCommitted)
	must(t, up.Update(context.Background(), tab, []byte("b"), []any{"b", "3"}))
	must(t, up.Commit(context.Background()))
	reader := begin(t, s.NewSession(), history.ReadCommitted)
	for _, c := range []struct{ ik, want string }{{"1", "a,d,f"}, {"2", "b,e"}, {"3", "c,b"}} {
		if got := indexedKeys(t, reader, ix, c.ik); got != c.want {
			t.Errorf("index key %s: rows %q, want %q", c.ik, got, c.want)
		}
	}
	must(t, reader.Commit(context.Background()))
}

// indexedKeys returns the primary keys, comma-separated, that tx's exact
// look-up of index key ik in ix returns.
func indexedKeys(t *testing.T, tx *Txn, ix IndexID, ik string) string {
	t.Helper()
	var got []string
	must(t, tx.ScanIndex(context.Background(), ix, ExactSpan([]byte(ik)), ReadOptions{}, func(k []byte, _ []any) (bool, error) {
		got = append(got, string(k))
		return true, nil
	}))
	return strings.Join(got, ",")
}
