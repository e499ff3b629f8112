package isolation

import (
	"github.com/fickle-db/fickle/history"
)

// Replay (Config.Replay, --replay HISTORY) re-issues a recorded history's
// choices: a read by the seq-th transaction of session s, in statement e,
// of key k takes the version written by the transaction the recording names
// (by its session and sequence number, or init), and an ending transaction
// takes the place that keeps the recorded co's order among the
// transactions placed so far, whenever that choice is valid in the run
// being replayed; otherwise the strategy decides. Deleting reads from the
// recorded history (or pointing them at another writer) is how a failure
// is shrunk: those reads fall back to the strategy, latest for shrinking.
// Sessions are matched by their order of creation, so the client must open
// them in the same order. A history that went through checkpoints
// (fickle_checkpoint(), --load) holds what followed the last one: a
// session's transactions are numbered from there, and the replay applies
// once the run has gone through as many checkpoints.

// ident names a transaction across runs: its session and its 1-based
// sequence number there; init is the zero ident.
type ident struct {
	sess history.SessionID
	seq  uint64
}

type readSite struct {
	txn   ident
	event uint32
	key   string
}

type replayIndex struct {
	reads       map[readSite][]ident // in recorded order
	pos         map[ident]int        // place in the recorded co
	checkpoints int                  // the recording's history followed this many
}

func newReplayIndex(h *history.History) *replayIndex {
	ri := &replayIndex{reads: map[readSite][]ident{}, pos: map[ident]int{}, checkpoints: h.Checkpoints}
	ids := make([]ident, len(h.Txns))
	for _, s := range h.Sessions {
		for i, id := range s.Txns {
			if int(id) < len(ids) {
				ids[id] = ident{sess: s.ID, seq: uint64(i + 1)}
			}
		}
	}
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		for _, op := range t.Ops {
			if op.Kind != history.OpRead || op.Writer == t.ID || int(op.Writer) >= len(ids) || int(op.Key) >= len(h.Keys) {
				continue
			}
			site := readSite{txn: ids[i], event: op.Event, key: h.Keys[op.Key].String()}
			ri.reads[site] = append(ri.reads[site], ids[op.Writer])
		}
	}
	for i, t := range h.CommitOrder {
		if int(t) < len(ids) {
			ri.pos[ids[t]] = i
		}
	}
	return ri
}

func (t *txn) ident() ident {
	if t.sess == nil {
		return ident{}
	}
	return ident{sess: t.sess.id, seq: t.seq - t.sess.ntxnBase}
}

// replayedVersion returns the index in valid of the version the recording
// chose for this read, or -1.
func (e *engine) replayedVersion(t *txn, tb *table, ks *keyState, valid []int) int {
	if e.checkpoints != e.replay.checkpoints {
		return -1
	}
	site := readSite{txn: t.ident(), event: t.event, key: e.rec.logKey(tb, ks).String()}
	ws := e.replay.reads[site]
	if len(ws) == 0 {
		return -1
	}
	w := ws[0]
	e.replay.reads[site] = ws[1:]
	for j, i := range valid {
		if ks.versions()[i].w.ident() == w {
			return j
		}
	}
	return -1
}

// replayedPlace returns the candidate after which t keeps the recorded
// co's order among the transactions placed so far (the one recorded
// before t and followed by one recorded after it), or nil.
func (e *engine) replayedPlace(t *txn, cands []*omNode) *omNode {
	if e.checkpoints != e.replay.checkpoints {
		return nil
	}
	rank := func(x *txn) (int, bool) {
		p, ok := e.replay.pos[x.ident()]
		return p, ok
	}
	pt, ok := rank(t)
	if !ok {
		return nil
	}
	for _, n := range cands {
		pn, ok := rank(n.t)
		if !ok || pn > pt {
			continue
		}
		if n.next == nil {
			return n
		}
		if pnext, ok := rank(n.next.t); ok && pnext > pt {
			return n
		}
	}
	return nil
}
