package oracle

import (
	"math"

	"github.com/fickle-db/fickle/history"
)

// CheckLinearizable decides whether a history of lightweight transactions
// is linearizable, key by key (linearizability is local), in linear time:
// paper 001's VL-LWT (Algorithm 2), extended with plain reads.
//
// Every transaction other than Init touches one key: a compare-and-set that
// succeeded (a read of the key and a write of it: R&W), an insert of an
// absent key (a read of Init's tombstone and a write: insert-if-not-exists),
// or a read. Writes carry unique values (or name their writers), so each
// version has at most one overwriter in a linearizable history (else the
// Divergence pattern, a lost update) and the writers of a key form one
// chain from Init's version, each reading its predecessor's (else a cycle
// of write-read edges). A transaction takes the chain position of the
// version it wrote, a read the place right after the version it read (reads
// of one version commute); the history is linearizable exactly when no
// transaction began after a transaction placed later had finished, which a
// sweep from the end of each chain keeping the earliest finish decides.
// Times are Txn.Start and Txn.End; a transaction without a start may have
// begun at any time, and one without an end (its outcome unknown but its
// write seen) may have finished at any time. Session order is not part of
// linearizability (real time contains it when transactions have times).
//
// A history outside the class gives a *NotMiniError.
func CheckLinearizable(h *history.History) (MiniResult, error) {
	res := MiniResult{Level: history.Serializable, RealTime: true, Anomalies: map[string]int{}}
	c, err := newMiniChecker(h, Options{Level: history.Serializable, RealTime: true})
	if err != nil {
		return res, err
	}
	if err := c.lightweight(); err != nil {
		return res, err
	}
	if why := c.structure(); why != nil {
		res.add(why)
		res.Verdict = Violation
		return res, nil
	}
	c.versions()
	c.divergences(&res)
	chainPos := c.chains(&res)
	c.realTimeOrder(chainPos, &res)
	if res.Found > 0 {
		res.Verdict = Violation
	}
	return res, nil
}

// lightweight checks that every live transaction is one lightweight
// operation: a read of one key, followed by at most a write of it, or
// nothing (a compare-and-set that did not apply, as its client recorded
// it).
func (c *miniChecker) lightweight() error {
	for i := 1; i < c.n; i++ {
		t := &c.h.Txns[i]
		if t.Outcome == history.ServerAborted || len(t.Ops) == 0 {
			continue
		}
		reads := c.txnReads(t.ID)
		ok := len(reads) == 1 && len(t.Ops) <= 2
		for j, op := range t.Ops {
			ok = ok && op.Key == reads[0].key && (j == 0) == (op.Kind == history.OpRead)
		}
		if !ok {
			return notMini("%s is not one read of a key, or one read and one write of it", txnName(c.h, t.ID))
		}
	}
	if len(c.repeats) > 0 {
		return notMini("%s reads a key twice", txnName(c.h, c.repeats[0].txn))
	}
	return nil
}

// chains walks each key's chain of versions from Init's, and returns each
// version's position in its chain (Init's 0; -1 off the chain). Writers
// left off their key's chain read each other in a cycle, reported once
// per key. Keys with a divergent version have no chain (their lost update
// is reported).
func (c *miniChecker) chains(res *MiniResult) []int32 {
	nv := len(c.owStart) - 1
	pos := make([]int32, nv)
	for v := range pos {
		pos[v] = -1
	}
	divergentKey := make([]bool, len(c.h.Keys))
	for _, v := range c.divergent {
		divergentKey[c.versionKey(v)] = true
	}
	for x := range c.h.Keys {
		if divergentKey[x] {
			continue
		}
		v := int32(c.ix.writeEntry(history.Init, history.KeyID(x)))
		if v < 0 {
			v = int32(len(c.ix.wKeys) + x)
		}
		for p := int32(0); v >= 0; p++ {
			pos[v] = p
			ow := c.overwriters(v)
			if len(ow) == 0 {
				break
			}
			v = int32(c.ix.writeEntry(ow[0], history.KeyID(x)))
		}
	}
	reported := make([]bool, len(c.h.Keys))
	for i := 1; i < c.n; i++ {
		for _, r := range c.txnReads(history.TxnID(i)) {
			if !r.overwrite || divergentKey[r.key] || reported[r.key] || pos[r.ver] >= 0 {
				continue
			}
			reported[r.key] = true
			res.add(c.writeCycle(history.TxnID(i), r.key, len(res.Violations) < maxMiniExplained))
		}
	}
	return pos
}

// versionKey returns the key of version v.
func (c *miniChecker) versionKey(v int32) history.KeyID {
	if int(v) < len(c.ix.wKeys) {
		return c.ix.wKeys[v]
	}
	return history.KeyID(int(v) - len(c.ix.wKeys))
}

// writeCycle explains writers of x that read each other in a cycle,
// starting from t: each read the version the previous one wrote.
func (c *miniChecker) writeCycle(t history.TxnID, x history.KeyID, useCheck bool) *Explanation {
	seen := map[history.TxnID]int{}
	var order []history.TxnID
	for cur := t; ; {
		if _, ok := seen[cur]; ok {
			order = order[seen[cur]:]
			break
		}
		seen[cur] = len(order)
		order = append(order, cur)
		cur = c.rwSource(cur, x)
	}
	var edges []Edge
	for i := range order {
		to, from := order[i], order[(i+1)%len(order)]
		edges = append(edges, c.baseEdge(from, to, false))
	}
	fallback := &Explanation{Level: history.ReadCommitted, Anomaly: "G1c", Cycle: edges}
	return c.explain(fallback, order, useCheck)
}

// linOp is a transaction placed in its key's chain: writers at twice their
// version's position, reads right after the version they read.
type linOp struct {
	txn   history.TxnID
	place int32
}

// realTimeOrder reports each transaction that began after a transaction
// placed after it in its key's chain had finished.
func (c *miniChecker) realTimeOrder(chainPos []int32, res *MiniResult) {
	// Counting sorts: by place, then (stably) by key.
	var ops []linOp
	var keys []history.KeyID
	maxPlace := int32(0)
	for i := 1; i < c.n; i++ {
		t := history.TxnID(i)
		if !c.ix.live[t] || len(c.txnReads(t)) == 0 {
			continue
		}
		r := c.txnReads(t)[0]
		p := chainPos[r.ver]
		if p < 0 {
			continue // its key's violation is reported
		}
		place := 2*p + 1
		if r.overwrite {
			place = 2 * (p + 1)
		}
		ops = append(ops, linOp{t, place})
		keys = append(keys, r.key)
		maxPlace = max(maxPlace, place)
	}
	byPlace := countingSort(len(ops), int(maxPlace)+1, func(i int) int { return int(ops[i].place) })
	sorted := make([]int, 0, len(ops))
	byKey := countingSort(len(byPlace), len(c.h.Keys), func(i int) int { return int(keys[byPlace[i]]) })
	for _, i := range byKey {
		sorted = append(sorted, byPlace[i])
	}
	start := func(t history.TxnID) int64 {
		if s := c.h.Txns[t].Start; s != 0 {
			return s
		}
		return math.MinInt64
	}
	end := func(t history.TxnID) int64 {
		if e := c.h.Txns[t].End; e != 0 {
			return e
		}
		return math.MaxInt64
	}
	// Sweep each key from its last place down, one group of equal places
	// at a time: minEnd is the earliest finish of the ops placed later.
	for hi := len(sorted); hi > 0; {
		key := keys[sorted[hi-1]]
		minEnd, minOp := int64(math.MaxInt64), history.TxnID(0)
		for hi > 0 && keys[sorted[hi-1]] == key {
			lo := hi - 1
			for lo > 0 && keys[sorted[lo-1]] == key && ops[sorted[lo-1]].place == ops[sorted[hi-1]].place {
				lo--
			}
			for _, i := range sorted[lo:hi] {
				if op := ops[i]; start(op.txn) > minEnd {
					res.add(c.staleOp(op, minOp, key, chainPos, len(res.Violations) < maxMiniExplained))
				}
			}
			for _, i := range sorted[lo:hi] {
				if e := end(ops[i].txn); e < minEnd {
					minEnd, minOp = e, ops[i].txn
				}
			}
			hi = lo
		}
	}
}

// countingSort returns 0..n-1 stably sorted by key(i), which is in [0, k).
func countingSort(n, k int, key func(int) int) []int {
	count := make([]int, k+1)
	for i := 0; i < n; i++ {
		count[key(i)+1]++
	}
	for j := 1; j <= k; j++ {
		count[j] += count[j-1]
	}
	out := make([]int, n)
	for i := 0; i < n; i++ {
		out[count[key(i)]] = i
		count[key(i)]++
	}
	return out
}

// staleOp explains why op, which began after later finished, breaks
// linearizability: the chain of key x leads from op to later, and later
// finished before op began.
func (c *miniChecker) staleOp(op linOp, later history.TxnID, x history.KeyID, chainPos []int32, useCheck bool) *Explanation {
	// The chain's writers from op's place up to later's, by walking
	// overwriters: each read the version the one before wrote.
	var edges []Edge
	involved := []history.TxnID{op.txn, later}
	cur := op.txn
	r := c.txnReads(op.txn)[0]
	if !r.overwrite {
		next := c.overwriters(r.ver)[0] // op is placed before later: its version was overwritten
		edges = append(edges, c.rwEdge(op.txn, next))
		involved = append(involved, r.src)
		cur = next
	}
	for cur != later {
		v := c.ix.writeEntry(cur, x)
		next := c.overwriters(int32(v))
		if len(next) == 0 {
			break
		}
		following := next[0]
		if lr := c.txnReads(later)[0]; !lr.overwrite && lr.src == cur {
			following = later // a read of cur's version
		}
		edges = append(edges, c.baseEdge(cur, following, false))
		involved = append(involved, following)
		cur = following
	}
	edges = append(edges, Edge{From: later, To: op.txn, Kind: EdgeRT, FromOp: NoOp, ToOp: NoOp})
	for i := range edges {
		if edges[i].Kind == EdgeRW {
			edges[i].Via = edges[i].From
		}
	}
	fallback := &Explanation{Level: history.Serializable, Cycle: edges}
	fallback.Anomaly = anomalyName(history.Serializable, edges, nil)
	return c.explain(fallback, involved, useCheck)
}
