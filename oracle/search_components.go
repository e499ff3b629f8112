package oracle

import (
	"slices"
)

// components splits the sessions into the biconnected components of the
// communication graph (paper 002 §5): one vertex per session plus one for
// Init, which writes every key, and an edge between two vertices whose
// transactions access a common key. A history satisfies a level iff every
// component's projection does (Theorem 5.2), so each is searched alone, and
// the search's cost is exponential only in the largest component's number
// of sessions. A session in several components (a cut vertex) is searched
// in each. Every session is in at least one component.
func components(ix *txnIndex) [][]int {
	nS := len(ix.sess)
	initV := nS
	adj := make([][]int, nS+1)
	seen := make(map[[2]int]bool)
	link := func(a, b int) {
		if a == b {
			return
		}
		if a > b {
			a, b = b, a
		}
		if !seen[[2]int{a, b}] {
			seen[[2]int{a, b}] = true
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
		}
	}
	byKey := make(map[uint32][]int)
	for s, list := range ix.sess {
		keys := make(map[uint32]bool)
		for _, t := range list {
			for _, op := range ix.h.Txns[t].Ops {
				keys[uint32(op.Key)] = true
			}
		}
		for k := range keys {
			byKey[k] = append(byKey[k], s)
		}
		if len(keys) > 0 {
			link(s, initV)
		}
	}
	for _, ss := range byKey {
		for i := range ss {
			for j := i + 1; j < len(ss); j++ {
				link(ss[i], ss[j])
			}
		}
	}
	b := &bicon{adj: adj, disc: make([]int, nS+1), low: make([]int, nS+1)}
	for v := range b.disc {
		b.disc[v] = -1
	}
	for v := 0; v <= nS; v++ {
		if b.disc[v] < 0 {
			b.visit(v, -1)
		}
	}
	var out [][]int
	inSome := make([]bool, nS)
	for _, comp := range b.comps {
		var ss []int
		for _, v := range comp {
			if v != initV {
				ss = append(ss, v)
				inSome[v] = true
			}
		}
		if len(ss) > 0 {
			slices.Sort(ss)
			out = append(out, slices.Compact(ss))
		}
	}
	for s := range inSome {
		if !inSome[s] {
			out = append(out, []int{s})
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return slices.Compare(a, b) })
	return out
}

// bicon is Hopcroft and Tarjan's biconnected components with an edge stack.
type bicon struct {
	adj       [][]int
	disc, low []int
	time      int
	stack     [][2]int
	comps     [][]int
}

func (b *bicon) visit(u, parent int) {
	b.disc[u], b.low[u] = b.time, b.time
	b.time++
	for _, v := range b.adj[u] {
		switch {
		case b.disc[v] < 0:
			b.stack = append(b.stack, [2]int{u, v})
			b.visit(v, u)
			b.low[u] = min(b.low[u], b.low[v])
			if b.low[v] >= b.disc[u] {
				var comp []int
				for {
					e := b.stack[len(b.stack)-1]
					b.stack = b.stack[:len(b.stack)-1]
					comp = append(comp, e[0], e[1])
					if e == [2]int{u, v} {
						break
					}
				}
				b.comps = append(b.comps, comp)
			}
		case v != parent && b.disc[v] < b.disc[u]:
			b.stack = append(b.stack, [2]int{u, v})
			b.low[u] = min(b.low[u], b.disc[v])
		}
	}
}
