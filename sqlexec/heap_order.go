package sqlexec

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/isolation"
)

// PostgreSQL reads a whole table, or a table filtered on what no index
// serves, with a sequential scan: it meets the rows in the order of their
// versions' places in the heap (ctid), which the store models
// (isolation/tid.go), not in key order. A row an UPDATE changed moves to
// where its new version went, usually after every other row; rows keyed by
// a uuid come in the order they were inserted. The order shows in a query
// without ORDER BY (an application's test that compares a list with what
// it inserted, a LIMIT, a cursor's first FETCH, array_agg and string_agg
// without ORDER BY), in the ties of a sort (fickle sorts with PostgreSQL's
// own quicksort, whose equal keys come out in PostgreSQL's order when they
// come in in it), and wherever
// one row's change depends on another's: a BEFORE trigger that updates a
// row the statement reaches later (27000, triggered_writes.go), or an
// UPDATE shifting unique values that passes only in heap order. Through an
// index (an index scan, or the bitmap heap scan PostgreSQL picks for an IN
// list on a small table) it reaches rows by the places of their update
// chains' first versions, which the store does not model (heap-only
// updates): those keep key order.

// needsHeapSort reports whether a read of table item it must sort the rows
// the store returns in key order to visit them in heap order: a read with
// no key or index to go by, of a table whose heap is not in key order
// (Txn.HeapInKeyOrder: a table only inserted into in key order is not
// sorted, and its scan can stop at a LIMIT).
func needsHeapSort(x *execCtx, it *fromItem) bool {
	return it.access.kind == accessScan && !x.txn.HeapInKeyOrder(it.table.id)
}

// heapPlaces collects the places of the versions a scan returns, in the
// order it returns them, to sort its rows by. Its methods do nothing on a
// nil heapPlaces, that of a scan that is not sorted.
type heapPlaces struct {
	version isolation.RowVersion // the scan's ReadOptions.Version
	tids    []isolation.Tid
}

// trackPlaces makes the read ro report its versions' places to the
// heapPlaces it returns.
func trackPlaces(ro *isolation.ReadOptions) *heapPlaces {
	p := new(heapPlaces)
	ro.Version = &p.version
	return p
}

// add records the place of the version the scan returned last.
func (p *heapPlaces) add() {
	if p != nil {
		p.tids = append(p.tids, p.version.Ctid)
	}
}

// sort puts rows, the scan's rows from the first place recorded on, in heap
// order; the scan returns them in key order, so most tables need no move.
func (p *heapPlaces) sort(rows []keyedRow) {
	if p == nil {
		return
	}
	byPlace := func(a, b isolation.Tid) int {
		return cmp.Or(cmp.Compare(a.Block, b.Block), cmp.Compare(a.Offset, b.Offset))
	}
	if slices.IsSortedFunc(p.tids, byPlace) {
		return
	}
	idx := make([]int, len(p.tids))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return byPlace(p.tids[a], p.tids[b]) })
	sorted := make([]keyedRow, len(idx))
	for i, j := range idx {
		sorted[i] = rows[j]
	}
	copy(rows, sorted)
}
