package isolation

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// checkpoint folds the latest committed state into init and starts a new
// history (SELECT fickle_checkpoint(), fickle serve --load). Every key keeps
// one version, its latest, now written by init; co restarts at init; the
// sessions forget what they saw. Transactions in progress may only be ones
// that have not read or written yet (the caller's own statement): they are
// renumbered into the new history as if they began after it. It returns
// the history that ended (empty unless recorded) and how many transactions
// ended in it.
func (e *engine) checkpoint() (*history.History, int, error) {
	e.mu.Lock()
	var active []*txn
	for t := range e.active {
		if len(t.writes) > 0 || len(t.created) > 0 || len(t.locks) > 0 || t.nreads > 0 {
			e.mu.Unlock()
			return nil, 0, pgerror.New(pgerror.ObjectInUse, "cannot checkpoint while other transactions are in progress").
				WithHint("Checkpoint when no other session has an open transaction.")
		}
		active = append(active, t)
	}
	e.mu.Unlock()
	old := e.history()
	e.mu.Lock()
	defer e.mu.Unlock()

	e.init.pos = e.co.init(e.init)
	if e.rec.log != nil {
		_ = e.rec.log.Checkpoint()
	}
	e.checkpoints++
	ended := e.ended
	e.ended = 0
	rec := recorder{}
	rec.init(e.rec.on, e.rec.log)
	rec.h.Checkpoints = e.checkpoints
	rec.logBase, rec.logMax = e.rec.logMax, e.rec.logMax
	for s := range e.open {
		s.lastPos, s.vc = nil, nil
		s.ntxnBase = s.ntxn
	}
	if rec.on {
		// Every session keeps its id; a closed one has no transaction.
		for _, s := range e.rec.h.Sessions {
			rec.h.Sessions = append(rec.h.Sessions, history.Session{ID: s.ID, Name: s.Name})
		}
	}
	e.horizon, e.kept = nil, 0
	for _, ks := range e.dirty {
		ks.dirty = false
	}
	clear(e.dirty)
	e.dirty = e.dirty[:0]
	for _, tb := range e.tables {
		if tb == nil {
			continue
		}
		for _, ix := range tb.indexes {
			ix.marks = scanMarks{}
			ix.clearEntries()
		}
		tb.scans, tb.liveScans, tb.ended, tb.scanFloor = nil, 0, nil, nil
		tb.moves = nil
		tb.keys.Scan(func(_ string, ks *keyState) bool {
			v := ks.latest()
			ks.resetVersions(version{w: e.init, row: v.row, tid: v.tid})
			ks.readers, ks.hidSet, ks.scanFloor = nil, false, nil
			if !v.tomb() {
				for _, ix := range tb.indexes {
					ix.add(v.row, ks)
				}
				if rec.on {
					it := &rec.h.Txns[history.Init]
					it.Ops = append(it.Ops, history.Op{Kind: history.OpWrite, Key: rec.key(tb, ks), Event: uint32(len(it.Ops)), Writer: history.Init})
				}
			}
			return true
		})
	}
	e.rec = rec
	e.nextTxn = history.Init + 1
	slices.SortFunc(active, func(a, b *txn) int { return cmp.Compare(a.id, b.id) })
	for _, t := range active {
		t.sess.ntxnBase = t.seq - 1 // the first transaction of its session in the new history
		t.id = e.nextTxn
		e.nextTxn++
		t.rd = e.newReadState(t)
		t.event, t.stmts, t.stmtEvent = 0, 0, 0
		e.rec.begin(t)
	}
	return old, ended, nil
}
