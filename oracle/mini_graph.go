package oracle

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// The dependency graph of a read-modify-write history (paper 001,
// BuildDependency without the transitive closure of WW, §IV-C), as
// adjacency arrays. Its nodes are the transactions (node t is transaction
// t), for SI a second node per transaction (mid(t) = n+t), and with real
// time one virtual node per committed transaction with an end time, in
// end-time order.
//
// SER is the plain graph: SO, WR (which, for a reader that overwrites the
// key, is also its WW edge), RW and RT. SI is (SO ∪ WR ∪ WW ∪ RT) ; RW?
// without building the composition: a base edge a→b is also an edge
// a→mid(b), and b's read-write edges leave from mid(b) only, so a path
// through mid(b) is one base edge followed by one read-write edge, and the
// graph is acyclic exactly when the composition is. RT goes through the
// virtual nodes: t → v(rank t) → v(rank t + 1) → ... → every transaction
// that began after t ended, so that n transactions need O(n) edges after an
// O(n log n) sort instead of O(n²) pairs. Init has no incoming edge (it
// precedes every transaction and overwrites no version), so its outgoing
// ones are left out.
type miniGraph struct {
	n, nodes int
	si       bool
	vbase    int32
	start    []int32 // by node: out-edges are to[start[v]:start[v+1]]
	to       []int32
}

// miniRT orders the committed transactions with an end time by it.
type miniRT struct {
	ends []int64         // ascending
	rank []int32         // by TxnID: position in ends, -1 for none
	txns []history.TxnID // by position
}

// maxMiniEdges bounds the graph: only the read-write edges of divergent
// versions (readers × overwriters) can make it larger than linear.
const maxMiniEdges = 1 << 26

// graphTooLarge says why the cycle search would not be linear, or "".
func (c *miniChecker) graphTooLarge() string {
	var extra int64
	for _, v := range c.divergent {
		extra += int64(c.readers[v]) * int64(c.owStart[v+1]-c.owStart[v])
	}
	if limit := int64(4*len(c.reads)) + maxMiniEdges; extra > limit {
		return fmt.Sprintf("the %d versions read and overwritten by several transactions (lost updates) would add %d read-write edges", len(c.divergent), extra)
	}
	return ""
}

func (c *miniChecker) buildRT() *miniRT {
	rt := &miniRT{rank: make([]int32, c.n)}
	for i := range rt.rank {
		rt.rank[i] = -1
	}
	for i := 1; i < c.n; i++ {
		if t := &c.h.Txns[i]; t.Outcome == history.Committed && t.End != 0 {
			rt.txns = append(rt.txns, history.TxnID(i))
		}
	}
	slices.SortStableFunc(rt.txns, func(a, b history.TxnID) int { return cmp.Compare(c.h.Txns[a].End, c.h.Txns[b].End) })
	rt.ends = make([]int64, len(rt.txns))
	for p, t := range rt.txns {
		rt.ends[p], rt.rank[t] = c.h.Txns[t].End, int32(p)
	}
	return rt
}

// before returns how many committed transactions ended before start.
func (rt *miniRT) before(start int64) int {
	i, _ := slices.BinarySearch(rt.ends, start) // the first end >= start
	return i
}

// sessNext returns t's next live transaction in its session, or false.
func (c *miniChecker) sessNext(t history.TxnID) (history.TxnID, bool) {
	s := c.h.Txns[t].Session
	list := c.ix.sess[s]
	if p := c.ix.pos[t]; p >= 0 && int(p)+1 < len(list) {
		return list[p+1], true
	}
	return 0, false
}

// rwTargets calls f for each read-write edge of t: to each transaction
// that overwrote a version t read, except between two overwriters of a
// divergent version (that lost update is reported on its own, and the
// verdict does not depend on the edge).
func (c *miniChecker) rwTargets(t history.TxnID, f func(r *miniRead, o history.TxnID)) {
	reads := c.txnReads(t)
	for i := range reads {
		r := &reads[i]
		if r.overwrite && c.isDivergent(r.ver) {
			continue
		}
		for _, o := range c.overwriters(r.ver) {
			if o != t {
				f(r, o)
			}
		}
	}
}

// buildGraph builds the graph for SER (si false) or SI: the edges are
// collected as (from, to) pairs, then counting-sorted by from.
func (c *miniChecker) buildGraph(si bool, rt *miniRT) *miniGraph {
	g := &miniGraph{n: c.n, si: si}
	g.nodes = c.n
	if si {
		g.nodes += c.n
	}
	g.vbase = int32(g.nodes)
	if rt != nil {
		g.nodes += len(rt.txns)
	}
	pairs := c.edges(g, rt)
	g.start = make([]int32, g.nodes+1)
	for _, p := range pairs {
		g.start[p>>32+1]++
	}
	for v := 1; v <= g.nodes; v++ {
		g.start[v] += g.start[v-1]
	}
	g.to = make([]int32, len(pairs))
	next := slices.Clone(g.start[:g.nodes])
	for _, p := range pairs {
		from := p >> 32
		g.to[next[from]] = int32(uint32(p))
		next[from]++
	}
	return g
}

// edges returns every edge of g (see miniGraph) as from<<32 | to.
func (c *miniChecker) edges(g *miniGraph, rt *miniRT) []uint64 {
	var hasRW []bool // SI: whether a transaction has read-write edges
	if g.si {
		hasRW = make([]bool, c.n)
		for t := 1; t < c.n; t++ {
			c.rwTargets(history.TxnID(t), func(*miniRead, history.TxnID) { hasRW[t] = true })
		}
	}
	pairs := make([]uint64, 0, 4*(c.n+len(c.reads)))
	edge := func(a, b int32) { pairs = append(pairs, uint64(a)<<32|uint64(uint32(b))) }
	base := func(a int32, b history.TxnID) {
		edge(a, int32(b))
		if g.si && hasRW[b] {
			edge(a, int32(c.n)+int32(b))
		}
	}
	rwFrom := func(t history.TxnID) int32 {
		if g.si {
			return int32(c.n) + int32(t)
		}
		return int32(t)
	}
	for i := 1; i < c.n; i++ {
		t := history.TxnID(i)
		if !c.ix.live[t] {
			continue
		}
		if next, ok := c.sessNext(t); ok {
			base(int32(t), next)
		}
		for _, r := range c.txnReads(t) {
			if r.src != history.Init {
				base(int32(r.src), t)
			}
		}
		c.rwTargets(t, func(_ *miniRead, o history.TxnID) { edge(rwFrom(t), int32(o)) })
		if rt == nil {
			continue
		}
		if p := rt.rank[t]; p >= 0 {
			edge(int32(t), g.vbase+p)
		}
		if start := c.h.Txns[i].Start; start != 0 {
			if k := rt.before(start); k > 0 {
				base(g.vbase+int32(k-1), t)
			}
		}
	}
	if rt != nil {
		for p := 0; p+1 < len(rt.txns); p++ {
			edge(g.vbase+int32(p), g.vbase+int32(p+1))
		}
	}
	return pairs
}

// components calls f with each strongly connected component of g that
// has a cycle (two nodes or more: g has no self-loops), by Tarjan's
// algorithm without recursion.
func (g *miniGraph) components(f func(comp []int32)) {
	index := make([]int32, g.nodes) // 0: not visited; else visit order + 1
	low := make([]int32, g.nodes)
	onStack := make([]bool, g.nodes)
	var stack []int32
	type frame struct{ v, e int32 }
	var calls []frame
	counter := int32(0)
	for root := int32(0); root < int32(g.nodes); root++ {
		if index[root] != 0 || g.start[root] == g.start[root+1] {
			continue
		}
		counter++
		index[root], low[root] = counter, counter
		stack = append(stack, root)
		onStack[root] = true
		calls = append(calls[:0], frame{root, g.start[root]})
		for len(calls) > 0 {
			fr := &calls[len(calls)-1]
			v := fr.v
			if fr.e < g.start[v+1] {
				w := g.to[fr.e]
				fr.e++
				switch {
				case index[w] == 0:
					counter++
					index[w], low[w] = counter, counter
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{w, g.start[w]})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			i := len(stack) - 1
			for stack[i] != v {
				i--
			}
			comp := stack[i:]
			for _, w := range comp {
				onStack[w] = false
			}
			if len(comp) > 1 {
				f(comp)
			}
			stack = stack[:i]
		}
	}
}

// maxCycleRoots bounds the nodes of a component that shortestCycle
// searches a cycle from, and maxCycleWork the nodes all its searches of
// one component visit.
const (
	maxCycleRoots = 64
	maxCycleWork  = 1 << 16
)

// shortestCycle returns a short cycle of comp, as its nodes in order (the
// last has an edge to the first): the shortest through any of its first
// maxCycleRoots transaction nodes, so that a small component gives its
// shortest cycle (a lost update or a write skew rather than a longer
// cycle around them). mark and parent are scratch arrays of g.nodes
// entries; stamp identifies comp in mark.
func (g *miniGraph) shortestCycle(comp []int32, mark []int32, parent []int32, stamp int32) []int32 {
	for _, v := range comp {
		mark[v] = stamp
	}
	// Each search visits the component once: bound their total work.
	n := min(maxCycleRoots, max(1, maxCycleWork/len(comp)))
	roots := make([]int32, 0, n)
	for _, v := range comp {
		if v < int32(g.n) && len(roots) < n {
			roots = append(roots, v)
		}
	}
	slices.Sort(roots)
	var best []int32
	for _, root := range roots {
		if c := g.cycleThrough(root, comp, mark, parent, stamp, len(best)); c != nil {
			best = c
		}
		if len(best) == 2 {
			break // no shorter cycle: g has no self-loops
		}
	}
	return best
}

// cycleThrough returns a shortest cycle of comp through root, by a
// breadth-first search, or nil when it would not be shorter than limit
// (0: no limit).
func (g *miniGraph) cycleThrough(root int32, comp []int32, mark []int32, parent []int32, stamp int32, limit int) []int32 {
	for _, v := range comp {
		parent[v] = -1
	}
	level := []int32{root}
	for length := 1; len(level) > 0 && (limit == 0 || length < limit); length++ {
		var next []int32
		for _, u := range level {
			for e := g.start[u]; e < g.start[u+1]; e++ {
				w := g.to[e]
				switch {
				case mark[w] != stamp:
				case w == root:
					path := []int32{}
					for v := u; v != root; v = parent[v] {
						path = append(path, v)
					}
					path = append(path, root)
					slices.Reverse(path)
					return path
				case parent[w] < 0:
					parent[w] = u
					next = append(next, w)
				}
			}
		}
		level = next
	}
	return nil
}

// cycles decides acyclicity at the checked level and reports its
// cycles: for SER every pair of transactions with edges both ways (a
// write skew, say), then one shortest cycle of each strongly connected
// component, unless that cycle is a pair already reported.
func (c *miniChecker) cycles(res *MiniResult) {
	var rt *miniRT
	if c.opts.RealTime {
		rt = c.buildRT()
	}
	g := c.buildGraph(c.opts.Level == history.Snapshot, rt)
	// seen keeps the transactions of each cycle reported, so that a
	// component whose cycle Check narrows to one already reported adds
	// nothing.
	seen := map[string]bool{}
	report := func(path []int32) {
		edges, involved := c.cycleEdges(g, path)
		fallback := &Explanation{Level: c.opts.Level, Cycle: edges}
		fallback.Anomaly = anomalyName(c.opts.Level, edges, nil)
		e := c.explain(fallback, involved, len(res.Violations) < maxMiniExplained)
		var ts []history.TxnID
		for _, ed := range e.Cycle {
			ts = append(ts, ed.From)
		}
		slices.Sort(ts)
		id := e.Anomaly + fmt.Sprint(ts)
		if !seen[id] {
			seen[id] = true
			res.add(e)
		}
	}
	pairs := map[[2]int32]bool{}
	if !g.si {
		g.pairs(func(u, v int32) {
			pairs[[2]int32{u, v}] = true
			report([]int32{u, v})
		})
	}
	mark := make([]int32, g.nodes)
	parent := make([]int32, g.nodes)
	stamp := int32(0)
	g.components(func(comp []int32) {
		stamp++
		path := g.shortestCycle(comp, mark, parent, stamp)
		if path == nil || len(path) == 2 && pairs[[2]int32{min(path[0], path[1]), max(path[0], path[1])}] {
			return
		}
		report(path)
	})
}

// pairs calls f(u, v), u < v, for each two transactions with edges both
// ways. It sorts each node's edges.
func (g *miniGraph) pairs(f func(u, v int32)) {
	for v := 0; v < g.nodes; v++ {
		slices.Sort(g.to[g.start[v]:g.start[v+1]])
	}
	for u := int32(0); u < int32(g.n); u++ {
		out := g.to[g.start[u]:g.start[u+1]]
		for i, v := range out {
			if v <= u || v >= int32(g.n) || i > 0 && out[i-1] == v {
				continue
			}
			if _, found := slices.BinarySearch(g.to[g.start[v]:g.start[v+1]], u); found {
				f(u, v)
			}
		}
	}
}

// cycleEdges turns a cycle of g's nodes into the dependency edges it
// stands for (see miniGraph), and lists the transactions involved: those
// of the cycle and the writers of the versions its read-write edges
// overwrote.
func (c *miniChecker) cycleEdges(g *miniGraph, path []int32) ([]Edge, []history.TxnID) {
	n := int32(c.n)
	isMid := func(v int32) bool { return g.si && v >= n && v < g.vbase }
	txnOf := func(v int32) history.TxnID {
		if v >= n {
			v -= n
		}
		return history.TxnID(v)
	}
	nodes := append(slices.Clone(path), path[0])
	var edges []Edge
	var involved []history.TxnID
	for i := 0; i+1 < len(nodes); {
		a := nodes[i]
		if isMid(a) {
			e := c.rwEdge(txnOf(a), txnOf(nodes[i+1]))
			edges = append(edges, e)
			involved = append(involved, e.Via)
			i++
			continue
		}
		j := i + 1
		for nodes[j] >= g.vbase {
			j++
		}
		from, to := txnOf(a), txnOf(nodes[j])
		var e Edge
		switch {
		case j > i+1:
			e = Edge{From: from, To: to, Kind: EdgeRT, FromOp: NoOp, ToOp: NoOp}
		default:
			e = c.baseEdge(from, to, !g.si)
		}
		if e.Kind == EdgeRW {
			involved = append(involved, e.Via)
		}
		edges = append(edges, e)
		involved = append(involved, from, to)
		i = j
	}
	for k := range edges {
		if edges[k].Kind == EdgeRW {
			edges[k].Via = edges[k].From
		}
	}
	return edges, involved
}

// baseEdge finds why a→b is an edge: b read a version a wrote, or b
// follows a in its session, or (allowRW) b overwrote a version a read.
func (c *miniChecker) baseEdge(a, b history.TxnID, allowRW bool) Edge {
	for _, r := range c.txnReads(b) {
		if r.src == a {
			return Edge{From: a, To: b, Kind: EdgeWR, Key: r.key, FromOp: c.ix.lastWrite(a, r.key), ToOp: r.op, Via: b}
		}
	}
	if next, ok := c.sessNext(a); ok && next == b {
		return Edge{From: a, To: b, Kind: EdgeSO, FromOp: NoOp, ToOp: NoOp}
	}
	if allowRW {
		return c.rwEdge(a, b)
	}
	return Edge{From: a, To: b, Kind: EdgeSO, FromOp: NoOp, ToOp: NoOp}
}

// rwEdge finds the version a read that b overwrote. Via is the version's
// writer until cycleEdges has collected it.
func (c *miniChecker) rwEdge(a, b history.TxnID) Edge {
	e := Edge{From: a, To: b, Kind: EdgeRW, FromOp: NoOp, ToOp: NoOp, Via: a}
	c.rwTargets(a, func(r *miniRead, o history.TxnID) {
		if o == b && e.FromOp == NoOp {
			e.Key, e.FromOp, e.ToOp, e.Via = r.key, r.op, c.ix.lastWrite(b, r.key), r.src
		}
	})
	return e
}
