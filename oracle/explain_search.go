package oracle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// Explanations of the violations the commit-order search finds (PC, SI,
// SER), in saturation's vocabulary: a short cycle of so, wr, ww, rw and rt
// edges between transactions, each edge naming the key, the versions by
// their writers and the statements' SQL.
//
// The search proves that no commit order exists; a cycle is derived from
// that proof afterwards:
//
//   - a lost update (two SI transactions that read one version of a key and
//     both overwrote it) is recognised directly, without the search;
//   - otherwise the derived history of each component (search_graph.go) is
//     saturated again at the weakest level that fails, and the cycle
//     saturation closes is shortened to a shortest cycle of the forced
//     edges (every edge of it holds in every commit order the level
//     allows, so the cycle alone proves the violation);
//   - when saturation closes no cycle (the search had to try every prefix)
//     the search's own account of its longest prefix is kept.

// weakestSearchViolation re-runs the search with every level capped at PC,
// then SI, below failed (CC is known to hold), and explains the violation at
// the weakest level that fails: a long fork breaks PC, a lost update SI.
// Caps whose search runs out of budget are skipped.
func weakestSearchViolation(h *history.History, levels []history.Level, opts Options, failed history.Level, why *Explanation) *Explanation {
	level := failed
	for _, l := range []history.Level{history.Prefix, history.Snapshot} {
		if l >= failed {
			break
		}
		if _, v, e, _ := searchCommitOrderHook(h, capLevels(levels, l), opts); v == Violation {
			why, level = e, l
			break
		}
	}
	if why == nil {
		return nil
	}
	if why.Structural == nil {
		if e := explainSearchCycleNear(h, capLevels(levels, level), opts, level, why); e != nil {
			return e
		}
	}
	why.Level = level
	switch {
	case level == history.Prefix:
		why.Anomaly = "long fork"
	case level == history.Snapshot && len(why.Cycle) > 0:
		why.Anomaly = anomalyName(level, why.Cycle, nil)
	case isWriteSkew(why.Cycle):
		why.Anomaly = "write skew"
	}
	return why
}

// isWriteSkew reports whether a cycle is two transactions each overwriting
// what the other read.
func isWriteSkew(cycle []Edge) bool {
	return len(cycle) == 2 && cycle[0].Kind == EdgeRW && cycle[1].Kind == EdgeRW && cycle[0].Key != cycle[1].Key
}

// explainSearchCycle derives a cycle of forced edges that shows h violates
// levels (whose weakest failing level is level), or nil when saturation of
// the derived history closes none. It saturates every component until one
// closes a cycle; explainSearchCycleNear saves that work when the search's
// own explanation is at hand.
func explainSearchCycle(h *history.History, levels []history.Level, opts Options, level history.Level) *Explanation {
	return explainSearchCycleNear(h, levels, opts, level, nil)
}

// explainSearchCycleNear is explainSearchCycle given why, the search's own
// explanation at level (or nil): when it has no cycle, the search's
// saturation closed none either and only a lost update is looked for; when
// it has one, only the component of the cycle's sessions is saturated
// again.
func explainSearchCycleNear(h *history.History, levels []history.Level, opts Options, level history.Level, why *Explanation) *Explanation {
	ix := newTxnIndex(h, levels).withRC(opts.RC)
	realTime := opts.RealTime
	if level >= history.Snapshot {
		if e := explainLostUpdate(ix); e != nil {
			return e
		}
	}
	if why != nil && len(why.Cycle) == 0 {
		return nil
	}
	comps := [][]int{nil}
	if !realTime {
		comps = components(ix)
		if why != nil {
			comps = componentsOf(comps, h, why.Cycle)
		}
	}
	for _, sessions := range comps {
		g, ok := buildSearchGraph(ix, sessions, realTime)
		if ok {
			ok = g.saturate()
		}
		if ok || len(g.cycle) == 0 {
			continue
		}
		e, hiddenRW := g.explainForcedCycle(g.shortestForcedCycle(g.cycle))
		e.Level = level
		e.Anomaly = searchAnomalyName(level, e.Cycle, hiddenRW)
		return e
	}
	return nil
}

// componentsOf returns the first of comps that holds the sessions of every
// transaction of cycle, or all of comps when none does.
func componentsOf(comps [][]int, h *history.History, cycle []Edge) [][]int {
	for _, c := range comps {
		all := true
		for _, e := range cycle {
			for _, t := range []history.TxnID{e.From, e.To} {
				if t != history.Init && int(t) < len(h.Txns) && !slices.Contains(c, int(h.Txns[t].Session)) {
					all = false
				}
			}
		}
		if all {
			return [][]int{c}
		}
	}
	return comps
}

// explainLostUpdate finds two transactions checked at SI or SER that read
// the same version of a key and both wrote the key: whichever commits
// first, the other's snapshot must include it (SI's Conflict axiom) and so
// could not have read the older version. It needs no search.
func explainLostUpdate(ix *txnIndex) *Explanation {
	h := ix.h
	type version struct {
		key history.KeyID
		src history.TxnID
	}
	type overwrite struct {
		txn history.TxnID
		op  int32
	}
	first := map[version]overwrite{}
	for i := 1; i < len(h.Txns); i++ {
		t := history.TxnID(i)
		in := ix.get(t)
		if !in.live || ix.levelOf(t) < history.Snapshot || len(in.writes) == 0 {
			continue
		}
		seen := map[version]bool{}
		for _, r := range in.reads {
			v := version{r.key, r.src}
			if seen[v] || !ix.writesKey(t, r.key) {
				continue
			}
			seen[v] = true
			o, ok := first[v]
			if !ok {
				first[v] = overwrite{t, r.op}
				continue
			}
			e := &Explanation{Level: history.Snapshot, Anomaly: "lost update",
				levels: map[history.TxnID]history.Level{o.txn: ix.levelOf(o.txn), t: ix.levelOf(t)}}
			for _, p := range [][2]overwrite{{o, {t, r.op}}, {{t, r.op}, o}} {
				reader, writer := p[0], p[1]
				e.Cycle = append(e.Cycle, Edge{From: reader.txn, To: writer.txn, Kind: EdgeRW, Key: r.key,
					FromOp: reader.op, ToOp: lastWriteOp(h, writer.txn, r.key), Via: reader.txn,
					Reason: lostUpdateReason(h, reader.txn, reader.op, writer.txn, r.key, r.src)})
			}
			return e
		}
	}
	return nil
}

// lostUpdateReason explains one edge of a lost update: reader read x from
// src and writer overwrote that version, so under SI the reader's snapshot
// excludes the writer, which must then commit after it.
func lostUpdateReason(h *history.History, reader history.TxnID, op int32, writer history.TxnID, x history.KeyID, src history.TxnID) string {
	w := lastWriteOp(h, writer, x)
	return fmt.Sprintf("%s read %s%s from %s%s, and %s overwrote that version with %s%s%s, so %s's snapshot does not include %s; as both write %s, under SI %s must commit first",
		txnName(h, reader), keyName(h, x), opValue(h, reader, op), txnName(h, src), stmtText(h, reader, op),
		txnName(h, writer), keyName(h, x), opValue(h, writer, w), stmtText(h, writer, w),
		txnName(h, reader), txnName(h, writer), keyName(h, x), txnName(h, reader))
}

// forcedCycleBudget bounds shortestForcedCycle's breadth-first searches, in
// edge visits.
const forcedCycleBudget = 20_000_000

// shortestForcedCycle returns a shortest cycle of the derived history's
// edges (those recorded and those of the cycle saturation closed) through
// the nodes of the given cycle, and among the shortest the one with the
// fewest ww edges (a ww edge is an order some third transaction's read
// forces, so a cycle of reads and anti-dependencies is the plainer
// account: a write skew rather than a G-single through a reader). It
// returns the cycle itself when it goes through Init (whose edges are
// implicit); the budget bounds the breadth-first searches.
func (g *srchGraph) shortestForcedCycle(cycle []srchEdge) []srchEdge {
	succ := make([][]srchEdge, len(g.nodes))
	for _, e := range g.edges {
		succ[e.from] = append(succ[e.from], e)
	}
	for _, e := range cycle {
		if e.from == 0 || e.to == 0 {
			return cycle
		}
		if _, ok := g.edges[[2]int32{e.from, e.to}]; !ok {
			succ[e.from] = append(succ[e.from], e)
		}
	}
	for _, s := range succ {
		slices.SortFunc(s, func(a, b srchEdge) int { return int(a.to - b.to) })
	}
	wwCount := func(c []srchEdge) int {
		n := 0
		for _, e := range c {
			n += b2i(e.kind == EdgeWW)
		}
		return n
	}
	roots := make([]int32, 0, len(cycle))
	for _, e := range cycle {
		roots = append(roots, e.from)
	}
	slices.Sort(roots)
	roots = slices.Compact(roots)
	best, bestWW := cycle, wwCount(cycle)
	parent := make([]srchEdge, len(g.nodes))
	dist := make([]int32, len(g.nodes))
	ww := make([]int32, len(g.nodes))
	budget := forcedCycleBudget
	for _, root := range roots {
		if (len(best) <= 2 && bestWW == 0) || budget <= 0 {
			break
		}
		for i := range dist {
			dist[i] = -1
		}
		dist[root], ww[root] = 0, 0
		queue := []int32{root}
		// Breadth first, layer by layer: a node's ww count is final once
		// its layer is done, as every path to it of that length has been
		// seen.
		for q := 0; q < len(queue) && budget > 0; q++ {
			u := queue[q]
			if int(dist[u])+1 > len(best) {
				break
			}
			for _, e := range succ[u] {
				budget--
				c := ww[u] + int32(b2i(e.kind == EdgeWW))
				switch {
				case e.to == root:
					if n := int(dist[u]) + 1; n < len(best) || n == len(best) && int(c) < bestWW {
						found := []srchEdge{e}
						for x := u; x != root; x = parent[x].from {
							found = append(found, parent[x])
						}
						slices.Reverse(found)
						best, bestWW = found, int(c)
					}
				case dist[e.to] < 0:
					dist[e.to], ww[e.to], parent[e.to] = dist[u]+1, c, e
					queue = append(queue, e.to)
				case dist[e.to] == dist[u]+1 && c < ww[e.to]:
					ww[e.to], parent[e.to] = c, e
				}
			}
		}
	}
	return best
}

// explainForcedCycle renders a cycle of the derived history as edges
// between transactions, the internal edge from a transaction's snapshot to
// its commit dropped, starting at the smallest transaction. It also counts
// the rw edges of the paths that justify the cycle's derived edges, for the
// anomaly's name.
func (g *srchGraph) explainForcedCycle(cycle []srchEdge) (*Explanation, int) {
	hiddenRW := 0
	h := g.ix.h
	e := &Explanation{levels: map[history.TxnID]history.Level{}}
	for _, se := range cycle {
		if g.nodes[se.from].txn == g.nodes[se.to].txn && len(cycle) > 1 {
			continue
		}
		edge := g.forcedEdge(se, siSubstitutions, &hiddenRW)
		for _, t := range []history.TxnID{edge.From, edge.To, edge.Via} {
			if int(t) < len(h.Txns) {
				e.levels[t] = g.ix.levelOf(t)
			}
		}
		e.Cycle = append(e.Cycle, edge)
	}
	first := 0
	for i, ed := range e.Cycle {
		if ed.From < e.Cycle[first].From {
			first = i
		}
	}
	e.Cycle = append(e.Cycle[first:], e.Cycle[:first]...)
	return e, hiddenRW
}

// siSubstitutions bounds how many SI Conflict edges in a row forcedEdge
// replaces by the edges that forced them.
const siSubstitutions = 4

// forcedEdge turns one edge of the derived history into an edge between
// transactions explained in the user's terms, by the rule that forced it
// (search_saturate.go). An edge of SI's Conflict rule ("t's snapshot
// precedes t4's commit, both write k, so t commits first", or "t4 commits
// before t, so t's snapshot includes t4") is shown as the single edge that
// forced it when there is one, with the Conflict rule added to its reason:
// a G-single then reads as Adya's T1 -rw x-> T2 -ww y-> T1. The rw edges of
// the paths its reason cites are added to *hiddenRW.
func (g *srchGraph) forcedEdge(se srchEdge, substitutions int, hiddenRW *int) Edge {
	h := g.ix.h
	from, to, via := g.nodes[se.from].txn, g.nodes[se.to].txn, se.via
	e := Edge{From: from, To: to, Kind: se.kind, Key: se.key, Via: via}
	fillEdgeOps(h, &e)
	name := func(t history.TxnID) string { return txnName(h, t) }
	key := keyName(h, se.key)
	switch se.kind {
	case EdgeSO:
		if from == history.Init {
			e.Reason = fmt.Sprintf("init precedes every transaction, %s included", name(to))
		} else {
			e.Reason = fmt.Sprintf("%s precedes %s in session %s", name(from), name(to), sessionName(h, to))
		}
		return e
	case EdgeWR:
		e.Reason = fmt.Sprintf("%s read %s%s from %s%s", name(to), key, opValue(h, to, e.ToOp), name(from), stmtText(h, to, e.ToOp))
		return e
	case EdgeRT:
		e.Reason = fmt.Sprintf("%s committed before %s began", name(from), name(to))
		return e
	case EdgeRW:
		// from read key from t1, and t1's version precedes to's.
		t1, op := g.readSource(from, se.key, to)
		e.FromOp = op
		order := "init's version precedes every other"
		if t1 != history.Init {
			order = fmt.Sprintf("%s's %s comes before %s's: %s", name(t1), key, name(to), g.pathText(g.commitOf[t1], se.to, hiddenRW))
		}
		then := fmt.Sprintf("%s's snapshot precedes %s's commit", name(from), name(to))
		if g.nodes[se.from].kind == srchWhole {
			then = fmt.Sprintf("%s must commit before %s", name(from), name(to))
		}
		e.Reason = fmt.Sprintf("%s read %s%s from %s%s, a version older than %s's %s%s%s (%s), so %s",
			name(from), key, opValue(h, from, op), name(t1), stmtText(h, from, op), name(to), key, opValue(h, to, e.ToOp),
			stmtText(h, to, e.ToOp), order, then)
		return e
	}
	if se.known {
		return g.knownEdge(se)
	}
	// EdgeWW, by SI's Conflict rule (two cases) or by a read of key from to
	// that from's write precedes.
	nf, nt := &g.nodes[se.from], &g.nodes[se.to]
	switch {
	case nf.kind == srchCommit && nf.txn == via:
		// via's snapshot precedes to's commit, both write key.
		conflict := fmt.Sprintf("as %s and %s both write %s, under SI %s must commit first", name(from), name(to), key, name(from))
		if path := g.path(g.readOf[from], se.to); len(path) == 1 && substitutions > 0 {
			return g.withConflict(g.forcedEdge(path[0], substitutions-1, hiddenRW), conflict)
		}
		e.Reason = fmt.Sprintf("%s's snapshot precedes %s's commit (%s); %s", name(from), name(to), g.pathText(g.readOf[from], se.to, hiddenRW), conflict)
		return e
	case nt.kind == srchReadNode && nt.txn == via:
		// from commits before to, both write key.
		conflict := fmt.Sprintf("as %s and %s both write %s, under SI %s's snapshot must include %s", name(from), name(to), key, name(to), name(from))
		if path := g.path(se.from, g.commitOf[to]); len(path) == 1 && substitutions > 0 {
			return g.withConflict(g.forcedEdge(path[0], substitutions-1, hiddenRW), conflict)
		}
		e.Reason = fmt.Sprintf("%s commits before %s (%s); %s", name(from), name(to), g.pathText(se.from, g.commitOf[to], hiddenRW), conflict)
		return e
	}
	// via read key from to, although from's write of key was visible to it.
	op := readOp(h, via, se.key, to)
	seen := fmt.Sprintf("%s precedes %s's snapshot: %s", name(from), name(via), g.pathText(se.from, g.readOf[via], hiddenRW))
	if g.ix.levelOf(via) <= history.Causal {
		seen = fmt.Sprintf("%s was visible to %s at %s", name(from), name(via), g.ix.levelOf(via))
	}
	e.Reason = fmt.Sprintf("%s read %s%s from %s%s, but %s also writes %s and %s, so %s's %s must come before %s's",
		name(via), key, opValue(h, via, op), name(to), stmtText(h, via, op), name(from), key, seen, name(from), key, name(to))
	return e
}

// withConflict adds SI's Conflict rule to the reason of the edge that
// forced it.
func (g *srchGraph) withConflict(e Edge, conflict string) Edge {
	e.Reason += "; " + conflict
	return e
}

// readSource returns the version of x that t read while overwritten by
// over: the writer and the read's operation index. A transaction that
// read x from several writers (a non-repeatable read, which saturation
// reports first) is explained by its first read from another than over.
func (g *srchGraph) readSource(t history.TxnID, x history.KeyID, over history.TxnID) (history.TxnID, int32) {
	for _, r := range g.ix.get(t).reads {
		if r.key == x && r.src != over {
			return r.src, r.op
		}
	}
	return history.Init, NoOp
}

// path returns a shortest path of recorded edges from node a to node b,
// without the edges inside a transaction (its snapshot before its commit),
// or nil when there is none or a is Init (whose edges are implicit).
func (g *srchGraph) path(a, b int32) []srchEdge {
	if a == 0 {
		return nil
	}
	prev := map[int32]int32{a: -1}
	queue := []int32{a}
	for q := 0; q < len(queue) && queue[q] != b; q++ {
		for _, v := range g.succ[queue[q]] {
			if _, ok := prev[v]; !ok {
				prev[v] = queue[q]
				queue = append(queue, v)
			}
		}
	}
	if _, ok := prev[b]; !ok {
		return nil
	}
	var path []srchEdge
	for v := b; prev[v] >= 0; v = prev[v] {
		u := prev[v]
		if g.nodes[u].txn != g.nodes[v].txn {
			path = append(path, g.edges[[2]int32{u, v}])
		}
	}
	slices.Reverse(path)
	return path
}

// pathText renders a shortest path of recorded edges from node a to node b
// as a chain of transactions, "T1 -wr x-> T3 -so-> T4", and adds its rw
// edges to *hiddenRW.
func (g *srchGraph) pathText(a, b int32, hiddenRW *int) string {
	h := g.ix.h
	if a == 0 {
		return "init precedes every transaction"
	}
	path := g.path(a, b)
	if len(path) == 0 {
		return "?"
	}
	var s strings.Builder
	s.WriteString(txnName(h, g.nodes[a].txn))
	for _, se := range path {
		*hiddenRW += b2i(se.kind == EdgeRW)
		label := se.kind.String()
		if se.kind == EdgeWR || se.kind == EdgeWW || se.kind == EdgeRW {
			label += " " + keyName(h, se.key)
		}
		fmt.Fprintf(&s, " -%s-> %s", label, txnName(h, g.nodes[se.to].txn))
	}
	return s.String()
}
