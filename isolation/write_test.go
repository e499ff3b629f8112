package isolation

import (
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// TestLockForWriteRechecksTheLatestVersionUnderReadCommitted pins the
// store's half of EvalPlanQual: under the profile, a READ COMMITTED
// statement whose row changed after its snapshot gets the new version,
// read in an event of its own (one version of a key per event); without
// the profile, or when nothing changed, it gets nothing to re-check.
func TestLockForWriteRechecksTheLatestVersionUnderReadCommitted(t *testing.T) {
	for _, profile := range []bool{false, true} {
		t.Run(fmt.Sprintf("profile=%v", profile), func(t *testing.T) {
			cfg := postgresProfile()
			cfg.PostgresConcurrency = profile
			f := newFixture(t, cfg)
			s1, s2 := f.s.NewSession(), f.s.NewSession()
			t0 := begin(t, s1, history.ReadCommitted)
			_, err := t0.Insert(bg, f.tab, []byte("x"), []any{"x", 1})
			must(t, err)
			must(t, t0.Commit(bg))
			t1 := begin(t, s1, history.ReadCommitted)
			t1.Statement(history.Statement{SQL: "delete from t where v = 1"})
			if row, _, err := t1.Get(bg, f.tab, []byte("x"), ReadOptions{}); err != nil || row[1] != 1 {
				t.Fatalf("snapshot read: %v %v", row, err)
			}
			t2 := begin(t, s2, history.ReadCommitted)
			must(t, t2.Update(bg, f.tab, []byte("x"), []any{"x", 2}))
			must(t, t2.Commit(bg))
			row, live, changed, err := t1.LockForWrite(bg, f.tab, []byte("x"), RowLockUpdate)
			must(t, err)
			if changed != profile || profile && (!live || row[1] != 2) {
				t.Fatalf("LockForWrite = %v %v %v, want changed=%v with the new version", row, live, changed, profile)
			}
			must(t, t1.Commit(bg))
			h := f.s.History()
			if r := oracle.Check(h, oracle.Options{RealTime: true}); r.Verdict != oracle.Consistent {
				t.Fatalf("history: %v", r.Verdict)
			}
			if n := len(h.Txns[t1.ID()].Statements); profile && n != 2 || !profile && n != 1 {
				t.Fatalf("T1 has %d statements, want the re-check in its own event: %v", n, h.Txns[t1.ID()].Statements)
			}
		})
	}
}

// TestLockingReadRecheckIsAReadEventOfItsOwn pins that a locking read
// which waited for a row's writer and re-reads its new version (EvalPlanQual)
// records the re-read in an event of its own: one event never holds two
// versions of a key (the checker's split read), and the history passes.
func TestLockingReadRecheckIsAReadEventOfItsOwn(t *testing.T) {
	f := newFixture(t, Config{Record: true, Strategy: StrategyLatest})
	s1, s2 := f.s.NewSession(), f.s.NewSession()
	t0 := begin(t, s1, history.ReadCommitted)
	_, err := t0.Insert(bg, f.tab, []byte("x"), []any{"x", 1})
	must(t, err)
	must(t, t0.Commit(bg))
	writer := begin(t, s2, history.ReadCommitted)
	must(t, writer.Update(bg, f.tab, []byte("x"), []any{"x", 2}))
	locker := begin(t, s1, history.ReadCommitted)
	locker.Statement(history.Statement{SQL: "select * from t for update"})
	var seen []any
	done := make(chan error)
	go func() {
		done <- locker.Scan(bg, f.tab, Span{}, ReadOptions{Lock: RowLockUpdate}, func(_ []byte, row []any) (bool, error) {
			seen = append(seen, row[1])
			return true, nil
		})
	}()
	waitUntilBlocked(t, f.s, locker)
	must(t, writer.Commit(bg))
	must(t, <-done)
	must(t, locker.Commit(bg))
	if fmt.Sprint(seen) != "[1 2]" {
		t.Fatalf("the scan saw %v, want the snapshot's 1 then the re-checked 2", seen)
	}
	h := f.s.History()
	if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
		t.Fatalf("history: %v", r.Verdict)
	}
	if n := len(h.Txns[locker.ID()].Statements); n != 2 {
		t.Fatalf("the locking read has %d statements, want the re-check's own", n)
	}
}
