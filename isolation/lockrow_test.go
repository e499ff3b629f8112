package isolation

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
)

// lockFixture is a store with x = 1 committed, and a helper that commits a
// new value of x from another session.
type lockFixture struct {
	*fixture
	other *Session
}

func newLockFixture(t *testing.T, cfg Config) *lockFixture {
	t.Helper()
	cfg.Record = true
	f := &lockFixture{fixture: newFixture(t, cfg)}
	f.other = f.s.NewSession()
	t0 := begin(t, f.other, history.ReadCommitted)
	_, err := t0.Insert(bg, f.tab, []byte("x"), []any{"x", 1})
	must(t, err)
	must(t, t0.Commit(bg))
	return f
}

// commitX commits x = v (nil: deletes x) from the other session.
func (f *lockFixture) commitX(t *testing.T, v any) *Txn {
	t.Helper()
	tx := begin(t, f.other, history.ReadCommitted)
	if v == nil {
		must(t, tx.Delete(bg, f.tab, []byte("x")))
	} else {
		must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", v}))
	}
	must(t, tx.Commit(bg))
	return tx
}

// checkLockHistory checks the recorded history at every transaction's level.
func (f *lockFixture) checkLockHistory(t *testing.T, realTime bool) *history.History {
	t.Helper()
	h := f.s.History()
	if r := oracle.Check(h, oracle.Options{RealTime: realTime}); r.Verdict != oracle.Consistent {
		t.Fatalf("history: %v\n%s", r.Verdict, dumpHistory(h))
	}
	return h
}

// TestLockRowWorksOnTheNewestVersionInEveryProfile pins the rule that a
// locked row is the newest version (DESIGN §4): a READ COMMITTED statement
// that read x = 1 before another transaction committed x = 2 gets x = 2
// from LockRow, flagged Changed and read in an event of its own, in the
// axiomatic profile and under --profile postgres alike; when nothing
// changed, LockRow reads nothing and reports the version the statement
// read.
func TestLockRowWorksOnTheNewestVersionInEveryProfile(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"axiomatic", Config{Strategy: StrategyLatest}}, {"postgres", postgresProfile()}} {
		t.Run(c.name, func(t *testing.T) {
			f := newLockFixture(t, c.cfg)
			s := f.s.NewSession()
			first := begin(t, s, history.ReadCommitted)
			first.Statement(history.Statement{SQL: "update t set v = v + 1 where k = 'x'"})
			if row, _, err := first.Get(bg, f.tab, []byte("x"), ReadOptions{}); err != nil || row[1] != 1 {
				t.Fatalf("statement read: %v %v", row, err)
			}
			unchanged, err := first.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockNoKeyUpdate, Write: true})
			must(t, err)
			if unchanged.Changed || !unchanged.Live || unchanged.Row[1] != 1 {
				t.Fatalf("LockRow of an unchanged row = %+v, want x = 1 unchanged", unchanged)
			}
			must(t, first.Commit(bg))
			tx := begin(t, s, history.ReadCommitted)
			tx.Statement(history.Statement{SQL: "select * from t for update"})
			if row, _, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{}); err != nil || row[1] != 1 {
				t.Fatalf("statement read: %v %v", row, err)
			}
			f.commitX(t, 2)
			got, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
			must(t, err)
			if !got.Changed || !got.Live || got.Row[1] != 2 {
				t.Fatalf("LockRow after a concurrent commit = %+v, want x = 2, changed", got)
			}
			must(t, tx.Commit(bg))
			h := f.checkLockHistory(t, c.cfg.RealTime)
			if n := len(h.Txns[first.ID()].Statements); n != 1 {
				t.Fatalf("the unchanged lock added an event: %v", h.Txns[first.ID()].Statements)
			}
			if n := len(h.Txns[tx.ID()].Statements); n != 2 {
				t.Fatalf("the transaction has %d statement events, want 2 (the re-check in its own): %v", n, h.Txns[tx.ID()].Statements)
			}
		})
	}
}

// TestLockRowWaitsForThePendingWriterThenReadsItsVersion: a lock request
// on a row a pending transaction updated waits for it, then returns the
// version it committed, or a dead row when it deleted the row.
func TestLockRowWaitsForThePendingWriterThenReadsItsVersion(t *testing.T) {
	for _, deleted := range []bool{false, true} {
		t.Run(fmt.Sprintf("deleted=%v", deleted), func(t *testing.T) {
			f := newLockFixture(t, Config{Strategy: StrategyLatest})
			writer := begin(t, f.other, history.ReadCommitted)
			if deleted {
				must(t, writer.Delete(bg, f.tab, []byte("x")))
			} else {
				must(t, writer.Update(bg, f.tab, []byte("x"), []any{"x", 2}))
			}
			locker := begin(t, f.s.NewSession(), history.ReadCommitted)
			locker.Statement(history.Statement{SQL: "select * from t where k = 'x' for update"})
			if _, _, err := locker.Get(bg, f.tab, []byte("x"), ReadOptions{ForLock: true}); err != nil {
				t.Fatal(err)
			}
			done := make(chan LockedRow, 1)
			go func() {
				got, err := locker.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
				if err != nil {
					t.Error(err)
				}
				done <- got
			}()
			waitUntilBlocked(t, f.s, locker)
			must(t, writer.Commit(bg))
			got := <-done
			if !got.Changed || got.Live == deleted || !deleted && got.Row[1] != 2 {
				t.Fatalf("LockRow after the wait = %+v, want the writer's version", got)
			}
			must(t, locker.Commit(bg))
			f.checkLockHistory(t, false)
		})
	}
}

// TestLockRowWaitPolicies: SKIP LOCKED reports the row skipped without
// reading it, NOWAIT fails at once with 55P03, and a lock that does not
// conflict (FOR KEY SHARE against FOR NO KEY UPDATE) is granted.
func TestLockRowWaitPolicies(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	holder := begin(t, f.other, history.ReadCommitted)
	_, err := holder.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockNoKeyUpdate})
	must(t, err)
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	tx.Statement(history.Statement{SQL: "select * from t for update skip locked"})
	got, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate, Wait: WaitSkipLocked})
	must(t, err)
	if !got.Skipped || got.Live {
		t.Fatalf("SKIP LOCKED = %+v, want skipped", got)
	}
	_, err = tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockShare, Wait: WaitNoWait})
	wantCode(t, err, pgerror.LockNotAvailable)
	tx2 := begin(t, f.s.NewSession(), history.ReadCommitted)
	got, err = tx2.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockKeyShare, Wait: WaitNoWait})
	must(t, err)
	if got.Skipped || !got.Live || got.Row[1] != 1 {
		t.Fatalf("FOR KEY SHARE beside FOR NO KEY UPDATE = %+v, want x = 1", got)
	}
	must(t, holder.Commit(bg))
	must(t, tx2.Commit(bg))
	must(t, tx.Rollback())
	h := f.checkLockHistory(t, false)
	if ops := h.Txns[tx.ID()].Ops; len(ops) != 0 {
		t.Fatalf("a skipped row was read: %+v", ops)
	}
}

// TestLockRowAbortsWhereTheLevelCannotExplainTheNewestVersion: above READ
// COMMITTED a transaction that read x = 1 cannot also read x = 2 (a
// non-repeatable read), so locking x after a concurrent commit fails with
// 40001 in the axiomatic profile, and in the postgres profile at REPEATABLE
// READ and SERIALIZABLE (first-updater-wins), as PostgreSQL does.
func TestLockRowAbortsWhereTheLevelCannotExplainTheNewestVersion(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"axiomatic", Config{Strategy: StrategyLatest}}, {"postgres", postgresProfile()}} {
		for _, level := range history.Levels {
			if level == history.ReadCommitted || c.name == "postgres" && level != history.Snapshot && level != history.Serializable {
				continue
			}
			t.Run(c.name+"/"+level.String(), func(t *testing.T) {
				f := newLockFixture(t, c.cfg)
				tx := begin(t, f.s.NewSession(), level)
				tx.Statement(history.Statement{SQL: "select * from t where k = 'x'"})
				if _, _, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{}); err != nil {
					t.Fatal(err)
				}
				f.commitX(t, 2)
				tx.Statement(history.Statement{SQL: "update t set v = v + 1 where k = 'x'"})
				_, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockNoKeyUpdate, Write: true})
				wantCode(t, err, pgerror.SerializationFailure)
				must(t, tx.Rollback())
				f.checkLockHistory(t, c.cfg.RealTime)
			})
		}
	}
}

// TestKeyShareLockLetsAConcurrentUpdateOfOtherColumnsPass pins PostgreSQL's
// foreign key check under --profile postgres: at REPEATABLE READ and
// SERIALIZABLE a FOR KEY SHARE lock (LockRequest.KeyOf) on a row that a
// transaction committed after the snapshot updated gets the snapshot's
// version when the update left the key columns alone, and 40001 when it
// changed them; the history stays consistent at the level.
func TestKeyShareLockLetsAConcurrentUpdateOfOtherColumnsPass(t *testing.T) {
	byName := func(row []any) []byte { return []byte(row[0].(string)) }
	byValue := func(row []any) []byte { return fmt.Appendf(nil, "%v", row[1]) }
	for _, level := range []history.Level{history.Snapshot, history.Serializable} {
		for _, c := range []struct {
			name    string
			keyOf   func([]any) []byte
			wantErr bool
		}{{"other columns", byName, false}, {"a key column", byValue, true}, {"no key columns given", nil, true}} {
			t.Run(level.String()+"/"+c.name, func(t *testing.T) {
				f := newLockFixture(t, postgresProfile())
				tx := begin(t, f.s.NewSession(), level)
				tx.Statement(history.Statement{SQL: "select 1"})
				if _, _, err := tx.Get(bg, f.tab, []byte("z"), ReadOptions{}); err != nil {
					t.Fatal(err)
				}
				f.commitX(t, 2)
				tx.Statement(history.Statement{SQL: "insert into child values ('x')"})
				got, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockKeyShare, KeyOf: c.keyOf})
				if c.wantErr {
					wantCode(t, err, pgerror.SerializationFailure)
					must(t, tx.Rollback())
				} else {
					must(t, err)
					if !got.Live || got.Row[1] != 1 {
						t.Fatalf("LockRow = %+v, want the snapshot's version x = 1", got)
					}
					must(t, tx.Commit(bg))
				}
				f.checkLockHistory(t, true)
			})
		}
	}
}

// TestStaleWritesKeepTheVersionTheStatementRead pins --stale-writes: a
// write's lock re-reads nothing, so the write computes on the version its
// WHERE clause read (the pure axioms, where an increment may be lost at
// READ COMMITTED); a locking read still gets the newest version.
func TestStaleWritesKeepTheVersionTheStatementRead(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest, StaleWrites: true})
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	tx.Statement(history.Statement{SQL: "update t set v = v + 1 where k = 'x'"})
	if _, _, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	f.commitX(t, 2)
	got, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockNoKeyUpdate, Write: true})
	must(t, err)
	if got.Changed || got.Row[1] != 1 {
		t.Fatalf("stale write's LockRow = %+v, want the version read (x = 1)", got)
	}
	got, err = tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
	must(t, err)
	if !got.Changed || got.Row[1] != 2 {
		t.Fatalf("locking read's LockRow = %+v, want x = 2", got)
	}
	must(t, tx.Update(bg, f.tab, []byte("x"), []any{"x", 2}))
	must(t, tx.Commit(bg))
	f.checkLockHistory(t, false)
}

// TestLockingReadsInAReadOnlyTransactionFail: SELECT ... FOR in a read-only
// transaction is 25006 naming the strength, as PostgreSQL words it.
func TestLockingReadsInAReadOnlyTransactionFail(t *testing.T) {
	f := newLockFixture(t, Config{})
	tx, err := f.s.NewSession().Begin(TxnOptions{ReadOnly: true})
	must(t, err)
	_, err = tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockShare})
	wantCode(t, err, pgerror.ReadOnlySqlTransaction)
	if want := "cannot execute SELECT FOR SHARE in a read-only transaction"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

// TestLockRowFollowsARowMovedToAnotherKey: after a transaction changed the
// row's primary key (Move) and committed, a statement that read the row at
// its old key and locks it there gets it at its new key, as PostgreSQL
// follows a row's update chain; the old key is not left locked.
func TestLockRowFollowsARowMovedToAnotherKey(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	tx := begin(t, f.s.NewSession(), history.ReadCommitted)
	tx.Statement(history.Statement{SQL: "update t set v = v + 1 where v = 1"})
	if _, _, err := tx.Get(bg, f.tab, []byte("x"), ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	mover := begin(t, f.other, history.ReadCommitted)
	must(t, mover.Move(bg, f.tab, []byte("x"), []byte("z"), []any{"z", 1}))
	must(t, mover.Commit(bg))
	got, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockNoKeyUpdate, Write: true})
	must(t, err)
	if !got.Live || !got.Changed || string(got.Key) != "z" || got.Row[0] != "z" {
		t.Fatalf("LockRow of a moved row = %+v, want it at key z", got)
	}
	f.s.e.mu.Lock()
	oldHeld := f.s.e.holds(tx.t, resource{lockRow, uint32(f.tab), "x"})
	f.s.e.mu.Unlock()
	if oldHeld {
		t.Fatal("the old key of the moved row stays locked")
	}
	other := begin(t, f.other, history.ReadCommitted)
	_, err = other.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate, Wait: WaitNoWait})
	wantCode(t, err, pgerror.LockNotAvailable) // it follows the row to z, which tx holds
	must(t, tx.Commit(bg))
	f.checkLockHistory(t, false)
}

// TestLockWaitersAreServedInArrivalOrder: when a lock is released, the
// transaction that has waited longest gets it, whichever waiter the
// scheduler wakes first, as in PostgreSQL.
func TestLockWaitersAreServedInArrivalOrder(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	holder := begin(t, f.other, history.ReadCommitted)
	_, err := holder.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
	must(t, err)
	order := make(chan string, 2)
	var waiters []*Txn
	for _, name := range []string{"first", "second"} {
		tx := begin(t, f.s.NewSession(), history.ReadCommitted)
		waiters = append(waiters, tx)
		go func() {
			if _, err := tx.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate}); err != nil {
				t.Error(err)
			}
			order <- name
		}()
		waitUntilBlocked(t, f.s, tx)
	}
	must(t, holder.Commit(bg))
	if got := <-order; got != "first" {
		t.Fatalf("%s waiter got the lock first", got)
	}
	select {
	case got := <-order:
		t.Fatalf("%s waiter got the lock while the first holds it", got)
	case <-time.After(20 * time.Millisecond):
	}
	must(t, waiters[0].Commit(bg))
	if got := <-order; got != "second" {
		t.Fatalf("%s waiter got the lock second", got)
	}
	must(t, waiters[1].Commit(bg))
}

// recordingObserver counts the waits and wake-ups reported to it.
type recordingObserver struct{ waits, wakes atomic.Int32 }

func (o *recordingObserver) Waiting() { o.waits.Add(1) }
func (o *recordingObserver) Woken()   { o.wakes.Add(1) }

// TestWaitObserverHearsTheWaitAndTheWakeBeforeTheReleaseReturns: a call
// that waits for a lock reports it, and the commit that releases the lock
// reports the wake-up before it returns, so that a driver ordering the
// calls (fickle explore) knows the waiter runs again.
func TestWaitObserverHearsTheWaitAndTheWakeBeforeTheReleaseReturns(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	holder := begin(t, f.other, history.ReadCommitted)
	_, err := holder.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
	must(t, err)
	obs := &recordingObserver{}
	waiter := begin(t, f.s.NewSession(), history.ReadCommitted)
	done := make(chan error, 1)
	go func() {
		_, err := waiter.LockRow(WithWaitObserver(bg, obs), f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
		done <- err
	}()
	waitUntilBlocked(t, f.s, waiter)
	if obs.waits.Load() != 1 || obs.wakes.Load() != 0 {
		t.Fatalf("while blocked: %d waits, %d wakes; want 1 and 0", obs.waits.Load(), obs.wakes.Load())
	}
	must(t, holder.Commit(bg))
	if obs.wakes.Load() < 1 {
		t.Fatal("the commit that released the lock returned before the wake-up was reported")
	}
	must(t, <-done)
	must(t, waiter.Commit(bg))
}

// TestAReleaseWakesOnlyTheWaiterThatMayGo: of three transactions queued
// for a row, a release wakes the first alone; the others sleep on (a hot
// row's waiters are not all put through the scheduler to find the one
// that may go), and each commit wakes the next.
func TestAReleaseWakesOnlyTheWaiterThatMayGo(t *testing.T) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	holder := begin(t, f.other, history.ReadCommitted)
	_, err := holder.LockRow(bg, f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate})
	must(t, err)
	var waiters []*Txn
	var observers []*recordingObserver
	granted := make(chan int, 3)
	for i := range 3 {
		tx := begin(t, f.s.NewSession(), history.ReadCommitted)
		obs := &recordingObserver{}
		waiters, observers = append(waiters, tx), append(observers, obs)
		go func() {
			if _, err := tx.LockRow(WithWaitObserver(bg, obs), f.tab, []byte("x"), LockRequest{Mode: RowLockUpdate}); err != nil {
				t.Error(err)
			}
			granted <- i
		}()
		waitUntilBlocked(t, f.s, tx)
	}
	wakes := func() []int32 {
		var n []int32
		for _, o := range observers {
			n = append(n, o.wakes.Load())
		}
		return n
	}
	must(t, holder.Commit(bg))
	for i := range waiters {
		if got := <-granted; got != i {
			t.Fatalf("waiter %d got the lock, want waiter %d", got, i)
		}
		for j, n := range wakes() {
			if want := int32(0); j <= i {
				want = 1
				if n != want {
					t.Fatalf("after %d releases, wake-ups %v: waiter %d woken %d times, want once", i+1, wakes(), j, n)
				}
			} else if n != want {
				t.Fatalf("after %d releases, wake-ups %v: waiter %d, still queued, was woken", i+1, wakes(), j)
			}
		}
		must(t, waiters[i].Commit(bg))
	}
}

// newDeadlockFixture is a lock fixture with rows x and y, and a call that
// locks a row, failing after 10 s so that an undetected deadlock fails
// the test instead of hanging it.
func newDeadlockFixture(t *testing.T) (*lockFixture, func(tx *Txn, key string, mode RowLock) error) {
	f := newLockFixture(t, Config{Strategy: StrategyLatest})
	setup := begin(t, f.other, history.ReadCommitted)
	_, err := setup.Insert(bg, f.tab, []byte("y"), []any{"y", 2})
	must(t, err)
	must(t, setup.Commit(bg))
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	t.Cleanup(cancel)
	return f, func(tx *Txn, key string, mode RowLock) error {
		_, err := tx.LockRow(ctx, f.tab, []byte(key), LockRequest{Mode: mode})
		return err
	}
}

// TestDeadlockWithAWaiterQueuedBehindAnotherIsDetected: w2 holds y and
// queues for x behind w1; when x's holder commits, w1 takes x, and w1's
// request for y then closes the cycle w1 -> w2 -> w1, which must fail with
// 40P01 although w2 was not woken by the commit (its wait now points at w1,
// not at the transaction that ended).
func TestDeadlockWithAWaiterQueuedBehindAnotherIsDetected(t *testing.T) {
	f, lockIn := newDeadlockFixture(t)
	lock := func(tx *Txn, key string) error { return lockIn(tx, key, RowLockUpdate) }
	holder := begin(t, f.other, history.ReadCommitted)
	must(t, lock(holder, "x"))
	w1 := begin(t, f.s.NewSession(), history.ReadCommitted)
	w2 := begin(t, f.s.NewSession(), history.ReadCommitted)
	must(t, lock(w2, "y"))
	w1x, w2x := make(chan error, 1), make(chan error, 1)
	go func() { w1x <- lock(w1, "x") }()
	waitUntilBlocked(t, f.s, w1)
	go func() { w2x <- lock(w2, "x") }()
	waitUntilBlocked(t, f.s, w2)
	must(t, holder.Commit(bg))
	must(t, <-w1x)
	wantCode(t, lock(w1, "y"), pgerror.DeadlockDetected)
	must(t, <-w2x) // w1's abort released x
	must(t, w2.Commit(bg))
}

// TestDeadlockClosedWhenAWaitersBlockerChangesIsDetected: w waits to
// update x, which a and b share, and holds y, which b then waits for: no
// cycle yet, as w waits for a. When a commits, w waits for b, which waits
// for w: the release that moved w's wait must let one of them find the
// deadlock (40P01), not leave both waiting.
func TestDeadlockClosedWhenAWaitersBlockerChangesIsDetected(t *testing.T) {
	f, lock := newDeadlockFixture(t)
	a := begin(t, f.other, history.ReadCommitted)
	b := begin(t, f.s.NewSession(), history.ReadCommitted)
	w := begin(t, f.s.NewSession(), history.ReadCommitted)
	must(t, lock(a, "x", RowLockShare))
	must(t, lock(b, "x", RowLockShare))
	must(t, lock(w, "y", RowLockUpdate))
	wx, by := make(chan error, 1), make(chan error, 1)
	go func() { wx <- lock(w, "x", RowLockUpdate) }()
	waitUntilBlocked(t, f.s, w)
	go func() { by <- lock(b, "y", RowLockUpdate) }()
	waitUntilBlocked(t, f.s, b)
	must(t, a.Commit(bg))
	if err := <-wx; pgerror.GetCode(err) != pgerror.DeadlockDetected {
		t.Fatalf("w's lock of x: %v, want 40P01", err)
	}
	must(t, <-by) // w's abort released y
	must(t, b.Commit(bg))
}
