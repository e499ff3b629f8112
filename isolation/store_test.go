package isolation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// fixture is a store with one table "t" (primary key = first column as
// text) and a unique index on the second column.
type fixture struct {
	s   *Store
	tab TableID
	idx IndexID
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	s := NewStore(cfg)
	tab, err := s.CreateTable(TableSpec{Name: "t", FormatKey: func(k []byte) string { return string(k) }})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := s.CreateIndex(tab, IndexSpec{Name: "t_v_key", Unique: true, Key: func(_ []byte, row []any) ([]byte, bool) {
		if row[1] == nil {
			return nil, true
		}
		return []byte(fmt.Sprint(row[1])), false
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{s: s, tab: tab, idx: idx}
}

func begin(t *testing.T, s *Session, level history.Level) *Txn {
	t.Helper()
	tx, err := s.Begin(TxnOptions{Level: level})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantCode(t *testing.T, err error, code pgerror.Code) {
	t.Helper()
	if got := pgerror.GetCode(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

var bg = context.Background()

func TestInsertIsInvisibleToOthersUntilCommitThenVisible(t *testing.T) {
	f := newFixture(t, Config{Record: true})
	a, b := f.s.NewSession(), f.s.NewSession()
	ta := begin(t, a, history.ReadCommitted)
	_, err := ta.Insert(bg, f.tab, []byte("k1"), []any{"k1", 1})
	must(t, err)
	if row, ok, err := ta.Get(bg, f.tab, []byte("k1"), ReadOptions{}); err != nil || !ok || row[1] != 1 {
		t.Fatalf("own write: got %v %v %v", row, ok, err)
	}
	tb := begin(t, b, history.ReadCommitted)
	if _, ok, err := tb.Get(bg, f.tab, []byte("k1"), ReadOptions{}); err != nil || ok {
		t.Fatalf("uncommitted write visible to another transaction: %v %v", ok, err)
	}
	must(t, ta.Commit(bg))
	if row, ok, err := tb.Get(bg, f.tab, []byte("k1"), ReadOptions{}); err != nil || !ok || row[1] != 1 {
		t.Fatalf("committed write not visible: %v %v %v", row, ok, err)
	}
	must(t, tb.Commit(bg))
	h := f.s.History()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(h.CommitOrder); got != "[0 1 2]" {
		t.Fatalf("commit order %s, want [0 1 2]", got)
	}
	reads := h.Txns[2].Ops
	if len(reads) != 2 || reads[0].Writer != history.Init || reads[0].Flags&history.FlagTombstone == 0 ||
		reads[1].Writer != 1 || reads[1].Flags&history.FlagReturned == 0 {
		t.Fatalf("recorded reads %+v, want init tombstone then txn 1 returned", reads)
	}
}

func TestDuplicatePrimaryAndUniqueKeysFailWith23505(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	_, err = tx.Insert(bg, f.tab, []byte("a"), []any{"a", 2})
	wantCode(t, err, pgerror.UniqueViolation)
	var uc *UniqueConflict
	if !errors.As(err, &uc) || uc.Index != NoIndex || string(uc.Key) != "a" {
		t.Fatalf("conflict %+v, want primary key a", uc)
	}
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 1})
	wantCode(t, err, pgerror.UniqueViolation)
	if !errors.As(err, &uc) || uc.Index != f.idx || string(uc.Key) != "a" {
		t.Fatalf("conflict %+v, want index key held by a", uc)
	}
	_, err = tx.Insert(bg, f.tab, []byte("c"), []any{"c", nil})
	must(t, err)
	_, err = tx.Insert(bg, f.tab, []byte("d"), []any{"d", nil})
	must(t, err) // NULLs never conflict
	must(t, tx.Delete(bg, f.tab, []byte("a")))
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 1})
	must(t, err) // own delete freed the value
	must(t, tx.Commit(bg))
}

func TestRollbackToSavepointUndoesLaterWritesOnly(t *testing.T) {
	f := newFixture(t, Config{Record: true})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	sp := tx.Savepoint()
	must(t, tx.Update(bg, f.tab, []byte("a"), []any{"a", 2}))
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 3})
	must(t, err)
	must(t, tx.RollbackTo(sp))
	row, ok, err := tx.Get(bg, f.tab, []byte("a"), ReadOptions{})
	if err != nil || !ok || row[1] != 1 {
		t.Fatalf("after rollback to savepoint a = %v %v %v, want 1", row, ok, err)
	}
	if _, ok, _ := tx.Get(bg, f.tab, []byte("b"), ReadOptions{}); ok {
		t.Fatal("insert after the savepoint survived")
	}
	must(t, tx.Commit(bg))
	h := f.s.History()
	writes := 0
	for _, op := range h.Txns[1].Ops {
		if op.Kind == history.OpWrite {
			writes++
		}
	}
	if writes != 1 {
		t.Fatalf("history keeps %d writes, want the 1 before the savepoint", writes)
	}
}

func TestScanCallsBackInKeyOrderAndRecordsFilteredRows(t *testing.T) {
	f := newFixture(t, Config{Record: true})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	for i := 9; i >= 0; i-- {
		k := fmt.Sprintf("k%d", i)
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, i})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	var got []string
	err := tx.Scan(bg, f.tab, Span{Start: []byte("k2"), End: []byte("k7")}, ReadOptions{}, func(k []byte, row []any) (bool, error) {
		got = append(got, string(k))
		return row[1].(int)%2 == 0, nil
	})
	must(t, err)
	if fmt.Sprint(got) != "[k2 k3 k4 k5 k6]" {
		t.Fatalf("scan visited %v", got)
	}
	must(t, tx.Commit(bg))
	ops := f.s.History().Txns[2].Ops
	returned := 0
	for _, op := range ops {
		if op.Flags&history.FlagReturned != 0 {
			returned++
		}
	}
	if len(ops) != 5 || returned != 3 {
		t.Fatalf("recorded %d reads with %d returned, want 5 and 3", len(ops), returned)
	}
}

func TestIndexScanFindsRowsByIndexKey(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 7})
	must(t, err)
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 8})
	must(t, err)
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	var got []string
	must(t, tx.ScanIndex(bg, f.idx, ExactSpan([]byte("8")), ReadOptions{}, func(k []byte, row []any) (bool, error) {
		got = append(got, string(k))
		return true, nil
	}))
	if fmt.Sprint(got) != "[b]" {
		t.Fatalf("index lookup found %v, want [b]", got)
	}
}

func TestSecondWriterWaitsForFirstAndDeadlockIsDetected(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.s.NewSession(), f.s.NewSession()
	tx := begin(t, a, history.ReadCommitted)
	for _, k := range []string{"x", "y"} {
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, nil})
		must(t, err)
	}
	must(t, tx.Commit(bg))

	ta, tb := begin(t, a, history.ReadCommitted), begin(t, b, history.ReadCommitted)
	must(t, ta.Update(bg, f.tab, []byte("x"), []any{"x", 1}))
	must(t, tb.Update(bg, f.tab, []byte("y"), []any{"y", 2}))
	done := make(chan error, 1)
	go func() { done <- ta.Update(bg, f.tab, []byte("y"), []any{"y", 3}) }()
	waitUntilBlocked(t, f.s, ta)
	err := tb.Update(bg, f.tab, []byte("x"), []any{"x", 4})
	wantCode(t, err, pgerror.DeadlockDetected)
	must(t, <-done) // b's abort released y
	must(t, ta.Commit(bg))
	wantCode(t, tb.Commit(bg), pgerror.DeadlockDetected)
}

func TestLockWaitEndsWithTheContextsCause(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.s.NewSession(), f.s.NewSession()
	ta, tb := begin(t, a, history.ReadCommitted), begin(t, b, history.ReadCommitted)
	_, err := ta.Insert(bg, f.tab, []byte("x"), []any{"x", nil})
	must(t, err)
	ctx, cancel := context.WithTimeoutCause(bg, 20*time.Millisecond, pgerror.New(pgerror.LockNotAvailable, "lock timeout"))
	defer cancel()
	_, err = tb.Insert(ctx, f.tab, []byte("x"), []any{"x", nil})
	wantCode(t, err, pgerror.LockNotAvailable)
	_, err = tb.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockShare, Wait: WaitNoWait})
	wantCode(t, err, pgerror.LockNotAvailable)
	must(t, ta.Commit(bg))
	_, err = tb.Insert(bg, f.tab, []byte("x"), []any{"x", nil})
	wantCode(t, err, pgerror.UniqueViolation)
}

func TestReadOnlyTransactionRejectsWrites(t *testing.T) {
	f := newFixture(t, Config{})
	tx, err := f.s.NewSession().Begin(TxnOptions{ReadOnly: true})
	must(t, err)
	_, err = tx.Insert(bg, f.tab, []byte("x"), []any{"x", nil})
	wantCode(t, err, pgerror.ReadOnlySqlTransaction)
}

// waitUntilBlocked polls until tx waits for a lock.
func waitUntilBlocked(t *testing.T, s *Store, tx *Txn) {
	t.Helper()
	for range 5000 {
		s.e.mu.Lock()
		w := tx.t.waitingFor
		s.e.mu.Unlock()
		if w != nil {
			return
		}
		sleepMs()
	}
	t.Fatal("transaction never blocked")
}

func sleepMs() { time.Sleep(time.Millisecond) }

func TestBeginWaitSerializesTheTransactionsOfALogicalSession(t *testing.T) {
	s := NewStore(Config{})
	conn1, conn2 := s.Session("app"), s.Session("app")
	t1 := begin(t, conn1, history.ReadCommitted)
	if _, err := conn2.Begin(TxnOptions{}); pgerror.GetCode(err) != pgerror.ActiveSqlTransaction {
		t.Fatalf("Begin on a busy session: %v, want 25001", err)
	}
	ctx, cancel := context.WithTimeout(bg, 10*time.Millisecond)
	defer cancel()
	if _, err := conn2.BeginWait(ctx, TxnOptions{}); pgerror.GetCode(err) != pgerror.QueryCanceled {
		t.Fatalf("BeginWait past its deadline: %v, want 57014", err)
	}
	done := make(chan error, 1)
	go func() {
		t2, err := conn2.BeginWait(bg, TxnOptions{})
		if err == nil {
			err = t2.Commit(bg)
		}
		done <- err
	}()
	must(t, t1.Commit(bg))
	must(t, <-done)
}

// TestHotRowReadsChooseAmongTheNewestVersionsOnly pins the cap on choices:
// with 200 versions of a row, an RC read chooses among the 64 newest (its
// floor raised), while RA keeps the true floor, and both histories pass the
// brute-force check.
func TestHotRowReadsChooseAmongTheNewestVersionsOnly(t *testing.T) {
	for _, c := range []struct {
		level  history.Level
		writer history.TxnID // the oldest version offered
	}{{history.ReadCommitted, 200 - maxChoices + 1}, {history.ReadAtomic, history.Init}} {
		f := newFixture(t, Config{Record: true})
		w := f.s.NewSession()
		for i := range 200 {
			tx := begin(t, w, history.ReadCommitted)
			must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", i}))
			must(t, tx.Commit(bg))
		}
		tx, err := f.s.NewSession().Begin(TxnOptions{Level: c.level, Strategy: StrategyOldest})
		must(t, err)
		_, _, err = tx.Get(bg, f.tab, []byte("x"), ReadOptions{})
		must(t, err)
		must(t, tx.Commit(bg))
		h := f.s.History()
		if got := h.Txns[201].Ops[0].Writer; got != c.writer {
			t.Fatalf("%s: oldest choice read T%d, want T%d", c.level, got, c.writer)
		}
		if why := bruteCheck(h); why != "" {
			t.Fatalf("%s: %s", c.level, why)
		}
	}
}

// TestDroppingATableUnderAPendingWriterDoesNotPanic: DDL is not
// transactional here, so a transaction may still hold writes to a table
// that was dropped; its commit must not crash the engine.
func TestDroppingATableUnderAPendingWriterDoesNotPanic(t *testing.T) {
	for _, level := range history.Levels {
		var buf strings.Builder
		log, err := history.NewWriter(&buf, history.Header{})
		must(t, err)
		f := newFixture(t, Config{Record: true, Log: log})
		tx := begin(t, f.s.NewSession(), level)
		_, err = tx.Insert(bg, f.tab, []byte("x"), []any{"x", 1})
		must(t, err)
		must(t, f.s.DropTable(f.tab))
		_, _, err = tx.Get(bg, f.tab, []byte("x"), ReadOptions{})
		wantCode(t, err, pgerror.UndefinedTable)
		must(t, tx.Commit(bg))
	}
}

// TestNestedReadsInAScanCallbackAreRecordedAndLogged pins a join's inner
// reads made from inside the outer scan's callback: the engine's mutex is
// free during callbacks, the outer rows keep their returned flags in the
// log, and the logged history reads back like the recorded one.
func TestNestedReadsInAScanCallbackAreRecordedAndLogged(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	must(t, err)
	f := newFixture(t, Config{Record: true, Log: log})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	for i := range 100 {
		k := fmt.Sprintf("k%03d", i)
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, i})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.Snapshot)
	tx.Statement(history.Statement{SQL: "select * from t a join t b on a.v = b.v where a.v % 2 = 0"})
	must(t, tx.Scan(bg, f.tab, Span{}, ReadOptions{}, func(k []byte, row []any) (bool, error) {
		if row[1].(int)%2 != 0 {
			return false, nil
		}
		_, ok, err := tx.Get(bg, f.tab, k, ReadOptions{})
		if err != nil || !ok {
			return false, fmt.Errorf("inner read: %v %v", ok, err)
		}
		return true, tx.Scan(bg, f.tab, ExactSpan(k), ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil })
	}))
	must(t, tx.Commit(bg))
	must(t, log.Close())
	got, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
	must(t, err)
	want := f.s.History()
	if a, b := opSummary(got, &got.Txns[2]), opSummary(want, &want.Txns[2]); a != b {
		t.Fatalf("logged %s\nrecorded %s", a, b)
	}
	returned := 0
	for _, op := range want.Txns[2].Ops {
		if op.Flags&history.FlagReturned != 0 {
			returned++
		}
	}
	if n := len(want.Txns[2].Ops); returned != 50 || n != 100 {
		t.Fatalf("%d of %d reads returned, want 50 of 100 (one read per key: the inner get and scan reuse the outer read)", returned, n)
	}
}

// TestRewriteRowsReachesEveryVersionAndSavepointedWrite pins ALTER TABLE's
// row rewrite: committed versions, pending writes, and the earlier writes a
// ROLLBACK TO SAVEPOINT would restore all get the new shape.
func TestRewriteRowsReachesEveryVersionAndSavepointedWrite(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 2})
	must(t, err)
	sp := tx.Savepoint()
	must(t, tx.Update(bg, f.tab, []byte("b"), []any{"b", 3}))
	_, err = f.s.RewriteRows(f.tab, func(r RowRewrite) []any { return append(append([]any(nil), r.Row...), "new") })
	must(t, err)
	must(t, tx.RollbackTo(sp))
	for _, k := range []string{"a", "b"} {
		row, ok, err := tx.Get(bg, f.tab, []byte(k), ReadOptions{})
		if err != nil || !ok || len(row) != 3 || row[2] != "new" {
			t.Fatalf("%s after rewrite: %v %v %v", k, row, ok, err)
		}
	}
	must(t, tx.Commit(bg))
}

// TestRewriteRowsRestorePutsEveryOldRowBack pins the rollback of ALTER
// TABLE's rewrite: committed versions, the pending write and the write a
// savepoint rollback restores all get their old values back.
func TestRewriteRowsRestorePutsEveryOldRowBack(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err := tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	must(t, tx.Commit(bg))
	tx = begin(t, s, history.ReadCommitted)
	_, err = tx.Insert(bg, f.tab, []byte("b"), []any{"b", 2})
	must(t, err)
	sp := tx.Savepoint()
	must(t, tx.Update(bg, f.tab, []byte("b"), []any{"b", 3}))
	restore, err := f.s.RewriteRows(f.tab, func(r RowRewrite) []any { return []any{r.Row[0], r.Row[1], "new"} })
	must(t, err)
	must(t, tx.RollbackTo(sp))
	restore()
	for k, want := range map[string]int{"a": 1, "b": 2} {
		row, ok, err := tx.Get(bg, f.tab, []byte(k), ReadOptions{})
		if err != nil || !ok || len(row) != 2 || row[1] != want {
			t.Fatalf("%s after restore: %v %v %v, want [%s %d]", k, row, ok, err, k, want)
		}
	}
	must(t, tx.Commit(bg))
}

// TestDropIndexRestoreBringsTheIndexBack pins the rollback of DROP INDEX:
// the restored unique index rejects duplicates and finds rows again.
func TestDropIndexRestoreBringsTheIndexBack(t *testing.T) {
	f := newFixture(t, Config{})
	idx, err := f.s.CreateIndex(f.tab, IndexSpec{Name: "v_key", Unique: true, Key: func(_ []byte, row []any) ([]byte, bool) {
		return []byte(fmt.Sprint(row[1])), false
	}})
	must(t, err)
	s := f.s.NewSession()
	tx := begin(t, s, history.ReadCommitted)
	_, err = tx.Insert(bg, f.tab, []byte("a"), []any{"a", 1})
	must(t, err)
	must(t, tx.Commit(bg))
	restore, err := f.s.DropIndex(idx)
	must(t, err)
	restore()
	tx = begin(t, s, history.ReadCommitted)
	if _, err := tx.Insert(bg, f.tab, []byte("b"), []any{"b", 1}); pgerror.GetCode(err) != pgerror.UniqueViolation {
		t.Fatalf("duplicate after restore: %v, want 23505", err)
	}
	must(t, tx.Rollback())
	found := 0
	tx = begin(t, s, history.ReadCommitted)
	must(t, tx.ScanIndex(bg, idx, ExactSpan([]byte("1")), ReadOptions{}, func([]byte, []any) (bool, error) { found++; return true, nil }))
	if found != 1 {
		t.Fatalf("lookup through the restored index found %d rows, want 1", found)
	}
	must(t, tx.Commit(bg))
}

// TestStatementSnapshotsGiveReadCommittedASnapshotPerStatement pins the
// postgres profile's READ COMMITTED: a statement keeps reading the state as
// of its start while another transaction commits, the next statement sees
// the commit.
func TestStatementSnapshotsGiveReadCommittedASnapshotPerStatement(t *testing.T) {
	f := newFixture(t, Config{Record: true, RealTime: true, StatementSnapshots: true})
	a, b := f.s.NewSession(), f.s.NewSession()
	tx := begin(t, a, history.ReadCommitted)
	for i, k := range []string{"x", "y"} {
		_, err := tx.Insert(bg, f.tab, []byte(k), []any{k, 10 * i})
		must(t, err)
	}
	must(t, tx.Commit(bg))
	reader := begin(t, b, history.ReadCommitted)
	reader.Statement(history.Statement{SQL: "select"})
	var seen []any
	must(t, reader.Scan(bg, f.tab, Span{}, ReadOptions{}, func(k []byte, row []any) (bool, error) {
		if string(k) == "x" { // another transaction commits mid-statement
			w := begin(t, a, history.ReadCommitted)
			must(t, w.Update(bg, f.tab, []byte("x"), []any{"x", 1}))
			must(t, w.Update(bg, f.tab, []byte("y"), []any{"y", 11}))
			must(t, w.Commit(bg))
		}
		seen = append(seen, row[1])
		return true, nil
	}))
	if fmt.Sprint(seen) != "[0 10]" {
		t.Fatalf("one statement saw %v, want the snapshot [0 10]", seen)
	}
	reader.Statement(history.Statement{SQL: "select"})
	row, _, err := reader.Get(bg, f.tab, []byte("y"), ReadOptions{})
	must(t, err)
	if row[1] != 11 {
		t.Fatalf("the next statement saw y=%v, want 11", row[1])
	}
	must(t, reader.Commit(bg))
	if why := bruteCheck(f.s.History()); why != "" {
		t.Fatal(why)
	}
}

// TestClosedSessionsLeaveNothingBehind: an anonymous session closed after
// its connection ends is forgotten by the engine (its statement memo and
// causal past included), so that connecting and disconnecting all day
// costs no memory; a named session, which other connections share, stays.
func TestClosedSessionsLeaveNothingBehind(t *testing.T) {
	f := newFixture(t, Config{})
	for i := range 100 {
		s := f.s.NewSession()
		tx := begin(t, s, history.ReadCommitted)
		tx.Statement(history.Statement{SQL: "select"})
		if _, _, err := tx.Get(bg, f.tab, []byte(fmt.Sprint("k", i%7)), ReadOptions{}); err != nil {
			t.Fatal(err)
		}
		must(t, tx.Commit(bg))
		s.Close()
	}
	named := f.s.Session("app")
	named.Close()
	if live := len(f.s.e.open); live != 1 {
		t.Fatalf("%d sessions kept after closing 100 anonymous ones and a named one, want the named one", len(f.s.e.open))
	}
	if _, err := f.s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
}
