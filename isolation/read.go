package isolation

import (
	"context"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// scanChunk is how many keys a scan chooses per step under the engine's
// mutex before calling back into the executor without it.
const scanChunk = 64

// seen is one inspected key of a read: the version chosen and its recorded op.
type seen struct {
	ks  *keyState
	row []any
	w   *txn // whose version (t itself for its own write)
	ref readRef
	// event is the statement event the read is recorded in.
	event uint32
	ok    bool // a live row
}

func (e *engine) get(ctx context.Context, t *txn, id TableID, key []byte, ro ReadOptions) ([]any, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.readable(ctx, t, id)
	if err != nil {
		return nil, false, err
	}
	k := string(key)
	s, err := e.inspect(t, tb, tb.keyState(k, true), ro)
	if err != nil {
		return nil, false, err
	}
	if s.ok {
		e.rec.markReturned(t, s.ref)
		if ro.Version != nil {
			*ro.Version = e.rowVersion(t, tb, s)
		}
	}
	e.rec.flushReads(t, 0)
	return s.row, s.ok, nil
}

// readable checks that t may read table id now and takes the table's
// implicit ACCESS SHARE lock.
func (e *engine) readable(ctx context.Context, t *txn, id TableID) (*table, error) {
	return e.readableIn(ctx, t, id, TableLockAccessShare)
}

// readableIn is readable taking the table lock in mode. An ACCESS SHARE
// lock is not taken when t holds the table in another mode already, which
// conflicts with all that ACCESS SHARE conflicts with: PostgreSQL's UPDATE
// reads its table under the ROW EXCLUSIVE lock it opened it with, and
// pg_locks shows no other.
func (e *engine) readableIn(ctx context.Context, t *txn, id TableID, mode TableLock) (*table, error) {
	if err := e.live(t); err != nil {
		return nil, err
	}
	if err := e.doomed(t); err != nil {
		return nil, err
	}
	if err := e.ssiDoomedRead(t); err != nil {
		return nil, err
	}
	tb, err := e.table(id)
	if err != nil {
		return nil, err
	}
	if mode != TableLockAccessShare || t.tableLocks[tb.id] == 0 {
		if err := e.tableLock(ctx, t, tb, mode, WaitBlock); err != nil {
			return nil, err
		}
	}
	if tb.dropped {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", tb.spec.Name)
	}
	return tb, nil
}

// inspect reads one key for t: its own last write, or the committed version
// the level and strategy choose. The read is recorded.
func (e *engine) inspect(t *txn, tb *table, ks *keyState, ro ReadOptions) (seen, error) {
	if ro.ForLock && !e.cfg.PostgresConcurrency {
		ro.Latest = true // a locking read sees the latest version (DESIGN §4)
	}
	t.nreads++
	if s, ok := e.statementRead(t, tb, ks, ro); ok {
		return s, nil // statement_reads.go: one version per key per statement
	}
	if w := t.pendingWrite(ks); w != nil {
		if ro.AsOf != 0 && uint64(w.seq) >= uint64(ro.AsOf) {
			return ownVersionAt(t, ks, w, ro.AsOf), nil
		}
		ref := e.rec.read(t, tb, ks, t, w.tomb)
		return seen{ks: ks, row: w.row, ok: !w.tomb, w: t, ref: ref, event: t.event}, nil
	}
	v, err := e.choose(t, tb, ks, ro)
	if err != nil {
		return seen{}, err
	}
	if err := e.ssiRead(t, tb, ks, v.w); err != nil {
		return seen{}, err
	}
	s := seen{ks: ks, row: v.row, ok: !v.tomb(), w: v.w, ref: e.rec.read(t, tb, ks, v.w, v.tomb()), event: t.event}
	e.rememberRead(t, s)
	return s, nil
}

// ownVersionAt is ks as t had it at mark, given its last write w made at
// or after mark: its latest earlier write, or the version its first write
// replaced. It is not recorded again: t recorded that version when it read
// (or, inserting, checked) the key before writing it, and a read of its
// own write carries no write-read edge.
func ownVersionAt(t *txn, ks *keyState, w *write, mark WriteMark) seen {
	for w.before != nil && uint64(w.before.seq) >= uint64(mark) {
		w = w.before
	}
	noRef := readRef{op: -1, item: -1}
	if w.before != nil {
		return seen{ks: ks, row: w.before.row, ok: !w.before.tomb, w: t, ref: noRef, event: t.event}
	}
	return seen{ks: ks, row: w.baseRow, ok: w.baseLive, w: t, ref: noRef, event: t.event}
}

func (e *engine) scan(ctx context.Context, t *txn, id TableID, span Span, ro ReadOptions, fn Visit) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.readable(ctx, t, id)
	if err != nil {
		return err
	}
	if err := e.ssiScan(t, tb, nil, span); err != nil {
		return err
	}
	cursor, first := string(span.Start), true
	mark := e.markScan(t, tb, nil, span)
	next := func(buf []*keyState) []*keyState {
		tb.keys.Ascend(cursor, func(k string, ks *keyState) bool {
			if !first && k == cursor {
				return true
			}
			if span.End != nil && k >= string(span.End) {
				return false
			}
			buf = append(buf, ks)
			return len(buf) < scanChunk
		})
		if len(buf) > 0 {
			cursor, first = buf[len(buf)-1].key, false
		}
		if mark != nil {
			mark.cursor, mark.started, mark.done = cursor, !first, len(buf) == 0
		}
		return buf
	}
	return e.visitKeys(t, tb, next, ro, fn)
}

func (e *engine) scanIndex(ctx context.Context, t *txn, id IndexID, span Span, ro ReadOptions, fn Visit) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if int(id) >= len(e.indexes) || e.indexes[id] == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "index with id %d does not exist", id)
	}
	ix := e.indexes[id]
	tb, err := e.readable(ctx, t, ix.table.id)
	if err != nil {
		return err
	}
	if err := e.ssiScan(t, tb, ix, span); err != nil {
		return err
	}
	mark := e.markScan(t, tb, ix, span)
	if ix.spec.Unique && span.exact() {
		if ent, ok := ix.entry(string(span.Start)); !ok || ent.plain() {
			return e.visitEntry(t, tb, ent, mark, ro, fn)
		}
	}
	// The index is read an entry at a time from pivot, the first index key
	// not yet passed, and a chunk is inspected before the mutex is released:
	// every key the mark covers was inspected or materialized (phantom.go).
	pivot, done := string(span.Start), false
	listed := make(map[*keyState]struct{})
	// visit lists the keys of index key ik's entry, moves the pivot past it
	// and sets done when the chunk has room for more.
	visit := func(buf []*keyState, ik string, ent *indexEntry) []*keyState {
		for _, ks := range ent.list() {
			if _, ok := listed[ks]; !ok && ent.has(ks) {
				listed[ks] = struct{}{}
				buf = append(buf, ks)
			}
		}
		pivot = ik + "\x00" // the least index key above ik
		done = len(buf) < scanChunk
		return buf
	}
	exact := ix.spec.Unique && span.exact()
	next := func(buf []*keyState) []*keyState {
		if done {
			return buf
		}
		done = true
		if exact { // one entry at most: a look-up instead of an ascent
			if ent, ok := ix.entry(pivot); ok && pivot < string(span.End) {
				buf = visit(buf, pivot, ent)
			}
		} else {
			ix.entries.Ascend(pivot, func(ik string, ent *indexEntry) bool {
				if span.End != nil && ik >= string(span.End) {
					return false
				}
				buf = visit(buf, ik, ent)
				return done
			})
		}
		if mark != nil {
			mark.cursor, mark.started, mark.done = pivot, true, done
		}
		return buf
	}
	return e.visitKeys(t, tb, next, ro, fn)
}

// visitEntry is scanIndex for an exact span of a unique index whose entry
// ent (nil when there is none) is plain, so that its keys are distinct
// and all under it, fewer than a chunk: it takes them without the range
// scan's B-tree, pivot and chunk buffers, and inspects, marks, records and
// calls fn exactly as visitKeys does for the one chunk the range scan makes.
func (e *engine) visitEntry(t *txn, tb *table, ent *indexEntry, mark *scanMark, ro ReadOptions, fn Visit) error {
	var (
		keys  [smallEntry]*keyState
		found [smallEntry]seen
	)
	t.visiting++
	defer e.endVisit(t)
	e.rec.flushReads(t, 1)
	chunk := keys[:0]
	if ent != nil {
		chunk = append(chunk, ent.list()...)
	}
	if mark != nil {
		// The range scan's pivot: past the index key when it has an entry.
		mark.cursor, mark.started, mark.done = mark.start, true, true
		if ent != nil {
			mark.cursor = mark.end
		}
	}
	if len(chunk) == 0 {
		return nil
	}
	_, _, err := e.visitChunk(t, tb, chunk, found[:0], ro, fn)
	return err
}

// visitKeys inspects the keys that next yields, a chunk at a time under the
// mutex, and calls fn on the live rows without it.
func (e *engine) visitKeys(t *txn, tb *table, next func([]*keyState) []*keyState, ro ReadOptions, fn Visit) error {
	var (
		chunk []*keyState
		found []seen
	)
	t.visiting++
	defer e.endVisit(t)
	for {
		e.rec.flushReads(t, 1) // one log event per chunk of the outermost scan
		chunk = next(chunk[:0])
		if len(chunk) == 0 {
			return nil
		}
		var stop bool
		var err error
		if found, stop, err = e.visitChunk(t, tb, chunk, found[:0], ro, fn); err != nil || stop {
			return err
		}
	}
}

// endVisit ends a scan that visitKeys or visitEntry started.
func (e *engine) endVisit(t *txn) {
	if t.txnLive != nil { // nil when a server abort ended t meanwhile
		t.visiting--
		e.rec.flushReads(t, 0) // the items of the last chunk, also on error
	}
}

// visitChunk inspects the keys of chunk under the mutex, appending what it
// saw to found (returned, for reuse), then calls fn on the live rows
// without it; stop reports that fn ended the scan.
func (e *engine) visitChunk(t *txn, tb *table, chunk []*keyState, found []seen, ro ReadOptions, fn Visit) ([]seen, bool, error) {
	for _, ks := range chunk {
		s, err := e.inspect(t, tb, ks, ro)
		if err != nil {
			return found, false, err
		}
		found = append(found, s)
	}
	for _, s := range found {
		if !s.ok {
			continue
		}
		if ro.Version != nil {
			*ro.Version = e.rowVersion(t, tb, s)
		}
		matched, stop, err := e.callVisit(fn, s)
		if err != nil {
			return found, false, err
		}
		if matched {
			e.rec.markReturned(t, s.ref)
		}
		if stop {
			return found, true, nil
		}
	}
	return found, false, nil
}

// callVisit calls fn without the engine's mutex.
func (e *engine) callVisit(fn Visit, s seen) (matched, stop bool, err error) {
	e.mu.Unlock()
	defer e.mu.Lock()
	matched, err = fn([]byte(s.ks.key), s.row)
	if err == ErrStop {
		return matched, true, nil
	}
	return matched, false, err
}

// tableLock takes a table lock for t unless it already holds that mode.
func (e *engine) tableLock(ctx context.Context, t *txn, tb *table, mode TableLock, wait WaitPolicy) error {
	if t.tableLocks[tb.id]&(1<<mode) != 0 {
		return nil
	}
	if err := e.acquire(ctx, t, resource{lockTable, uint32(tb.id), ""}, uint8(mode), wait); err != nil {
		return err
	}
	if t.tableLocks == nil {
		t.tableLocks = make(map[TableID]uint16)
	}
	t.tableLocks[tb.id] |= 1 << mode
	return nil
}

// check refuses a mode that is not one of the table lock modes.
func (mode TableLock) check() error {
	if mode < TableLockAccessShare || mode > TableLockAccessExclusive {
		return pgerror.Newf(pgerror.InternalError, "invalid table lock mode %d", mode)
	}
	return nil
}

func (e *engine) lockObject(ctx context.Context, t *txn, obj uint32, mode TableLock, wait WaitPolicy) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.live(t); err != nil {
		return err
	}
	if err := mode.check(); err != nil {
		return err
	}
	return e.acquire(ctx, t, resource{lockObject, obj, ""}, uint8(mode), wait)
}

func (e *engine) lockTable(ctx context.Context, t *txn, id TableID, mode TableLock, wait WaitPolicy) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.liveTable(t, id)
	if err != nil {
		return err
	}
	if err := mode.check(); err != nil {
		return err
	}
	return e.tableLock(ctx, t, tb, mode, wait)
}

// wroteSince reports whether t wrote key of table id at or after mark: its
// newest own version of the key is not the one it had at mark.
func (e *engine) wroteSince(t *txn, id TableID, key []byte, mark WriteMark) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.table(id)
	if err != nil || mark == 0 {
		return false
	}
	ks := tb.keyState(string(key), false)
	if ks == nil {
		return false
	}
	w := t.pendingWrite(ks)
	return w != nil && uint64(w.seq) >= uint64(mark)
}
