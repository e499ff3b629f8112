package isolation

import (
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Serializable snapshot isolation as PostgreSQL runs it, for SER
// transactions under Config.PostgresConcurrency (--profile postgres). The
// axiomatic engine aborts a SER transaction only at COMMIT, when no place
// in co keeps every read valid; PostgreSQL aborts earlier and more often,
// on the dangerous structure of Cahill et al. (SIGMOD 2008) as Ports and
// Grittner describe its implementation (VLDB 2012):
//
//	T_in -rw-> T_pivot -rw-> T_out, T_out committed first
//
// where T1 -rw-> T2 (an rw-antidependency, an rw-conflict) means that T1
// read a version that T2, concurrent with it, overwrote. This file keeps
// what PostgreSQL's predicate.c keeps and raises 40001 where it does:
//
//   - SIREAD locks: every key a SER transaction read (ssiRead), and every
//     range of primary or index keys it scanned, so that a later write of
//     a row into the range conflicts (ssiScan). Locks outlive the
//     transaction until no SER transaction concurrent with it is left
//     (prune).
//   - rw-conflicts, found from both sides: a read of a version whose next
//     version a concurrent SER transaction committed or is writing
//     (conflict out), and a write of a key, or into a range, that a
//     concurrent SER transaction holds an SIREAD lock on (conflict in).
//   - flagRW, PostgreSQL's OnConflict_CheckForSerializationFailure: a new
//     edge that closes a dangerous structure under PostgreSQL's
//     commit-ordering rules (T_out commits first; a read-only T_in only
//     counts when T_out committed before its snapshot) fails the current
//     statement when the current transaction is the pivot, or when the
//     pivot already committed, and otherwise dooms the pivot, which fails
//     at its next read, write or commit.
//   - ssiPreCommit, PostgreSQL's PreCommit_CheckForSerializationFailure: a
//     committing T_out dooms every pending pivot that reads from it.
//
// Commit order and snapshots come from Config.RealTime's logical clock
// (txn.begin is when the transaction took its snapshot, txn.commit when it
// committed), which the profile turns on; without it SSI does not run. A
// transaction is read-only when it was declared so, or once it committed
// without writing, as in PostgreSQL. Every abort here is a server abort,
// which the axioms always allow: the axiomatic placement still runs at
// COMMIT, so SSI can only add aborts to the engine, never remove one.

// ssiState is the SSI bookkeeping of an engine.
type ssiState struct {
	sx      map[*txn]*sxact
	readers map[*keyState][]*sxact // SIREAD locks on keys
	spans   map[*table][]spanRead  // SIREAD locks on scanned ranges
	// pruneAt is the number of tracked transactions at which prune next
	// drops the ended ones no pending SER transaction overlaps.
	pruneAt int
}

// sxact is a SER transaction's SSI state (PostgreSQL's SERIALIZABLEXACT).
type sxact struct {
	t *txn
	// in are the transactions that read what t overwrote (r -rw-> t); out
	// the transactions that overwrote what t read (t -rw-> w).
	in, out  map[*sxact]struct{}
	doomed   bool // a dangerous structure chose t: it fails at its next step
	readOnly bool // declared READ ONLY
	gone     bool // aborted or pruned: its locks and edges no longer count
}

// spanRead is an SIREAD lock on a scanned range of a table's primary keys,
// or of one of its indexes' keys.
type spanRead struct {
	x          *sxact
	ix         *index // nil: primary keys
	start, end string
	bounded    bool
}

// covers reports whether writing row (nil: a tombstone) at primary key k
// puts a row into the range.
func (sp spanRead) covers(k string, row []any) bool {
	if sp.ix != nil {
		if row == nil || sp.ix.dropped {
			return false
		}
		ik, _ := sp.ix.indexKey(&sp.ix.table.e.keyBufs[0], row)
		k = string(ik)
	}
	return k >= sp.start && (!sp.bounded || k < sp.end)
}

// pruneMin is the least number of tracked transactions worth pruning.
const pruneMin = 64

// newSSI returns the SSI state when cfg asks for PostgreSQL's SSI, else nil.
func newSSI(cfg Config) *ssiState {
	if !cfg.PostgresConcurrency || !cfg.RealTime {
		return nil
	}
	return &ssiState{sx: make(map[*txn]*sxact), readers: make(map[*keyState][]*sxact), spans: make(map[*table][]spanRead), pruneAt: pruneMin}
}

// ssiTxn returns t's SSI state, creating it, or nil when SSI does not apply
// to t (not SER, or SSI off).
func (e *engine) ssiTxn(t *txn) *sxact {
	if e.ssi == nil || t.level != history.Serializable || t.state != txnActive {
		return nil
	}
	x := e.ssi.sx[t]
	if x == nil {
		x = &sxact{t: t, in: map[*sxact]struct{}{}, out: map[*sxact]struct{}{}, readOnly: t.readOnly}
		e.ssi.sx[t] = x
	}
	return x
}

func (x *sxact) committed() bool { return x.t.state == txnCommitted }

// readOnlyNow is PostgreSQL's SxactIsReadOnly: declared, or committed
// without writing.
func (x *sxact) readOnlyNow() bool { return x.readOnly || x.committed() && len(x.t.wrote) == 0 }

// committedBefore reports whether a committed before b took its snapshot.
func committedBefore(a, b *sxact) bool { return a.committed() && a.t.commit < b.t.begin }

// concurrentReader reports whether reader r overlaps writer w: r is still
// pending, or committed after w took its snapshot.
func concurrentReader(r, w *sxact) bool { return !r.committed() || r.t.commit > w.t.begin }

// errPivot is PostgreSQL's serialization failure of SSI with its reason.
func errPivot(reason string) error {
	return pgerror.New(pgerror.SerializationFailure,
		"could not serialize access due to read/write dependencies among transactions").
		WithDetail("Reason code: %s", reason).
		WithHint("The transaction might succeed if retried.")
}

// ssiCheckDoomed fails t's step when a dangerous structure chose it.
func (e *engine) ssiCheckDoomed(x *sxact, during string) error {
	if x.doomed {
		return e.serverAbort(x.t, errPivot("Canceled on identification as a pivot, during "+during+"."))
	}
	return nil
}

// ssiDoomedRead fails a read of a SER transaction a dangerous structure
// chose, whatever it reads (its own writes included), as PostgreSQL checks
// at every tuple it reads.
func (e *engine) ssiDoomedRead(t *txn) error {
	if e.ssi == nil {
		return nil
	}
	if x := e.ssi.sx[t]; x != nil {
		return e.ssiCheckDoomed(x, "conflict out checking")
	}
	return nil
}

// ssiRead takes t's SIREAD lock on ks, of which it read the committed
// version written by src, and flags the conflicts out: to the writer of
// the next committed version, and to a pending SER writer of ks.
func (e *engine) ssiRead(t *txn, tb *table, ks *keyState, src *txn) error {
	x := e.ssiTxn(t)
	if x == nil {
		return nil
	}
	if err := e.ssiCheckDoomed(x, "conflict out checking"); err != nil {
		return err
	}
	rs := e.ssi.readers[ks]
	if len(rs) == 0 || rs[len(rs)-1] != x {
		e.ssi.readers[ks] = append(rs, x)
	}
	if i := ks.versionIndex(src); i >= 0 && i+1 < len(ks.versions()) {
		if w := e.ssi.sx[ks.versions()[i+1].w]; w != nil && !w.gone && w.t.commit > t.begin {
			if err := e.flagRW(x, w, x); err != nil {
				return err
			}
		}
	}
	if ent := e.lockEntry(resource{lockRow, uint32(tb.id), ks.key}); ent != nil {
		for _, h := range ent.holders {
			if h.t == t || h.t.txnLive == nil || h.t.pendingWrite(ks) == nil {
				continue
			}
			if w := e.ssiTxn(h.t); w != nil {
				if err := e.flagRW(x, w, x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ssiScan takes t's SIREAD lock on a scanned range of tb's primary keys
// (ix nil) or of ix's keys, so that a later write of a row into it
// conflicts.
func (e *engine) ssiScan(t *txn, tb *table, ix *index, span Span) error {
	x := e.ssiTxn(t)
	if x == nil {
		return nil
	}
	if err := e.ssiCheckDoomed(x, "conflict out checking"); err != nil {
		return err
	}
	e.ssi.spans[tb] = append(e.ssi.spans[tb], spanRead{x: x, ix: ix, start: string(span.Start), end: string(span.End), bounded: span.End != nil})
	return nil
}

// ssiWrite flags the conflicts in of t writing row (nil: deleting) at ks:
// every concurrent SER transaction holding an SIREAD lock on the key or on
// a range the row goes into.
func (e *engine) ssiWrite(t *txn, tb *table, ks *keyState, row []any) error {
	x := e.ssiTxn(t)
	if x == nil {
		return nil
	}
	if err := e.ssiCheckDoomed(x, "write"); err != nil {
		return err
	}
	for _, r := range e.ssi.readers[ks] {
		if r != x && !r.gone && !r.doomed && concurrentReader(r, x) {
			if err := e.flagRW(r, x, x); err != nil {
				return err
			}
		}
	}
	for _, sp := range e.ssi.spans[tb] {
		r := sp.x
		if r != x && !r.gone && !r.doomed && sp.covers(ks.key, row) && concurrentReader(r, x) {
			if err := e.flagRW(r, x, x); err != nil {
				return err
			}
		}
	}
	return nil
}

// flagRW records r -rw-> w, found by me (r or w), after checking whether
// it closes a dangerous structure (PostgreSQL's
// OnConflict_CheckForSerializationFailure).
func (e *engine) flagRW(r, w, me *sxact) error {
	if r == w {
		return nil
	}
	if _, ok := r.out[w]; ok {
		return nil
	}
	if e.dangerous(r, w) {
		switch {
		case me == w:
			return e.serverAbort(me.t, errPivot("Canceled on identification as a pivot, during write."))
		case w.committed():
			return e.serverAbort(me.t, errPivot("Canceled on conflict out to pivot, during read."))
		}
		w.doomed = true
	}
	r.out[w] = struct{}{}
	w.in[r] = struct{}{}
	return nil
}

// dangerous reports whether the new edge r -rw-> w completes a dangerous
// structure under PostgreSQL's commit-ordering rules.
func (e *engine) dangerous(r, w *sxact) bool {
	for t2 := range w.out {
		if t2.gone || !t2.committed() {
			continue
		}
		// w committed with a conflict out to a transaction that committed
		// before it: r -rw-> w -rw-> t2.
		if w.committed() && t2.t.commit < w.t.commit {
			return true
		}
		// w is the pivot and t2 committed first: before r and w commit,
		// and before r's snapshot when r is read-only.
		if (!r.committed() || t2.t.commit <= r.t.commit) &&
			(!w.committed() || t2.t.commit <= w.t.commit) &&
			(!r.readOnlyNow() || committedBefore(t2, r)) {
			return true
		}
	}
	// r is the pivot, t0 -rw-> r -rw-> w, and w committed first: before
	// t0 commits, and before t0's snapshot when t0 is read-only.
	if w.committed() && !r.readOnlyNow() {
		for t0 := range r.in {
			if t0.gone || t0.doomed {
				continue
			}
			if (!t0.committed() || t0.t.commit >= w.t.commit) &&
				(!t0.readOnlyNow() || committedBefore(w, t0)) {
				return true
			}
		}
	}
	return false
}

// ssiPreCommit runs when t commits, before its place in co is chosen: a
// doomed t fails, and t, committing first, dooms every pending pivot
// t0 -rw-> r -rw-> t (PostgreSQL's PreCommit_CheckForSerializationFailure).
func (e *engine) ssiPreCommit(t *txn) error {
	if e.ssi == nil {
		return nil
	}
	x := e.ssi.sx[t]
	if x == nil {
		return nil
	}
	if err := e.ssiCheckDoomed(x, "commit attempt"); err != nil {
		return err
	}
	for r := range x.in {
		if r.gone || r.doomed || r.t.state != txnActive {
			continue
		}
		for t0 := range r.in {
			if t0 == x || t0.t.state == txnActive && !t0.readOnly && !t0.doomed {
				r.doomed = true
				break
			}
		}
	}
	return nil
}

// ssiEnd runs when t ends: an aborted SER transaction's locks and edges
// stop counting, a committed one's stay while it overlaps a pending SER
// transaction; then the state no one overlaps is pruned.
func (e *engine) ssiEnd(t *txn) {
	s := e.ssi
	if s == nil {
		return
	}
	if x := s.sx[t]; x != nil && t.state != txnCommitted {
		s.drop(x)
	}
	s.prune(e)
}

// drop forgets x: its edges, and (lazily) its SIREAD locks.
func (s *ssiState) drop(x *sxact) {
	x.gone = true
	for o := range x.out {
		delete(o.in, x)
	}
	for i := range x.in {
		delete(i.out, x)
	}
	delete(s.sx, x.t)
}

// prune forgets every ended transaction that committed before each pending
// SER transaction took its snapshot (or aborted): no new rw-conflict can
// involve it. Without a pending SER transaction everything goes.
func (s *ssiState) prune(e *engine) {
	if len(s.sx) == 0 && len(s.readers) == 0 && len(s.spans) == 0 {
		return // no SER transaction touched data: the common case at READ COMMITTED
	}
	minBegin, pending := ^uint64(0), false
	for a := range e.active {
		if a.level == history.Serializable && a.state == txnActive {
			pending = true
			minBegin = min(minBegin, a.begin)
		}
	}
	if !pending {
		clear(s.sx)
		clear(s.readers)
		clear(s.spans)
		s.pruneAt = pruneMin
		return
	}
	if len(s.sx) < s.pruneAt {
		return
	}
	for _, x := range s.sx {
		if x.t.state != txnActive && x.t.commit < minBegin {
			s.drop(x)
		}
	}
	for ks, rs := range s.readers {
		keep := rs[:0]
		for _, r := range rs {
			if !r.gone {
				keep = append(keep, r)
			}
		}
		if len(keep) == 0 {
			delete(s.readers, ks)
		} else {
			s.readers[ks] = keep
		}
	}
	for tb, sps := range s.spans {
		keep := sps[:0]
		for _, sp := range sps {
			if !sp.x.gone {
				keep = append(keep, sp)
			}
		}
		s.spans[tb] = keep
	}
	s.pruneAt = max(pruneMin, 2*len(s.sx))
}
