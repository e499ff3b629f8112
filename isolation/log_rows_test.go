package isolation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestLoggedWritesCarryTheRowImagesOfTableSpecFormatRow: a table whose spec
// formats rows logs every committed write with its row image (the last
// write of each key only, and none for a delete), so that a report can show
// the values a read saw; a table without FormatRow logs none.
func TestLoggedWritesCarryTheRowImagesOfTableSpecFormatRow(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	s := NewStore(Config{Log: log})
	withRows, err := s.CreateTable(TableSpec{Name: "acct", FormatKey: func(k []byte) string { return string(k) },
		FormatRow: func(row []any) string { return fmt.Sprintf(`{"id":%q,"bal":%d}`, row[0], row[1]) }})
	must(t, err)
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
