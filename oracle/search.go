package oracle

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
)

func init() { searchCommitOrderHook = searchCommitOrder }

// Search looks for a commit order witnessing that h satisfies opts.Level,
// or each transaction's own level when it is zero, without using a recorded
// one. It is what Check runs when the history has no commit order or the
// recorded one fails.
//
// The history is split into the biconnected components of its communication
// graph, checked separately (paper 002 §5; not with opts.RealTime, whose
// order crosses components). Each component is reduced to a serializability
// question over a derived history (search_graph.go), saturated, and searched
// with memoization: polynomial for a fixed number of sessions. The verdict
// is Consistent with the witness order (Init first), Violation with an
// explanation, or Unknown when opts.MaxSteps ran out or h fails
// history.Validate (the explanation then says why).
func Search(h *history.History, opts Options) (Verdict, []history.TxnID, *Explanation) {
	if err := h.Validate(); err != nil {
		return Unknown, nil, malformed(err)
	}
	co, v, why, _ := searchCommitOrder(h, levelsFor(h, opts), opts)
	return v, co, why
}

// searchCommitOrder is the hook Check calls (see oracle.go).
func searchCommitOrder(h *history.History, levels []history.Level, opts Options) ([]history.TxnID, Verdict, *Explanation, int64) {
	ix := newTxnIndex(h, levels).withRC(opts.RC)
	for t := 1; t < len(h.Txns); t++ {
		for i := range ix.get(history.TxnID(t)).reads {
			if r := &ix.get(history.TxnID(t)).reads[i]; ix.badRead(r) {
				v := &orderViolation{level: levels[t], reader: r.txn, read: r, writer: r.src, base: EdgeWR, why: "wrote no visible version of the key"}
				return nil, Violation, v.explain(h), 0
			}
		}
	}
	if why := searchVersionOrderDefect(ix); why != nil {
		return nil, Violation, why, 0
	}
	hint := searchHint(h)
	var comps [][]int
	if opts.RealTime {
		comps = [][]int{nil}
	} else {
		comps = components(ix)
	}
	var steps int64
	var orders [][]history.TxnID
	for _, sessions := range comps {
		g, ok := buildSearchGraph(ix, sessions, opts.RealTime)
		if !ok {
			return nil, Violation, g.explain(), steps
		}
		co, v, why, n := searchComponent(g, hint, opts, steps)
		steps += n
		if v != Consistent {
			return nil, v, why, steps
		}
		orders = append(orders, co)
	}
	co, ok := mergeOrders(len(h.Txns), orders)
	if !ok {
		return nil, Unknown, nil, steps
	}
	if why := verifyCommitOrder(h, co, levels, opts); why != nil {
		// The witness of every component holds but their union does not:
		// paper 002's Theorem 5.2 says this cannot happen. Say so honestly
		// rather than guess.
		return nil, Unknown, nil, steps
	}
	return co, Consistent, nil, steps
}

// probeLimit is the component size (in nodes) from which the search first
// probes without saturation: saturation's closure costs O(e·n/64) a pass,
// while a consistent history's search usually walks straight through.
const probeLimit = incrementalLimit

// searchComponent saturates one component's graph and searches it; done
// steps were spent before (opts.MaxSteps bounds the total). Large
// components are first probed without saturation for 2n steps: a
// consistent history is then decided at the cost of the walk, and only
// the others pay for saturation.
func searchComponent(g *srchGraph, hint []int64, opts Options, done int64) ([]history.TxnID, Verdict, *Explanation, int64) {
	var steps int64
	budget := func(limit int64) (int64, bool) {
		if opts.MaxSteps <= 0 {
			return limit, true
		}
		left := opts.MaxSteps - done - steps
		if limit > 0 {
			left = min(left, limit)
		}
		return left, left > 0
	}
	run := func(limit int64) (*srchState, bool, bool) {
		b, ok := budget(limit)
		if !ok {
			return nil, false, true
		}
		s := newSearchState(g, hint, b)
		if opts.Progress != nil {
			before := done + steps
			s.tick = func(n int64) { opts.Progress(before+n, opts.MaxSteps) }
		}
		found := s.run()
		steps += s.steps
		return s, found, s.out
	}
	if len(g.nodes) > probeLimit {
		if s, found, _ := run(2 * int64(len(g.nodes))); found {
			return s.order(), Consistent, nil, steps
		}
	}
	if !g.saturate() {
		return nil, Violation, g.explain(), steps
	}
	s, found, out := run(0)
	switch {
	case out:
		return nil, Unknown, nil, steps
	case !found:
		return nil, Violation, g.explainExhausted(s.deepest), steps
	}
	return s.order(), Consistent, nil, steps
}

// searchHint ranks transactions for the order candidates are tried in: by
// the recorded commit order when there is one (it usually fails only
// locally), else by id (the order transactions began in, for histories the
// server records).
func searchHint(h *history.History) []int64 {
	hint := make([]int64, len(h.Txns))
	for i := range hint {
		hint[i] = int64(len(h.Txns) + i)
	}
	for p, t := range h.CommitOrder {
		if int(t) < len(hint) {
			hint[t] = int64(p)
		}
	}
	return hint
}

// mergeOrders linearizes the union of the components' orders (a DAG by
// paper 002's Lemma 5.1), smallest id first among the ready ones.
func mergeOrders(n int, orders [][]history.TxnID) ([]history.TxnID, bool) {
	switch len(orders) {
	case 0:
		return []history.TxnID{history.Init}, true
	case 1:
		return orders[0], true
	}
	succ := make(map[history.TxnID][]history.TxnID)
	indeg := make(map[history.TxnID]int)
	for _, o := range orders {
		for i, t := range o {
			if _, ok := indeg[t]; !ok {
				indeg[t] = 0
			}
			if i > 0 {
				succ[o[i-1]] = append(succ[o[i-1]], t)
				indeg[t]++
			}
		}
	}
	var ready []history.TxnID
	for t, d := range indeg {
		if d == 0 {
			ready = append(ready, t)
		}
	}
	co := make([]history.TxnID, 0, len(indeg))
	for len(ready) > 0 {
		slices.Sort(ready)
		t := ready[0]
		ready = ready[1:]
		co = append(co, t)
		for _, u := range succ[t] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	return co, len(co) == len(indeg) && n > 0
}

// explain turns the cycle saturation found into an Explanation: the
// transactions' edges in order, the derived history's internal edges (a
// transaction's read node to its commit node) dropped.
func (g *srchGraph) explain() *Explanation {
	h := g.ix.h
	e := &Explanation{Level: history.ReadCommitted}
	rw := 0
	wr := false
	for _, se := range g.cycle {
		from, to := g.nodes[se.from].txn, g.nodes[se.to].txn
		if from == to && len(g.cycle) > 1 {
			continue
		}
		e.Level = max(e.Level, g.ix.levelOf(se.via))
		rw += b2i(se.kind == EdgeRW)
		wr = wr || se.kind == EdgeWR
		edge := Edge{From: from, To: to, Kind: se.kind, Key: se.key, Via: se.via, Reason: g.edgeReason(se, from, to)}
		fillEdgeOps(h, &edge)
		e.Cycle = append(e.Cycle, edge)
	}
	switch {
	case rw == 1:
		e.Anomaly = "G-single"
	case rw > 1:
		e.Anomaly = "G2"
	case wr:
		e.Anomaly = "G1c"
	default:
		e.Anomaly = "G0"
	}
	return e
}

func (g *srchGraph) edgeReason(se srchEdge, from, to history.TxnID) string {
	if se.known {
		return g.knownEdge(se).Reason
	}
	h := g.ix.h
	a, b := txnLabel(h, from), txnLabel(h, to)
	key := ""
	if int(se.key) < len(h.Keys) {
		key = h.Keys[se.key].String()
	}
	switch se.kind {
	case EdgeSO:
		return fmt.Sprintf("%s precedes %s in its session", a, b)
	case EdgeWR:
		return fmt.Sprintf("%s reads %s from %s", b, key, a)
	case EdgeRT:
		return fmt.Sprintf("%s committed before %s began", a, b)
	case EdgeRW:
		return fmt.Sprintf("%s reads %s before %s overwrites it (%s)", a, key, b, g.ix.levelOf(se.via))
	}
	return fmt.Sprintf("%s must commit before %s: %s reads %s at %s", a, b, txnLabel(h, se.via), key, g.ix.levelOf(se.via))
}

func (g *srchGraph) sessionNames() string {
	var names []string
	for _, ch := range g.chains {
		if len(ch) > 0 {
			t := g.nodes[ch[0]].txn
			names = append(names, g.ix.h.Sessions[g.ix.h.Txns[t].Session].Name)
		}
	}
	return fmt.Sprint(names)
}

// malformed explains why a history cannot be checked at all.
func malformed(err error) *Explanation {
	return &Explanation{Anomaly: "malformed history: " + err.Error()}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
