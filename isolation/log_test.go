package isolation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestLoggedWritesCarryTheRowImagesOfSetRowFormat: a table with a row
// format logs every write with its row image (none for a delete), so that
// a report can show the values a read saw; a table without one logs none.
func TestLoggedWritesCarryTheRowImagesOfSetRowFormat(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	s := NewStore(Config{Log: log})
	withRows, err := s.CreateTable(TableSpec{Name: "acct", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	must(t, s.SetRowFormat(withRows, func(row []any) string { return fmt.Sprintf(`{"id":%q,"bal":%d}`, row[0], row[1]) }))
	bare, err := s.CreateTable(TableSpec{Name: "bare", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	tx := begin(t, s.NewSession(), history.ReadCommitted)
	_, err = tx.Insert(bg, withRows, []byte("a"), []any{"a", 1})
	must(t, err)
	must(t, tx.Update(bg, withRows, []byte("a"), []any{"a", 2}))
	_, err = tx.Insert(bg, withRows, []byte("b"), []any{"b", 5})
	must(t, err)
	must(t, tx.Delete(bg, withRows, []byte("b")))
	_, err = tx.Insert(bg, bare, []byte("c"), []any{"c", 3})
	must(t, err)
	must(t, tx.Commit(bg))
	must(t, log.Close())
	h, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
	must(t, err)
	got := map[string]string{}
	for i, op := range h.Txns[1].Ops {
		if op.Kind == history.OpWrite {
			got[h.Keys[op.Key].String()] = h.Txns[1].Rows[i]
		}
	}
	want := map[string]string{"acct/a": `{"id":"a","bal":2}`, "acct/b": "", "bare/c": ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("logged row images %v, want %v\n%s", got, want, buf.String())
	}
}

// TestLoggedStaleReadsNameTheLatestVersionTheyMissed: a read served an
// older version than the latest committed one says so in the log (the
// "newer" member), naming the latest version's writer; a read of the latest
// version, and a read of the transaction's own write, do not.
func TestLoggedStaleReadsNameTheLatestVersionTheyMissed(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	f := newFixture(t, Config{Log: log})
	w := begin(t, f.s.NewSession(), history.ReadCommitted)
	_, err = w.Insert(bg, f.tab, []byte("x"), []any{"x", 1})
	must(t, err)
	must(t, w.Commit(bg))
	for _, strategy := range []Strategy{StrategyOldest, StrategyLatest} {
		r, err := f.s.NewSession().Begin(TxnOptions{Level: history.ReadCommitted, Strategy: strategy})
		must(t, err)
		r.Statement(history.Statement{SQL: "select"})
		_, _, err = r.Get(bg, f.tab, []byte("x"), ReadOptions{})
		must(t, err)
		_, err = r.Insert(bg, f.tab, []byte("y"), []any{"y", 2})
		must(t, err)
		r.Statement(history.Statement{SQL: "select own"})
		_, _, err = r.Get(bg, f.tab, []byte("y"), ReadOptions{})
		must(t, err)
		must(t, r.Rollback())
	}
	must(t, log.Close())
	h, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
	must(t, err)
	var got []string
	for _, tx := range h.Txns[2:] {
		for i, op := range tx.Ops {
			if op.Kind != history.OpRead {
				continue
			}
			latest, stale := tx.LatestOf(i)
			got = append(got, fmt.Sprintf("%s from T%d stale=%v latest=T%d", h.Keys[op.Key], op.Writer, stale, latest))
		}
	}
	want := []string{"t/x from T0 stale=true latest=T1", "t/x from T1 stale=false latest=T0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("logged reads %v, want %v\n%s", got, want, buf.String())
	}
}

// TestLoggedWritesBelongToTheStatementsThatMadeThem: each write is logged
// in the statement that made it (before the next statement starts), not
// with the transaction's last statement; a write a ROLLBACK TO SAVEPOINT
// undoes is never logged, and the writes after a savepoint wait for its
// release (which an ORM's savepoint around a statement gives before the
// next statement starts).
func TestLoggedWritesBelongToTheStatementsThatMadeThem(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	f := newFixture(t, Config{Log: log})
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	stmt := func(sql string) { tx.Statement(history.Statement{SQL: sql}) }
	n := 10
	insert := func(k string) {
		n++
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, n})
		must(t, err)
	}
	stmt("insert a")
	insert("a")
	stmt("update a")
	must(t, tx.Update(bg, f.tab, []byte("a"), []any{"a", 2}))
	sp := tx.Savepoint()
	stmt("insert b")
	insert("b")
	must(t, tx.RollbackTo(sp))
	stmt("insert c")
	insert("c")
	must(t, tx.Release(sp))
	stmt("insert d")
	insert("d")
	stmt("select 1")
	must(t, tx.Commit(bg))
	must(t, log.Close())
	h, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
	must(t, err)
	txn := h.Txns[len(h.Txns)-1]
	var got []string
	for _, op := range txn.Ops {
		if op.Kind == history.OpWrite {
			got = append(got, h.Keys[op.Key].Name+" in "+txn.Statements[op.Event].SQL)
		}
	}
	want := []string{"a in insert a", "a in update a", "c in insert c", "d in insert d"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("logged writes %q, want %q\n%s", got, want, buf.String())
	}
}
