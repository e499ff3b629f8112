package oracle

import (
	"math/bits"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// The search works on a derived history (paper 002 §4.2-4.3, generalised to
// mixed levels the way paper 000 §5 generalises the search itself):
//
//   - a SER transaction is one node that reads and writes atomically;
//   - a PC or SI transaction t is split into a read node R(t), holding all its
//     reads, and a commit node W(t), holding its writes, R(t) before W(t);
//     t's place in co is W(t)'s, its snapshot is R(t)'s;
//   - an RC, RA or CC transaction is one node whose reads are not checked by
//     the search: their axioms do not mention co on the left, so saturation
//     turns them into fixed edges "t2's commit before t1's" once (paper 002
//     §3, paper 000 Alg. 1);
//   - SI's Conflict axiom becomes "no commit of a transaction writing a
//     common key between R(t) and W(t)", the auxiliary variables of paper
//     002's reduction to SER.
//
// A linearisation of the nodes that extends the edges, in which every
// checked read (SER nodes, read nodes) sees the latest commit of its key, and
// that respects the SI intervals, gives a commit order witnessing the
// original history, and every witness gives one (place R(t) right after the
// latest commit t sees). The search looks for such a linearisation one node
// at a time, with states the per-session frontiers (paper 002 Alg. 2).

type srchKind uint8

const (
	srchWhole    srchKind = iota // RC, RA, CC or SER transaction: one node
	srchReadNode                 // R(t) of a PC or SI transaction
	srchCommit                   // W(t) of a PC or SI transaction
)

// srchNode is a node of the derived history.
type srchNode struct {
	txn   history.TxnID
	kind  srchKind
	chain int32 // the session chain it belongs to
	// reads are the checked reads (distinct keys), each of which must see
	// its source as the latest commit of the key when the node is placed.
	reads []srchRead
	// writes are the keys committed at this node.
	writes []history.KeyID
	// readers lists, per written key, how many nodes read that key from
	// this node's transaction (they become pending when it is placed).
	readers []int32
	// opens: the read node of an SI transaction that writes (its Conflict
	// interval starts); closes: that transaction's commit node.
	opens, closes bool
}

type srchRead struct {
	key history.KeyID
	src history.TxnID
}

// srchEdge records why one node must precede another, to explain a cycle.
type srchEdge struct {
	from, to int32
	kind     EdgeKind
	key      history.KeyID
	via      history.TxnID
}

// srchGraph is the derived history of one component, its edges and, when
// small enough, their transitive closure (for saturation).
type srchGraph struct {
	ix     *txnIndex
	nodes  []srchNode // nodes[0] stands for Init and is placed first
	chains [][]int32
	// commitOf and readOf map a transaction to its nodes (-1: not in the
	// component).
	commitOf, readOf map[history.TxnID]int32
	txns             []history.TxnID // the component's transactions
	writers          map[history.KeyID][]history.TxnID
	succ             [][]int32
	edges            map[[2]int32]srchEdge
	fwd, bwd         []bitset // closure, nil when the component is too large
	cycle            []srchEdge
	rtOn             bool // real time (strict variants)
}

// saturationLimit is the largest number of nodes whose transitive closure
// the search keeps (two bitsets of n² bits).
const saturationLimit = 4096

type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (i & 63) }

func (b bitset) or(o bitset) {
	for i, w := range o {
		b[i] |= w
	}
}

func (b bitset) each(f func(i int32)) {
	for wi, w := range b {
		for w != 0 {
			f(int32(wi*64 + bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
}

// buildSearchGraph derives the nodes of the component made of sessions
// (nil: all sessions) and adds the fixed edges. It returns false when they
// already form a cycle (g.cycle says which).
func buildSearchGraph(ix *txnIndex, sessions []int, realTime bool) (*srchGraph, bool) {
	g := &srchGraph{ix: ix, rtOn: realTime, commitOf: map[history.TxnID]int32{}, readOf: map[history.TxnID]int32{},
		writers: map[history.KeyID][]history.TxnID{}, edges: map[[2]int32]srchEdge{}}
	g.nodes = append(g.nodes, srchNode{txn: history.Init, kind: srchWhole, chain: -1})
	g.commitOf[history.Init], g.readOf[history.Init] = 0, 0
	if sessions == nil {
		sessions = make([]int, len(ix.sess))
		for i := range sessions {
			sessions[i] = i
		}
	}
	for _, s := range sessions {
		chain := int32(len(g.chains))
		var ids []int32
		for _, t := range ix.sess[s] {
			g.txns = append(g.txns, t)
			in := ix.get(t)
			level := ix.levelOf(t)
			split := level == history.Prefix || level == history.Snapshot
			n := srchNode{txn: t, kind: srchWhole, chain: chain}
			if split {
				n.kind = srchReadNode
				n.opens = level == history.Snapshot && len(in.writes) > 0
			}
			id := int32(len(g.nodes))
			g.readOf[t] = id
			g.nodes = append(g.nodes, n)
			ids = append(ids, id)
			if split {
				id = int32(len(g.nodes))
				g.nodes = append(g.nodes, srchNode{txn: t, kind: srchCommit, chain: chain, closes: level == history.Snapshot && len(in.writes) > 0})
				ids = append(ids, id)
			}
			g.commitOf[t] = id
			g.nodes[id].writes = in.writes
			for _, k := range in.writes {
				g.writers[k] = append(g.writers[k], t)
			}
		}
		g.chains = append(g.chains, ids)
	}
	// Checked reads, restricted to sources inside the component.
	readersOf := map[srchRead]int32{}
	for _, t := range g.txns {
		level := ix.levelOf(t)
		if level < history.Prefix {
			continue
		}
		rn := &g.nodes[g.readOf[t]]
		for _, r := range ix.get(t).reads {
			if _, ok := g.commitOf[r.src]; !ok {
				continue
			}
			sr := srchRead{r.key, r.src}
			dup := false
			for _, e := range rn.reads {
				dup = dup || e == sr
			}
			if !dup {
				rn.reads = append(rn.reads, sr)
				readersOf[sr]++
			}
		}
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		if len(n.writes) > 0 {
			n.readers = make([]int32, len(n.writes))
			for j, k := range n.writes {
				n.readers[j] = readersOf[srchRead{k, n.txn}]
			}
		}
	}
	g.succ = make([][]int32, len(g.nodes))
	if len(g.nodes) <= saturationLimit {
		g.fwd, g.bwd = make([]bitset, len(g.nodes)), make([]bitset, len(g.nodes))
		for i := range g.nodes {
			g.fwd[i], g.bwd[i] = newBitset(len(g.nodes)), newBitset(len(g.nodes))
		}
	}
	return g, g.addFixedEdges()
}

// reach reports whether a must precede b by the edges so far (closure), or
// false when no closure is kept.
func (g *srchGraph) reaches(a, b int32) bool {
	if a == 0 {
		return true
	}
	return g.fwd != nil && g.fwd[a].has(b)
}

// addEdge records that a must precede b. It returns false, with g.cycle
// set, when b already precedes a.
func (g *srchGraph) addEdge(e srchEdge) bool {
	a, b := e.from, e.to
	if a == 0 {
		return true
	}
	if a == b || b == 0 || g.reaches(b, a) {
		g.cycle = g.explainCycle(e)
		return false
	}
	if g.fwd != nil && g.fwd[a].has(b) {
		return true
	}
	if _, ok := g.edges[[2]int32{a, b}]; ok {
		return true
	}
	g.edges[[2]int32{a, b}] = e
	g.succ[a] = append(g.succ[a], b)
	if g.fwd != nil {
		from := slices.Clone(g.bwd[a])
		from.set(a)
		to := slices.Clone(g.fwd[b])
		to.set(b)
		from.each(func(u int32) { g.fwd[u].or(to) })
		to.each(func(v int32) { g.bwd[v].or(from) })
	}
	return true
}

// explainCycle finds a path from e.to back to e.from over the recorded
// edges and returns it closed by e.
func (g *srchGraph) explainCycle(e srchEdge) []srchEdge {
	prev := map[int32]int32{e.to: -1}
	queue := []int32{e.to}
	for len(queue) > 0 && e.from != e.to {
		u := queue[0]
		queue = queue[1:]
		if u == e.from {
			break
		}
		for _, v := range g.succ[u] {
			if _, ok := prev[v]; !ok {
				prev[v] = u
				queue = append(queue, v)
			}
		}
	}
	cycle := []srchEdge{e}
	if _, ok := prev[e.from]; !ok || e.from == e.to {
		return cycle
	}
	var path []srchEdge
	for v := e.from; prev[v] >= 0; v = prev[v] {
		u := prev[v]
		pe, ok := g.edges[[2]int32{u, v}]
		if !ok {
			pe = srchEdge{from: u, to: v, kind: EdgeSO}
		}
		path = append(path, pe)
	}
	slices.Reverse(path)
	return append(cycle, path...)
}
