package isolation

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestObjectLocksConflictAsTableLocksUntilTheTransactionEnds pins LockObject:
// PostgreSQL's table lock conflicts on an id of the caller's (nextval's ROW
// EXCLUSIVE on a sequence shares with another nextval and waits for ALTER
// SEQUENCE's SHARE ROW EXCLUSIVE), held until commit or rollback, and
// independent of the table with the same number.
func TestObjectLocksConflictAsTableLocksUntilTheTransactionEnds(t *testing.T) {
	s := NewStore(Config{})
	tab, err := s.CreateTable(TableSpec{Name: "t"})
	must(t, err)
	a, b := s.NewSession(), s.NewSession()
	ta, tb := begin(t, a, history.ReadCommitted), begin(t, b, history.ReadCommitted)
	must(t, ta.LockObject(bg, 7, TableLockRowExclusive, WaitNoWait))
	must(t, tb.LockObject(bg, 7, TableLockRowExclusive, WaitNoWait))
	if err := tb.LockObject(bg, 7, TableLockShareRowExclusive, WaitNoWait); pgerror.GetCode(err) != pgerror.LockNotAvailable {
		t.Fatalf("SHARE ROW EXCLUSIVE over another's ROW EXCLUSIVE: %v, want 55P03", err)
	}
	must(t, tb.LockObject(bg, 8, TableLockAccessExclusive, WaitNoWait))
	must(t, tb.LockTable(bg, tab, TableLockAccessExclusive, WaitNoWait))
	done := make(chan error, 1)
	go func() { done <- tb.LockObject(bg, 7, TableLockShareRowExclusive, WaitBlock) }()
	waitUntilBlocked(t, s, tb)
	must(t, ta.Commit(bg))
	must(t, <-done)
	must(t, tb.Rollback())
	tc := begin(t, a, history.ReadCommitted)
	must(t, tc.LockObject(bg, 7, TableLockAccessExclusive, WaitNoWait))
	must(t, tc.Commit(bg))
}
