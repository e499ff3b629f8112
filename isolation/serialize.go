package isolation

import (
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Where an ending transaction goes in co (DESIGN §4). A transaction is
// placed right after a node n that follows everything it must follow:
// its session predecessors and read sources (lo), and, when it writes, the
// latest committed writer of every key it writes, so that its writes are
// the latest committed versions, the state every constraint was checked
// against. A SER transaction must also read, at its place, the latest
// version before it of every key it read: n lies inside its window [lo, hi).
// Any such n is accepted when every ended transaction t affects stays
// consistent with t in place (insertable); the strategy picks among them:
// the end for latest, the earliest for oldest, at random otherwise.
// Placing commits in the past is what lets fickle produce the outcomes
// that appending alone cannot.

// maxPlaceCandidates bounds how many positions an ending transaction tries.
// Trying fewer positions than exist only costs adversarial power (a SER
// commit may abort with 40001 where a position further in the past would
// have worked); every position tried is checked exactly.
const maxPlaceCandidates = 64

// placeCommit returns the co node after which t commits (40001 when none).
func (e *engine) placeCommit(t *txn) (*omNode, error) {
	if t.level == history.Snapshot {
		for w := range t.allWrites() {
			if err := e.firstCommitterWins(t, w.tb, w.ks); err != nil {
				return nil, err
			}
		}
	}
	lo := t.rd.lo
	for w := range t.allWrites() {
		lo = later(lo, w.ks.latest().w.pos)
		if w.ks.scanFloor != nil {
			lo = later(lo, w.ks.scanFloor)
		}
	}
	var hi *omNode
	if t.level == history.Serializable {
		hi = t.rd.hi
	}
	if n := e.place(t, lo, hi, true); n != nil {
		return n, nil
	}
	return nil, pgerror.New(pgerror.SerializationFailure,
		"could not serialize access due to read/write dependencies among transactions").
		WithDetail("No place in the commit order keeps every transaction's reads valid.").
		WithHint("The transaction might succeed if retried.")
}

// placeRollback returns the co node after which a client-aborted t goes.
// It writes nothing, so it affects no one; it must follow its session
// predecessors and sources and, for SER, keep its reads the latest before
// it. Its window is non-empty (doomed was checked), so a place exists.
func (e *engine) placeRollback(t *txn) *omNode {
	var hi *omNode
	if t.level == history.Serializable {
		hi = t.rd.hi
	}
	if n := e.place(t, t.rd.lo, hi, false); n != nil {
		return n
	}
	return t.rd.lo
}

// place returns an accepted node in [lo, hi) (hi nil: up to the end) for t,
// or nil when none of the candidates tried is accepted; t's writes count
// when writes is set (a rolled-back t affects no one).
func (e *engine) place(t *txn, lo, hi *omNode, writes bool) *omNode {
	if !below(lo, hi) {
		return nil
	}
	last := e.co.tail
	if hi != nil {
		last = hi.prev
	}
	var cands []*omNode
	for n := last; n != nil && !n.before(lo) && len(cands) < maxPlaceCandidates; n = n.prev {
		cands = append(cands, n) // latest first
	}
	if e.replay != nil {
		if n := e.replayedPlace(t, cands); n != nil && e.insertable(t, n, writes) {
			return n
		}
	}
	switch {
	case e.chooser != nil:
		cands = []*omNode{cands[e.chooser(len(cands))]}
	case t.strategy == StrategyOldest || (t.strategy == StrategyAdversarial && t.mode == advStale):
		for i, j := 0, len(cands)-1; i < j; i, j = i+1, j-1 {
			cands[i], cands[j] = cands[j], cands[i]
		}
	case t.strategy == StrategyRandom || (t.strategy == StrategyAdversarial && t.mode == advMixed):
		t.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	}
	for _, n := range cands {
		if e.insertable(t, n, writes) {
			return n
		}
	}
	return nil
}

// insertable reports whether placing t right after n keeps every ended
// transaction that t affects consistent: the PC, SI and SER transactions
// that read a key t writes from a version at or before n and whose place
// (SER) or snapshot (PC, SI) lies after n. RC, RA and CC transactions are
// never affected: t is not visible to any that ended, and a pending one
// checks the current co when it reads. Pending windows are narrowed
// afterwards by published, and doomed if they empty. No SI transaction's
// snapshot moves through Conflict either: t is placed after the latest
// writer of every key it writes, so after every SI transaction that writes
// one of them.
func (e *engine) insertable(t *txn, n *omNode, writes bool) bool {
	if !writes {
		return true
	}
	for w := range t.allWrites() {
		y := w.ks
		for _, r := range y.windowReaders() {
			if r == t || (r.state != txnCommitted && r.state != txnClientAborted) {
				continue
			}
			if n.before(r.rd.reads[y].pos) {
				continue // r read a version after t's place: t is older
			}
			if n.before(r.placeBound()) {
				return false // t would sit between r's source and what r sees
			}
		}
	}
	return true
}
