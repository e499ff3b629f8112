package isolation

import (
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestCreatedKeysRowLockHoldsUntilTheLoaderEnds pins the row lock that an
// insert of a fresh hidden row id holds without a lock-table entry
// (keyState.creator): another transaction's LockRow of the pending row
// finds it held (55P03 under NOWAIT) while the loader is live, a savepoint
// rollback keeps it (as every row lock), and once the loader ends the row is
// free, committed or not.
func TestCreatedKeysRowLockHoldsUntilTheLoaderEnds(t *testing.T) {
	for _, commit := range []bool{true, false} {
		s := NewStore(Config{Strategy: StrategyLatest, Record: true})
		tab, err := s.CreateTable(TableSpec{Name: "h", HiddenRowID: true})
		must(t, err)
		loader := begin(t, s.NewSession(), history.ReadCommitted)
		sp := loader.Savepoint()
		var keys [][]byte
		for i := range 3 {
			k, err := loader.Insert(bg, tab, nil, []any{i})
			must(t, err)
			keys = append(keys, k)
		}
		must(t, loader.RollbackTo(sp))
		k, err := loader.Insert(bg, tab, nil, []any{3})
		must(t, err)
		keys = append(keys, k)

		other := begin(t, s.NewSession(), history.ReadCommitted)
		for _, k := range keys {
			_, err := other.LockRow(bg, tab, k, LockRequest{Mode: RowLockShare, Wait: WaitNoWait})
			wantCode(t, err, pgerror.LockNotAvailable)
		}
		if commit {
			must(t, loader.Commit(bg))
		} else {
			must(t, loader.Rollback())
		}
		reader := begin(t, s.NewSession(), history.ReadCommitted)
		for i, k := range keys {
			got, err := reader.LockRow(bg, tab, k, LockRequest{Mode: RowLockShare, Wait: WaitNoWait})
			must(t, err)
			if live := commit && i == 3; got.Live != live {
				t.Errorf("commit %v: row %d after the loader ended: live %v, want %v", commit, i, got.Live, live)
			}
		}
		must(t, reader.Commit(bg))
	}
}
