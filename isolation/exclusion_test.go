package isolation

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// bookings is a store with one table of bookings (id, room, from, to) and
// the exclusion constraint EXCLUDE (room WITH =, [from, to) WITH &&): the
// index key is the room, Excludes the overlap of the periods.
type bookings struct {
	s   *Store
	tab TableID
	idx IndexID
}

func newBookings(t *testing.T, deferred bool) *bookings {
	t.Helper()
	s := NewStore(Config{})
	tab, err := s.CreateTable(TableSpec{Name: "booking", FormatKey: func(k []byte) string { return string(k) }})
	must(t, err)
	idx, err := s.CreateIndex(tab, IndexSpec{Name: "booking_excl", Deferred: deferred,
		Key: func(_ []byte, row []any) ([]byte, bool) {
			if row[1] == nil || row[2] == nil {
				return nil, true
			}
			return []byte(fmt.Sprint(row[1])), false
		},
		Excludes: func(a, b []any) bool {
			return a[2].(int) < b[3].(int) && b[2].(int) < a[3].(int)
		}})
	must(t, err)
	return &bookings{s: s, tab: tab, idx: idx}
}

func (b *bookings) book(tx *Txn, id string, room any, from, to int) error {
	var period any
	if from >= 0 {
		period = from
	}
	_, err := tx.Insert(bg, b.tab, []byte(id), []any{id, room, period, to})
	return err
}

func TestExclusionConflictsWithCommittedAndOwnRows(t *testing.T) {
	b := newBookings(t, false)
	a := b.s.NewSession()
	tx := begin(t, a, history.ReadCommitted)
	must(t, b.book(tx, "a", 1, 10, 20))
	must(t, tx.Commit(bg))

	tx = begin(t, a, history.ReadCommitted)
	must(t, b.book(tx, "b", 1, 20, 30)) // adjacent, no overlap
	must(t, b.book(tx, "c", 2, 10, 20)) // another room
	must(t, b.book(tx, "d", nil, 10, 20))
	must(t, b.book(tx, "e", nil, 10, 20)) // NULLs never conflict
	must(t, b.book(tx, "f", 1, -1, 20))
	err := b.book(tx, "g", 1, 15, 25)
	wantCode(t, err, pgerror.ExclusionViolation)
	var ec *ExclusionConflict
	if !errors.As(err, &ec) || ec.Index != b.idx || string(ec.Key) != "a" || fmt.Sprint(ec.Row) != "[a 1 10 20]" {
		t.Fatalf("conflict %+v, want the committed row a", ec)
	}
	must(t, tx.Rollback())

	tx = begin(t, a, history.ReadCommitted)
	must(t, b.book(tx, "b", 2, 0, 5))
	err = b.book(tx, "c", 2, 4, 6)
	if !errors.As(err, &ec) || string(ec.Key) != "b" {
		t.Fatalf("insert over an own row: %v, want a conflict with b", err)
	}
	// An update is not in conflict with the version it replaces.
	must(t, tx.Update(bg, b.tab, []byte("a"), []any{"a", 1, 12, 22}))
	must(t, tx.Delete(bg, b.tab, []byte("b")))
	must(t, b.book(tx, "c", 2, 4, 6))
	must(t, tx.Commit(bg))
}

// insertAsync runs an insert that is expected to wait, and returns its
// outcome's channel once it waits.
func (b *bookings) insertAsync(t *testing.T, tx *Txn, id string, room, from, to int) chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- b.book(tx, id, room, from, to) }()
	waitUntilBlocked(t, b.s, tx)
	return done
}

func TestExclusionWaitsForAPendingWriterThatCommits(t *testing.T) {
	b := newBookings(t, false)
	ta, tb := begin(t, b.s.NewSession(), history.ReadCommitted), begin(t, b.s.NewSession(), history.Snapshot)
	must(t, b.book(ta, "a", 1, 10, 20))
	done := b.insertAsync(t, tb, "b", 1, 15, 25)
	must(t, ta.Commit(bg))
	wantCode(t, <-done, pgerror.ExclusionViolation)
}

func TestExclusionWaitsForAPendingWriterThatRollsBack(t *testing.T) {
	b := newBookings(t, false)
	ta, tb := begin(t, b.s.NewSession(), history.ReadCommitted), begin(t, b.s.NewSession(), history.ReadCommitted)
	must(t, b.book(ta, "a", 1, 10, 20))
	done := b.insertAsync(t, tb, "b", 1, 15, 25)
	must(t, ta.Rollback())
	must(t, <-done)
	must(t, tb.Commit(bg))
}

func TestExclusionWaitsForThePendingDeleteOfAConflictingRow(t *testing.T) {
	b := newBookings(t, false)
	a := b.s.NewSession()
	tx := begin(t, a, history.ReadCommitted)
	must(t, b.book(tx, "a", 1, 10, 20))
	must(t, tx.Commit(bg))
	ta, tb := begin(t, a, history.ReadCommitted), begin(t, b.s.NewSession(), history.ReadCommitted)
	must(t, ta.Delete(bg, b.tab, []byte("a")))
	done := b.insertAsync(t, tb, "b", 1, 15, 25)
	must(t, ta.Commit(bg))
	must(t, <-done) // the conflicting row is gone
	must(t, tb.Commit(bg))
}

func TestExclusionWaitsThatCloseACycleAreADeadlock(t *testing.T) {
	b := newBookings(t, false)
	ta, tb := begin(t, b.s.NewSession(), history.ReadCommitted), begin(t, b.s.NewSession(), history.ReadCommitted)
	must(t, b.book(ta, "a", 1, 10, 20))
	must(t, b.book(tb, "b", 2, 10, 20))
	done := b.insertAsync(t, ta, "c", 2, 15, 25) // waits for tb
	wantCode(t, b.book(tb, "d", 1, 15, 25), pgerror.DeadlockDetected)
	must(t, <-done) // tb's abort removed b
	must(t, ta.Commit(bg))
}

func TestDeferredExclusionIsCheckedByCheckUnique(t *testing.T) {
	b := newBookings(t, true)
	tx := begin(t, b.s.NewSession(), history.ReadCommitted)
	must(t, b.book(tx, "a", 1, 10, 20))
	must(t, b.book(tx, "b", 1, 15, 25))
	wantCode(t, tx.CheckUnique(bg, b.idx, []byte("b")), pgerror.ExclusionViolation)
	must(t, tx.Delete(bg, b.tab, []byte("a")))
	must(t, tx.CheckUnique(bg, b.idx, []byte("b")))
	must(t, tx.Commit(bg))

	// A deferred check waits for a pending conflicting writer too.
	ta, tb := begin(t, b.s.NewSession(), history.ReadCommitted), begin(t, b.s.NewSession(), history.ReadCommitted)
	must(t, b.book(ta, "c", 1, 30, 40))
	must(t, b.book(tb, "d", 1, 35, 45))
	done := make(chan error, 1)
	go func() { done <- tb.CheckUnique(bg, b.idx, []byte("d")) }()
	waitUntilBlocked(t, b.s, tb)
	must(t, ta.Commit(bg))
	wantCode(t, <-done, pgerror.ExclusionViolation)
}

func TestExclusionArbiterOfInsertOnConflict(t *testing.T) {
	b := newBookings(t, false)
	tx := begin(t, b.s.NewSession(), history.ReadCommitted)
	must(t, b.book(tx, "a", 1, 10, 20))
	_, err := tx.InsertOnConflict(bg, b.tab, []byte("b"), []any{"b", 1, 15, 25}, b.idx)
	var ec *ExclusionConflict
	if !errors.As(err, &ec) || string(ec.Key) != "a" {
		t.Fatalf("InsertOnConflict: %v, want a conflict with a", err)
	}
}
