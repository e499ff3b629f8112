package isolation

import (
	"cmp"
	"slices"
	"sort"

	"github.com/fickle-db/fickle/history"
)

// Phantoms. A scan inspects every key of its span that exists, but it also
// observes, for every key that does not exist yet, that the key is absent:
// it reads it from init. A key created later (its keyState appears after
// the scan passed its place) is therefore read from init by that scan, and
// for PC, SI and SER the scan's window must stay below the first commit that
// creates it, exactly as for a key the scan listed. Without this, a second
// scan of the same transaction could return a row inserted and committed in
// between (Hermitage's PMP, a phantom SI and SER forbid), and the history
// would not show that the first scan saw the row absent.
//
// Every scan leaves a scanMark on its table. When a key is created
// (table.keyState), newKey materializes the read "k from init" for every
// mark that covers it:
//
//   - a pending PC, SI, SER, RA or CC transaction observes it as if its scan
//     had listed it (observe): its window, its stale-read checks and the
//     placement of later writers of k treat it like any read from init. The
//     read is recorded and logged in its current statement, which may be
//     later than the scan's: for these levels the order of a transaction's
//     reads does not matter, and the read comes before any write of k by
//     the transaction (the key is created before its first write);
//   - an ended RA, CC, PC, SI or SER transaction gets the read in the
//     in-memory history (Record), at the end of its scan's statement: it
//     has no operation on the key, which did not exist while it ran. The
//     read is kept aside (recorder.late) and spliced into copies of the
//     history, so that an insert costs the same however long the scanner's
//     op list is. It cannot be logged any more: the log is then less full
//     but still true. An ended PC, SI or SER scanner constrains the
//     creators of later keys through table.scanFloor (below). A table keeps
//     the marks of its last maxEndedMarks ended scanners only: an older
//     scanner's reads of keys created later are left out of the history,
//     which stays true, so that memory and the cost of an insert stay
//     bounded in long runs.
//
// RC scans leave no mark. An RC read from init of a key created after the
// scan passed it bounds nothing: RC constrains a read only by the reads
// before it, and no read before the scan can have observed the key's
// creator, which had not written it yet. Such reads would only grow the
// history.
//
// Once a windowed scanner ends, its place bound (placeBound) raises
// table.scanFloor; a key created afterwards copies it into keyState.scanFloor
// and every writer of the key is placed after it (placeCommit), the
// constraint insertable would apply had the ended scanner listed the key.
// Keeping the latest bound over all ended scanners of a table, whatever their
// span, offers fewer places than the axioms allow, never more.
//
// Index scans. A lookup through a secondary index (ScanIndex) lists the keys
// of which some version, committed or pending, ever had an index key in its
// span: the index is append-only, so a key it lists is one the scan
// inspects. A row enters the span later when a write gives it an index key
// there that the index did not hold for it: a new key inserted into the
// span, or an existing key updated into it. The lookup observed that row
// outside the span, so it must get the read the axioms need, or a second
// lookup of the same transaction could return the row (a phantom SI and SER
// forbid) with no trace in the history of the first lookup's answer. So an
// index scan leaves a scanMark in index-key space (index.marks), and when
// index.add indexes a key under an index key it did not hold for it,
// indexEntered gives the read to every scanner whose mark covers that index
// key and that has no read of the key yet:
//
//   - a pending RA, CC, PC, SI or SER transaction observes, in its current
//     statement as above, the oldest version its constraints allow (for
//     RA and CC the floor, whose writer it already sees; for PC, SI and SER
//     the version current at its window's start, or under a statement
//     snapshot the newest valid one before it, as choose picks). For a new
//     key that is init's. Every committed version of the key lies outside
//     the span the scan passed: one inside was indexed before the scan
//     passed it, and listed, or after, and gave the scanner its read then
//     (but for a row a SKIP LOCKED scan skipped, which it did not read).
//     A transaction that has its own write of the key reads that and gets
//     nothing: the read would follow its write;
//   - an ended committed scanner that did not write the key gets the read
//     kept aside (recorder.late): for PC, SI and SER the version current at
//     its place bound, which no later writer of the key can displace (the
//     floor below), when its writer is init or already in the scanner's
//     causal past: another writer would join, through the new wr edge, the
//     causal past of the scanner's successors, which their CC reads did
//     not take into account. For RA and CC init's, when the key has no
//     other version (which version an ended RA or CC scanner saw of an
//     existing key depends on reads it no longer keeps). A client-aborted
//     scanner gets none: whether it wrote the key, so that the read would
//     follow its own write, is no longer known. The history is then less
//     full, still true;
//   - an ended PC, SI or SER scanner raises the index's floor
//     (scanMarks.floor), and every key the index takes under an index key
//     new for it raises its keyState.scanFloor to that floor: its writers
//     are placed after every such scanner's place bound, as for a new key
//     of a scanned table.
//
// RC lookups leave no mark, as RC scans.

// scanMark is one scan of a table, or of an index, by a transaction: its
// span and how far it got, in primary-key or index-key space.
type scanMark struct {
	t          *txn
	event      uint32
	start, end string
	bounded    bool // end is set; else the span is unbounded above
	// cursor is the last key the scan fetched; for an index, the least
	// index key above the last entry it fetched.
	cursor  string
	started bool // cursor is set
	done    bool // the scan reached the end of its span
	dead    bool // its transaction no longer needs it
}

// covers reports whether the scan passed the place of key k (an index key
// for an index's mark), which did not exist when it did.
func (m *scanMark) covers(k string) bool {
	if m.dead || k < m.start {
		return false
	}
	if m.done {
		return !m.bounded || k < m.end
	}
	return m.started && k < m.cursor
}

// phantomRead is a read materialized for an ended transaction's scan,
// spliced into copies of its recorded ops: from init, or (index scans) from
// the version the scan saw of a row that entered its span later.
type phantomRead struct {
	key    history.KeyID
	event  uint32
	writer history.TxnID // history.Init for a key created after the scan
	live   bool          // the version is a row, not a tombstone
}

// scanMarks are the marks of the scans of one index (index.marks), in
// index-key space, kept as table.scans, table.ended and table.scanFloor
// keep a table's.
type scanMarks struct {
	scans []*scanMark
	live  int         // marks not dead
	ended []*scanMark // the kept marks of ended scanners, oldest first
	floor *omNode     // the latest place bound of ended windowed scanners
}

// markScan leaves a mark of t's scan over span of tb, or of index ix when
// ix is set, or returns nil when none is needed: an RC transaction's scans
// (see Phantoms above), and a scan repeated within one statement (the inner
// side of a join), which its first run covers. Only the statement's last
// repeatLookBack marks are compared, so that a join looking up an index once
// per outer row stays linear.
func (e *engine) markScan(t *txn, tb *table, ix *index, span Span) *scanMark {
	if t.level == history.ReadCommitted {
		return nil
	}
	for i := len(t.marks) - 1; i >= 0 && i >= len(t.marks)-repeatLookBack; i-- {
		r := t.marks[i]
		if r.m.event != t.event {
			break
		}
		if r.tb == tb && r.ix == ix && r.m.done && r.m.start == string(span.Start) && r.m.bounded == (span.End != nil) && r.m.end == string(span.End) {
			return nil
		}
	}
	m := &scanMark{t: t, event: t.event, start: string(span.Start), bounded: span.End != nil, end: string(span.End)}
	if ix != nil {
		addMark(&ix.marks.scans, &ix.marks.live, m)
	} else {
		addMark(&tb.scans, &tb.liveScans, m)
	}
	t.marks = append(t.marks, markRef{tb: tb, ix: ix, m: m})
	return m
}

// repeatLookBack is how many of a statement's latest marks markScan
// compares a new scan with.
const repeatLookBack = 16

// addMark appends m to scans, first dropping the dead marks when they are
// as many as the live ones.
func addMark(scans *[]*scanMark, live *int, m *scanMark) {
	if len(*scans) >= 2*(*live)+16 {
		kept := slices.DeleteFunc(*scans, func(m *scanMark) bool { return m.dead })
		clear(kept[len(kept):cap(kept)])
		*scans, *live = kept, len(kept)
	}
	*scans = append(*scans, m)
	*live++
}

// markRef is a transaction's mark on a table, or on one of its indexes
// when ix is set.
type markRef struct {
	tb *table
	ix *index
	m  *scanMark
}

// newKey runs when ks was just created in tb: it materializes the reads from
// init of the earlier scans that passed its place (see Phantoms above).
func (e *engine) newKey(tb *table, ks *keyState) {
	ks.scanFloor = tb.scanFloor
	if len(tb.scans) == 0 {
		return
	}
	for _, m := range tb.scans {
		if !m.covers(ks.key) {
			continue
		}
		t := m.t
		switch t.state {
		case txnActive:
			e.phantomPending(t, tb, ks)
		case txnCommitted, txnClientAborted:
			if e.rec.on {
				e.rec.late[t.id] = append(e.rec.late[t.id], phantomRead{key: e.rec.key(tb, ks), event: m.event, writer: history.Init})
			}
		}
	}
}

// phantomPending materializes ks read from init by pending t's scan.
func (e *engine) phantomPending(t *txn, tb *table, ks *keyState) {
	e.observe(t, ks, 0) // ks has init's version only
	e.rec.notStale(t, e.rec.read(t, tb, ks, e.init, true))
}

// endMarks runs when t ends: an ended windowed scanner raises the scan floor
// of the tables and indexes it scanned, and marks no longer needed die (a
// server-aborted transaction's always; the others' unless the history is
// recorded).
func (e *engine) endMarks(t *txn) {
	for _, r := range t.marks {
		if r.ix != nil {
			endMark(t, r.m, e.rec.on, &r.ix.marks.floor, &r.ix.marks.live, &r.ix.marks.ended)
		} else {
			endMark(t, r.m, e.rec.on, &r.tb.scanFloor, &r.tb.liveScans, &r.tb.ended)
		}
	}
	t.marks = nil
}

// endMark ends mark m of t's scan: it raises floor for a windowed t, and
// keeps the mark among ended (the oldest beyond maxEndedMarks dying) when
// recording, else kills it.
func endMark(t *txn, m *scanMark, recording bool, floor **omNode, live *int, ended *[]*scanMark) {
	if t.windowed() && t.pos != nil {
		*floor = laterOrNil(*floor, t.placeBound())
	}
	if t.pos == nil || !recording {
		m.kill(live)
		return
	}
	*ended = append(*ended, m)
	if len(*ended) > maxEndedMarks {
		(*ended)[0].kill(live)
		(*ended)[0] = nil
		*ended = (*ended)[1:]
	}
}

// maxEndedMarks bounds the marks of ended scanners a table or an index
// keeps while the history is recorded (see Phantoms above).
const maxEndedMarks = 1024

// kill marks m dead, counting it out of live: no key created later
// concerns it.
func (m *scanMark) kill(live *int) {
	m.dead = true
	*live--
}

// indexEntered runs when index ix took key ks under index key ik, which
// it did not hold for ks: it raises the key's scan floor and gives the
// earlier scans that passed ik their read of the row (see Index scans
// above).
func (e *engine) indexEntered(ix *index, ik string, ks *keyState) {
	if ix.marks.live == 0 && ix.marks.floor == nil {
		return
	}
	tb := ix.table
	if ix.marks.floor != nil {
		ks.scanFloor = laterOrNil(ks.scanFloor, ix.marks.floor)
	}
	for _, m := range ix.marks.scans {
		if !m.covers(ik) {
			continue
		}
		switch t := m.t; t.state {
		case txnActive:
			e.entryPending(t, tb, ks)
		case txnCommitted:
			if e.rec.on {
				e.entryEnded(t, tb, ks, m.event)
			}
		}
	}
}

// entryPending gives pending t the read of ks its index scan made when the
// row was outside the span: the oldest version it may read (under a
// statement snapshot, the newest before the snapshot), unless t read ks
// already or wrote it.
func (e *engine) entryPending(t *txn, tb *table, ks *keyState) {
	if _, ok := t.rd.reads[ks]; ok || t.pendingWrite(ks) != nil {
		return
	}
	valid := e.validVersions(t, ks, t.validBuf[:0])
	t.validBuf = valid
	if len(valid) == 0 {
		return // an empty window: t is doomed
	}
	pick := valid[0]
	if t.snap != nil {
		for j := len(valid) - 1; j >= 0; j-- {
			if !t.snap.before(ks.versions()[valid[j]].w.pos) {
				pick = valid[j]
				break
			}
		}
	}
	v := ks.versions()[pick]
	e.observe(t, ks, pick)
	e.rec.notStale(t, e.rec.read(t, tb, ks, v.w, v.tomb()))
}

// entryEnded keeps aside, for committed t, the read of ks its index scan in
// statement event made when the row was outside the span: for a windowed t
// the version current at its place bound if t's causal past has its
// writer, for RA and CC init's when ks has no other version.
func (e *engine) entryEnded(t *txn, tb *table, ks *keyState, event uint32) {
	if t.past {
		return // the version current at its bound may be collected (collect.go)
	}
	if ks.versionIndex(t) >= 0 {
		return // t wrote ks: the read would follow its write
	}
	var v version
	vs := ks.versions()
	switch {
	case t.windowed():
		if _, ok := t.rd.reads[ks]; ok {
			return
		}
		bound := t.placeBound()
		if e.horizon != nil && !e.horizon.before(bound) {
			return // the version current at bound may be collected
		}
		v = vs[sort.Search(len(vs), func(i int) bool { return bound.before(vs[i].w.pos) })-1]
		if v.w != e.init && !t.vc.has(v.w) {
			return // the read would add its writer to the causal past of t's successors
		}
		if t.rd.reads == nil {
			t.rd.reads = make(map[*keyState]*txn)
		}
		t.rd.reads[ks] = v.w // one read of ks, however often it enters the span
	case len(vs) == 1 && vs[0].w == e.init:
		v = vs[0]
	default:
		return
	}
	e.rec.late[t.id] = append(e.rec.late[t.id], phantomRead{key: e.rec.key(tb, ks), event: event, writer: v.w.id, live: !v.tomb()})
}

// laterOrNil is later where a nil a is the beginning of co.
func laterOrNil(a, b *omNode) *omNode {
	if a == nil {
		return b
	}
	return later(a, b)
}

// spliceLate returns ops with the reads late adds at the end of
// their statements (ops are ordered by statement; late, in the order made,
// is sorted here). Ops and late are not modified.
func spliceLate(ops []history.Op, late []phantomRead) []history.Op {
	late = slices.Clone(late)
	slices.SortStableFunc(late, func(a, b phantomRead) int { return cmp.Compare(a.event, b.event) })
	out := make([]history.Op, 0, len(ops)+len(late))
	for _, op := range ops {
		for len(late) > 0 && late[0].event < op.Event {
			out = append(out, late[0].op())
			late = late[1:]
		}
		out = append(out, op)
	}
	for _, p := range late {
		out = append(out, p.op())
	}
	return out
}

func (p phantomRead) op() history.Op {
	var fl history.OpFlags
	if !p.live {
		fl = history.FlagTombstone
	}
	return history.Op{Kind: history.OpRead, Flags: fl, Key: p.key, Event: p.event, Writer: p.writer}
}
