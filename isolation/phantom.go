package isolation

import (
	"cmp"
	"slices"

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
// span, offers fewer places than the axioms allow, never more. Index scans
// (ScanIndex) leave no mark: they list the keys the index ever held within
// their span, not the keys that do not exist yet.

// scanMark is one scan of a table by a transaction: its span and how far it
// got.
type scanMark struct {
	t          *txn
	event      uint32
	start, end string
	bounded    bool   // end is set; else the span is unbounded above
	cursor     string // the last key the scan fetched
	started    bool   // cursor is set
	done       bool   // the scan reached the end of its span
	dead       bool   // its transaction no longer needs it
}

// covers reports whether the scan passed the place of key k, which did not
// exist when it did.
func (m *scanMark) covers(k string) bool {
	if m.dead || k < m.start {
		return false
	}
	if m.done {
		return !m.bounded || k < m.end
	}
	return m.started && k < m.cursor
}

// phantomRead is a read from init materialized for an ended transaction's
// scan, spliced into copies of its recorded ops.
type phantomRead struct {
	key   history.KeyID
	event uint32
}

// markScan leaves a mark of t's scan of tb over span, or returns nil when
// none is needed: an RC transaction's scans (see Phantoms above), and a scan
// repeated within one statement (the inner side of a join), which its
// first run covers.
func (e *engine) markScan(t *txn, tb *table, span Span) *scanMark {
	if t.level == history.ReadCommitted {
		return nil
	}
	for i := len(t.marks) - 1; i >= 0; i-- {
		m := t.marks[i].m
		if m.event != t.event {
			break
		}
		if t.marks[i].tb == tb && m.done && m.start == string(span.Start) && m.bounded == (span.End != nil) && m.end == string(span.End) {
			return nil
		}
	}
	m := &scanMark{t: t, event: t.event, start: string(span.Start), bounded: span.End != nil, end: string(span.End)}
	if len(tb.scans) >= 2*tb.liveScans+16 {
		tb.scans = slices.DeleteFunc(tb.scans, func(m *scanMark) bool { return m.dead })
		clear(tb.scans[len(tb.scans):cap(tb.scans)])
		tb.liveScans = len(tb.scans)
	}
	tb.scans = append(tb.scans, m)
	tb.liveScans++
	t.marks = append(t.marks, markRef{tb: tb, m: m})
	return m
}

// markRef is a transaction's mark on a table.
type markRef struct {
	tb *table
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
				e.rec.late[t.id] = append(e.rec.late[t.id], phantomRead{key: e.rec.key(tb, ks), event: m.event})
			}
		}
	}
}

// phantomPending materializes ks read from init by pending t's scan.
func (e *engine) phantomPending(t *txn, tb *table, ks *keyState) {
	e.observe(t, ks, 0) // ks has init's version only
	e.rec.read(t, tb, ks, e.init, true)
}

// endMarks runs when t ends: an ended windowed scanner raises the scan floor
// of the tables it scanned, and marks no longer needed die (a server-aborted
// transaction's always; the others' unless the history is recorded).
func (e *engine) endMarks(t *txn) {
	for _, r := range t.marks {
		if t.windowed() && t.pos != nil {
			r.tb.scanFloor = laterOrNil(r.tb.scanFloor, t.placeBound())
		}
		if t.pos == nil || !e.rec.on {
			r.m.kill(r.tb)
			continue
		}
		r.tb.ended = append(r.tb.ended, r.m)
		if len(r.tb.ended) > maxEndedMarks {
			r.tb.ended[0].kill(r.tb)
			r.tb.ended[0] = nil
			r.tb.ended = r.tb.ended[1:]
		}
	}
	t.marks = nil
}

// maxEndedMarks bounds the marks of ended scanners a table keeps while the
// history is recorded (see Phantoms above).
const maxEndedMarks = 1024

// kill marks m dead: no key created later concerns it.
func (m *scanMark) kill(tb *table) {
	m.dead = true
	tb.liveScans--
}

// laterOrNil is later where a nil a is the beginning of co.
func laterOrNil(a, b *omNode) *omNode {
	if a == nil {
		return b
	}
	return later(a, b)
}

// spliceLate returns ops with the reads from init late adds at the end of
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
	return history.Op{Kind: history.OpRead, Flags: history.FlagTombstone, Key: p.key, Event: p.event, Writer: history.Init}
}
