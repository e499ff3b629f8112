package isolation

import (
	"sort"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Which committed versions a read may see (DESIGN.md §4). The engine fixes
// co as it goes and computes, for that co, the exact set of versions that
// keep the history consistent at the reader's level; the strategy picks one.
//
//   - RC, RA, CC: the valid versions are those at or after the floor, the
//     co-latest writer of the key among the transactions the reader already
//     sees: its session's committed transactions and the sources of its
//     earlier reads (RC, RA), or its causal past, kept as a vector clock
//     (CC). RA and CC also reject a writer that would make an earlier read
//     stale: one that writes (RA), or brings into the causal past a writer
//     of (CC), a key the transaction read from an older version.
//   - PC, SI, SER: the transaction reads from a prefix of co chosen lazily:
//     a window [lo, hi) of positions. lo covers its session predecessors and
//     every source it read (and, for SI, the latest writer of every key it
//     writes: first-committer-wins); hi is below the next writer, in the
//     current co, of every version it read. A version is valid when it
//     leaves the window non-empty. Commits of writers after a read source
//     lower hi; a pending transaction whose window empties is doomed.
func (e *engine) newReadState(t *txn) *readState {
	s := t.sess
	rs := &readState{lo: s.lastPos, vc: s.vc}
	rs.stmt, s.stmtMemo = s.stmtMemo, statementReads{}
	if rs.lo == nil {
		rs.lo = e.init.pos
	}
	if e.horizon != nil {
		rs.lo = later(rs.lo, e.horizon) // nothing is placed before it (collect.go)
	}
	if e.cfg.RealTime {
		// Everything that ended before t began precedes it in co.
		rs.lo, rs.rt = e.co.tail, t.begin
	}
	return rs
}

// readState is a transaction's read bookkeeping.
type readState struct {
	// lo is the co position t must follow: its session predecessors, its
	// read sources, for SI the latest writer of every key it writes, and
	// with Config.RealTime everything that ended before it began. For PC,
	// SI and SER, [lo, hi) is also the window of snapshot points, hi nil
	// meaning unbounded.
	lo, hi *omNode
	reads  map[*keyState]*txn
	srcs   map[*txn]struct{} // RC, RA: sources of reads so far
	vc     clock             // the causal past, this transaction's reads included
	// rt (Config.RealTime): every transaction that committed before this
	// tick is visible; for CC it grows with the fronts of the sources read.
	rt uint64
	// aim is an adversarial transaction's aim (strategy.go).
	aim advAim
	// stmt is the current statement's first read of every key it
	// inspected, which its later reads of the key return
	// (statement_reads.go).
	stmt statementReads
}

// windowed reports whether t reads from a prefix of co.
func (t *txn) windowed() bool { return t.level >= history.Prefix }

// below reports a < b where a nil b is +infinity.
func below(a, b *omNode) bool { return b == nil || a.before(b) }

// later returns the later of two positions.
func later(a, b *omNode) *omNode {
	if a.before(b) {
		return b
	}
	return a
}

// versionIndex returns the index of w's version in ks.versions(), or -1.
func (ks *keyState) versionIndex(w *txn) int {
	vs := ks.versions()
	i := sort.Search(len(vs), func(i int) bool { return !vs[i].w.pos.before(w.pos) })
	if i < len(vs) && vs[i].w == w {
		return i
	}
	return -1
}

// nextAfter returns the position of the first writer of ks after version i,
// nil when i is the latest.
func (ks *keyState) nextAfter(i int) *omNode {
	if vs := ks.versions(); i+1 < len(vs) {
		return vs[i+1].w.pos
	}
	return nil
}

// choose picks the committed version of ks that t reads and records what
// the read makes t see.
func (e *engine) choose(t *txn, tb *table, ks *keyState, ro ReadOptions) (version, error) {
	if t.tooOld {
		return version{}, e.serverAbort(t, errSnapshotTooOld())
	}
	valid := e.validVersions(t, ks, t.validBuf[:0])
	t.validBuf = valid
	latest := len(ks.versions()) - 1
	var pick int
	if ro.Latest {
		if len(valid) == 0 || valid[len(valid)-1] != latest {
			return version{}, e.serverAbort(t, pgerror.New(pgerror.SerializationFailure,
				"could not serialize access due to concurrent update").
				WithDetail("The latest version of a row of %q is not visible at %s.", tb.spec.Name, t.level))
		}
		pick = latest
	} else {
		if len(valid) == 0 {
			// Unreachable for RC, RA and CC (causal extensibility); a
			// PC, SI or SER window that no version fits is doomed.
			return version{}, e.serverAbort(t, errNoSnapshot())
		}
		pick = -1
		if t.snap != nil {
			// PostgreSQL's READ COMMITTED: the newest version committed
			// before the statement began (valid: the floor is never later).
			for j := len(valid) - 1; j >= 0 && pick < 0; j-- {
				if !t.snap.before(ks.versions()[valid[j]].w.pos) {
					pick = valid[j]
				}
			}
		}
		if pick < 0 && e.onChoice != nil {
			e.onChoice(e.readChoice(t, tb, ks, valid))
		}
		if pick < 0 && e.replay != nil {
			if j := e.replayedVersion(t, tb, ks, valid); j >= 0 {
				pick = valid[j]
			}
		}
		if pick < 0 {
			pick = e.pick(t, ks, valid)
		}
	}
	v := ks.versions()[pick]
	e.observe(t, ks, pick)
	return v, nil
}

// maxChoices bounds how many versions a read chooses among: the oldest
// valid one and the newest others. Offering fewer choices than the axioms
// allow is sound; it keeps a read of a row with thousands of versions cheap.
const maxChoices = 64

// validVersions appends to buf the indexes, ascending, of the versions of
// ks that t may read (at most maxChoices of them, the oldest valid one
// always among them).
//
// For PC, SI and SER the valid versions are contiguous: the version current
// at lo (the last at or before it), then every version after lo and before
// hi; both ends are binary searches. For RC, RA and CC they are the
// versions from the floor on (RA and CC minus those that would make an
// earlier read stale); the floor is found walking back from the newest,
// at most maxChoices versions.
func (e *engine) validVersions(t *txn, ks *keyState, buf []int) []int {
	rs := t.rd
	vs := ks.versions()
	first, last := 0, len(vs)-1
	if t.windowed() {
		if !below(rs.lo, rs.hi) {
			return buf
		}
		first = sort.Search(len(vs), func(i int) bool { return rs.lo.before(vs[i].w.pos) }) - 1
		if rs.hi != nil {
			last = sort.Search(len(vs), func(i int) bool { return !vs[i].w.pos.before(rs.hi) }) - 1
		}
	} else {
		// The floor. For RC, when no version among the newest maxChoices
		// is visible, the oldest of them: a higher floor offers fewer
		// choices, all valid, and keeps hot rows cheap to read. RA and CC
		// need the true floor: a version above it may make an earlier read
		// stale, and the floor is the one version sure not to.
		bound := 0
		if t.level == history.ReadCommitted && last >= maxChoices {
			bound = last - maxChoices + 1
		}
		first = bound
		for i := last; i > bound; i-- {
			if e.sees(t, vs[i].w) {
				first = i
				break
			}
		}
	}
	buf = append(buf, first)
	from := max(first+1, last-maxChoices+2)
	for i := from; i <= last; i++ {
		if t.windowed() || t.level == history.ReadCommitted || !e.makesStale(t, vs[i].w) {
			buf = append(buf, i)
		}
	}
	return buf
}

// sees reports whether committed w is visible to t (RC, RA, CC) before the
// read: a session predecessor, an earlier read's source, or (CC) anything
// in t's causal past.
func (e *engine) sees(t *txn, w *txn) bool {
	if w == e.init || w.sess == t.sess || w.commit != 0 && w.commit < t.rd.rt {
		return true
	}
	if t.level == history.Causal {
		return t.rd.vc.has(w)
	}
	_, ok := t.rd.srcs[w]
	return ok
}

// makesStale reports whether reading from c would make an earlier read of t
// stale: (RA) c writes a key t read from a version older than c's, or (CC)
// c's causal past includes a writer of such a key newer than what t read.
func (e *engine) makesStale(t *txn, c *txn) bool {
	if e.sees(t, c) {
		return false // nothing new becomes visible
	}
	if t.level == history.ReadAtomic {
		for _, y := range c.wrote {
			if src, ok := t.rd.reads[y]; ok && src.pos.before(c.pos) {
				return true
			}
		}
		return false
	}
	for y, src := range t.rd.reads {
		i := y.versionIndex(src)
		for _, v := range y.versions()[i+1:] {
			if v.w == c || c.vc.has(v.w) || v.w.commit != 0 && v.w.commit < c.rtFront {
				return true
			}
		}
	}
	return false
}

// observe records that t read version i of ks: the source becomes visible
// (RC, RA), joins the causal past (CC), or narrows the window (PC, SI, SER).
func (e *engine) observe(t *txn, ks *keyState, i int) {
	rs := t.rd
	w := ks.versions()[i].w
	if t.level != history.ReadCommitted || t.strategy == StrategyAdversarial {
		if rs.reads == nil {
			rs.reads = make(map[*keyState]*txn)
		}
		if _, ok := rs.reads[ks]; !ok {
			rs.reads[ks] = w
			if t.windowed() {
				rd := ks.readState()
				rd.wreaders = append(rd.wreaders, t)
			}
		}
	}
	rs.lo = later(rs.lo, w.pos) // t goes after its sources in co
	if t.windowed() {
		if n := ks.nextAfter(i); n != nil && below(n, rs.hi) {
			rs.hi = n
		}
	} else if w != e.init && w.sess != t.sess {
		if rs.srcs == nil {
			rs.srcs = make(map[*txn]struct{})
		}
		rs.srcs[w] = struct{}{}
	}
	if w != e.init && !rs.vc.covers(w.vc) {
		rs.vc = rs.vc.merge(w.vc)
	}
	if t.level == history.Causal && w.rtFront > rs.rt {
		rs.rt = w.rtFront // real time is part of the causal past
	}
}

// checkWrite is first-committer-wins for SI: the latest committed writer
// of ks must fit in the window.
func (e *engine) checkWrite(t *txn, tb *table, ks *keyState) error {
	if t.level != history.Snapshot {
		return nil
	}
	return e.firstCommitterWins(t, tb, ks)
}

func (e *engine) firstCommitterWins(t *txn, tb *table, ks *keyState) error {
	rs := t.rd
	lo := later(rs.lo, ks.latest().w.pos)
	if !below(lo, rs.hi) {
		return e.serverAbort(t, pgerror.New(pgerror.SerializationFailure,
			"could not serialize access due to concurrent update").
			WithDetail("A row of %q was updated by a transaction this snapshot does not see.", tb.spec.Name))
	}
	rs.lo = lo
	return nil
}

// doomed aborts t (40001) when its window has emptied: a later commit
// overwrote something it read in a way no prefix of co can explain; or
// when the staleness horizon collected what its reads depend on.
func (e *engine) doomed(t *txn) error {
	if t.state == txnServerAborted {
		return t.abortErr
	}
	if t.state != txnActive {
		return nil
	}
	if t.tooOld {
		return e.serverAbort(t, errSnapshotTooOld())
	}
	if !t.windowed() || below(t.rd.lo, t.rd.hi) {
		return nil
	}
	return e.serverAbort(t, errNoSnapshot())
}

func errNoSnapshot() error {
	return pgerror.New(pgerror.SerializationFailure,
		"could not serialize access due to read/write dependencies among transactions").
		WithDetail("No snapshot of the commit order explains every read of this transaction.")
}

// published updates the windows after t's writes were placed in co: a
// pending reader of a key t writes, from a version before t, sees its
// window's end drop below t. It also forgets the ended readers of those
// keys that no later writer can affect: every later writer of a key is
// placed after its latest writer (placeCommit), so an ended reader placed
// (SER) or snapshotting (PC, SI) at or before t can never see one.
func (e *engine) published(t *txn) {
	for _, y := range t.wrote {
		if y.readers == nil {
			continue
		}
		latest := y.latest().w.pos
		rd := y.readers
		keep := rd.wreaders[:0]
		for _, r := range rd.wreaders {
			if r == t {
				continue
			}
			if r.state == txnActive {
				if src := r.rd.reads[y]; src.pos.before(t.pos) && below(t.pos, r.rd.hi) {
					r.rd.hi = t.pos
				}
				keep = append(keep, r)
				continue
			}
			if r.state != txnServerAborted && latest.before(r.placeBound()) {
				keep = append(keep, r)
			}
		}
		clear(rd.wreaders[len(keep):])
		rd.wreaders = keep
	}
}

// placeBound is the position an ended PC, SI or SER transaction's reads
// depend on: a writer of a key it read, placed before this bound and after
// its source, would break it (insertable).
func (r *txn) placeBound() *omNode {
	if r.level == history.Serializable {
		return r.pos
	}
	return r.rd.lo
}

// finishReads folds an ended transaction into its session: its position
// bounds the next transaction's window, its causal past becomes the
// session's.
func (e *engine) finishReads(t *txn) {
	s := t.sess
	e.endStatementReads(t)
	if t.pos == nil {
		return // server-aborted: the checker ignores it, so must the session
	}
	s.lastPos = t.pos
	t.vc = t.rd.vc.forget().with(s, t.seq)
	t.rtFront = t.rd.rt
	s.vc = s.vc.merge(t.vc) // client-aborted reads stay in the session's past
	rs := t.rd
	rs.srcs = nil
	if !t.windowed() {
		rs.reads = nil // only windowed transactions are re-checked later
	}
}
