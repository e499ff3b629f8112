package isolation

import (
	"math/rand/v2"
)

// advMode is an adversarial transaction's bias, drawn once per transaction
// so that one transaction behaves consistently while a run mixes
// behaviours: how often a read takes the stalest valid version rather than
// the newest (stale reads, fractured and forked views come from mixing the
// two within one transaction).
type advMode uint8

// staleness[m] is the probability, in percent, that a read of a
// transaction in mode m takes the oldest valid version rather than the
// newest. The mixed mode is the likeliest: fractured reads, causality
// violations and long forks need one new and one old read in the same
// transaction.
var staleness = [...]int{0, 50, 100}

const (
	advLatest advMode = 0 // a well-behaved transaction now and then
	advMixed  advMode = 1
	advStale  advMode = 2 // every read as stale as the level allows
)

// txnRand derives the PRNG of a session's seq-th transaction from the seed,
// so that a run replays from (seed, session, sequence number).
func (e *engine) txnRand(s *session, seq uint64) *rand.Rand {
	return rand.New(rand.NewPCG(e.cfg.Seed, splitmix(uint64(s.id)<<32^seq)))
}

// splitmix is SplitMix64's finalizer: a bijective mix of the stream id.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// advMode draws t's bias: read-only transactions favour stale snapshots.
func (e *engine) advMode(t *txn) advMode {
	if t.strategy != StrategyAdversarial {
		return advLatest
	}
	r := t.rng.IntN(100)
	switch {
	case t.readOnly && r < 50, r < 35:
		return advStale
	case r < 85:
		return advMixed
	}
	return advLatest
}

// pick chooses one of the valid versions (indexes into ks.versions,
// ascending, never empty) by t's strategy.
func (e *engine) pick(t *txn, ks *keyState, valid []int) int {
	if e.chooser != nil {
		return valid[e.chooser(len(valid))]
	}
	switch t.strategy {
	case StrategyOldest:
		return valid[0]
	case StrategyRandom:
		return valid[t.rng.IntN(len(valid))]
	case StrategyAdversarial:
		choice := e.pickAdversarial(t, ks, valid)
		ks.lastPick, ks.lastReader = choice, t
		return choice
	}
	return valid[len(valid)-1]
}

// pickAdversarial favours the choices that create anomalies:
//   - a repeated read of a key takes a different version when the level
//     allows one (non-repeatable reads);
//   - when the last transaction that read the key also wrote it, a read
//     re-serves the version it read, if valid (two read-modify-writes of one
//     old version: lost updates);
//   - when it only read it, a read takes another version than it did, if
//     one is valid (two readers with different views: causality
//     violations, long forks);
//   - otherwise the oldest or the newest valid version by the transaction's
//     bias, or now and then one in the middle (fractured reads need a
//     version its writer's later write already overwrote elsewhere), or any.
func (e *engine) pickAdversarial(t *txn, ks *keyState, valid []int) int {
	if prev, ok := t.rd.reads[ks]; ok && len(valid) > 1 && t.rng.IntN(10) < 7 {
		return e.other(t, ks, valid, prev)
	}
	if r := ks.lastReader; r != nil && r != t && slicesContains(valid, ks.lastPick) {
		switch {
		case e.wrote(r, ks):
			if t.rng.IntN(10) < 6 {
				return ks.lastPick
			}
		case len(valid) > 1 && t.rng.IntN(2) == 0:
			return e.other(t, ks, valid, ks.versions[ks.lastPick].w)
		}
	}
	if len(valid) > 2 && t.mode == advMixed && t.rng.IntN(4) == 0 {
		return valid[1+t.rng.IntN(len(valid)-2)] // neither end: half of a fracture
	}
	if t.rng.IntN(10) < 3 {
		return valid[t.rng.IntN(len(valid))]
	}
	if t.rng.IntN(100) < staleness[t.mode] {
		return valid[0]
	}
	return valid[len(valid)-1]
}

// other picks a valid version not written by w (valid has another one):
// the newest or the oldest of them by t's bias.
func (e *engine) other(t *txn, ks *keyState, valid []int, w *txn) int {
	var others []int
	for _, i := range valid {
		if ks.versions[i].w != w {
			others = append(others, i)
		}
	}
	if t.rng.IntN(100) < staleness[t.mode] {
		return others[0]
	}
	return others[len(others)-1]
}

// wrote reports whether r wrote ks: a pending own write, or a committed
// version.
func (e *engine) wrote(r *txn, ks *keyState) bool {
	if r.state == txnActive {
		return r.writes[ks.tab][ks.key] != nil
	}
	return r.state == txnCommitted && ks.versionIndex(r) >= 0
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
