package oracle

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// addFixedEdges adds the edges every witness extends: session order, wr,
// the version order's ww edges, real time, and the RC, RA and CC axioms,
// whose visibility does not depend on co. It returns false on a cycle.
func (g *srchGraph) addFixedEdges() bool {
	ix := g.ix
	for _, ch := range g.chains {
		for i := 1; i < len(ch); i++ {
			if !g.addEdge(srchEdge{from: ch[i-1], to: ch[i], kind: EdgeSO, via: g.nodes[ch[i]].txn}) {
				return false
			}
		}
	}
	for _, t := range g.txns {
		for _, r := range ix.get(t).reads {
			if c, ok := g.commitOf[r.src]; ok {
				if !g.addEdge(srchEdge{from: c, to: g.readOf[t], kind: EdgeWR, key: r.key, via: t}) {
					return false
				}
			}
		}
	}
	if !g.addVersionOrderEdges() {
		return false
	}
	if g.rtOn && !g.addRealTimeEdges() {
		return false
	}
	for _, t3 := range g.txns {
		if ix.levelOf(t3) > history.Causal {
			continue
		}
		if !g.addWeakEdges(t3) {
			return false
		}
	}
	return true
}

// addVersionOrderEdges adds W(a) → W(b) for consecutive writers a, b in a
// key's known version order (version_order.go), both in the component;
// its via is b (knownEdge names the read that revealed the order).
func (g *srchGraph) addVersionOrderEdges() bool {
	h := g.ix.h
	live := func(t history.TxnID) bool { return g.ix.get(t).live }
	ok := true
	versionOrderEdges(h, live, func(e knownWW) {
		ca, inA := g.commitOf[e.from]
		cb, inB := g.commitOf[e.to]
		if !ok || !inA || !inB {
			return
		}
		ok = g.addEdge(srchEdge{from: ca, to: cb, kind: EdgeWW, key: e.key, via: e.to, known: true})
	})
	return ok
}

// knownEdge explains a version order edge of the derived history between
// transactions, with the read that revealed the order as its via.
func (g *srchGraph) knownEdge(se srchEdge) Edge {
	h := g.ix.h
	live := func(t history.TxnID) bool { return g.ix.get(t).live }
	from, to := g.nodes[se.from].txn, g.nodes[se.to].txn
	e := Edge{From: from, To: to, Kind: EdgeWW, Key: se.key, Via: revealedBy(h, live, se.key, from, to)}
	fillEdgeOps(h, &e)
	e.Reason = versionOrderReason(h, live, &e)
	return e
}

// addRealTimeEdges adds W(a) → R(b) for a committed before b began, only
// for the pairs real time does not already imply through a third
// transaction c (a ended before c began and c ended before b began): a pair
// is needed iff a ended after the latest start M(b) of the transactions
// that ended before b began. Sorting by end time makes that O(n log n) plus
// the edges added.
func (g *srchGraph) addRealTimeEdges() bool {
	h := g.ix.h
	var byEnd []history.TxnID
	for _, t := range g.txns {
		if h.Txns[t].Outcome == history.Committed && h.Txns[t].End != 0 {
			byEnd = append(byEnd, t)
		}
	}
	slices.SortFunc(byEnd, func(a, b history.TxnID) int { return cmp.Compare(h.Txns[a].End, h.Txns[b].End) })
	maxStart := make([]int64, len(byEnd)) // over byEnd[:i+1]
	for i, t := range byEnd {
		maxStart[i] = h.Txns[t].Start
		if i > 0 {
			maxStart[i] = max(maxStart[i], maxStart[i-1])
		}
	}
	for _, b := range g.txns {
		start := h.Txns[b].Start
		if start == 0 {
			continue
		}
		k, _ := slices.BinarySearchFunc(byEnd, start, func(t history.TxnID, s int64) int { return cmp.Compare(h.Txns[t].End, s) })
		for i := k - 1; i >= 0 && h.Txns[byEnd[i]].End >= maxStart[k-1]; i-- {
			if a := byEnd[i]; a != b && !g.addEdge(srchEdge{from: g.commitOf[a], to: g.readOf[b], kind: EdgeRT, via: b}) {
				return false
			}
		}
	}
	return true
}

// addWeakEdges adds, for every read of the RC, RA or CC transaction t3 of x
// from t1, the edge t2 → t1 for every other writer t2 of x visible to it.
func (g *srchGraph) addWeakEdges(t3 history.TxnID) bool {
	ix := g.ix
	level := ix.levelOf(t3)
	reads := ix.get(t3).reads
	var past map[history.TxnID]bool
	if level == history.Causal {
		past = g.causalPast(t3)
	}
	firstRead := make(map[history.TxnID]uint32, len(reads)) // source → its first statement
	for _, r := range reads {
		if e, ok := firstRead[r.src]; !ok || r.event < e {
			firstRead[r.src] = r.event
		}
	}
	for i := range reads {
		r := &reads[i]
		c1, ok := g.commitOf[r.src]
		if !ok {
			continue
		}
		visible := func(t2 history.TxnID) bool {
			switch {
			case t2 == r.src || t2 == t3:
				return false
			case level == history.Causal:
				return past[t2]
			case g.rtOn && realTimeBefore(ix.h, t2, t3):
				return true
			case ix.h.Txns[t2].Session == ix.h.Txns[t3].Session && ix.get(t2).sessIdx < ix.get(t3).sessIdx && ix.sessionVisible(level):
				return true
			}
			e, read := firstRead[t2]
			return read && (level == history.ReadAtomic || e < r.event)
		}
		for _, t2 := range g.writers[r.key] {
			if visible(t2) && !g.addEdge(srchEdge{from: g.commitOf[t2], to: c1, kind: EdgeWW, key: r.key, via: t3}) {
				return false
			}
		}
	}
	return true
}

// causalPast returns t3's strict (so ∪ wr ∪ rt)+ past within the component.
func (g *srchGraph) causalPast(t3 history.TxnID) map[history.TxnID]bool {
	ix := g.ix
	past := map[history.TxnID]bool{}
	stack := []history.TxnID{t3}
	push := func(t history.TxnID) {
		if _, in := g.commitOf[t]; in && t != history.Init && !past[t] {
			past[t] = true
			stack = append(stack, t)
		}
	}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		push(ix.sessPrev(u))
		for _, r := range ix.get(u).reads {
			push(r.src)
		}
		if g.rtOn {
			for _, t := range g.txns {
				if realTimeBefore(ix.h, t, u) {
					push(t)
				}
			}
		}
	}
	return past
}

// saturate adds the edges the SER-semantics of checked reads and the SI
// intervals imply given the edges so far, until a fixpoint (paper 000,
// FIX(SATURATE)): for a checked read node n of x from t1 and another writer
// t2 of x, t2 before n forces t2 before t1, and t1 before t2 forces n before
// t2; for an SI transaction t and a t4 writing a common key, t4 after R(t)
// forces t4 after W(t), and t4 before W(t) forces t4 before R(t). Each pass
// infers from the closure of the previous one, then recomputes it. It needs
// the closure (it does nothing on components too large to keep one); it
// returns false on a cycle.
func (g *srchGraph) saturate() bool {
	if g.fwd == nil {
		return true
	}
	for {
		added := false
		add := func(e srchEdge) bool {
			if g.reaches(e.from, e.to) {
				return true
			}
			if _, ok := g.edges[[2]int32{e.from, e.to}]; !ok {
				added = true
			}
			return g.addEdge(e)
		}
		for i := range g.nodes {
			n := &g.nodes[i]
			rn := int32(i)
			for _, r := range n.reads {
				c1 := g.commitOf[r.src]
				for _, t2 := range g.writers[r.key] {
					if t2 == r.src || t2 == n.txn {
						continue
					}
					c2 := g.commitOf[t2]
					// With c1 Init, the second rule (n before every writer)
					// subsumes the first and explains a failure better.
					if c1 != 0 && g.reaches(c2, rn) && !add(srchEdge{from: c2, to: c1, kind: EdgeWW, key: r.key, via: n.txn}) {
						return false
					}
					if g.reaches(c1, c2) && !add(srchEdge{from: rn, to: c2, kind: EdgeRW, key: r.key, via: n.txn}) {
						return false
					}
				}
			}
			if !n.opens {
				continue
			}
			w := g.commitOf[n.txn]
			for _, k := range g.nodes[w].writes {
				for _, t4 := range g.writers[k] {
					if t4 == n.txn {
						continue
					}
					c4 := g.commitOf[t4]
					if g.reaches(rn, c4) && !add(srchEdge{from: w, to: c4, kind: EdgeWW, key: k, via: n.txn}) {
						return false
					}
					if g.reaches(c4, w) && !add(srchEdge{from: c4, to: rn, kind: EdgeWW, key: k, via: n.txn}) {
						return false
					}
				}
			}
		}
		if !added {
			return true
		}
		if g.bwd == nil && !g.computeClosure() {
			return false
		}
	}
}
