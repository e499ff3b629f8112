package oracle

import "github.com/fickle-db/fickle/history"

// happensBefore computes the causal past (so ∪ wr)+ of every transaction as
// a vector clock indexed by session, holding the session position of the
// so-latest transaction of that session in the past (-1 for none): paper
// 003's ComputeHB, computed on the fly in a topological order of so ∪ wr
// (as AWDIT's implementation does), keeping a transaction's clock only while
// some reader of it has yet to be visited. Memory is O(k) per transaction
// with pending readers instead of O(n·k).
type happensBefore struct {
	ix *index
	k  int
	// readers[t]: the distinct transactions that read from t (CSR).
	rStart  []uint32
	readers []history.TxnID
	pending []int32   // per transaction: readers not yet visited
	clocks  [][]int32 // inclusive clock of t while pending[t] > 0
	sessVC  [][]int32 // per session: inclusive clock of its last visited transaction
	cur     []int32   // the exclusive clock of the transaction being visited
	ok      []bool    // per transaction: reached by the topological order
	free    [][]int32
	stamp   []uint32
	gen     uint32
}

func newHappensBefore(ix *index) *happensBefore {
	n := len(ix.h.Txns)
	k := len(ix.h.Sessions)
	hb := &happensBefore{
		ix: ix, k: k,
		rStart:  make([]uint32, n+1),
		pending: make([]int32, n),
		clocks:  make([][]int32, n),
		sessVC:  make([][]int32, k),
		cur:     make([]int32, k),
		ok:      make([]bool, n),
		stamp:   make([]uint32, n),
	}
	for s := range hb.sessVC {
		hb.sessVC[s] = make([]int32, k)
		for i := range hb.sessVC[s] {
			hb.sessVC[s][i] = -1
		}
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

// topoOrder returns the checked transactions in a topological order of
// so ∪ wr (Kahn's algorithm). Transactions on or behind a cycle of so ∪ wr
// come last and are never reached: their clock is nil.
func (hb *happensBefore) topoOrder() []history.TxnID {
	ix := hb.ix
	n := len(ix.h.Txns)
	indeg := make([]int32, n)
	for t := 1; t < n; t++ {
		if ix.checked(history.TxnID(t)) && ix.pos[t] > 0 {
			indeg[t]++
		}
	}
	for _, r := range hb.readers {
		indeg[r]++
	}
	order := make([]history.TxnID, 0, n)
	for t := 1; t < n; t++ {
		if ix.checked(history.TxnID(t)) && indeg[t] == 0 {
			order = append(order, history.TxnID(t))
		}
	}
	release := func(t history.TxnID) {
		indeg[t]--
		if indeg[t] == 0 {
			order = append(order, t)
		}
	}
	for i := 0; i < len(order); i++ {
		t := order[i]
		hb.ok[t] = true
		if s, p := ix.h.Txns[t].Session, ix.pos[t]; int(p)+1 < len(ix.sess[s]) {
			release(ix.sess[s][p+1])
		}
		for _, r := range hb.readers[hb.rStart[t]:hb.rStart[t+1]] {
			release(r)
		}
	}
	for t := 1; t < n; t++ {
		if ix.checked(history.TxnID(t)) && !hb.ok[t] {
			order = append(order, history.TxnID(t))
		}
	}
	return order
}

// visit computes t's clock; every writer t reads from has been visited.
func (hb *happensBefore) visit(t history.TxnID) {
	if !hb.ok[t] {
		return
	}
	ix := hb.ix
	s := ix.h.Txns[t].Session
	copy(hb.cur, hb.sessVC[s])
	hb.gen++
	for j := range ix.h.Txns[t].Ops {
		op := &ix.h.Txns[t].Ops[j]
		if !external(t, op) || op.Writer == history.Init || hb.stamp[op.Writer] == hb.gen {
			continue
		}
		hb.stamp[op.Writer] = hb.gen
		for i, p := range hb.clocks[op.Writer] {
			if p > hb.cur[i] {
				hb.cur[i] = p
			}
		}
	}
	incl := hb.sessVC[s]
	copy(incl, hb.cur)
	incl[s] = ix.pos[t]
	if hb.pending[t] > 0 {
		c := hb.alloc()
		copy(c, incl)
		hb.clocks[t] = c
	}
}

// clock returns the exclusive clock of the transaction just visited, or
// nil when it lies behind a cycle of so ∪ wr.
func (hb *happensBefore) clock(t history.TxnID) []int32 {
	if !hb.ok[t] {
		return nil
	}
	return hb.cur
}

// done releases the clocks of t's writers that have no reader left.
func (hb *happensBefore) done(t history.TxnID) {
	if !hb.ok[t] {
		return
	}
	ix := hb.ix
	hb.gen++
	for j := range ix.h.Txns[t].Ops {
		op := &ix.h.Txns[t].Ops[j]
		if !external(t, op) || op.Writer == history.Init || hb.stamp[op.Writer] == hb.gen {
			continue
		}
		w := op.Writer
		hb.stamp[w] = hb.gen
		if hb.pending[w]--; hb.pending[w] == 0 && hb.clocks[w] != nil {
			hb.free = append(hb.free, hb.clocks[w])
			hb.clocks[w] = nil
		}
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
