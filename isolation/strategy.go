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

// retryCalmed reports whether an adversarial transaction that follows
// aborts server-aborted transactions of its session in a row reads as the
// latest strategy does: with probability 1 - 2^-aborts, drawn from its own
// PRNG. A client retries a serialization failure; a database that failed
// every retry would be one no application could use, and the adversary's
// stale picks over a scan of many rows would fail almost every one (a
// predicate read followed by a write that must see the latest row). A
// session without aborts draws nothing here, so its choices stay those of
// its seed.
func retryCalmed(rng *rand.Rand, aborts int) bool {
	if aborts == 0 {
		return false
	}
	return rng.Uint64()&(1<<min(aborts, 63)-1) != 0
}

// splitmix is SplitMix64's finalizer: a bijective mix of the stream id.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// advAim is what an adversarial transaction's reads try to create, drawn
// once per transaction from its seed (advMode) beside its bias. One aim per
// transaction, not every move at every read: a move that fires wherever it
// applies starves the others. Re-serving the version an updater read (lost
// update) applies after every UPDATE, since an UPDATE reads its row first,
// and served everywhere it hides the writes that causality violations and
// long forks need the next readers to see.
type advAim uint8

const (
	// aimPlain: versions by the bias alone.
	aimPlain advAim = iota
	// aimLostUpdate: where another transaction read the key and wrote it,
	// re-serve the version it read, so that this transaction's write
	// overwrites it blindly (lost updates).
	aimLostUpdate
	// aimDiverge: where another transaction only read the key, take a
	// version other than the one it saw (two readers with different views:
	// causality violations, long forks).
	aimDiverge
	// aimNewThenOld: the transaction's first read takes the newest valid
	// version, every later one the oldest (one reader sees a write but not
	// what it depended on: causality violations, either side of a long fork).
	aimNewThenOld
	// aimOldThenNew: the first read takes an older valid version, one in
	// the middle when there is one, every later one the newest (half of one
	// transaction's writes: fractured reads).
	aimOldThenNew
)

// aimWeights[readOnly] are the aims' chances, in percent, in the order of
// the constants: a read-only transaction cannot lose an update.
var aimWeights = [2][5]int{
	{15, 25, 20, 20, 20},
	{20, 0, 30, 30, 20},
}

// advMode draws t's bias: read-only transactions favour stale snapshots.
// It also draws t's aim, kept in its read state.
func (e *engine) advMode(t *txn) advMode {
	if t.strategy != StrategyAdversarial {
		return advLatest
	}
	r := t.rng.IntN(100)
	mode := advLatest
	switch {
	case t.readOnly && r < 50, r < 35:
		mode = advStale
	case r < 85:
		mode = advMixed
	}
	t.rd.aim = drawAim(t.rng, t.readOnly)
	return mode
}

// drawAim draws an aim by aimWeights.
func drawAim(rng *rand.Rand, readOnly bool) advAim {
	w := &aimWeights[0]
	if readOnly {
		w = &aimWeights[1]
	}
	r := rng.IntN(100)
	for i, p := range w {
		if r < p {
			return advAim(i)
		}
		r -= p
	}
	return aimPlain
}

// pick chooses one of the valid versions (indexes into ks.versions(),
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
		rd := ks.readState()
		rd.lastPicked, rd.lastReader = ks.versions()[choice].w, t
		return choice
	}
	return valid[len(valid)-1]
}

// pickAdversarial favours the choices that create anomalies:
//   - a repeated read of a key (in a later statement: a statement reads a
//     key once, statement_reads.go) takes a different version when the
//     level allows one (non-repeatable reads);
//   - otherwise t's aim (advAim) decides where it applies;
//   - elsewhere, and for the plain aim, the oldest or the newest valid
//     version by the transaction's bias, or now and then one in the middle
//     (fractured reads need a version its writer's later write already
//     overwrote elsewhere), or any.
func (e *engine) pickAdversarial(t *txn, ks *keyState, valid []int) int {
	if prev, ok := t.rd.reads[ks]; ok && len(valid) > 1 && t.rng.IntN(10) < 7 {
		return e.other(t, ks, valid, prev)
	}
	if len(valid) == 1 {
		return valid[0]
	}
	newest := valid[len(valid)-1]
	var r, lastPicked *txn
	if ks.readers != nil {
		r, lastPicked = ks.readers.lastReader, ks.readers.lastPicked
	}
	last, other := validOf(ks, valid, lastPicked)
	other = other && r != nil && r != t
	switch t.rd.aim {
	case aimLostUpdate:
		if other && e.wrote(r, ks) && t.rng.IntN(10) < 9 {
			return last
		}
	case aimDiverge:
		if other && !e.wrote(r, ks) && t.rng.IntN(10) < 9 {
			return e.other(t, ks, valid, lastPicked)
		}
	case aimNewThenOld:
		if len(t.rd.reads) == 0 {
			return newest
		}
		return valid[0]
	case aimOldThenNew:
		switch {
		case len(t.rd.reads) > 0:
			return newest
		case len(valid) > 2:
			return valid[1+t.rng.IntN(len(valid)-2)]
		}
		return valid[0]
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
	return newest
}

// other picks a valid version not written by w (valid has another one):
// the newest or the oldest of them by t's bias.
func (e *engine) other(t *txn, ks *keyState, valid []int, w *txn) int {
	var others []int
	for _, i := range valid {
		if ks.versions()[i].w != w {
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
		return r.pendingWrite(ks) != nil
	}
	return r.state == txnCommitted && ks.versionIndex(r) >= 0
}

// validOf returns the index of w's version of ks when it is among valid.
func validOf(ks *keyState, valid []int, w *txn) (int, bool) {
	for _, i := range valid {
		if ks.versions()[i].w == w {
			return i, true
		}
	}
	return 0, false
}
