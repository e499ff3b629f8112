package isolation

import (
	"slices"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestHeapPlacesLikePostgres pins the heap model's places against what
// PostgreSQL 15 gives on a fresh table (the sizes are t_len: 28 for one
// int, 1928 for a 1900-byte text, 524 for 500 bytes, 1028 for 1000).
func TestHeapPlacesLikePostgres(t *testing.T) {
	type put struct {
		size, n    int
		update     *Tid // the old version an update replaces
		fillfactor int
		want       Tid // the last one's place
	}
	cases := []struct {
		name string
		puts []put
	}{
		// 226 one-int tuples fill a page (36 bytes each with the line
		// pointer); the 227th starts the next.
		{"int rows", []put{{size: 28, n: 226, want: Tid{0, 226}}, {size: 28, n: 1, want: Tid{1, 1}}}},
		// fillfactor=10 keeps 7372 bytes of a page from inserts: 22 ints.
		{"fillfactor", []put{{size: 28, n: 23, fillfactor: 10, want: Tid{1, 1}}}},
		// An update goes on its old version's page when it fits there,
		// past the fillfactor's reserve.
		{"update on its page", []put{{size: 28, n: 23, fillfactor: 10, want: Tid{1, 1}},
			{size: 28, n: 1, update: &Tid{0, 3}, fillfactor: 10, want: Tid{0, 23}}}},
		// A row too big for the last page's rest starts a page; the page
		// left behind is in the free space map, where a later row that
		// does not fit the then last page finds room.
		{"free space map", []put{{size: 1928, n: 4, want: Tid{0, 4}}, {size: 524, n: 1, want: Tid{1, 1}},
			{size: 1928, n: 3, want: Tid{1, 4}}, {size: 1928, n: 4, want: Tid{2, 4}},
			{size: 1028, n: 1, want: Tid{1, 5}}, {size: 34, n: 1, want: Tid{1, 6}}}},
		// An update that does not fit its page goes where an insert would.
		{"update off its page", []put{{size: 1928, n: 4, want: Tid{0, 4}},
			{size: 1928, n: 1, update: &Tid{0, 1}, want: Tid{1, 1}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := heap{target: -1}
			for i, p := range c.puts {
				var got Tid
				for range p.n {
					got = h.place(p.size, p.update, p.fillfactor)
				}
				if got != p.want {
					t.Fatalf("put %d: placed at %v, want %v", i, got, p.want)
				}
			}
		})
	}
}

// TestVersionsTakePlaces pins the places of the versions a transaction
// writes through the store's API: each insert and update takes the next
// place, a transaction's repeated updates each take one, a rolled-back
// write keeps its place taken, a delete takes none, and reads, locks and
// OwnVersion return the place of the version they are about.
func TestVersionsTakePlaces(t *testing.T) {
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, err := s.CreateTable(TableSpec{Name: "t", Tuple: func([]any) (int, int) { return 28, 0 }})
	must(t, err)
	sess := s.NewSession()
	place := func(tx *Txn, key string) Tid {
		t.Helper()
		var v RowVersion
		if _, ok, err := tx.Get(bg, tab, []byte(key), ReadOptions{Version: &v}); err != nil || !ok {
			t.Fatalf("read %s: %v %v", key, ok, err)
		}
		return v.Ctid
	}
	tx := begin(t, sess, history.ReadCommitted)
	for _, k := range []string{"a", "b", "c"} {
		_, err := tx.Insert(bg, tab, []byte(k), []any{k})
		must(t, err)
	}
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	must(t, tx.Update(bg, tab, []byte("b"), []any{"b1"}))
	if got := tx.OwnVersion(tab, []byte("b")).Ctid; got != (Tid{0, 4}) {
		t.Fatalf("own update of b at %v, want (0,4)", got)
	}
	must(t, tx.Update(bg, tab, []byte("b"), []any{"b2"}))
	if got := place(tx, "b"); got != (Tid{0, 5}) {
		t.Fatalf("second own update of b read at %v, want (0,5)", got)
	}
	sp := tx.Savepoint()
	must(t, tx.Update(bg, tab, []byte("a"), []any{"a1"}))
	must(t, tx.RollbackTo(sp))
	must(t, tx.Delete(bg, tab, []byte("c")))
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	_, err = tx.Insert(bg, tab, []byte("d"), []any{"d"})
	must(t, err)
	must(t, tx.Rollback())

	tx = begin(t, sess, history.ReadCommitted)
	_, err = tx.Insert(bg, tab, []byte("e"), []any{"e"})
	must(t, err)
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	for key, want := range map[string]Tid{"a": {0, 1}, "b": {0, 5}, "e": {0, 8}} {
		if got := place(tx, key); got != want {
			t.Errorf("%s at %v, want %v", key, got, want)
		}
	}
	locked, err := tx.LockRow(bg, tab, []byte("b"), LockRequest{Mode: RowLockUpdate})
	must(t, err)
	if locked.Version.Ctid != (Tid{0, 5}) {
		t.Errorf("locked b at %v, want (0,5)", locked.Version.Ctid)
	}
	must(t, tx.Commit(bg))
}

// TestNewHeapStartsOverUntilRolledBack pins TRUNCATE's fresh heap: rows
// written after it start at (0,1), and a rollback to a savepoint taken
// before it, or of the transaction, brings the old heap back.
func TestNewHeapStartsOverUntilRolledBack(t *testing.T) {
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, err := s.CreateTable(TableSpec{Name: "t", Tuple: func([]any) (int, int) { return 28, 0 }})
	must(t, err)
	sess := s.NewSession()
	insert := func(tx *Txn, key string, want Tid) {
		t.Helper()
		_, err := tx.Insert(bg, tab, []byte(key), []any{key})
		must(t, err)
		if got := tx.OwnVersion(tab, []byte(key)).Ctid; got != want {
			t.Fatalf("%s at %v, want %v", key, got, want)
		}
	}
	tx := begin(t, sess, history.ReadCommitted)
	insert(tx, "a", Tid{0, 1})
	sp := tx.Savepoint()
	must(t, tx.NewHeap(tab))
	insert(tx, "b", Tid{0, 1})
	must(t, tx.RollbackTo(sp))
	insert(tx, "c", Tid{0, 2})
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	must(t, tx.NewHeap(tab))
	insert(tx, "d", Tid{0, 1})
	must(t, tx.Rollback())

	tx = begin(t, sess, history.ReadCommitted)
	sp = tx.Savepoint()
	must(t, tx.NewHeap(tab))
	must(t, tx.Release(sp))
	sp = tx.Savepoint()
	insert(tx, "e", Tid{0, 1})
	must(t, tx.RollbackTo(sp))
	insert(tx, "f", Tid{0, 2})
	must(t, tx.Commit(bg))
}

// TestRelayoutWritesTheRowsAnew pins Txn.Relayout: the live rows take the
// first places of a fresh heap in the order asked (an index's keys, their
// places now), an index whose keys repeat is refused, a transaction's own
// writes are refused unless the relayout takes the rows it sees, and a
// rollback brings the old places back.
func TestRelayoutWritesTheRowsAnew(t *testing.T) {
	s := NewStore(Config{Strategy: StrategyLatest})
	tab, err := s.CreateTable(TableSpec{Name: "t", Tuple: func([]any) (int, int) { return 28, 0 }})
	must(t, err)
	byVal, err := s.CreateIndex(tab, IndexSpec{Name: "t_v", Key: func(dst []byte, row []any) ([]byte, bool) {
		return append(dst, row[0].(string)...), false
	}})
	must(t, err)
	sess := s.NewSession()
	places := func(tx *Txn, keys ...string) []Tid {
		t.Helper()
		var out []Tid
		for _, k := range keys {
			var v RowVersion
			_, _, err := tx.Get(bg, tab, []byte(k), ReadOptions{Version: &v})
			must(t, err)
			out = append(out, v.Ctid)
		}
		return out
	}
	tx := begin(t, sess, history.ReadCommitted)
	for _, kv := range [][2]string{{"a", "z"}, {"b", "y"}, {"c", "x"}, {"d", "w"}} {
		_, err := tx.Insert(bg, tab, []byte(kv[0]), []any{kv[1]})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	tx = begin(t, sess, history.ReadCommitted)
	must(t, tx.Delete(bg, tab, []byte("d")))
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	must(t, tx.Relayout(tab, LayoutOrder{Index: byVal}))
	if got := places(tx, "a", "b", "c"); !slices.Equal(got, []Tid{{0, 3}, {0, 2}, {0, 1}}) {
		t.Fatalf("clustered by value: %v", got)
	}
	must(t, tx.Rollback())
	tx = begin(t, sess, history.ReadCommitted)
	if got := places(tx, "a", "b", "c"); !slices.Equal(got, []Tid{{0, 1}, {0, 2}, {0, 3}}) {
		t.Fatalf("after the rollback: %v, want the places before", got)
	}
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	must(t, tx.Update(bg, tab, []byte("a"), []any{"y"}))
	if err := tx.Relayout(tab, LayoutOrder{Index: byVal}); err == nil {
		t.Fatal("relayout of a table the transaction wrote to was not refused")
	}
	must(t, tx.Relayout(tab, LayoutOrder{Index: NoIndex, Visible: true}))
	if got := places(tx, "b", "c", "a"); !slices.Equal(got, []Tid{{0, 1}, {0, 2}, {0, 3}}) {
		t.Fatalf("rewritten as seen: %v", got)
	}
	must(t, tx.Commit(bg))

	tx = begin(t, sess, history.ReadCommitted)
	if err := tx.Relayout(tab, LayoutOrder{Index: byVal}); err == nil {
		t.Fatal("clustering on repeated keys (a and b hold y) was not refused")
	}
	must(t, tx.Rollback())
	tx = begin(t, sess, history.ReadCommitted)
	if got := places(tx, "b", "c", "a"); !slices.Equal(got, []Tid{{0, 1}, {0, 2}, {0, 3}}) {
		t.Fatalf("the committed relayout's places: %v", got)
	}
	must(t, tx.Commit(bg))
}
