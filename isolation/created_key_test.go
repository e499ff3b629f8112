package isolation

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/oracle"
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

// createdKeysEnv is a loader inserting into a table without a primary key,
// and the keys it inserted in order.
type createdKeysEnv struct {
	s      *Store
	tab    TableID
	loader *Txn
	keys   [][]byte
}

// insert inserts a row of value v as the loader.
func (e *createdKeysEnv) insert(t *testing.T, v int) {
	t.Helper()
	k, err := e.loader.Insert(bg, e.tab, nil, []any{v})
	must(t, err)
	e.keys = append(e.keys, k)
}

// TestCreatedKeysWritesAreTheLoadersOwnWrites pins the writes to keys a
// transaction created (kept out of txnLive.writes, pending.go): the loader
// reads them back (by key, by table scan, by index scan, an index built
// while they are pending included), updates and deletes them, a savepoint
// rollback undoes them and restores the rows they replaced (rewritten by
// RewriteRows meanwhile too), a concurrent reader sees none, and a reader
// after the loader ends sees what the loader saw once it committed, nothing
// once it rolled back; the history stays consistent.
func TestCreatedKeysWritesAreTheLoadersOwnWrites(t *testing.T) {
	tests := []struct {
		name string
		load func(t *testing.T, e *createdKeysEnv)
		want []int // the loader's rows in key order
	}{
		{"inserts", func(t *testing.T, e *createdKeysEnv) {
			for v := range 3 {
				e.insert(t, v)
			}
		}, []int{0, 1, 2}},
		{"updates and deletes of created rows", func(t *testing.T, e *createdKeysEnv) {
			for v := range 3 {
				e.insert(t, v)
			}
			must(t, e.loader.Update(bg, e.tab, e.keys[1], []any{10}))
			must(t, e.loader.Delete(bg, e.tab, e.keys[2]))
			must(t, e.loader.Update(bg, e.tab, e.keys[1], []any{11}))
		}, []int{0, 11}},
		{"savepoint rollback", func(t *testing.T, e *createdKeysEnv) {
			e.insert(t, 0)
			e.insert(t, 1)
			sp := e.loader.Savepoint()
			must(t, e.loader.Update(bg, e.tab, e.keys[0], []any{10}))
			e.insert(t, 2)
			must(t, e.loader.Delete(bg, e.tab, e.keys[1]))
			e.insert(t, 3)
			must(t, e.loader.RollbackTo(sp))
			e.insert(t, 4)
			must(t, e.loader.Update(bg, e.tab, e.keys[4], []any{40}))
		}, []int{0, 1, 40}},
		{"savepoint rollback after a rewrite", func(t *testing.T, e *createdKeysEnv) {
			e.insert(t, 1)
			sp := e.loader.Savepoint()
			must(t, e.loader.Update(bg, e.tab, e.keys[0], []any{2}))
			e.insert(t, 3)
			_, err := e.s.RewriteRows(e.tab, func(r RowRewrite) []any { return []any{r.Row[0].(int) + 100} })
			must(t, err)
			must(t, e.loader.RollbackTo(sp))
		}, []int{101}},
		{"index built over created rows", func(t *testing.T, e *createdKeysEnv) {
			e.insert(t, 5)
			e.insert(t, 4)
			_, err := e.s.CreateIndex(e.tab, IndexSpec{Name: "late", Key: createdKeysIndexKey})
			must(t, err)
			e.insert(t, 3)
		}, []int{5, 4, 3}},
	}
	for _, tc := range tests {
		for _, commit := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/commit=%v", tc.name, commit), func(t *testing.T) {
				s := NewStore(Config{Strategy: StrategyLatest, Record: true})
				tab, err := s.CreateTable(TableSpec{Name: "h", HiddenRowID: true})
				must(t, err)
				idx, err := s.CreateIndex(tab, IndexSpec{Name: "v", Key: createdKeysIndexKey})
				must(t, err)
				e := &createdKeysEnv{s: s, tab: tab, loader: begin(t, s.NewSession(), history.ReadCommitted)}
				e.loader.Statement(history.Statement{SQL: "load"})
				tc.load(t, e)
				concurrent := begin(t, s.NewSession(), history.ReadCommitted)
				checkCreatedKeysRows(t, "a concurrent reader", concurrent, tab, idx, e.keys, nil)
				must(t, concurrent.Commit(bg))
				checkCreatedKeysRows(t, "the loader", e.loader, tab, idx, e.keys, tc.want)
				want := tc.want
				if commit {
					must(t, e.loader.Commit(bg))
				} else {
					must(t, e.loader.Rollback())
					want = nil
				}
				after := begin(t, s.NewSession(), history.ReadCommitted)
				checkCreatedKeysRows(t, "a reader after the loader", after, tab, idx, e.keys, want)
				must(t, after.Commit(bg))
				if r := oracle.Check(s.History(), oracle.Options{}); r.Verdict != oracle.Consistent {
					t.Fatalf("history not consistent: %v", r)
				}
			})
		}
	}
}

// createdKeysIndexKey indexes a row by its integer value, in order.
func createdKeysIndexKey(_ []byte, row []any) ([]byte, bool) {
	return binary.BigEndian.AppendUint64(nil, uint64(row[0].(int))), false
}

// checkCreatedKeysRows checks that tx, in a new statement, reads want (in
// key order) by key, by a scan of the table, and (sorted) by a scan of
// index idx.
func checkCreatedKeysRows(t *testing.T, who string, tx *Txn, tab TableID, idx IndexID, keys [][]byte, want []int) {
	t.Helper()
	tx.Statement(history.Statement{SQL: "select"})
	var byKey, scanned, indexed []int
	for _, k := range keys {
		row, ok, err := tx.Get(bg, tab, k, ReadOptions{})
		must(t, err)
		if ok {
			byKey = append(byKey, row[0].(int))
		}
	}
	collect := func(into *[]int) Visit {
		return func(_ []byte, row []any) (bool, error) {
			*into = append(*into, row[0].(int))
			return true, nil
		}
	}
	must(t, tx.Scan(bg, tab, Span{}, ReadOptions{}, collect(&scanned)))
	must(t, tx.ScanIndex(bg, idx, Span{}, ReadOptions{}, collect(&indexed)))
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(byKey, want) || !slices.Equal(scanned, want) || !slices.Equal(indexed, sorted) {
		t.Errorf("%s read %v by key, %v by scan, %v by index; want %v, %v by index", who, byKey, scanned, indexed, want, sorted)
	}
}
