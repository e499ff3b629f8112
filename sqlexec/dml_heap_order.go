package sqlexec

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// PostgreSQL's UPDATE or DELETE of one table with no index condition is a
// sequential scan: it reaches the rows in the order of their versions'
// places in the heap (ctid), which the store models, not in key order. The
// order shows wherever one row's change depends on another's: a BEFORE
// trigger that updates a row the statement reaches later (27000,
// triggered_writes.go), or an UPDATE shifting unique values that passes
// only in heap order. Through an index (an index scan, or the bitmap heap
// scan PostgreSQL picks for an IN list on a small table) it reaches them by
// the places of their update chains' first versions, which the store does
// not model (heap-only updates): those keep key order.

// inHeapOrder reports whether the target's rows are visited in heap order:
// a plain table (no join, no inheritance or partitions, no cursor) read
// whole, whose rows' places the store models as PostgreSQL's
// (tuple_size.go).
func (m *modifyTarget) inHeapOrder() bool {
	it := m.items[0]
	if len(m.items) != 1 || m.currentOf != "" || it.members != nil || it.access.kind != accessScan {
		return false
	}
	return !slices.ContainsFunc(it.table.cols, func(c *columnDesc) bool { return !sizeModeled(c.typ) })
}

// fetchInHeapOrder is fetchTable for a target inHeapOrder: the rows that
// satisfy the item's immediate conditions, with their keys, ordered by the
// place of the version read.
func fetchInHeapOrder(x *execCtx, it *fromItem) ([]keyedRow, error) {
	ro := isolation.ReadOptions{ForLock: it.lock != isolation.RowLockNone, AsOf: x.asOf}
	v := new(isolation.RowVersion)
	ro.Version = v // readVersions replaces it when the item carries the system columns
	var out []keyedRow
	var tids []isolation.Tid
	err := scanTableRows(x, it, it.on, ro, func(key []byte, row, phys []any) error {
		out = append(out, keyedRow{key: append([]byte(nil), key...), row: row, phys: phys})
		tid := v.Ctid
		if it.versions {
			t := row[len(it.table.cols)+2].(types.TID)
			tid = isolation.Tid{Block: t.Block, Offset: t.Offset}
		}
		tids = append(tids, tid)
		return nil
	})
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(tids[a].Block, tids[b].Block), cmp.Compare(tids[a].Offset, tids[b].Offset))
	})
	sorted := make([]keyedRow, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}
