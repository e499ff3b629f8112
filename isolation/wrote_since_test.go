package isolation

import (
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestWroteSince pins Txn.WroteSince, which WHERE CURRENT OF and a cursor
// that locks rows use to know whether the transaction replaced or deleted
// a row after a cursor read it: its own writes at or after the mark count,
// earlier ones, other transactions' writes and writes rolled back to a
// savepoint do not.
func TestWroteSince(t *testing.T) {
	f := newFixture(t, Config{})
	setup := begin(t, f.s.NewSession(), history.ReadCommitted)
	for _, k := range []string{"a", "b", "c", "d"} {
		_, err := setup.Insert(bg, f.tab, []byte(k), []any{k, k})
		must(t, err)
	}
	must(t, setup.Commit(bg))

	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	must(t, tx.Update(bg, f.tab, []byte("a"), []any{"a", "a1"})) // before the mark
	mark := tx.WriteMark()
	must(t, tx.Update(bg, f.tab, []byte("b"), []any{"b", "b1"}))
	must(t, tx.Delete(bg, f.tab, []byte("c")))
	sp := tx.Savepoint()
	must(t, tx.Update(bg, f.tab, []byte("d"), []any{"d", "d1"}))
	must(t, tx.RollbackTo(sp))

	other := begin(t, f.s.NewSession(), history.ReadCommitted)
	_, err := other.Insert(bg, f.tab, []byte("e"), []any{"e", "e"})
	must(t, err)

	for _, c := range []struct {
		key  string
		mark WriteMark
		want bool
	}{
		{"a", mark, false}, // written before the mark
		{"a", 1, true},     // but after the first write's
		{"b", mark, true},  // updated since
		{"c", mark, true},  // deleted since
		{"d", mark, false}, // rolled back
		{"e", mark, false}, // another transaction's
		{"z", mark, false}, // a key nobody has
		{"b", 0, false},    // no mark
	} {
		if got := tx.WroteSince(f.tab, []byte(c.key), c.mark); got != c.want {
			t.Errorf("WroteSince(%q, %d) = %v, want %v", c.key, c.mark, got, c.want)
		}
	}
}
