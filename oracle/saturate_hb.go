package oracle

import "github.com/fickle-db/fickle/history"

// happensBefore computes the causal past (so ∪ wr)+ of every transaction as
// a vector clock indexed by session, holding the session position of the
// so-latest transaction of that session in the past (-1 for none): paper
// 003's ComputeHB, computed on the fly in a topological order of so ∪ wr
// (as AWDIT's implementation does), keeping a node's clock only while some
// successor of it has yet to be visited. Memory is O(k) per node with
// pending successors instead of O(n·k).
//
// With real time, the causal past is (so ∪ wr ∪ rt)+ and the order also
// covers the timeline's virtual nodes (see realTime): a timeline node's
// clock is its predecessor's joined with the transaction that committed
// there, and a transaction joins the clock of its start.
type happensBefore struct {
	ix *index
	rt *realTime // nil without real time
	k  int
	n  int // transactions; timeline node i is n+i
	// readers[t]: the distinct transactions that read from t (CSR).
	rStart  []uint32
	readers []history.TxnID
	pending []int32   // per node: successors not yet visited
	clocks  [][]int32 // inclusive clock of a node while pending > 0
	sessVC  [][]int32 // per session: inclusive clock of its last visited transaction, nil before the first and after the last
	cur     []int32   // the exclusive clock of the transaction being visited
	ok      []bool    // per node: reached by the topological order
	start   []uint32  // with real time: each timed transaction's start node, or none
	end     []uint32  // with real time: each committed timed transaction's commit node, or none
	free    [][]int32
	stamp   []uint32
	gen     uint32
}

func newHappensBefore(ix *index, rt *realTime) *happensBefore {
	n := len(ix.h.Txns)
	k := len(ix.h.Sessions)
	nodes := n
	if rt != nil {
		nodes += len(rt.timeline)
	}
	hb := &happensBefore{
		ix: ix, rt: rt, k: k, n: n,
		rStart:  make([]uint32, n+1),
		pending: make([]int32, nodes),
		clocks:  make([][]int32, nodes),
		sessVC:  make([][]int32, k),
		cur:     make([]int32, k),
		ok:      make([]bool, nodes),
		stamp:   make([]uint32, n),
	}
	// Count, then fill, the distinct wr pairs.
	hb.eachWriter(func(w, r history.TxnID) { hb.rStart[w+1]++ })
	for i := 1; i <= n; i++ {
		hb.rStart[i] += hb.rStart[i-1]
	}
	hb.readers = make([]history.TxnID, hb.rStart[n])
	fill := append([]uint32(nil), hb.rStart[:n]...)
	hb.eachWriter(func(w, r history.TxnID) {
		hb.readers[fill[w]] = r
		fill[w]++
		hb.pending[w]++
	})
	if rt != nil {
		hb.start, hb.end = make([]uint32, n), make([]uint32, n)
		for i := range hb.start {
			hb.start[i], hb.end[i] = none, none
		}
		for i, e := range rt.timeline {
			v := n + i
			if i+1 < len(rt.timeline) {
				hb.pending[v]++
			}
			if e.end {
				hb.pending[e.txn]++
				hb.end[e.txn] = uint32(v)
			} else {
				hb.start[e.txn] = uint32(v)
				hb.pending[v]++
			}
		}
	}
	return hb
}

// eachWriter calls f once for every distinct pair (writer, reader) of
// checked transactions, Init excluded, with reader != writer.
func (hb *happensBefore) eachWriter(f func(w, r history.TxnID)) {
	ix := hb.ix
	for i := 1; i < len(ix.h.Txns); i++ {
		r := history.TxnID(i)
		if !ix.checked(r) {
			continue
		}
		hb.gen++
		for j := range ix.h.Txns[i].Ops {
			op := &ix.h.Txns[i].Ops[j]
			if external(r, op) && op.Writer != history.Init && hb.stamp[op.Writer] != hb.gen {
				hb.stamp[op.Writer] = hb.gen
				f(op.Writer, r)
			}
		}
	}
}

// topoOrder returns the checked transactions and the timeline's nodes in a
// topological order of so ∪ wr (∪ rt) (Kahn's algorithm). Transactions on
// or behind a cycle come last and are never reached: their clock is nil.
func (hb *happensBefore) topoOrder() []uint32 {
	ix := hb.ix
	n := hb.n
	indeg := make([]int32, len(hb.pending))
	for t := 1; t < n; t++ {
		if ix.checked(history.TxnID(t)) && ix.pos[t] > 0 {
			indeg[t]++
		}
	}
	for _, r := range hb.readers {
		indeg[r]++
	}
	if hb.rt != nil {
		for i, e := range hb.rt.timeline {
			if i > 0 {
				indeg[n+i]++
			}
			if e.end {
				indeg[n+i]++
			} else {
				indeg[e.txn]++
			}
		}
	}
	order := make([]uint32, 0, len(indeg))
	for v := 1; v < len(indeg); v++ {
		if (v >= n || ix.checked(history.TxnID(v))) && indeg[v] == 0 {
			order = append(order, uint32(v))
		}
	}
	release := func(v uint32) {
		indeg[v]--
		if indeg[v] == 0 {
			order = append(order, v)
		}
	}
	for i := 0; i < len(order); i++ {
		v := order[i]
		hb.ok[v] = true
		if int(v) >= n {
			j := int(v) - n
			if j+1 < len(hb.rt.timeline) {
				release(v + 1)
			}
			if e := hb.rt.timeline[j]; !e.end {
				release(uint32(e.txn))
			}
			continue
		}
		t := history.TxnID(v)
		if s, p := ix.h.Txns[t].Session, ix.pos[t]; int(p)+1 < len(ix.sess[s]) {
			release(uint32(ix.sess[s][p+1]))
		}
		for _, r := range hb.readers[hb.rStart[t]:hb.rStart[t+1]] {
			release(uint32(r))
		}
		if hb.rt != nil && hb.end[t] != none {
			release(hb.end[t])
		}
	}
	for t := 1; t < n; t++ {
		if ix.checked(history.TxnID(t)) && !hb.ok[t] {
			order = append(order, uint32(t))
		}
	}
	return order
}

// join merges clock c into cur.
func (hb *happensBefore) join(c []int32) {
	for i, p := range c {
		if p > hb.cur[i] {
			hb.cur[i] = p
		}
	}
}

// visitTimeline computes the clock of timeline node v.
func (hb *happensBefore) visitTimeline(v uint32) {
	if !hb.ok[v] {
		return
	}
	j := int(v) - hb.n
	for i := range hb.cur {
		hb.cur[i] = -1
	}
	if j > 0 {
		hb.join(hb.clocks[v-1])
		hb.release(v - 1)
	}
	if e := hb.rt.timeline[j]; e.end {
		hb.join(hb.clocks[e.txn])
		hb.release(uint32(e.txn))
	}
	if hb.pending[v] > 0 {
		c := hb.alloc()
		copy(c, hb.cur)
		hb.clocks[v] = c
	}
}

// visit computes t's clock; every predecessor of t has been visited.
func (hb *happensBefore) visit(t history.TxnID) {
	if !hb.ok[t] {
		return
	}
	ix := hb.ix
	s := ix.h.Txns[t].Session
	if vc := hb.sessVC[s]; vc != nil {
		copy(hb.cur, vc)
	} else {
		for i := range hb.cur {
			hb.cur[i] = -1
		}
	}
	if hb.start != nil && hb.start[t] != none {
		hb.join(hb.clocks[hb.start[t]])
	}
	hb.gen++
	for j := range ix.h.Txns[t].Ops {
		op := &ix.h.Txns[t].Ops[j]
		if !external(t, op) || op.Writer == history.Init || hb.stamp[op.Writer] == hb.gen {
			continue
		}
		hb.stamp[op.Writer] = hb.gen
		hb.join(hb.clocks[op.Writer])
	}
	incl := hb.sessVC[s]
	if incl == nil {
		incl = hb.alloc()
		hb.sessVC[s] = incl
	}
	copy(incl, hb.cur)
	incl[s] = ix.pos[t]
	if hb.pending[t] > 0 {
		c := hb.alloc()
		copy(c, incl)
		hb.clocks[t] = c
	}
	// A session's clock lives from its first transaction to its last: with
	// thousands of short sessions (a server's connections) a clock per
	// session for the whole run would be k² entries.
	if int(ix.pos[t])+1 == len(ix.sess[s]) {
		hb.free = append(hb.free, incl)
		hb.sessVC[s] = nil
	}
}

// clock returns the exclusive clock of the transaction just visited, or
// nil when it lies behind a cycle.
func (hb *happensBefore) clock(t history.TxnID) []int32 {
	if !hb.ok[t] {
		return nil
	}
	return hb.cur
}

// done releases the clocks of t's predecessors that have no successor left.
func (hb *happensBefore) done(t history.TxnID) {
	if !hb.ok[t] {
		return
	}
	ix := hb.ix
	if hb.start != nil && hb.start[t] != none {
		hb.release(hb.start[t])
	}
	hb.gen++
	for j := range ix.h.Txns[t].Ops {
		op := &ix.h.Txns[t].Ops[j]
		if !external(t, op) || op.Writer == history.Init || hb.stamp[op.Writer] == hb.gen {
			continue
		}
		hb.stamp[op.Writer] = hb.gen
		hb.release(uint32(op.Writer))
	}
}

// release notes that one successor of v was visited, and recycles v's
// clock after the last.
func (hb *happensBefore) release(v uint32) {
	if hb.pending[v]--; hb.pending[v] == 0 && hb.clocks[v] != nil {
		hb.free = append(hb.free, hb.clocks[v])
		hb.clocks[v] = nil
	}
}

func (hb *happensBefore) alloc() []int32 {
	if n := len(hb.free); n > 0 {
		c := hb.free[n-1]
		hb.free = hb.free[:n-1]
		return c
	}
	return make([]int32, hb.k)
}
