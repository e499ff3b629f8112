package oracle

import (
	"math/rand/v2"
	"testing"
)

// graphOf builds a graph from edges over n nodes.
func graphOf(n int, edges [][2]uint32) *graph {
	g := &graph{start: make([]uint32, n+1)}
	for _, e := range edges {
		g.start[e[1]+1]++
	}
	for i := 1; i <= n; i++ {
		g.start[i] += g.start[i-1]
	}
	g.preds = make([]uint32, len(edges))
	fill := append([]uint32(nil), g.start[:n]...)
	for _, e := range edges {
		g.preds[fill[e[1]]] = e[0]
		fill[e[1]]++
	}
	return g
}

// girth returns the length of a shortest cycle by breadth-first search from
// every node (0 when acyclic).
func girth(n int, edges [][2]uint32) int {
	succ := make([][]uint32, n)
	for _, e := range edges {
		succ[e[0]] = append(succ[e[0]], e[1])
	}
	best := 0
	for root := 0; root < n; root++ {
		dist := make([]int, n)
		for i := range dist {
			dist[i] = -1
		}
		dist[root] = 0
		q := []int{root}
		for len(q) > 0 {
			u := q[0]
			q = q[1:]
			for _, w := range succ[u] {
				if int(w) == root && (best == 0 || dist[u]+1 < best) {
					best = dist[u] + 1
				}
				if dist[w] < 0 {
					dist[w] = dist[u] + 1
					q = append(q, int(w))
				}
			}
		}
	}
	return best
}

// isCycle reports whether c follows edges of g and closes.
func isCycle(g *graph, c []uint32) bool {
	for i, v := range c {
		w := c[(i+1)%len(c)]
		found := false
		for _, p := range g.predsOf(w) {
			found = found || p == v
		}
		if !found {
			return false
		}
	}
	return len(c) > 0
}

// TestShortestCycleIsAShortestCycleOfItsComponent: on random graphs whose
// cycles all share one strongly connected component, findCycle finds a
// cycle exactly when there is one, and shortestCycle returns a real cycle
// of the graph's girth.
func TestShortestCycleIsAShortestCycleOfItsComponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		n := 2 + rng.IntN(9)
		var edges [][2]uint32
		// A DAG along 0..n-1 plus a few edges back into node 0, so that
		// every cycle goes through 0 (one component). No self-loops: co'
		// has none.
		for j := 0; j < n*2; j++ {
			a, b := rng.IntN(n), rng.IntN(n)
			if a < b {
				edges = append(edges, [2]uint32{uint32(a), uint32(b)})
			}
		}
		for j := rng.IntN(3); j > 0; j-- {
			edges = append(edges, [2]uint32{uint32(1 + rng.IntN(n-1)), 0})
			edges = append(edges, [2]uint32{0, uint32(rng.IntN(n-1) + 1)})
		}
		g := graphOf(n, edges)
		want := girth(n, edges)
		c := g.findCycle()
		if (c == nil) != (want == 0) {
			t.Fatalf("case %d: findCycle = %v, girth %d, edges %v", i, c, want, edges)
		}
		if c == nil {
			continue
		}
		if !isCycle(g, c) {
			t.Fatalf("case %d: findCycle returned %v, not a cycle of %v", i, c, edges)
		}
		s := g.shortestCycle(c)
		if !isCycle(g, s) || len(s) != want {
			t.Fatalf("case %d: shortestCycle = %v (from %v), girth %d, edges %v", i, s, c, want, edges)
		}
	}
}
