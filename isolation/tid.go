package isolation

import (
	"cmp"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL shows where a row version lives in its table's heap as the
// system column ctid, a tid (block, offset), and applications use it: to
// delete duplicates (a.ctid < b.ctid), to update or delete a batch a
// subquery picked (WHERE ctid IN (SELECT ctid ... LIMIT n FOR UPDATE SKIP
// LOCKED)), to recognise a row while debugging. The store gives every
// version the place PostgreSQL 15's heap would give it on a table created
// fresh, never pruned nor vacuumed:
//
//   - every new version takes a place when it is written: an INSERT's row,
//     each UPDATE's new version (a transaction's repeated updates of one
//     row included), the versions a rollback undoes (their space stays
//     taken, as a dead tuple's does); a DELETE writes no version;
//   - a version takes its tuple's size, MAXALIGN'd, and a 4-byte line
//     pointer on an 8 kB page whose header takes 24 bytes; the tuple's size
//     is the executor's to say (TableSpec.Tuple: it knows the types);
//   - an INSERT goes to the page the previous insert or update that looked
//     for room went to, when its free space less the table's fillfactor
//     reserve holds the tuple (hio.c's RelationGetBufferForTuple); else to
//     a page the free space map knows to have room (the pages found too
//     full so far, with what they had left then, searched from the slot
//     after the last one it gave); else to a new page at the end;
//   - an UPDATE's new version goes on its old version's page when that
//     page's free space holds it, whatever the fillfactor (heap_update),
//     else where an INSERT would go;
//   - a page holds at most 291 line pointers (MaxHeapTuplesPerPage).
//
// TRUNCATE gives the table a fresh heap (Txn.NewHeap); CLUSTER, VACUUM
// FULL and ALTER TABLE's rewrites lay its live rows out anew
// (Txn.Relayout).
//
// Where the model stops matching PostgreSQL:
//
//   - it never prunes nor vacuums: PostgreSQL removes the dead versions of
//     a page a read finds nearly full (heap_page_prune_opt), VACUUM and
//     autovacuum those of every page, and later versions reuse the space
//     and the line pointers. The places of the versions already written
//     stay right (pruning moves no live version's tid), and the model's
//     later places are the ones PostgreSQL gives while an older snapshot
//     holds the horizon back; on a quiet server they differ;
//   - it never compresses or moves a large value out of line (TOAST): a
//     tuple over 2032 bytes takes its full size here, less in PostgreSQL;
//   - it keeps one insertion target per table where each PostgreSQL
//     backend keeps its own: concurrent inserters fill pages in another
//     order;
//   - it places a bulk load's (COPY's) rows one by one as INSERT does
//     (heap_multi_insert differs on a page's last row with a fillfactor);
//   - CLUSTER and VACUUM FULL copy the newest live versions alone, where
//     PostgreSQL copies the recently dead ones an older snapshot may still
//     read; REFRESH MATERIALIZED VIEW CONCURRENTLY writes the view anew,
//     where PostgreSQL changes the rows that differ in place.

// Tid is a row version's place in its table's heap: PostgreSQL's ctid.
type Tid struct {
	Block  uint32
	Offset uint16
}

// The page layout of PostgreSQL's heap (bufpage.h, htup_details.h).
const (
	heapPageSize     = 8192
	heapPageHeader   = 24
	heapLinePointer  = 4
	heapMaxTuples    = 291  // MaxHeapTuplesPerPage
	heapMaxTupleSize = 8160 // MaxHeapTupleSize
	fsmCategoryStep  = 32   // FSM_CAT_STEP
)

// heapPage is one page of a table's heap model.
type heapPage struct {
	free  int32  // pd_upper - pd_lower
	items uint16 // line pointers
}

// heap is a table's heap model: its pages, the insertion target and the
// free space map's search position.
type heap struct {
	pages  []heapPage
	target int32 // -1: none yet
	// fsm knows the free space of the pages found too full so far, as
	// it was then; fsmNext is where its next search starts.
	fsm     freeSpaceMap
	fsmNext int32
	// outOfKeyOrder is set once some version takes a place before that of
	// a version of a greater key (an update of any key but the last, an
	// insert of a key below the greatest, a page reused through the free
	// space map, a relayout): until then a scan in key order is a scan in
	// heap order. last is the greatest key placed so far, at lastTid.
	outOfKeyOrder bool
	last          string
	lastTid       Tid
}

// heapFree is PageGetHeapFreeSpace: the room for one more tuple.
func (p *heapPage) heapFree() int32 {
	if p.items >= heapMaxTuples || p.free < heapLinePointer {
		return 0
	}
	return p.free - heapLinePointer
}

// placed notes that a version of key took place tid (outOfKeyOrder).
func (h *heap) placed(key string, tid Tid) {
	if h.outOfKeyOrder {
		return
	}
	if h.lastTid != (Tid{}) && (key < h.last || tid.Block < h.lastTid.Block || tid.Block == h.lastTid.Block && tid.Offset < h.lastTid.Offset) {
		h.outOfKeyOrder = true
		return
	}
	h.last, h.lastTid = key, tid
}

// add puts a tuple of aligned length n on page b and returns its tid.
func (h *heap) add(b int32, n int32) Tid {
	p := &h.pages[b]
	p.free -= n + heapLinePointer
	p.items++
	return Tid{Block: uint32(b), Offset: p.items}
}

// maxAlign is PostgreSQL's MAXALIGN on 64-bit machines.
func maxAlign(n int32) int32 { return (n + 7) &^ 7 }

// place gives a new version of size bytes (its tuple's t_len) its tid. old
// is the tid of the version an UPDATE replaces, nil for an INSERT;
// fillfactor is the table's, in percent (0: the default, 100).
func (h *heap) place(size int, old *Tid, fillfactor int) Tid {
	n := maxAlign(int32(min(size, heapMaxTupleSize)))
	if old != nil && int(old.Block) < len(h.pages) && h.pages[old.Block].heapFree() >= n {
		return h.add(int32(old.Block), n)
	}
	if fillfactor <= 0 || fillfactor > 100 {
		fillfactor = 100
	}
	save := int32(heapPageSize * (100 - fillfactor) / 100)
	// Pages without tuples may still hold line pointers: a page counts as
	// empty when little of it is taken.
	const nearlyEmpty = heapMaxTupleSize - heapMaxTuples/8*heapLinePointer
	want := n + save
	if want > nearlyEmpty {
		want = max(n, nearlyEmpty)
	}
	b := h.target
	if b < 0 && len(h.pages) > 0 {
		b = int32(len(h.pages) - 1)
	}
	for b >= 0 {
		p := &h.pages[b]
		free := p.heapFree()
		if want <= free {
			h.target = b
			return h.add(b, n)
		}
		h.fsm.set(int(b), fsmValue(free))
		b = h.fsmSearch(want)
	}
	h.pages = append(h.pages, heapPage{free: heapPageSize - heapPageHeader})
	h.target = int32(len(h.pages) - 1)
	return h.add(h.target, n)
}

// fsmSearch returns a page the free space map says has room for want
// bytes, in its categories of 32 bytes, or -1: the search starts after the
// page it last gave and wraps around.
func (h *heap) fsmSearch(want int32) int32 {
	need := uint16((want+fsmCategoryStep-1)/fsmCategoryStep) + 1 // a page's value is its category plus one
	b := h.fsm.first(int(h.fsmNext), need)
	if b < 0 {
		b = h.fsm.first(0, need)
	}
	if b >= 0 {
		h.fsmNext = int32(b) + 1
	}
	return int32(b)
}

// placeVersion returns the tid of a write to ks that follows prev, the
// writer's own earlier write to it (nil if none): a new version's place,
// as an update of the version it replaces when the key holds a live one
// (or from, when not nil: a moved row's old place), else as an insert; a
// tombstone's is the place of the version it deletes.
func (tb *table) placeVersion(ks *keyState, prev *write, row []any, tomb, created bool, from *Tid) Tid {
	old := from
	switch {
	case prev != nil:
		if !prev.tomb || tomb {
			old = &prev.tid
		}
	case !created:
		if v := ks.latest(); !v.tomb() {
			old = &v.tid
		}
	}
	if tomb {
		if old == nil {
			return Tid{}
		}
		return *old
	}
	size, fillfactor := 24, 0 // a bare heap tuple header
	if tb.spec.Tuple != nil {
		size, fillfactor = tb.spec.Tuple(row)
	}
	tid := tb.heap.place(size, old, fillfactor)
	tb.heap.placed(ks.key, tid)
	return tid
}

// ownTid returns the place of the own version of a key a read returned as
// row, w being the transaction's last write to the key: that write's, or
// an earlier one's a read at a write mark went back to (the same row
// value), or the place of the committed version the first own write
// replaced.
func ownTid(w *write, row []any) Tid {
	for c := w; c != nil; c = c.before {
		if !c.tomb && sameRow(c.row, row) {
			return c.tid
		}
		if c.before == nil && c.baseLive && sameRow(c.baseRow, row) {
			for _, v := range c.ks.versions() {
				if sameRow(v.row, row) {
					return v.tid
				}
			}
		}
	}
	return w.tid
}

// sameRow reports whether a and b are the same row value (one backing
// array), as the store hands its rows out.
func sameRow(a, b []any) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// heapSwap is a heap a transaction's TRUNCATE replaced: the table, its old
// heap, and the savepoints the transaction had then (a rollback to any of
// them brings the heap back).
type heapSwap struct {
	tb    *table
	old   heap
	depth int
	tids  []tidSave // the places a relayout changed
}

// newHeap is Txn.NewHeap.
func (e *engine) newHeap(t *txn, id TableID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.liveTable(t, id)
	if err != nil {
		return err
	}
	t.heaps = append(t.heaps, heapSwap{tb: tb, old: tb.heap, depth: len(t.savepoints)})
	tb.heap = heap{target: -1}
	return nil
}

// heapInKeyOrder is Txn.HeapInKeyOrder; a table that does not exist
// (dropped meanwhile) answers false.
func (e *engine) heapInKeyOrder(id TableID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.table(id)
	return err == nil && !tb.heap.outOfKeyOrder
}

// restoreHeaps brings back the heaps t replaced while it had depth
// savepoints or more, newest first.
func (t *txn) restoreHeaps(depth int) {
	for len(t.heaps) > 0 {
		last := t.heaps[len(t.heaps)-1]
		if last.depth < depth {
			return
		}
		last.tb.heap = last.old
		last.restoreTids()
		t.heaps = t.heaps[:len(t.heaps)-1]
	}
}

// releaseHeaps makes the heaps t replaced under savepoints it released,
// which leave it depth savepoints, part of the savepoint they are in now.
func (t *txn) releaseHeaps(depth int) {
	for i := range t.heaps {
		t.heaps[i].depth = min(t.heaps[i].depth, depth)
	}
}

// LayoutOrder is the order Txn.Relayout writes a table's rows in: by a
// secondary index's keys, by primary key, or (neither) by their places
// now; and which rows: the newest committed ones (CLUSTER, VACUUM FULL),
// or with Visible those the transaction sees, its own writes included
// (ALTER TABLE's rewrite). Size, when not nil, sizes the rows in place of
// the table's Tuple (a rewrite changes the rows' columns).
type LayoutOrder struct {
	Index   IndexID // NoIndex: not by an index
	ByKey   bool
	Visible bool
	Size    func(row []any) int
}

// tidSave is the place a relayout changed of the committed version of ks
// that w wrote, or of the transaction's own write own.
type tidSave struct {
	ks  *keyState
	w   *txn
	own *write
	old Tid
}

// relayout is Txn.Relayout.
func (e *engine) relayout(t *txn, id TableID, order LayoutOrder) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.liveTable(t, id)
	if err != nil {
		return err
	}
	if !order.Visible {
		for range t.tableWrites(id) {
			return pgerror.Unsupported("rewriting a table the transaction wrote to (its own old versions would be copied as well)")
		}
	}
	var ix *index
	if order.Index != NoIndex {
		if ix = tb.uniqueIndex(order.Index); ix == nil {
			for _, x := range tb.indexes {
				if x.id == order.Index {
					ix = x
				}
			}
		}
		if ix == nil {
			return pgerror.Newf(pgerror.UndefinedObject, "index with id %d does not exist", order.Index)
		}
	}
	type entry struct {
		ks   *keyState
		i    int    // of the version in ks.versions()
		own  *write // t's own write instead
		sort string
		tid  Tid
	}
	var rows []entry
	tb.keys.Scan(func(k string, ks *keyState) bool {
		vs := ks.versions()
		v := vs[len(vs)-1]
		var own *write
		if order.Visible {
			if own = t.pendingWrite(ks); own != nil {
				v = version{w: t, row: own.row, tid: own.tid}
				if own.tomb {
					return true
				}
			}
		}
		if v.tomb() {
			return true
		}
		en := entry{ks: ks, i: len(vs) - 1, own: own, tid: v.tid}
		switch {
		case ix != nil:
			key, _ := ix.indexKey(&t.keyBufs[0], v.row)
			en.sort = string(key)
		case order.ByKey:
			en.sort = k
		}
		rows = append(rows, en)
		return true
	})
	slices.SortStableFunc(rows, func(a, b entry) int {
		if c := strings.Compare(a.sort, b.sort); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.tid.Block, b.tid.Block), cmp.Compare(a.tid.Offset, b.tid.Offset))
	})
	if ix != nil {
		// PostgreSQL's CLUSTER may sort the rows, leaving rows of equal
		// keys in an order of its sort's making.
		for i := 1; i < len(rows); i++ {
			if rows[i].sort == rows[i-1].sort {
				return pgerror.Unsupported("CLUSTER on an index whose keys repeat among the rows (PostgreSQL's sort orders equal keys its own way)")
			}
		}
	}
	swap := heapSwap{tb: tb, old: tb.heap, depth: len(t.savepoints)}
	tb.heap = heap{target: -1}
	for _, en := range rows {
		row, tid := &en.ks.versions()[en.i].row, &en.ks.versions()[en.i].tid
		save := tidSave{ks: en.ks, w: en.ks.versions()[en.i].w}
		if en.own != nil {
			row, tid, save = &en.own.row, &en.own.tid, tidSave{own: en.own}
		}
		save.old = *tid
		swap.tids = append(swap.tids, save)
		size, fillfactor := 24, 0
		if tb.spec.Tuple != nil {
			size, fillfactor = tb.spec.Tuple(*row)
		}
		if order.Size != nil {
			size = order.Size(*row)
		}
		*tid = tb.heap.place(size, nil, fillfactor)
	}
	// The versions older snapshots may read keep their old places.
	tb.heap.outOfKeyOrder = true
	t.heaps = append(t.heaps, swap)
	return nil
}

// restoreTids puts back the places a relayout changed.
func (s *heapSwap) restoreTids() {
	for _, sv := range s.tids {
		if sv.own != nil {
			sv.own.tid = sv.old
			continue
		}
		vs := sv.ks.versions()
		for i := range vs {
			if vs[i].w == sv.w {
				vs[i].tid = sv.old
			}
		}
	}
}

// latestTid is Txn.LatestTid.
func (e *engine) latestTid(t *txn, id TableID, tid Tid) (Tid, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.liveTable(t, id)
	if err != nil {
		return tid, false, err
	}
	if tid.Offset == 0 || int(tid.Block) >= len(tb.heap.pages) {
		return tid, false, nil
	}
	out := tid
	tb.keys.Scan(func(_ string, ks *keyState) bool {
		own := t.pendingWrite(ks)
		// The key's versions in the order they were written: the committed
		// ones, then t's own.
		var chain []Tid
		var live []bool
		for _, v := range ks.versions() {
			chain, live = append(chain, v.tid), append(live, !v.tomb())
		}
		var owns []*write
		for w := own; w != nil; w = w.before {
			owns = append(owns, w)
		}
		for i := len(owns) - 1; i >= 0; i-- {
			chain, live = append(chain, owns[i].tid), append(live, !owns[i].tomb)
		}
		start := -1
		for i := range chain {
			if live[i] && chain[i] == tid {
				start = i
			}
		}
		if start < 0 {
			return true
		}
		// The chain goes on through live versions; the one a reader sees
		// now (the last, the newest committed one or t's own) is its end.
		end := start
		for end+1 < len(chain) && live[end+1] {
			end++
		}
		if end < len(chain)-1 {
			return true // no one sees its end (an older heap's place may repeat after TRUNCATE)
		}
		out = chain[end]
		return false
	})
	return out, true, nil
}
