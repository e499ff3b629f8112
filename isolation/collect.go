package isolation

import (
	"slices"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// The staleness horizon: what the store keeps (docs/memory.md).
//
// Under the axiomatic profile an old version can stay readable for ever: a
// new session's first transaction may read from init at every level (RC,
// RA and CC floors start at init, a PC, SI or SER window at its session's
// last place, init for a new session), and a SER transaction may be
// serialized at the start of co. So without a bound no version, no
// transaction and no node of co could ever be freed. Config.MaxStaleness
// and MaxKept are that bound: once more than MaxStaleness transactions
// follow the horizon in co, or they keep more than MaxKept entries (weight),
// each with a slack of half as much, the horizon moves to the place that
// MaxStaleness transactions, or MaxKept entries, follow, and everything at
// or before it collapses into the past:
//
//   - Every key keeps its base version, the latest at or before the
//     horizon, and the versions after it; the older ones are collected,
//     with their index entries (an index lists every key some kept version
//     or pending write gives the index key) and the moves they recorded.
//   - The transactions before the horizon leave co (their nodes compare
//     below every node left) and join the past: one that wrote a base
//     version stays as its writer, without its causal past or read
//     bookkeeping; the others are garbage once nothing names them. Clocks
//     forget the sessions' transactions in the past.
//   - Every bound before the horizon is raised to it: the sessions' last
//     places, and every pending transaction's lo, so that every place a
//     transaction may take in co follows the horizon. Scan floors before
//     it are dropped: every writer is placed after the horizon anyway.
//
// Why this is sound. A read that starts after the horizon moved chooses
// among the versions the engine offered before, minus those older than the
// key's base: for RC, RA and CC the floor (the co-latest visible writer)
// is either after the horizon, and kept, or at or before it, and then the
// base is at or after it; for PC, SI and SER the window starts at or after
// the horizon. The base itself never makes an earlier read stale (RA, CC):
// its writer, and its causal past, lie at or before the horizon, while
// every version the transaction read is a base or later. Every place a
// transaction may take follows the horizon, where the places the engine
// tried before still are, and the ended transactions before the horizon
// cannot be affected by a writer placed after it (insertable). Clocks are
// only asked about transactions after the horizon: writers of versions
// newer than a base. So fewer choices, never a forbidden one.
//
// A pending transaction that began before the horizon moved keeps what it
// read; it goes on if raising its bounds leaves its choices intact, and is
// doomed otherwise (40001 "snapshot too old" at its next read, write or
// commit, recorded as server-aborted): a PC, SI or SER window that no
// longer reaches past the horizon, an RA or CC read of a version that was
// collected (the staleness checks of its later reads would need it), or a
// PostgreSQL snapshot (Config.StatementSnapshots, PostgresConcurrency)
// taken before the horizon. RC transactions are never doomed: their later
// reads only need the floor, which the base raises.

// collectSlack returns how far past a bound (MaxStaleness, MaxKept) what
// follows the horizon may grow before it moves: moving it costs a walk of
// the transactions after it, paid once per slack.
func collectSlack(n int) int { return n / 2 }

// weight is what ended t keeps while it follows the horizon, in the
// entries MaxKept counts: the versions it wrote, the keys it read when
// windowed (its read bookkeeping stays for the placement checks of later
// writers), and its clock's entries.
func (t *txn) weight() int {
	w := 1 + len(t.wrote) + len(t.vc)
	if t.rd != nil {
		w += len(t.rd.reads)
	}
	return w
}

// maybeCollect moves the horizon when what follows it in co passes
// MaxStaleness transactions or MaxKept entries, plus the slack. It runs
// after every placement.
func (e *engine) maybeCollect() {
	n, kept := e.cfg.MaxStaleness, e.cfg.MaxKept
	after := e.co.n - 1 // the nodes after the head, init's
	if e.horizon != nil {
		after--
	}
	if (n <= 0 || after <= n+collectSlack(n)) && (kept <= 0 || e.kept <= kept+collectSlack(kept)) {
		return
	}
	// Walk back from the end while what follows h stays within the bounds.
	h, count, weight := e.co.tail, 0, 0
	for h.prev != e.co.head && (n <= 0 || count < n) && (kept <= 0 || weight+h.t.kept <= kept) {
		count++
		weight += h.t.kept
		h = h.prev
	}
	if h != e.horizon {
		e.collect(h)
	}
}

// collect moves the horizon to h (see above).
func (e *engine) collect(h *omNode) {
	readKeys := make(map[*keyState]struct{})
	for nd := e.co.head.next; nd != h; {
		next := nd.next
		e.joinPast(nd.t, readKeys)
		e.co.remove(nd)
		nd = next
	}
	e.horizon = h
	e.collections++
	for ks := range readKeys {
		ks.forgetReaders(func(r *txn) bool { return r.past })
	}
	e.dirty = slices.DeleteFunc(e.dirty, func(ks *keyState) bool {
		if e.collectKey(ks) {
			ks.dirty = false
			return true
		}
		return false
	})
	for s := range e.open {
		if s.lastPos != nil && !h.before(s.lastPos) {
			s.lastPos = h
		}
		s.vc = s.vc.forget()
	}
	for t := range e.active {
		e.raiseToHorizon(t)
	}
	for _, tb := range e.tables {
		if tb == nil {
			continue
		}
		tb.scanFloor = dropPast(tb.scanFloor, h)
		for _, ix := range tb.indexes {
			ix.marks.floor = dropPast(ix.marks.floor, h)
		}
	}
}

// joinPast makes ended t, whose node is about to leave co, part of the
// past: it keeps its identity and writes (for the base versions it may
// still write) and drops its causal past and read bookkeeping. The keys a
// windowed t read are collected into readKeys, whose readers lists drop it.
func (e *engine) joinPast(t *txn, readKeys map[*keyState]struct{}) {
	t.past = true
	e.kept -= t.kept
	t.vc = nil
	if t.rd != nil {
		for ks := range t.rd.reads {
			readKeys[ks] = struct{}{}
		}
		t.rd = nil
	}
	t.sess.pastSeq = max(t.sess.pastSeq, t.seq)
}

// dropPast returns nil for a floor at or before the horizon h: every place
// a transaction may take follows h, so the floor no longer constrains one.
func dropPast(floor, h *omNode) *omNode {
	if floor != nil && !h.before(floor) {
		return nil
	}
	return floor
}

// collectKey drops the versions of ks older than its base, the latest at
// or before the horizon, and reports whether ks is left with one version.
func (e *engine) collectKey(ks *keyState) bool {
	h := e.horizon
	vs := ks.versions()
	b := 0
	for b+1 < len(vs) && !h.before(vs[b+1].w.pos) {
		b++
	}
	if int(ks.tab) >= len(e.tables) || e.tables[ks.tab] == nil {
		ks.keepVersions(vs[len(vs)-1:])
		return true // a dropped table: nothing reads it again
	}
	if b == 0 {
		return len(vs) == 1
	}
	tb := e.tables[ks.tab]
	dropped := vs[:b]
	var saved [1]version
	if &vs[0] == &ks.inline[0] { // then b is 1: keep the dropped version out of the array keepVersions reuses
		saved[0] = vs[0]
		dropped = saved[:]
	}
	ks.keepVersions(vs[b:]) // first: unindex looks at the kept versions only
	for _, v := range dropped {
		if v.tomb() {
			delete(tb.moves, movedVersion{ks, v.w})
		} else {
			e.unindex(tb, ks, v.row)
		}
		if rd := ks.readers; rd != nil && rd.lastPicked == v.w {
			rd.lastPicked, rd.lastReader = nil, nil
		}
	}
	ks.scanFloor = dropPast(ks.scanFloor, h)
	return len(ks.versions()) == 1
}

// raiseToHorizon raises pending t's bounds to the horizon, or dooms it
// when they cannot be raised without changing what it read (see above).
func (e *engine) raiseToHorizon(t *txn) {
	h := e.horizon
	rs := t.rd
	if t.snap != nil && t.snap.before(h) {
		t.tooOld = true
	}
	switch {
	case t.windowed():
		if !below(h, rs.hi) {
			t.tooOld = true
		}
	case t.level != history.ReadCommitted:
		for ks, src := range rs.reads {
			if ks.versionIndex(src) < 0 {
				t.tooOld = true
				break
			}
		}
	}
	rs.lo = later(rs.lo, h)
	rs.vc = rs.vc.forget()
}

// errSnapshotTooOld is the error of a transaction doomed by the staleness
// horizon.
func errSnapshotTooOld() error {
	return pgerror.New(pgerror.SerializationFailure, "snapshot too old").
		WithDetail("The transaction's reads depend on row versions that were collected: more transactions committed since it began than fickle keeps versions for (--max-staleness).").
		WithHint("The transaction might succeed if retried.")
}

// unindex removes key ks from the entries of tb's indexes under row's index
// keys, where no version of ks and no pending write of it still has that
// index key: an index lists the keys some kept version or pending write
// puts under an index key (a lookup must find every key whose chosen
// version could match), and keeps no entry for a version collected or a
// write rolled back.
func (e *engine) unindex(tb *table, ks *keyState, row []any) {
	for _, ix := range tb.indexes {
		ik, _ := ix.indexKey(&e.keyBufs[0], row)
		ent, ok := ix.entry(string(ik))
		if !ok {
			continue
		}
		if !ent.has(ks) || e.indexed(tb, ix, ks, string(ik)) {
			continue
		}
		ent.remove(ks)
		if ent.size() == 0 {
			ix.deleteEntry(string(ik))
		}
	}
}

// indexed reports whether a version of ks, or the pending write of the
// transaction holding its row lock, has index key ik in ix.
func (e *engine) indexed(tb *table, ix *index, ks *keyState, ik string) bool {
	has := func(row []any) bool {
		k, _ := ix.indexKey(&e.keyBufs[1], row)
		return string(k) == ik
	}
	for _, v := range ks.versions() {
		if !v.tomb() && has(v.row) {
			return true
		}
	}
	if ent := e.lockEntry(resource{lockRow, uint32(tb.id), ks.key}); ent != nil {
		for _, hd := range ent.holders {
			if hd.t.txnLive == nil {
				continue
			}
			if w := hd.t.pendingWrite(ks); w != nil && !w.tomb && has(w.row) {
				return true
			}
		}
	}
	return false
}

// unindexUnwritten runs when t ends: the rows it wrote that no version
// keeps (every write when it did not commit, and the earlier writes of a
// key it wrote again) leave the indexes. Its row locks are released, so
// its pending writes no longer count (indexed).
func (e *engine) unindexUnwritten(t *txn) {
	for u := range t.undo.from(0) {
		if u.prev != nil && !u.prev.tomb && len(u.prev.tb.indexes) > 0 {
			e.unindex(u.prev.tb, u.prev.ks, u.prev.row)
		}
	}
	if t.state == txnCommitted {
		return
	}
	for w := range t.allWrites() {
		if !w.tomb && len(w.tb.indexes) > 0 {
			e.unindex(w.tb, w.ks, w.row)
		}
	}
}
