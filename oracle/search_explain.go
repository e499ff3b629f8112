package oracle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// deepestLimit is the largest component whose deepest prefix the search
// remembers for explanations (copying it as it grows costs O(n²)).
const deepestLimit = 8192

// noteDepth remembers the current prefix when it is the longest so far.
func (s *srchState) noteDepth() {
	if len(s.path) > len(s.deepest) && len(s.g.nodes) <= deepestLimit {
		s.deepest = append(s.deepest[:0], s.path...)
	}
}

// explainExhausted explains a component no commit order satisfies although
// saturation found no cycle: the search tried every valid prefix. It
// replays the longest prefix it reached and says why each session's next
// transaction could not follow it.
func (g *srchGraph) explainExhausted(deepest []int32) *Explanation {
	level := history.ReadCommitted
	for _, t := range g.txns {
		level = max(level, g.ix.levelOf(t))
	}
	s := newSearchState(g, make([]int64, len(g.ix.h.Txns)), 0)
	for _, n := range deepest {
		s.place(n)
	}
	placedTxns := 0
	for _, n := range deepest {
		if g.nodes[n].kind != srchReadNode {
			placedTxns++
		}
	}
	var why []string
	for c, ch := range g.chains {
		if int(s.front[c]) < len(ch) {
			if r := s.blocked(ch[s.front[c]]); r != "" {
				why = append(why, r)
			}
		}
	}
	return &Explanation{Level: level, Anomaly: fmt.Sprintf(
		"no commit order satisfies the %d transactions of sessions %s: the longest valid prefix has %d, after which %s",
		len(g.txns), g.sessionNames(), placedTxns, strings.Join(why, "; "))}
}

// blocked says why node n cannot extend the current prefix, or "" when it
// can (it then failed further on).
func (s *srchState) blocked(n int32) string {
	g := s.g
	h := g.ix.h
	nd := &g.nodes[n]
	name := txnLabel(h, nd.txn)
	if s.need[n] > 0 {
		var preds []string
		for e := range g.edges {
			if e[1] == n && !s.placed(e[0]) {
				preds = append(preds, txnLabel(h, g.nodes[e[0]].txn))
			}
		}
		slices.Sort(preds)
		return fmt.Sprintf("%s must follow %s", name, strings.Join(slices.Compact(preds), ", "))
	}
	for _, k := range nd.writes {
		key := h.Keys[k].String()
		if reader, src, ok := s.pendingReader(k, n); ok {
			return fmt.Sprintf("%s would overwrite %s, which %s has yet to read from %s", name, key, txnLabel(h, reader), txnLabel(h, src))
		}
		if t, ok := s.openInterval(k, nd.txn); ok {
			return fmt.Sprintf("%s would commit %s inside the snapshot of %s (SI), which writes it too", name, key, txnLabel(h, t))
		}
	}
	if nd.opens {
		for _, k := range g.nodes[g.commitOf[nd.txn]].writes {
			if t, ok := s.openInterval(k, nd.txn); ok {
				return fmt.Sprintf("%s (SI) would take its snapshot while %s, which also writes %s, has not committed", name, txnLabel(h, t), h.Keys[k])
			}
		}
	}
	return ""
}

// placed reports whether node n is in the prefix.
func (s *srchState) placed(n int32) bool {
	if n == 0 {
		return true
	}
	c := s.g.nodes[n].chain
	return slices.Index(s.g.chains[c][:s.front[c]], n) >= 0
}

// pendingReader finds an unplaced node other than n with a checked read of
// k whose source is placed.
func (s *srchState) pendingReader(k history.KeyID, n int32) (history.TxnID, history.TxnID, bool) {
	for i := range s.g.nodes {
		m := int32(i)
		if m == n || s.placed(m) {
			continue
		}
		for _, r := range s.g.nodes[m].reads {
			if r.key == k && s.placed(s.g.commitOf[r.src]) {
				return s.g.nodes[m].txn, r.src, true
			}
		}
	}
	return 0, 0, false
}

// openInterval finds an SI transaction other than t between its snapshot
// and its commit that writes k.
func (s *srchState) openInterval(k history.KeyID, t history.TxnID) (history.TxnID, bool) {
	for i := range s.g.nodes {
		nd := &s.g.nodes[i]
		if !nd.opens || nd.txn == t || !s.placed(int32(i)) || s.placed(s.g.commitOf[nd.txn]) {
			continue
		}
		if slices.Contains(s.g.nodes[s.g.commitOf[nd.txn]].writes, k) {
			return nd.txn, true
		}
	}
	return 0, false
}
