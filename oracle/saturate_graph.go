package oracle

import "github.com/fickle-db/fickle/history"

// graph is co' = so ∪ wr ∪ inferred over transaction ids, stored as
// predecessor lists (CSR): the wr edges come from the reads themselves, so
// only the inferred pairs are kept as a list.
type graph struct {
	start []uint32
	preds []uint32
}

// graph builds co' from the history and the inferred pairs.
func (s *saturation) graph() *graph {
	ix := s.ix
	n := len(ix.h.Txns)
	nodes := n
	if s.rt != nil {
		nodes += int(s.rt.nodes())
	}
	g := &graph{start: make([]uint32, nodes+1)}
	stamp := make([]uint32, n)
	var gen uint32
	each := func(f func(from, to uint32)) {
		for i := 1; i < n; i++ {
			t := history.TxnID(i)
			if !ix.checked(t) {
				continue
			}
			if p := ix.pos[t]; p == 0 {
				f(uint32(history.Init), uint32(t))
			} else {
				f(uint32(ix.sess[ix.h.Txns[t].Session][p-1]), uint32(t))
			}
			gen++
			for j := range ix.h.Txns[i].Ops {
				op := &ix.h.Txns[i].Ops[j]
				if external(t, op) && stamp[op.Writer] != gen {
					stamp[op.Writer] = gen
					f(uint32(op.Writer), uint32(t))
				}
			}
		}
		for _, p := range s.inferred {
			f(p.from, p.to)
		}
		if s.rt != nil {
			for _, p := range s.rt.edges {
				f(p.from, p.to)
			}
		}
	}
	each(func(_, to uint32) { g.start[to+1]++ })
	for i := 1; i <= nodes; i++ {
		g.start[i] += g.start[i-1]
	}
	g.preds = make([]uint32, g.start[nodes])
	fill := append([]uint32(nil), g.start[:nodes]...)
	each(func(from, to uint32) {
		g.preds[fill[to]] = from
		fill[to]++
	})
	return g
}

// predsOf returns v's predecessors.
func (g *graph) predsOf(v uint32) []uint32 { return g.preds[g.start[v]:g.start[v+1]] }

// findCycle returns a cycle of g as nodes in edge order (each node precedes
// the next, the last precedes the first), or nil when g is acyclic. It is an
// iterative depth-first search over predecessors, O(V + E).
func (g *graph) findCycle() []uint32 {
	n := len(g.start) - 1
	const (
		white = iota
		grey
		black
	)
	color := make([]uint8, n)
	type frame struct{ v, i uint32 }
	var stack []frame
	for root := 0; root < n; root++ {
		if color[root] != white {
			continue
		}
		color[root] = grey
		stack = append(stack[:0], frame{uint32(root), 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			ps := g.predsOf(top.v)
			if int(top.i) == len(ps) {
				color[top.v] = black
				stack = stack[:len(stack)-1]
				continue
			}
			u := ps[top.i]
			top.i++
			switch color[u] {
			case white:
				color[u] = grey
				stack = append(stack, frame{u, 0})
			case grey:
				// Each frame's node is a predecessor of the one below it,
				// so the stack from top down to u is a path in edge order
				// (top -> ... -> u), and u -> top closes it.
				var cyc []uint32
				for k := len(stack) - 1; k >= 0; k-- {
					cyc = append(cyc, stack[k].v)
					if stack[k].v == u {
						break
					}
				}
				return cyc
			}
		}
	}
	return nil
}
