package isolation

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// TestBulkLoadRecordsEveryWriteAndRead pins the history of a bulk load into
// a table keyed by hidden row ids (pgbench's COPY): the loader's write of
// every row it kept, none of the rows a savepoint rollback undid, its
// reads of its own rows and of the undone keys in a later statement, a
// concurrent reader that sees none of the pending rows, and a reader after
// the commit that reads every row from the loader
// (testdata/bulk_load_history.txt; -rewrite regenerates it).
func TestBulkLoadRecordsEveryWriteAndRead(t *testing.T) {
	s := NewStore(Config{Strategy: StrategyLatest, Record: true})
	tab, err := s.CreateTable(TableSpec{Name: "h", HiddenRowID: true,
		FormatKey: func(k []byte) string { return strconv.FormatUint(binary.BigEndian.Uint64(k), 10) }})
	must(t, err)
	scan := func(tx *Txn, sql string) int {
		t.Helper()
		tx.Statement(history.Statement{SQL: sql})
		n := 0
		must(t, tx.Scan(bg, tab, Span{}, ReadOptions{}, func([]byte, []any) (bool, error) { n++; return true, nil }))
		return n
	}
	loader := begin(t, s.NewSession(), history.ReadCommitted)
	loader.Statement(history.Statement{SQL: "copy h from stdin"})
	for i := range 1100 {
		_, err := loader.Insert(bg, tab, nil, []any{i})
		must(t, err)
	}
	sp := loader.Savepoint()
	for i := range 3 {
		_, err := loader.Insert(bg, tab, nil, []any{-i})
		must(t, err)
	}
	must(t, loader.RollbackTo(sp))
	concurrent := begin(t, s.NewSession(), history.ReadCommitted)
	if n := scan(concurrent, "select * from h"); n != 0 {
		t.Fatalf("a concurrent scan returned %d pending rows", n)
	}
	must(t, concurrent.Commit(bg))
	if n := scan(loader, "select count(*) from h"); n != 1100 {
		t.Fatalf("the loader's scan returned %d rows, want 1100", n)
	}
	must(t, loader.Commit(bg))
	after := begin(t, s.NewSession(), history.ReadCommitted)
	if n := scan(after, "select * from h"); n != 1100 {
		t.Fatalf("a scan after the commit returned %d rows, want 1100", n)
	}
	must(t, after.Commit(bg))
	h := s.History()
	if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
		t.Fatalf("history: %v", r.Verdict)
	}
	checkGolden(t, "testdata/bulk_load_history.txt", summarizeRuns(h))
}

// summarizeRuns lists every transaction's ops, a run of ops that differ
// only by consecutive numeric keys on one line.
func summarizeRuns(h *history.History) string {
	var b strings.Builder
	for _, tx := range h.Txns {
		fmt.Fprintf(&b, "txn %d session %d %v\n", tx.ID, tx.Session, tx.Outcome)
		var head string
		first, last := -1, -1
		flush := func() {
			if first >= 0 {
				fmt.Fprintf(&b, "  %s %d..%d\n", head, first, last)
			}
			first = -1
		}
		for _, op := range tx.Ops {
			k := h.Keys[op.Key]
			n, err := strconv.Atoi(k.Name)
			desc := fmt.Sprintf("%v %s writer=%d event=%d flags=%d", op.Kind, k.Table, op.Writer, op.Event, op.Flags)
			if err != nil {
				flush()
				fmt.Fprintf(&b, "  %s key=%s\n", desc, k.Name)
				continue
			}
			if first >= 0 && desc == head && n == last+1 {
				last = n
				continue
			}
			flush()
			head, first, last = desc, n, n
		}
		flush()
	}
	return b.String()
}
