package oracle

import (
	"cmp"
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
	// known marks a ww edge of the history's version order: an
	// observation, not a consequence of a level's axiom.
	known bool
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
	// fwd[a] is the set of nodes a must precede (the transitive closure,
	// as of the last computeClosure), nil when the component is too large.
	fwd []bitset
	// bwd is fwd transposed, kept with fwd up to date edge by edge when the
	// component has at most incrementalLimit nodes (each edge then costs
	// O(n²/64), but inferences propagate at once); nil otherwise, when
	// saturation recomputes fwd once per pass instead.
	bwd   []bitset
	cycle []srchEdge
	rtOn  bool // real time (strict variants)
}

// saturationLimit is the largest number of nodes whose transitive closure
// the search computes (n² bits, 128 MiB at the limit).
const saturationLimit = 1 << 15

// incrementalLimit is the largest number of nodes whose closure is updated
// edge by edge.
const incrementalLimit = 1024

type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (i & 63) }

func (b bitset) or(o bitset) {
	for i, w := range o {
		b[i] |= w
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
			rn.reads = append(rn.reads, srchRead{r.key, r.src})
		}
		slices.SortFunc(rn.reads, func(a, b srchRead) int {
			if a.key != b.key {
				return cmp.Compare(a.key, b.key)
			}
			return cmp.Compare(a.src, b.src)
		})
		rn.reads = slices.Compact(rn.reads)
		for _, sr := range rn.reads {
			readersOf[sr]++
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
	return g, g.addFixedEdges() && g.computeClosure()
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
// set, when b precedes a by the closure as last computed (a cycle the new
// edges make among themselves is found by the next computeClosure).
func (g *srchGraph) addEdge(e srchEdge) bool {
	a, b := e.from, e.to
	if a == 0 {
		return true
	}
	if a == b || b == 0 || g.reaches(b, a) {
		g.cycle = g.explainCycle(e)
		return false
	}
	if _, ok := g.edges[[2]int32{a, b}]; ok {
		return true
	}
	g.edges[[2]int32{a, b}] = e
	g.succ[a] = append(g.succ[a], b)
	if g.bwd != nil {
		from := slices.Clone(g.bwd[a])
		from.set(a)
		to := slices.Clone(g.fwd[b])
		to.set(b)
		for u := range g.fwd {
			if from.has(int32(u)) {
				g.fwd[u].or(to)
			}
			if to.has(int32(u)) {
				g.bwd[u].or(from)
			}
		}
	}
	return true
}

// computeClosure orders the nodes topologically and, when the component is
// small enough, recomputes fwd in reverse topological order, in O(e·n/64).
// It returns false, with g.cycle set, when the edges have a cycle.
func (g *srchGraph) computeClosure() bool {
	n := len(g.nodes)
	indeg := make([]int32, n)
	for i := range g.succ {
		for _, v := range g.succ[i] {
			indeg[v]++
		}
	}
	order := make([]int32, 0, n)
	for i := range indeg {
		if indeg[i] == 0 {
			order = append(order, int32(i))
		}
	}
	for i := 0; i < len(order); i++ {
		for _, v := range g.succ[order[i]] {
			if indeg[v]--; indeg[v] == 0 {
				order = append(order, v)
			}
		}
	}
	if len(order) < n {
		g.cycle = g.findCycle(indeg)
		return false
	}
	if n > saturationLimit {
		return true
	}
	if g.fwd == nil {
		g.fwd = make([]bitset, n)
		for i := range g.fwd {
			g.fwd[i] = newBitset(n)
		}
	}
	for i := n - 1; i >= 0; i-- {
		u := order[i]
		f := g.fwd[u]
		clear(f)
		for _, v := range g.succ[u] {
			f.or(g.fwd[v])
			f.set(v)
		}
	}
	if n <= incrementalLimit {
		if g.bwd == nil {
			g.bwd = make([]bitset, n)
			for i := range g.bwd {
				g.bwd[i] = newBitset(n)
			}
		}
		for u := range g.bwd {
			clear(g.bwd[u])
		}
		for u := range g.fwd {
			for v := range n {
				if g.fwd[u].has(int32(v)) {
					g.bwd[v].set(int32(u))
				}
			}
		}
	}
	return true
}

// findCycle returns a cycle among the nodes computeClosure could not order
// (indeg > 0): walking back along unordered predecessors must repeat.
func (g *srchGraph) findCycle(indeg []int32) []srchEdge {
	pred := make(map[int32]int32)
	for e := range g.edges {
		if indeg[e[0]] > 0 && indeg[e[1]] > 0 {
			pred[e[1]] = e[0]
		}
	}
	var start int32 = -1
	for v := range indeg {
		if indeg[v] > 0 {
			if _, ok := pred[int32(v)]; ok {
				start = int32(v)
				break
			}
		}
	}
	if start < 0 {
		return nil
	}
	seen := map[int32]bool{}
	v := start
	for !seen[v] {
		seen[v] = true
		v = pred[v]
	}
	var cycle []srchEdge
	for u := v; ; {
		p := pred[u]
		cycle = append(cycle, g.edges[[2]int32{p, u}])
		if u = p; u == v {
			break
		}
	}
	slices.Reverse(cycle)
	return cycle
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
	if e.to == 0 {
		// Nothing precedes Init, which precedes everything.
		return append(cycle, srchEdge{from: 0, to: e.from, kind: EdgeSO, via: g.nodes[e.from].txn})
	}
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
