package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// MaxBruteForceTxns is the largest number of transactions (besides Init)
// BruteForce accepts: it tries up to n! commit orders.
const MaxBruteForceTxns = 9

// BruteForce decides whether h satisfies opts.Level (or each transaction's
// own level when zero) by trying every commit order that extends so ∪ wr
// (and real time with opts.RealTime) and evaluating DESIGN §3's axioms
// literally on each: for every read r of t3 from t1 and every other
// committed writer t2 of the key, vis(t2, r) ⇒ t2 <co t1, with vis exactly as
// the table defines it per t3's level. A pending transaction that may still
// be aborted is ignored, as Check ignores it (settled).
//
// A known version order (History.VersionOrder) is taken literally too:
// co must order each key's listed writers as listed, and a listed writer
// that did not commit a write of the key fails every order. When the order
// is only a prefix (History.VersionOrderPrefix), co must also put every
// committed writer of the key it does not list after the last listed one.
//
// It is the reference the oracle is tested against, and other packages'
// tests may use it on small histories: with more than MaxBruteForceTxns
// transactions, or when opts.MaxSteps orders were tried without a verdict,
// it answers Unknown, as it does when h fails history.Validate. On
// Consistent it returns the witness order, Init first.
func BruteForce(h *history.History, opts Options) (Verdict, []history.TxnID) {
	if h.Validate() != nil {
		return Unknown, nil
	}
	h = settled(h)
	b := newBrute(h, levelsFor(h, opts), opts)
	if len(b.txns) > MaxBruteForceTxns {
		return Unknown, nil
	}
	for _, t := range b.txns {
		for i := range b.ix.get(t).reads {
			if b.ix.badRead(&b.ix.get(t).reads[i]) {
				return Violation, nil
			}
		}
	}
	if !b.versionOrderWritten() {
		return Violation, nil
	}
	order := make([]history.TxnID, 0, len(b.txns)+1)
	order = append(order, history.Init)
	placed := make([]bool, len(h.Txns))
	placed[history.Init] = true
	var steps int64
	var walk func() Verdict
	walk = func() Verdict {
		if len(order) == len(b.txns)+1 {
			steps++
			if opts.MaxSteps > 0 && steps > opts.MaxSteps {
				return Unknown
			}
			for i, t := range order {
				b.pos[t] = i
			}
			if b.satisfied() {
				return Consistent
			}
			return Violation
		}
		for _, t := range b.txns {
			if placed[t] || !b.ready(t, placed) {
				continue
			}
			placed[t] = true
			order = append(order, t)
			if v := walk(); v != Violation {
				return v
			}
			order = order[:len(order)-1]
			placed[t] = false
		}
		return Violation
	}
	v := walk()
	if v != Consistent {
		return v, nil
	}
	return Consistent, order
}

// bruteOrderSatisfies evaluates the axioms literally on one commit order
// (Init first, every live transaction once): the reference CheckOrder is
// tested against. It does not require co to extend so ∪ wr; it reports
// false when co does not.
func bruteOrderSatisfies(h *history.History, co []history.TxnID, opts Options) bool {
	b := newBrute(h, levelsFor(h, opts), opts)
	for i, t := range co {
		b.pos[t] = i
	}
	if !b.versionOrderWritten() {
		return false
	}
	for _, t := range b.txns {
		for i := range b.ix.get(t).reads {
			if b.ix.badRead(&b.ix.get(t).reads[i]) {
				return false
			}
		}
		if !b.ready(t, nil) {
			return false
		}
	}
	return b.satisfied()
}

// brute holds the relations of one history for literal evaluation.
type brute struct {
	h        *history.History
	ix       *txnIndex
	realTime bool
	txns     []history.TxnID // live transactions other than Init
	pos      []int           // the commit order under test
	causal   [][]bool        // causal[a][b]: a (so ∪ wr ∪ rt)+ b
}

func newBrute(h *history.History, levels []history.Level, opts Options) *brute {
	b := &brute{h: h, ix: newTxnIndex(h, levels).withRC(opts.RC), realTime: opts.RealTime, pos: make([]int, len(h.Txns))}
	for i := 1; i < len(h.Txns); i++ {
		if b.ix.get(history.TxnID(i)).live {
			b.txns = append(b.txns, history.TxnID(i))
		}
	}
	if len(b.txns) > MaxBruteForceTxns {
		return b
	}
	n := len(h.Txns)
	b.causal = make([][]bool, n)
	for a := range b.causal {
		b.causal[a] = make([]bool, n)
		for c := range b.causal[a] {
			b.causal[a][c] = b.base(history.TxnID(a), history.TxnID(c))
		}
	}
	for k := range n {
		for a := range n {
			if b.causal[a][k] {
				for c := range n {
					b.causal[a][c] = b.causal[a][c] || b.causal[k][c]
				}
			}
		}
	}
	return b
}

// so is the session order (Init precedes everything).
func (b *brute) so(a, c history.TxnID) bool {
	if !b.ix.get(a).live || !b.ix.get(c).live || a == c || c == history.Init {
		return false
	}
	if a == history.Init {
		return true
	}
	ta, tc := &b.h.Txns[a], &b.h.Txns[c]
	return ta.Session == tc.Session && b.ix.get(a).sessIdx < b.ix.get(c).sessIdx
}

// wr is the write-read relation lifted to transactions.
func (b *brute) wr(a, c history.TxnID) bool {
	if !b.ix.get(c).live {
		return false
	}
	for _, r := range b.ix.get(c).reads {
		if r.src == a {
			return true
		}
	}
	return false
}

func (b *brute) rt(a, c history.TxnID) bool {
	return b.realTime && b.ix.get(a).live && b.ix.get(c).live && realTimeBefore(b.h, a, c)
}

// base is so ∪ wr ∪ rt, the relation co must extend.
func (b *brute) base(a, c history.TxnID) bool { return b.so(a, c) || b.wr(a, c) || b.rt(a, c) }

func (b *brute) co(a, c history.TxnID) bool { return b.pos[a] < b.pos[c] }

// ready reports whether every base predecessor of t is placed (with placed
// nil: co-before t).
func (b *brute) ready(t history.TxnID, placed []bool) bool {
	for _, u := range b.txns {
		if u != t && b.base(u, t) && (placed != nil && !placed[u] || placed == nil && !b.co(u, t)) {
			return false
		}
	}
	return true
}

// versionOrderWritten reports whether every transaction the history's
// version orders name committed a write of the key (else the history is
// malformed, or shows an aborted version: no order helps).
func (b *brute) versionOrderWritten() bool {
	for k, order := range b.h.VersionOrder {
		for _, t := range order {
			if b.h.Txns[t].Outcome != history.Committed || !b.ix.writesKey(t, history.KeyID(k)) {
				return false
			}
		}
	}
	return true
}

// satisfied evaluates every axiom instance on the order in pos, and that
// co orders each key's known versions as the history's version order does.
func (b *brute) satisfied() bool {
	for _, order := range b.h.VersionOrder {
		for i := 1; i < len(order); i++ {
			if a, c := order[i-1], order[i]; a != c && !b.co(a, c) {
				return false
			}
		}
	}
	for k, prefix := range b.h.VersionOrderPrefix {
		if !prefix || k >= len(b.h.VersionOrder) || len(b.h.VersionOrder[k]) == 0 {
			continue
		}
		order := b.h.VersionOrder[k]
		last := order[len(order)-1]
		for _, t := range b.txns {
			if b.h.Txns[t].Outcome == history.Committed && b.ix.writesKey(t, history.KeyID(k)) && !slices.Contains(order, t) && !b.co(last, t) {
				return false
			}
		}
	}
	all := append([]history.TxnID{history.Init}, b.txns...)
	for _, t3 := range b.txns {
		level := b.ix.levelOf(t3)
		for i := range b.ix.get(t3).reads {
			r := &b.ix.get(t3).reads[i]
			for _, t2 := range all {
				if t2 == r.src || !b.ix.writesKey(t2, r.key) {
					continue
				}
				if b.vis(level, t2, r, all) && !b.co(t2, r.src) {
					return false
				}
			}
		}
	}
	return true
}

// vis is DESIGN §3's table, literally.
func (b *brute) vis(level history.Level, t2 history.TxnID, r *extRead, all []history.TxnID) bool {
	t3 := r.txn
	switch level {
	case history.ReadCommitted:
		if b.so(t2, t3) && b.ix.sessionVisible(level) || b.rt(t2, t3) {
			return true
		}
		for _, e := range b.ix.get(t3).reads {
			if e.event < r.event && e.src == t2 {
				return true
			}
		}
		return false
	case history.ReadAtomic:
		return b.base(t2, t3)
	case history.Causal:
		return b.causal[t2][t3]
	case history.Serializable:
		return b.co(t2, t3)
	}
	for _, t4 := range all {
		coStar := t2 == t4 || b.co(t2, t4)
		if coStar && b.base(t4, t3) {
			return true // Prefix
		}
		if level == history.Snapshot && coStar && b.co(t4, t3) && b.ix.get(t3).commit && b.writesCommon(t4, t3) {
			return true // Conflict
		}
	}
	return false
}

// writesCommon reports whether t4 and t3 both commit writes of some key
// (Init writes every key).
func (b *brute) writesCommon(t4, t3 history.TxnID) bool {
	if t4 == history.Init {
		return len(b.ix.get(t3).writes) > 0
	}
	return b.ix.conflicts(t4, t3)
}
