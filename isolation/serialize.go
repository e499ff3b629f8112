package isolation

import (
	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// maxSerCandidates bounds how many insertion positions a committing SER
// transaction tries, walking back from the end of its window. Trying fewer
// positions than exist only costs adversarial power (a commit may abort
// with 40001 where a position far in the past would have worked); every
// position tried is checked exactly.
const maxSerCandidates = 64

// serialize finds where in co a committing SER transaction goes: after a
// node n inside its window [lo, hi), so that every read returns the latest
// version before it, and such that every transaction it affects still
// satisfies its level with t in place (DESIGN §4, SER). The affected ones
// are the ended PC, SI and SER transactions that read a key t writes from a
// version at or before n, and the SI transactions after n that write a key
// t writes (their snapshot moves up to t through Conflict). Pending windows
// are narrowed afterwards by published, and doomed if they empty.
func (e *engine) serialize(t *txn) (*omNode, error) {
	rs := t.rd
	if !below(rs.lo, rs.hi) {
		return nil, errNoSnapshot()
	}
	var cands []*omNode
	start := e.co.tail
	if rs.hi != nil {
		start = rs.hi.prev
	}
	for n := start; n != nil && !n.before(rs.lo) && len(cands) < maxSerCandidates; n = n.prev {
		cands = append(cands, n)
	}
	if len(cands) == 0 {
		return nil, errNoSnapshot()
	}
	e.orderCandidates(t, cands)
	writes := make(map[*keyState]bool)
	for _, ws := range t.writes {
		for _, w := range ws {
			writes[w.ks] = true
		}
	}
	for _, n := range cands {
		if e.insertable(t, n, writes) {
			return n, nil
		}
	}
	return nil, pgerror.New(pgerror.SerializationFailure,
		"could not serialize access due to read/write dependencies among transactions").
		WithDetail("No place in the commit order keeps every transaction's reads valid.").
		WithHint("The transaction might succeed if retried.")
}

// orderCandidates orders the positions to try (latest first as collected)
// by t's strategy.
func (e *engine) orderCandidates(t *txn, cands []*omNode) {
	switch {
	case t.strategy == StrategyOldest || (t.strategy == StrategyAdversarial && t.mode == advStale):
		for i, j := 0, len(cands)-1; i < j; i, j = i+1, j-1 {
			cands[i], cands[j] = cands[j], cands[i]
		}
	case t.strategy == StrategyRandom || (t.strategy == StrategyAdversarial && t.mode != advLatest && t.mode != advStale):
		t.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	}
}

// insertable reports whether placing t right after n keeps every ended
// transaction that t affects consistent.
func (e *engine) insertable(t *txn, n *omNode, writes map[*keyState]bool) bool {
	for y := range writes {
		for _, r := range y.wreaders {
			if r == t || (r.state != txnCommitted && r.state != txnClientAborted) {
				continue
			}
			if n.before(r.rd.reads[y].pos) {
				continue // r read a version after t's place: t is older
			}
			switch r.level {
			case history.Serializable:
				if n.before(r.pos) {
					return false // t would sit between r's source and r
				}
			default: // PC, SI: t would precede something r sees
				if n.before(r.rd.lo) {
					return false
				}
			}
		}
		for _, s := range y.siWriters {
			if s == t || !n.before(s.pos) || n.before(s.rd.lo) {
				continue
			}
			// Through Conflict s's snapshot now includes t: each of its
			// reads must still be the latest before t's place.
			for y2, c := range s.rd.reads {
				if writes[y2] {
					return false
				}
				if nx := y2.nextAfter(y2.versionIndex(c)); nx != nil && !n.before(nx) {
					return false
				}
			}
		}
	}
	return true
}
