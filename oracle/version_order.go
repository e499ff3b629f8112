package oracle

import (
	"fmt"
	"slices"

	"github.com/fickle-db/fickle/history"
)

// A known version order (history.History.VersionOrder) is an observation,
// not a guess: an Elle list-append read shows the order in which a key's
// appends were installed. In the axioms of DESIGN §3 it constrains co: co
// restricted to a key's listed writers is the key's version order. So each
// pair of consecutive writers is a ww edge at every level: saturation adds
// them to co' (RC, RA, CC), the search to the edges every witness extends
// (PC, SI, SER), the verification of a recorded commit order rejects an
// order that contradicts them, and the brute force only tries orders that
// respect them.
//
// A key's version order may be only a prefix (History.VersionOrderPrefix):
// the longest list read of a list-append key shows the first appends, so
// an append that no read showed was installed after the list's last
// element (Kingsbury and Alvaro, "Elle: Inferring Isolation Anomalies
// from Experimental Observations", VLDB 2020: a list's appends are
// traceable, and Elle's checker makes an append no read observed follow
// the highest element observed). Every
// committed writer of such a key that the order does not list is then
// ww-after the last listed writer, and the unlisted writers stay unordered
// among themselves. Elle's :info transactions, imported as committed with
// their writes only, take part like any committed writer (Elle keeps them
// in its graphs too); its :fail ones, imported server-aborted, do not,
// and neither do client-aborted or pending writers, whose versions were
// never installed. Those edges are used wherever the consecutive pairs
// are, and explained by the read whose list showed the prefix.
//
// A version order that names a transaction which never wrote the key is
// malformed (no read can show a version nobody wrote); one that names an
// aborted or pending writer shows its version installed, which is an
// aborted read (G1a), as Elle reports it. checkVersionOrders reports both
// as structural, before any of the edges are used; the other stages skip
// entries outside the history so that they never panic on unchecked input.

// knownWW is a ww edge of the version order: key's version by from was
// installed right before to's.
type knownWW struct {
	from, to history.TxnID
	key      history.KeyID
}

// versionOrderEdges calls f for every pair of consecutive distinct writers
// in h's version orders, skipping keys and transactions outside h, Init,
// and (with live) transactions live says are not; then, for every key
// whose order is a prefix, for every committed writer of the key the order
// does not list, the edge from the last listed writer to it.
func versionOrderEdges(h *history.History, live func(history.TxnID) bool, f func(knownWW)) {
	var last []history.TxnID // by key: the last listed writer of a prefix order, or NoWriter
	for k, order := range h.VersionOrder {
		if k >= len(h.Keys) {
			break
		}
		prev := history.NoWriter
		for _, t := range order {
			if t == history.Init || int(t) >= len(h.Txns) || (live != nil && !live(t)) {
				continue
			}
			if prev != history.NoWriter && prev != t {
				f(knownWW{from: prev, to: t, key: history.KeyID(k)})
			}
			prev = t
		}
		if prev != history.NoWriter && isPrefixOrder(h, history.KeyID(k)) {
			if last == nil {
				last = make([]history.TxnID, len(h.Keys))
				for i := range last {
					last[i] = history.NoWriter
				}
			}
			last[k] = prev
		}
	}
	if last != nil {
		prefixEdges(h, live, last, f)
	}
}

// isPrefixOrder reports whether h marks x's version order as a prefix.
func isPrefixOrder(h *history.History, x history.KeyID) bool {
	return int(x) < len(h.VersionOrderPrefix) && h.VersionOrderPrefix[x]
}

// prefixEdges calls f for the edge last[x] → t for every committed (and,
// with live, live) transaction t that writes a key x with a last listed
// writer but is not listed in x's order, once per key and transaction, in
// transaction order. The listed writers of those keys are kept sorted in
// one array (no maps: saturation calls it on every check of a history
// with prefix orders).
func prefixEdges(h *history.History, live func(history.TxnID) bool, last []history.TxnID, f func(knownWW)) {
	start := make([]int32, len(last)+1)
	var listed []history.TxnID
	for k := range last {
		if last[k] != history.NoWriter {
			from := len(listed)
			listed = append(listed, h.VersionOrder[k]...)
			slices.Sort(listed[from:])
		}
		start[k+1] = int32(len(listed))
	}
	emitted := make([]history.TxnID, len(last)) // by key: the last transaction given an edge
	for i := 1; i < len(h.Txns); i++ {
		t := history.TxnID(i)
		if h.Txns[i].Outcome != history.Committed || (live != nil && !live(t)) {
			continue
		}
		for _, op := range h.Txns[i].Ops {
			x := op.Key
			if op.Kind != history.OpWrite || int(x) >= len(last) || last[x] == history.NoWriter || emitted[x] == t {
				continue
			}
			if _, ok := slices.BinarySearch(listed[start[x]:start[x+1]], t); ok {
				continue
			}
			emitted[x] = t
			f(knownWW{from: last[x], to: t, key: x})
		}
	}
}

// unlisted reports whether the ww edge from → to of key x comes from the
// prefix inference: x's order is a prefix whose last listed writer is
// from, and it does not list to.
func unlisted(h *history.History, x history.KeyID, from, to history.TxnID) bool {
	if !isPrefixOrder(h, x) || int(x) >= len(h.VersionOrder) {
		return false
	}
	order := h.VersionOrder[x]
	return len(order) > 0 && order[len(order)-1] == from && !slices.Contains(order, to)
}

// checkVersionOrders reports the first version order entry that names a
// transaction which does not write the key (malformed), or one whose
// writer did not commit (an aborted read, G1a: the order shows its version
// installed). The read that revealed it is named when the history has one.
func checkVersionOrders(ix *index) *Explanation {
	return versionOrderDefect(ix.h, func(t history.TxnID, x history.KeyID) bool { return ix.writeEntry(t, x) >= 0 }, ix.checked)
}

// versionOrderDefect is checkVersionOrders given wrote, whether t has a
// write of x (whatever its outcome), and live, the transactions whose
// reads count.
func versionOrderDefect(h *history.History, wrote func(history.TxnID, history.KeyID) bool, live func(history.TxnID) bool) *Explanation {
	if len(h.VersionOrder) > len(h.Keys) {
		return malformedVersionOrder(fmt.Sprintf("the history has version orders for %d keys but only %d keys", len(h.VersionOrder), len(h.Keys)))
	}
	if len(h.VersionOrderPrefix) > len(h.Keys) {
		return malformedVersionOrder(fmt.Sprintf("the history marks %d keys' version orders as prefixes but has only %d keys", len(h.VersionOrderPrefix), len(h.Keys)))
	}
	for k, order := range h.VersionOrder {
		x := history.KeyID(k)
		for i, t := range order {
			if t == history.Init || int(t) >= len(h.Txns) {
				return malformedVersionOrder(fmt.Sprintf("the version order of %s names transaction #%d, which is not a transaction of the history", keyName(h, x), t))
			}
			if !wrote(t, x) {
				return malformedVersionOrder(fmt.Sprintf("the version order of %s names %s, which never wrote %s", keyName(h, x), txnName(h, t), keyName(h, x)))
			}
			outcome := h.Txns[t].Outcome
			if outcome == history.Committed {
				continue
			}
			fate := "which never committed"
			if outcome != history.Pending {
				fate = "which was " + outcome.String()
			}
			issue := &StructuralIssue{Kind: AbortedRead, Txn: t, Op: NoOp, Key: x, Writer: t}
			reason := fmt.Sprintf("the version order of %s shows a version installed by %s, %s", keyName(h, x), txnName(h, t), fate)
			if r, op, ok := revealingRead(h, live, x, order, i); ok {
				issue.Txn, issue.Op = r, op
				reason += fmt.Sprintf(" (%s read %s%s%s, a version after it)", txnName(h, r), keyName(h, x), opValue(h, r, op), stmtText(h, r, op))
			}
			issue.Reason = reason
			return &Explanation{Level: history.ReadCommitted, Anomaly: "G1a", Structural: issue}
		}
	}
	return nil
}

// searchVersionOrderDefect is versionOrderDefect over the search's index,
// which lists committed writes only.
func searchVersionOrderDefect(ix *txnIndex) *Explanation {
	wrote := func(t history.TxnID, x history.KeyID) bool {
		if ix.get(t).commit {
			return ix.writesKey(t, x)
		}
		for _, op := range ix.h.Txns[t].Ops {
			if op.Kind == history.OpWrite && op.Key == x {
				return true
			}
		}
		return false
	}
	return versionOrderDefect(ix.h, wrote, func(t history.TxnID) bool { return t != history.Init && ix.get(t).live })
}

// writesOf returns whether t writes x, for the transactions that version
// orders name: their written keys, sorted, in one array indexed by
// transaction (no maps: it runs on every verification of a recorded order
// of a history with version orders).
func writesOf(h *history.History) func(history.TxnID, history.KeyID) bool {
	n := len(h.Txns)
	named := make([]bool, n)
	for _, order := range h.VersionOrder {
		for _, t := range order {
			if int(t) < n {
				named[t] = true
			}
		}
	}
	start := make([]int32, n+1)
	var keys []history.KeyID
	for t := range h.Txns {
		if named[t] {
			from := len(keys)
			for _, op := range h.Txns[t].Ops {
				if op.Kind == history.OpWrite {
					keys = append(keys, op.Key)
				}
			}
			slices.Sort(keys[from:])
		}
		start[t+1] = int32(len(keys))
	}
	return func(t history.TxnID, x history.KeyID) bool {
		if int(t) >= n {
			return false
		}
		_, ok := slices.BinarySearch(keys[start[t]:start[t+1]], x)
		return ok
	}
}

// malformedVersionOrder explains a version order that no history can have.
func malformedVersionOrder(reason string) *Explanation {
	return &Explanation{Level: history.ReadCommitted, Anomaly: Malformed.String(),
		Structural: &StructuralIssue{Kind: Malformed, Op: NoOp, Writer: history.NoWriter, Reason: reason}}
}

// revealingRead finds a read of x by a live transaction that saw the
// version of order[i] or a later one of the order: in a list-append
// history that read's list shows order[..i] in order. It returns the
// reader and the read's index in its operations.
func revealingRead(h *history.History, live func(history.TxnID) bool, x history.KeyID, order []history.TxnID, i int) (history.TxnID, int32, bool) {
	later := make(map[history.TxnID]bool, len(order)-i)
	for _, t := range order[i:] {
		later[t] = true
	}
	for r := 1; r < len(h.Txns); r++ {
		if !live(history.TxnID(r)) {
			continue
		}
		for j, op := range h.Txns[r].Ops {
			if op.Kind == history.OpRead && op.Key == x && later[op.Writer] {
				return history.TxnID(r), int32(j), true
			}
		}
	}
	return 0, NoOp, false
}

// versionOrderReason explains a ww edge of the version order in the user's
// terms, naming the read that revealed it when the history has one (by
// another transaction than the edge's two).
func versionOrderReason(h *history.History, live func(history.TxnID) bool, e *Edge) string {
	live = others(live, e.From, e.To)
	if unlisted(h, e.Key, e.From, e.To) {
		order := h.VersionOrder[e.Key]
		why := fmt.Sprintf("the version order of %s shows a prefix of its versions ending with %s's, and %s's write of %s is in no list read, so its version was installed after %s's",
			keyName(h, e.Key), txnName(h, e.From), txnName(h, e.To), keyName(h, e.Key), txnName(h, e.From))
		if r, op, ok := revealingRead(h, live, e.Key, order, len(order)-1); ok {
			why += fmt.Sprintf(" (%s read %s%s%s, the longest list)", txnName(h, r), keyName(h, e.Key), opValue(h, r, op), stmtText(h, r, op))
		}
		return why
	}
	why := fmt.Sprintf("the version order of %s shows %s's version before %s's", keyName(h, e.Key), txnName(h, e.From), txnName(h, e.To))
	if int(e.Key) >= len(h.VersionOrder) {
		return why
	}
	order := h.VersionOrder[e.Key]
	i := pairIndex(order, e.From, e.To)
	if i < 0 {
		return why
	}
	if slices.Contains(order[:i], e.To) {
		why += fmt.Sprintf(", %s's appends straddling %s's: a list shows an earlier one, none its last", txnName(h, e.To), txnName(h, e.From))
		i-- // the read that showed from's version showed the list
	}
	if r, op, ok := revealingRead(h, live, e.Key, order, i); ok {
		why += fmt.Sprintf(" (%s read %s%s%s)", txnName(h, r), keyName(h, e.Key), opValue(h, r, op), stmtText(h, r, op))
	}
	return why
}

// pairIndex returns the index of to in order where it follows from
// (directly, or past entries versionOrderEdges skips), else its first
// index, or -1: a transaction listed twice (its appends straddle
// another's) has one place per edge.
func pairIndex(order []history.TxnID, from, to history.TxnID) int {
	first := -1
	for i, t := range order {
		if t != to {
			continue
		}
		if first < 0 {
			first = i
		}
		for j := i - 1; j >= 0; j-- {
			if order[j] == from {
				return i
			}
			if order[j] != history.Init {
				break
			}
		}
	}
	return first
}

// revealedBy returns the transaction whose read revealed that from's
// version of x precedes to's, or to itself when no read did: the Via of a
// version order edge.
func revealedBy(h *history.History, live func(history.TxnID) bool, x history.KeyID, from, to history.TxnID) history.TxnID {
	live = others(live, from, to)
	if unlisted(h, x, from, to) {
		order := h.VersionOrder[x]
		if r, _, ok := revealingRead(h, live, x, order, len(order)-1); ok {
			return r
		}
		return to
	}
	if int(x) < len(h.VersionOrder) {
		order := h.VersionOrder[x]
		if i := pairIndex(order, from, to); i >= 0 {
			if slices.Contains(order[:i], to) {
				i-- // a straddler: the read that showed from's version showed the list
			}
			if r, _, ok := revealingRead(h, live, x, order, i); ok {
				return r
			}
		}
	}
	return to
}

// others restricts live to the transactions other than a and b.
func others(live func(history.TxnID) bool, a, b history.TxnID) func(history.TxnID) bool {
	return func(t history.TxnID) bool { return t != a && t != b && live(t) }
}

// addVersionOrder adds the version order's ww edges to co' (but those
// session order implies), with their reasons when capturing.
func (s *saturation) addVersionOrder() {
	ix := s.ix
	versionOrderEdges(ix.h, ix.checked, func(e knownWW) {
		if ix.session[e.from] == ix.session[e.to] && ix.pos[e.from] < ix.pos[e.to] {
			return // session order already has it
		}
		p := pair{uint32(e.from), uint32(e.to)}
		s.inferred = append(s.inferred, p)
		s.steps++
		if s.capture == nil {
			return
		}
		if c, ok := s.capture[p]; ok && c == nil {
			s.capture[p] = &inference{
				edge: Edge{From: e.from, To: e.to, Kind: EdgeWW, Key: e.key, FromOp: ix.lastWrite(e.from, e.key),
					ToOp: ix.lastWrite(e.to, e.key), Via: revealedBy(ix.h, ix.checked, e.key, e.from, e.to)},
				vis: visVersionOrder,
			}
		}
	})
}

// versionOrderAnomaly names a cycle whose derived edges all come from the
// version order: G0 (a write cycle) or, with a wr edge, G1c, at every
// level. It returns "" for other cycles.
func versionOrderAnomaly(cycle []Edge, vis []visibility) string {
	known, wr := 0, false
	for i, e := range cycle {
		switch e.Kind {
		case EdgeWR:
			wr = true
		case EdgeWW:
			if i >= len(vis) || vis[i] != visVersionOrder {
				return ""
			}
			known++
		case EdgeRW, EdgeRT:
			return ""
		}
	}
	switch {
	case known == 0:
		return ""
	case wr:
		return "G1c"
	}
	return "G0"
}

// versionOrderContradicts reports the first pair of consecutive writers of
// a key (or, for a prefix order, the last listed writer and an unlisted
// committed one) whose order the commit order under test reverses: a recorded co
// that contradicts the version order is not a witness. With a subset, only
// the pairs with a writer in it count (the subset's own places in co).
// Writers missing from the view are left to the rest of the verification.
// A version order that no commit order can satisfy (it names a transaction
// that did not commit a write of the key) fails every order.
func versionOrderContradicts(h *history.History, view OrderView, subset []history.TxnID) *Explanation {
	if h.VersionOrder == nil {
		return nil
	}
	if why := versionOrderDefect(h, writesOf(h), func(t history.TxnID) bool {
		return t != history.Init && h.Txns[t].Outcome != history.ServerAborted
	}); why != nil {
		return why
	}
	var in map[history.TxnID]bool
	if subset != nil {
		in = make(map[history.TxnID]bool, len(subset))
		for _, t := range subset {
			in[t] = true
		}
	}
	var why *Explanation
	live := func(t history.TxnID) bool { return t != history.Init && h.Txns[t].Outcome != history.ServerAborted }
	versionOrderEdges(h, nil, func(e knownWW) {
		if why != nil || (in != nil && !in[e.from] && !in[e.to]) {
			return
		}
		pa, okA := view.Pos(e.from)
		pb, okB := view.Pos(e.to)
		if !okA || !okB || pa < pb {
			return
		}
		via := revealedBy(h, live, e.key, e.from, e.to)
		known := Edge{From: e.from, To: e.to, Kind: EdgeWW, Key: e.key, Via: via}
		fillEdgeOps(h, &known)
		known.Reason = versionOrderReason(h, live, &known)
		recorded := Edge{From: e.to, To: e.from, Kind: EdgeWW, Key: e.key, Via: via,
			Reason: fmt.Sprintf("the commit order puts %s before %s", txnLabel(h, e.to), txnLabel(h, e.from))}
		fillEdgeOps(h, &recorded)
		why = &Explanation{Level: history.ReadCommitted, Anomaly: "commit order contradicts the version order of " + keyName(h, e.key),
			Cycle: []Edge{known, recorded}}
	})
	return why
}
