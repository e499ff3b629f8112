package isolation

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// ReadChoice describes a read about to pick, by its strategy or a replay,
// one of the committed versions of a key its level allows: what a tool
// that enumerates the engine's behaviours (explore's exhaustive mode)
// needs to know to try the other versions in later runs.
type ReadChoice struct {
	// Session and Seq identify the reading transaction across runs of the
	// same program, as replay matches reads: its session, and its number
	// in that session from the last checkpoint.
	Session history.SessionID
	Seq     uint64
	// Txn, Event and Key are the read as Prefix names it: the transaction,
	// the statement's index in it, and the key.
	Txn   history.TxnID
	Event uint32
	Key   history.Key
	// Checkpoints counts the checkpoints the run has gone through.
	Checkpoints int
	// Writers are the writers of the key's committed versions, in commit
	// order (Init's first): the versions some level might allow.
	Writers []history.TxnID
	// Valid indexes the versions of Writers that the read's level allows
	// given the commit order so far.
	Valid []int
	// Prefix is the history recorded so far, without this read (nil
	// unless Config.Record).
	Prefix *history.History
}

// OnReadChoice registers f, called before every read that picks among
// committed versions by its strategy or a replay, with the store's lock
// held (f must not call the store). Reads of a transaction's own writes,
// the latest-version reads of constraint checks, locking reads and
// writes, and PostgreSQL's statement snapshots pick nothing and are not
// reported.
func (s *Store) OnReadChoice(f func(ReadChoice)) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.e.onChoice = f
}

// readChoice describes t's read of ks among the versions valid; e.mu is
// held.
func (e *engine) readChoice(t *txn, tb *table, ks *keyState, valid []int) ReadChoice {
	c := ReadChoice{
		Session:     t.sess.id,
		Seq:         t.seq - t.sess.ntxnBase,
		Txn:         t.id,
		Event:       t.event,
		Key:         e.rec.logKey(tb, ks),
		Checkpoints: e.checkpoints,
		Valid:       slices.Clone(valid),
	}
	for _, v := range ks.versions() {
		c.Writers = append(c.Writers, v.w.id)
	}
	if e.rec.on {
		c.Prefix = e.historyLocked()
	}
	return c
}
