package isolation

import (
	"math/rand/v2"
)

// advMode is how an adversarial transaction picks among valid versions. It
// is drawn once per transaction, so that one transaction behaves
// consistently (a stale reader stays stale) while a run mixes behaviours.
type advMode uint8

const (
	advStale  advMode = iota // the oldest valid version: stale snapshots
	advShared                // the version last served to anyone: lost updates
	advRandom                // uniform
	advFlip                  // a different version on every read of a key
	advLatest                // a well-behaved transaction now and then
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

// advMode draws t's adversarial mode: read-only transactions favour stale
// snapshots, writers favour re-serving what others read (lost updates).
func (e *engine) advMode(t *txn) advMode {
	if t.strategy != StrategyAdversarial {
		return advLatest
	}
	r := t.rng.IntN(100)
	switch {
	case t.readOnly && r < 50:
		return advStale
	case r < 25:
		return advStale
	case r < 50:
		return advShared
	case r < 70:
		return advRandom
	case r < 90:
		return advFlip
	}
	return advLatest
}

// pick chooses one of the valid versions (indexes into ks.versions,
// ascending, never empty) by t's strategy.
func (e *engine) pick(t *txn, ks *keyState, valid []int) int {
	switch t.strategy {
	case StrategyOldest:
		return valid[0]
	case StrategyRandom:
		return valid[t.rng.IntN(len(valid))]
	case StrategyAdversarial:
		return e.pickAdversarial(t, ks, valid)
	}
	return valid[len(valid)-1]
}

func (e *engine) pickAdversarial(t *txn, ks *keyState, valid []int) int {
	choice := valid[len(valid)-1]
	switch t.mode {
	case advStale:
		choice = valid[0]
	case advShared:
		choice = valid[t.rng.IntN(len(valid))]
		for _, i := range valid {
			if i == ks.lastPick {
				choice = i
			}
		}
	case advRandom:
		choice = valid[t.rng.IntN(len(valid))]
	case advFlip:
		choice = valid[t.rng.IntN(len(valid))]
		if prev, ok := t.rd.reads[ks]; ok && len(valid) > 1 && ks.versions[choice].w == prev {
			for _, i := range valid {
				if ks.versions[i].w != prev {
					choice = i
					break
				}
			}
		}
	}
	ks.lastPick = choice
	return choice
}
