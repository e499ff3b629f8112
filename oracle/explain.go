package oracle

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// newExplanation names the anomaly of a cycle of co' whose edges have been
// labelled, and writes every edge's reason in the user's terms. Level is
// set by the caller (the weakest level that fails); the anomaly name is
// refined by it in finishExplanation.
func newExplanation(ix *index, edges []Edge, vis []visibility, realTime bool) *Explanation {
	// Start at the smallest transaction, so that the text is stable.
	first := 0
	for i, e := range edges {
		if e.From < edges[first].From {
			first = i
		}
	}
	edges = append(edges[first:], edges[:first]...)
	vis = append(vis[first:], vis[:first]...)
	levels := map[history.TxnID]history.Level{}
	for i := range edges {
		e := &edges[i]
		e.Reason = edgeReason(ix, e, &vis[i], realTime)
		for _, t := range []history.TxnID{e.From, e.To, e.Via} {
			if int(t) < len(ix.levels) {
				levels[t] = ix.levels[t]
			}
		}
	}
	return &Explanation{Cycle: edges, vis: vis, levels: levels}
}

// finishExplanation sets the level the explanation is about and names the
// anomaly for it.
func finishExplanation(e *Explanation, level history.Level) *Explanation {
	if e == nil || e.Structural != nil {
		return e
	}
	e.Level = level
	e.Anomaly = anomalyName(level, e.Cycle, e.vis)
	return e
}

// edgeReason explains one edge of a cycle.
// A causal edge whose path needs real time has its visibility changed to
// visCausalRealTime, for the anomaly's name.
func edgeReason(ix *index, e *Edge, visp *visibility, realTime bool) string {
	vis := *visp
	h := ix.h
	switch e.Kind {
	case EdgeSO:
		if e.From == history.Init {
			return fmt.Sprintf("init precedes every transaction, %s included", txnName(h, e.To))
		}
		return fmt.Sprintf("%s precedes %s in session %s", txnName(h, e.From), txnName(h, e.To), sessionName(h, e.To))
	case EdgeWR:
		return fmt.Sprintf("%s read %s%s from %s%s", txnName(h, e.To), keyName(h, e.Key), opValue(h, e.To, e.ToOp),
			txnName(h, e.From), stmtText(h, e.To, e.ToOp))
	case EdgeRT:
		return fmt.Sprintf("%s committed before %s began", txnName(h, e.From), txnName(h, e.To))
	case EdgeWW:
		if vis == visVersionOrder {
			return versionOrderReason(h, ix.checked, e)
		}
		t3 := e.Via
		t2, t1 := txnName(h, e.From), txnName(h, e.To)
		var why string
		switch vis {
		case visSession:
			why = fmt.Sprintf("%s precedes %s in session %s", t2, txnName(h, t3), sessionName(h, t3))
		case visEarlierRead:
			why = fmt.Sprintf("%s had read %s from %s in an earlier statement", txnName(h, t3), firstKeyReadFrom(ix, t3, e.From), t2)
		case visRead:
			why = fmt.Sprintf("%s also read %s from %s", txnName(h, t3), firstKeyReadFrom(ix, t3, e.From), t2)
		case visCausal:
			path, usesRT := causalPath(ix, e.From, t3, realTime)
			if usesRT {
				*visp = visCausalRealTime
			}
			why = fmt.Sprintf("%s is in the causal past of %s: %s", t2, txnName(h, t3), path)
		case visRepeat:
			why = fmt.Sprintf("%s read %s from %s too", txnName(h, t3), keyName(h, e.Key), t2)
		case visRealTime:
			why = fmt.Sprintf("%s committed before %s began", t2, txnName(h, t3))
		}
		return fmt.Sprintf("%s read %s%s from %s%s, but %s also writes %s and was visible to %s (%s), so %s's %s must come before %s's",
			txnName(h, t3), keyName(h, e.Key), opValue(h, t3, e.ToOp), t1, stmtText(h, t3, e.ToOp),
			t2, keyName(h, e.Key), txnName(h, t3), why, t2, keyName(h, e.Key), t1)
	}
	return e.Reason
}

// causalPath renders a shortest so ∪ wr (∪ rt) path from t2 to t3, found
// by a breadth-first search backwards from t3 (explanations only), and says
// whether it needs real time. The real-time predecessors of a transaction
// are a prefix of the committed timed transactions sorted by commit time,
// and the prefixes nest, so each is enqueued once: O(n log n).
func causalPath(ix *index, t2, t3 history.TxnID, realTime bool) (string, bool) {
	h := ix.h
	var byEnd []history.TxnID
	if realTime {
		for i := 1; i < len(h.Txns); i++ {
			if t := history.TxnID(i); ix.checked(t) && ix.visibleWriter(t) && h.Txns[i].End != 0 {
				byEnd = append(byEnd, t)
			}
		}
		slices.SortFunc(byEnd, func(a, b history.TxnID) int { return cmp.Compare(h.Txns[a].End, h.Txns[b].End) })
	}
	scanned := 0
	next := map[history.TxnID]history.TxnID{t3: t3}
	queue := []history.TxnID{t3}
	for len(queue) > 0 {
		if _, found := next[t2]; found {
			break
		}
		v := queue[0]
		queue = queue[1:]
		var preds []history.TxnID
		if p := ix.pos[v]; p > 0 {
			preds = append(preds, ix.sess[h.Txns[v].Session][p-1])
		}
		for _, op := range h.Txns[v].Ops {
			if external(v, &op) && op.Writer != history.Init {
				preds = append(preds, op.Writer)
			}
		}
		if realTime && h.Txns[v].Start != 0 {
			for ; scanned < len(byEnd) && h.Txns[byEnd[scanned]].End < h.Txns[v].Start; scanned++ {
				preds = append(preds, byEnd[scanned])
			}
		}
		for _, u := range preds {
			if _, seen := next[u]; !seen {
				next[u] = v
				queue = append(queue, u)
			}
		}
	}
	if _, ok := next[t2]; !ok {
		return "?", false
	}
	var b strings.Builder
	usesRT := false
	b.WriteString(txnName(h, t2))
	for v := t2; v != t3; v = next[v] {
		w := next[v]
		rel := "rt"
		if e, ok := soEdge(ix, v, w); ok && e.Kind == EdgeSO {
			rel = "so"
		} else if _, ok := wrEdge(ix, v, w); ok {
			rel = "wr"
		} else {
			usesRT = true
		}
		fmt.Fprintf(&b, " -%s-> %s", rel, txnName(h, w))
	}
	return b.String(), usesRT
}

// firstKeyReadFrom names the first key t3 read from t2.
func firstKeyReadFrom(ix *index, t3, t2 history.TxnID) string {
	for _, op := range ix.h.Txns[t3].Ops {
		if op.Kind == history.OpRead && op.Writer == t2 {
			return keyName(ix.h, op.Key) + valueText(&op)
		}
	}
	return "a key"
}

// txnName names a transaction: its name in the source format, or T<id>.
func txnName(h *history.History, t history.TxnID) string {
	switch {
	case t == history.Init:
		return "init"
	case t == history.NoWriter || int(t) >= len(h.Txns):
		return fmt.Sprintf("T%d?", t)
	case h.Txns[t].Name != "" && !allDigits(h.Txns[t].Name):
		return h.Txns[t].Name
	case h.Txns[t].Name != "":
		return "T" + h.Txns[t].Name // formats that number transactions
	}
	return fmt.Sprintf("T%d", t)
}

// allDigits reports whether s is a non-empty string of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// sessionName names t's session.
func sessionName(h *history.History, t history.TxnID) string {
	if int(t) >= len(h.Txns) {
		return "?"
	}
	s := h.Txns[t].Session
	if int(s) < len(h.Sessions) && h.Sessions[s].Name != "" {
		return h.Sessions[s].Name
	}
	return fmt.Sprintf("S%d", s)
}

// keyName renders a key as table/name.
func keyName(h *history.History, x history.KeyID) string {
	if int(x) < len(h.Keys) {
		if k := h.Keys[x]; k.Table == "" && allDigits(k.Name) {
			return "key " + k.Name // formats that number keys
		}
		return h.Keys[x].String()
	}
	return fmt.Sprintf("key#%d", x)
}

// opValue renders the value of operation op of t, if any.
func opValue(h *history.History, t history.TxnID, op int32) string {
	if op < 0 || int(t) >= len(h.Txns) || int(op) >= len(h.Txns[t].Ops) {
		return ""
	}
	return valueText(&h.Txns[t].Ops[op])
}

// stmtText renders the SQL text of the statement of operation op of t, if
// known.
func stmtText(h *history.History, t history.TxnID, op int32) string {
	if op < 0 || int(t) >= len(h.Txns) || int(op) >= len(h.Txns[t].Ops) {
		return ""
	}
	txn := &h.Txns[t]
	ev := txn.Ops[op].Event
	if int(ev) < len(txn.Statements) && txn.Statements[ev].SQL != "" {
		return fmt.Sprintf(" in %q", txn.Statements[ev].SQL)
	}
	return ""
}

// describe names a transaction with its session, the level it was checked
// at, and its outcome.
func (e *Explanation) describe(h *history.History, t history.TxnID) string {
	if t == history.Init || int(t) >= len(h.Txns) {
		return txnName(h, t)
	}
	level, ok := e.levels[t]
	if !ok {
		level = h.Txns[t].Level
	}
	if level == history.LevelUnknown {
		return fmt.Sprintf("%s: session %s, %s", txnName(h, t), sessionName(h, t), h.Txns[t].Outcome)
	}
	return fmt.Sprintf("%s: session %s, %s, %s", txnName(h, t), sessionName(h, t), level, h.Txns[t].Outcome)
}

// Text renders the explanation for people: the level and anomaly, then the
// structural defect or the cycle, one edge a line.
func (e *Explanation) Text(h *history.History) string {
	var b strings.Builder
	fmt.Fprintf(&b, "violates %s: %s", e.levelText(), e.Anomaly)
	if e.Structural != nil && e.Anomaly != e.Structural.Kind.String() {
		fmt.Fprintf(&b, " (%s)", e.Structural.Kind)
	}
	b.WriteString("\n")
	if e.Structural != nil {
		fmt.Fprintf(&b, "  %s\n", e.Structural.Reason)
		return b.String()
	}
	if len(e.Cycle) == 0 {
		return b.String()
	}
	for _, ed := range e.Cycle {
		key := ""
		if ed.Kind == EdgeWR || ed.Kind == EdgeWW || ed.Kind == EdgeRW {
			key = " " + keyName(h, ed.Key)
		}
		fmt.Fprintf(&b, "  %s -%s%s-> %s: %s\n", txnName(h, ed.From), ed.Kind, key, txnName(h, ed.To), ed.Reason)
	}
	b.WriteString("transactions:\n")
	var involved []history.TxnID
	seen := map[history.TxnID]bool{}
	for _, ed := range e.Cycle {
		for _, t := range []history.TxnID{ed.From, ed.Via} {
			if (ed.Kind == EdgeWW || ed.Kind == EdgeRW || t != ed.Via) && !seen[t] {
				seen[t] = true
				involved = append(involved, t)
			}
		}
	}
	slices.Sort(involved)
	for _, t := range involved {
		fmt.Fprintf(&b, "  %s\n", e.describe(h, t))
	}
	return b.String()
}

// jsonExplanation is the JSON form of an Explanation.
type jsonExplanation struct {
	Level   string `json:"level"`
	Anomaly string `json:"anomaly"`
	// Definition, for a cycle at read committed, says which definition
	// of it the cycle breaks.
	Definition string          `json:"definition,omitempty"`
	Structural *jsonStructural `json:"structural,omitempty"`
	Cycle      []jsonEdge      `json:"cycle,omitempty"`
}

type jsonStructural struct {
	Kind    string `json:"kind"`
	Txn     string `json:"txn"`
	Session string `json:"session"`
	Op      int32  `json:"op"`
	Key     string `json:"key"`
	Writer  string `json:"writer"`
	Reason  string `json:"reason"`
}

type jsonEdge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Kind   string `json:"kind"`
	Key    string `json:"key,omitempty"`
	Via    string `json:"via,omitempty"`
	Reason string `json:"reason"`
}

// JSON renders the explanation as a JSON object with transactions, sessions
// and keys by name.
func (e *Explanation) JSON(h *history.History) ([]byte, error) {
	return json.Marshal(e.jsonValue(h))
}

func (e *Explanation) jsonValue(h *history.History) *jsonExplanation {
	j := &jsonExplanation{Level: LevelName(e.Level, e.RC), Anomaly: e.Anomaly}
	if e.Level == history.ReadCommitted && e.Structural == nil {
		j.Definition = e.RC.Describe()
	}
	if s := e.Structural; s != nil {
		j.Structural = &jsonStructural{Kind: s.Kind.String(), Txn: txnName(h, s.Txn), Session: sessionName(h, s.Txn),
			Op: s.Op, Key: keyName(h, s.Key), Writer: txnName(h, s.Writer), Reason: s.Reason}
	}
	for _, ed := range e.Cycle {
		je := jsonEdge{From: txnName(h, ed.From), To: txnName(h, ed.To), Kind: ed.Kind.String(), Reason: ed.Reason}
		if ed.Kind == EdgeWR || ed.Kind == EdgeWW || ed.Kind == EdgeRW {
			je.Key = keyName(h, ed.Key)
		}
		if ed.Kind == EdgeWW || ed.Kind == EdgeRW {
			je.Via = txnName(h, ed.Via)
		}
		j.Cycle = append(j.Cycle, je)
	}
	return j
}
