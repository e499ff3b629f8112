package oracle

import (
	"slices"

	"github.com/fickle-db/fickle/history"
)

// shortestCycleBudget bounds the breadth-first searches of shortestCycle, in
// edge visits. Within it the cycle returned is the shortest of its strongly
// connected component; beyond it, the shortest through the nodes searched so
// far (always including those of the cycle found first).
const shortestCycleBudget = 20_000_000

// shortestCycle returns a shortest cycle of g in the strongly connected
// component of the given cycle: a breadth-first search from each node of
// the component finds the shortest cycle through it. A shortest cycle has no
// chord, so every edge of the explanation is needed.
func (g *graph) shortestCycle(cycle []uint32) []uint32 {
	n := len(g.start) - 1
	succStart := make([]uint32, n+1)
	for _, p := range g.preds {
		succStart[p+1]++
	}
	for i := 1; i <= n; i++ {
		succStart[i] += succStart[i-1]
	}
	succ := make([]uint32, len(g.preds))
	fill := append([]uint32(nil), succStart[:n]...)
	for v := 0; v < n; v++ {
		for _, p := range g.predsOf(uint32(v)) {
			succ[fill[p]] = uint32(v)
			fill[p]++
		}
	}
	succOf := func(v uint32) []uint32 { return succ[succStart[v]:succStart[v+1]] }

	// The component: reachable from cycle[0] both ways.
	fwd := reach(n, cycle[0], succOf)
	bwd := reach(n, cycle[0], g.predsOf)
	var comp []uint32
	in := make([]bool, n)
	for v := 0; v < n; v++ {
		if fwd[v] && bwd[v] {
			in[v] = true
			comp = append(comp, uint32(v))
		}
	}
	// Search from the known cycle's nodes first, then the rest.
	order := append([]uint32(nil), cycle...)
	slices.Sort(order)
	for _, v := range comp {
		if _, found := slices.BinarySearch(order[:len(cycle)], v); !found {
			order = append(order, v)
		}
	}
	best := cycle
	dist := make([]int32, n)
	parent := make([]uint32, n)
	for i := range dist {
		dist[i] = -1
	}
	var visited []uint32
	budget := int64(shortestCycleBudget)
	for i, root := range order {
		if budget <= 0 && i >= len(cycle) {
			break
		}
		if len(best) <= 2 {
			break
		}
		for _, v := range visited {
			dist[v] = -1
		}
		visited = append(visited[:0], root)
		dist[root] = 0
		found := false
		for q := 0; q < len(visited) && !found; q++ {
			u := visited[q]
			if int(dist[u])+1 >= len(best) {
				break
			}
			for _, w := range succOf(u) {
				budget--
				if w == root {
					c := []uint32{}
					for x := u; x != root; x = parent[x] {
						c = append(c, x)
					}
					c = append(c, root)
					slices.Reverse(c)
					best, found = c, true
					break
				}
				if in[w] && dist[w] < 0 {
					dist[w] = dist[u] + 1
					parent[w] = u
					visited = append(visited, w)
				}
			}
		}
	}
	return best
}

// reach marks the nodes reachable from v through next.
func reach(n int, v uint32, next func(uint32) []uint32) []bool {
	seen := make([]bool, n)
	seen[v] = true
	stack := []uint32{v}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range next(u) {
			if !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return seen
}

// explainCycle labels every edge of a cycle of co' with the relation it
// comes from (so, then wr, then an inferred ww), re-running the saturation
// to capture why each inferred pair was derived. Runs through the virtual
// nodes of the real-time encoding collapse into one rt or ww edge.
func (s *saturation) explainCycle(cycle []uint32) *Explanation {
	ix := s.ix
	n := uint32(len(ix.h.Txns))
	// Rotate to a real node, then split into segments between real nodes.
	for r, v := range cycle {
		if v < n {
			cycle = append(cycle[r:], cycle[:r]...)
			break
		}
	}
	type segment struct {
		from, to uint32
		last     uint32 // the node just before to: from itself, or a virtual node
		timeline bool
	}
	var segs []segment
	for i := 0; i < len(cycle); {
		seg := segment{from: cycle[i], last: cycle[i]}
		k := i + 1
		for ; cycle[k%len(cycle)] >= n; k++ {
			v := cycle[k%len(cycle)]
			if k == i+1 {
				seg.timeline = s.rt.isTimeline(v)
			}
			seg.last = v
		}
		seg.to = cycle[k%len(cycle)]
		segs = append(segs, seg)
		i = k
	}
	edges := make([]Edge, len(segs))
	vis := make([]visibility, len(segs))
	var need []int
	for i, sg := range segs {
		from, to := history.TxnID(sg.from), history.TxnID(sg.to)
		if sg.last != sg.from && sg.timeline {
			edges[i] = Edge{From: from, To: to, Kind: EdgeRT, FromOp: NoOp, ToOp: NoOp}
			continue
		}
		if sg.last == sg.from {
			if e, ok := soEdge(ix, from, to); ok {
				edges[i] = e
				continue
			}
			if e, ok := wrEdge(ix, from, to); ok {
				edges[i] = e
				continue
			}
		}
		need = append(need, i)
	}
	if len(need) > 0 {
		again := newSaturation(ix, Options{Level: s.opts.Level, RealTime: s.opts.RealTime, RC: s.opts.RC})
		again.capture = make(map[pair]*inference, len(need))
		for _, i := range need {
			again.capture[pair{segs[i].last, segs[i].to}] = nil
		}
		again.run()
		for _, i := range need {
			sg := segs[i]
			inf := again.capture[pair{sg.last, sg.to}]
			if inf == nil { // cannot happen: the pair is an edge of co'
				edges[i] = Edge{From: history.TxnID(sg.from), To: history.TxnID(sg.to), Kind: EdgeWW, FromOp: NoOp, ToOp: NoOp}
				continue
			}
			edges[i], vis[i] = inf.edge, inf.vis
			edges[i].From = history.TxnID(sg.from)
			edges[i].FromOp = ix.lastWrite(edges[i].From, edges[i].Key)
		}
	}
	return newExplanation(ix, edges, vis, s.rt != nil)
}

// soEdge returns the so edge from -> to, if there is one (Init precedes
// every transaction).
func soEdge(ix *index, from, to history.TxnID) (Edge, bool) {
	if int(to) >= len(ix.pos) || !ix.checked(to) {
		return Edge{}, false
	}
	p := ix.pos[to]
	ok := from == history.Init || (p > 0 && ix.sess[ix.h.Txns[to].Session][p-1] == from)
	return Edge{From: from, To: to, Kind: EdgeSO, FromOp: NoOp, ToOp: NoOp}, ok
}

// wrEdge returns a wr edge from -> to (to's first read from from), if any.
func wrEdge(ix *index, from, to history.TxnID) (Edge, bool) {
	if from == to {
		return Edge{}, false
	}
	for j, op := range ix.h.Txns[to].Ops {
		if op.Kind == history.OpRead && op.Writer == from {
			return Edge{From: from, To: to, Kind: EdgeWR, Key: op.Key, FromOp: ix.lastWrite(from, op.Key), ToOp: int32(j)}, true
		}
	}
	return Edge{}, false
}
