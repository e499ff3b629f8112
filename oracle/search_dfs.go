package oracle

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// memoLimit bounds the number of failed states remembered; past it the
// search goes on without remembering more (slower, still exact).
const memoLimit = 1 << 22

// srchState is the search over one component's derived history: paper 002's
// Algorithm 2 (a prefix closed under so grows one node at a time, a node
// may be added when it is a valid extension, failed prefixes are memoized
// by their frontier), with paper 000's pco-closed condition (every edge's
// source placed first) and the SI intervals.
type srchState struct {
	g     *srchGraph
	front []int32 // per chain, the number of nodes placed
	need  []int32 // per node, its unplaced predecessors
	// pending[k] counts unplaced nodes with a checked read of k whose
	// source is placed: while it is not zero nobody may commit k.
	pending []int32
	// open[k] counts SI transactions between R and W that write k: while it
	// is not zero nobody else may commit k.
	open   []int32
	path   []int32
	rank   []int64 // per node, the order candidates are tried in
	failed map[string]struct{}
	key    []byte
	steps  int64
	budget int64 // 0: none
	out    bool  // the budget ran out
	tick   func(steps int64)
	// deepest is the longest prefix reached, for explanations.
	deepest []int32
}

func newSearchState(g *srchGraph, hint []int64, budget int64) *srchState {
	h := g.ix.h
	s := &srchState{
		g:       g,
		front:   make([]int32, len(g.chains)),
		need:    make([]int32, len(g.nodes)),
		pending: make([]int32, len(h.Keys)),
		open:    make([]int32, len(h.Keys)),
		rank:    make([]int64, len(g.nodes)),
		failed:  map[string]struct{}{},
		budget:  budget,
	}
	for e := range g.edges {
		s.need[e[1]]++
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		for _, r := range n.reads {
			if r.src == history.Init {
				s.pending[r.key]++
			}
		}
		s.rank[i] = 2 * hint[n.txn]
		if n.kind == srchCommit {
			s.rank[i]++
		}
	}
	return s
}

// run searches from the empty prefix; on success s.path is the order.
func (s *srchState) run() bool { return s.dfs() }

func (s *srchState) dfs() bool {
	mark := len(s.path)
	s.closure()
	if len(s.path) == len(s.g.nodes)-1 {
		return true
	}
	s.noteDepth()
	s.encode()
	if _, ok := s.failed[string(s.key)]; ok {
		s.undoTo(mark)
		return false
	}
	s.steps++
	if s.tick != nil && s.steps&4095 == 0 {
		s.tick(s.steps)
	}
	if s.budget > 0 && s.steps > s.budget {
		s.out = true
		s.undoTo(mark)
		return false
	}
	var cands []int32
	for c, ch := range s.g.chains {
		if int(s.front[c]) < len(ch) && s.canPlace(ch[s.front[c]]) {
			cands = append(cands, ch[s.front[c]])
		}
	}
	slices.SortFunc(cands, func(a, b int32) int { return int(s.rank[a] - s.rank[b]) })
	for _, n := range cands {
		s.place(n)
		if s.dfs() {
			return true
		}
		s.unplace(n)
		if s.out {
			s.undoTo(mark)
			return false
		}
	}
	if len(s.failed) < memoLimit {
		s.encode()
		s.failed[string(s.key)] = struct{}{}
	}
	s.undoTo(mark)
	return false
}

// closure places every enabled node that commits nothing and opens no SI
// interval. Placing such a node early never hurts: it only removes pending
// reads and enables successors, so any completion of the prefix without it
// is also a completion with it moved forward (no branching on it needed).
func (s *srchState) closure() {
	for changed := true; changed; {
		changed = false
		for c, ch := range s.g.chains {
			for int(s.front[c]) < len(ch) {
				n := ch[s.front[c]]
				nd := &s.g.nodes[n]
				if len(nd.writes) > 0 || nd.opens || s.need[n] > 0 {
					break
				}
				s.place(n)
				changed = true
			}
		}
	}
}

// canPlace reports whether node n (its session's next) is a valid
// extension: its predecessors are placed, it overwrites no key a pending
// checked read still needs, commits no key inside another's SI interval, and
// opens no interval that a conflicting open one would deadlock.
func (s *srchState) canPlace(n int32) bool {
	if s.need[n] > 0 {
		return false
	}
	nd := &s.g.nodes[n]
	for _, k := range nd.writes {
		p := s.pending[k]
		// The node's own reads of k (sorted by key) are not pending for it.
		i, _ := slices.BinarySearchFunc(nd.reads, k, func(r srchRead, k history.KeyID) int { return cmp.Compare(r.key, k) })
		for ; i < len(nd.reads) && nd.reads[i].key == k; i++ {
			p--
		}
		o := s.open[k]
		if nd.closes {
			o--
		}
		if p > 0 || o > 0 {
			return false
		}
	}
	if nd.opens {
		for _, k := range s.g.nodes[s.g.commitOf[nd.txn]].writes {
			if s.open[k] > 0 {
				return false
			}
		}
	}
	return true
}

func (s *srchState) place(n int32) {
	nd := &s.g.nodes[n]
	s.path = append(s.path, n)
	s.front[nd.chain]++
	for _, r := range nd.reads {
		s.pending[r.key]--
	}
	for j, k := range nd.writes {
		s.pending[k] += nd.readers[j]
	}
	if nd.opens {
		for _, k := range s.g.nodes[s.g.commitOf[nd.txn]].writes {
			s.open[k]++
		}
	}
	if nd.closes {
		for _, k := range nd.writes {
			s.open[k]--
		}
	}
	for _, v := range s.g.succ[n] {
		s.need[v]--
	}
}

func (s *srchState) unplace(n int32) {
	nd := &s.g.nodes[n]
	s.path = s.path[:len(s.path)-1]
	s.front[nd.chain]--
	for _, r := range nd.reads {
		s.pending[r.key]++
	}
	for j, k := range nd.writes {
		s.pending[k] -= nd.readers[j]
	}
	if nd.opens {
		for _, k := range s.g.nodes[s.g.commitOf[nd.txn]].writes {
			s.open[k]--
		}
	}
	if nd.closes {
		for _, k := range nd.writes {
			s.open[k]++
		}
	}
	for _, v := range s.g.succ[n] {
		s.need[v]++
	}
}

func (s *srchState) undoTo(mark int) {
	for len(s.path) > mark {
		s.unplace(s.path[len(s.path)-1])
	}
}

// encode writes the frontier, which determines the placed set, into s.key.
func (s *srchState) encode() {
	s.key = s.key[:0]
	for _, f := range s.front {
		s.key = binary.AppendUvarint(s.key, uint64(f))
	}
}

// order returns the commit order the path gives: Init, then each
// transaction at its commit node.
func (s *srchState) order() []history.TxnID {
	co := []history.TxnID{history.Init}
	for _, n := range s.path {
		if nd := &s.g.nodes[n]; nd.kind != srchReadNode {
			co = append(co, nd.txn)
		}
	}
	return co
}
