package isolation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// TestStatementReadOfAKeyFlushedFromTheLogIsRecordedAgain pins the memo's
// logging: a join's inner side reading a key whose outer read the log
// already flushed (an earlier chunk of the outer scan) records the read
// again with the same writer, so that its returned flag reaches the log,
// the logged history matches the recorded one, and the statement still
// saw one version of the key.
func TestStatementReadOfAKeyFlushedFromTheLogIsRecordedAgain(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	f := newFixture(t, Config{Record: true, Log: log, Strategy: StrategyAdversarial, Seed: 5})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	for i := range 2 * scanChunk {
		k := fmt.Sprintf("k%03d", i)
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, i})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	tx.Statement(history.Statement{SQL: "select * from t a join t b on b.k = 'k000' where a.v >= 64"})
	must(t, tx.Scan(bg, f.tab, Span{}, ReadOptions{}, func(k []byte, row []any) (bool, error) {
		if row[1].(int) < scanChunk {
			return false, nil
		}
		_, ok, err := tx.Get(bg, f.tab, []byte("k000"), ReadOptions{})
		if err != nil || !ok {
			return false, fmt.Errorf("inner read: %v %v", ok, err)
		}
		return true, nil
	}))
	must(t, tx.Commit(bg))
	must(t, log.Close())
	got, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
	must(t, err)
	want := f.s.History()
	if a, b := opSummary(got, &got.Txns[2]), opSummary(want, &want.Txns[2]); a != b {
		t.Fatalf("logged %s\nrecorded %s", a, b)
	}
	var writers []history.TxnID
	returned := 0
	for _, op := range want.Txns[2].Ops {
		if want.Keys[op.Key].Name == "k000" {
			writers = append(writers, op.Writer)
			if op.Flags&history.FlagReturned != 0 {
				returned++
			}
		}
	}
	if len(writers) != 2 || writers[0] != writers[1] || returned != 1 {
		t.Fatalf("k000 recorded from %v, %d returned; want twice from one writer (the outer read, and once more in the inner side's log event), once returned", writers, returned)
	}
	if r := oracle.Check(want, oracle.Options{}); r.Verdict != oracle.Consistent {
		t.Fatalf("history is %v: %v", r.Verdict, r.Explanation)
	}
}

// TestLockingReadInAStatementSeesTheLatestVersion pins the memo's one
// exception: a read that must see the latest version (a locking read,
// EvalPlanQual's re-check) is answered from the memo only when the memo
// holds the latest version; otherwise it takes the latest, and the
// statement's later reads of the key return that one.
func TestLockingReadInAStatementSeesTheLatestVersion(t *testing.T) {
	f := newFixture(t, Config{Record: true, Strategy: StrategyOldest})
	writer := f.s.NewSession()
	for i := 1; i <= 2; i++ {
		tx := begin(t, writer, history.ReadCommitted)
		_, err := tx.Insert(bg, f.tab, []byte(fmt.Sprintf("k%d", i)), []any{"k", i})
		must(t, err)
		must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", 10 * i}))
		must(t, tx.Commit(bg))
	}
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	tx.Statement(history.Statement{SQL: "select ... for update"})
	var seen []any
	for _, ro := range []ReadOptions{{}, {Latest: true}, {}, {Latest: true}} {
		row, ok, err := tx.Get(bg, f.tab, []byte("x"), ro)
		must(t, err)
		if ok {
			seen = append(seen, row[1])
		} else {
			seen = append(seen, nil)
		}
	}
	if got := fmt.Sprint(seen); got != "[<nil> 20 20 20]" {
		t.Fatalf("the statement's reads of x saw %s, want [<nil> 20 20 20] (oldest, then latest thrice)", got)
	}
	h := f.s.History()
	if n := len(h.Txns[tx.ID()].Ops); n != 2 {
		t.Fatalf("%d reads recorded, want 2 (the first read and the locking read that replaced it)", n)
	}
}

// TestStatementsOfTwoTransactionsKeepTheirOwnReadsOfAKey pins the memo when
// two live statements read one key: the first holds the key's memo slot,
// the second keeps its entry aside, and after a third transaction commits
// a new version each statement's repeated read returns the version it
// read first, recorded once; a later statement reads the new version.
func TestStatementsOfTwoTransactionsKeepTheirOwnReadsOfAKey(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	get := func(tx *Txn) any {
		t.Helper()
		row, ok, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{})
		if err != nil || !ok {
			t.Fatalf("read x: %v %v", ok, err)
		}
		return row[1]
	}
	a := begin(t, f.s.NewSession(), history.ReadCommitted)
	b := begin(t, f.s.NewSession(), history.ReadCommitted)
	a.Statement(history.Statement{SQL: "select a"})
	b.Statement(history.Statement{SQL: "select b"})
	if va, vb := get(a), get(b); va != 1 || vb != 1 {
		t.Fatalf("first reads: a %v, b %v, want 1", va, vb)
	}
	f.commitX(t, 2)
	if va, vb := get(a), get(b); va != 1 || vb != 1 {
		t.Fatalf("repeated reads in the statements: a %v, b %v, want 1 (the statement's first read)", va, vb)
	}
	b.Statement(history.Statement{SQL: "select b again"})
	a.Statement(history.Statement{SQL: "select a again"})
	if va, vb := get(a), get(b); va != 2 || vb != 2 {
		t.Fatalf("next statements: a %v, b %v, want 2", va, vb)
	}
	must(t, a.Commit(bg))
	must(t, b.Commit(bg))
	h := f.checkLockHistory(t, false)
	for _, tx := range []*Txn{a, b} {
		var writers []history.TxnID
		for _, op := range h.Txns[tx.ID()].Ops {
			if op.Kind == history.OpRead {
				writers = append(writers, op.Writer)
			}
		}
		if len(writers) != 2 || writers[0] == writers[1] {
			t.Errorf("txn %d read x from %v, want two reads from two writers", tx.ID(), writers)
		}
	}
}
