package isolation

import (
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestOnReadChoiceReportsEveryReadThatPicksAVersion: a read that picks
// among committed versions is reported before it picks, with the
// reader's identity across runs, every committed version's writer, the
// versions its level allows and the history so far; a read of the
// transaction's own write and a latest-version read are not reported.
func TestOnReadChoiceReportsEveryReadThatPicksAVersion(t *testing.T) {
	f := newFixture(t, Config{Record: true})
	var got []ReadChoice
	f.s.OnReadChoice(func(c ReadChoice) { got = append(got, c) })
	w := f.s.NewSession()
	for v := 1; v <= 2; v++ {
		tx := begin(t, w, history.ReadCommitted)
		if v == 1 {
			_, err := tx.Insert(bg, f.tab, []byte("x"), []any{"x", v})
			must(t, err)
		} else {
			must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", v}))
		}
		must(t, tx.Commit(bg))
	}
	r := begin(t, f.s.NewSession(), history.Serializable)
	r.Statement(history.Statement{SQL: "select"})
	_, _, err := r.Get(bg, f.tab, []byte("x"), ReadOptions{})
	must(t, err)
	_, _, err = r.Get(bg, f.tab, []byte("x"), ReadOptions{Latest: true})
	must(t, err)
	_, err = r.Insert(bg, f.tab, []byte("y"), []any{"y", 3})
	must(t, err)
	_, _, err = r.Get(bg, f.tab, []byte("y"), ReadOptions{})
	must(t, err)
	must(t, r.Commit(bg))
	if len(got) != 1 {
		t.Fatalf("%d reads reported, want the first read of x only: %+v", len(got), got)
	}
	c := got[0]
	if c.Session != 1 || c.Seq != 1 || c.Txn != 3 || c.Key.String() != "t/x" || c.Checkpoints != 0 ||
		fmt.Sprint(c.Writers) != "[0 1 2]" || fmt.Sprint(c.Valid) != "[0 1 2]" {
		t.Fatalf("reported %+v", c)
	}
	if c.Prefix == nil || len(c.Prefix.Txns) != 4 || c.Prefix.Txns[3].Outcome != history.Pending || len(c.Prefix.Txns[3].Ops) != 0 {
		t.Fatalf("the prefix is not the history before the read: %+v", c.Prefix)
	}
}
