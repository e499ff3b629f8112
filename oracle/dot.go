package oracle

import (
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// DOT renders the explanation's cycle for Graphviz (`dot -Tsvg`): one node
// per transaction involved, labelled with its session, level and outcome,
// and one edge per cycle edge, labelled with its relation and key and with
// the reason as a tooltip. Derived edges are dashed; the reader that forced a
// derived edge is drawn grey, with a dotted wr edge from the writer it read. A structural defect
// is drawn as the read and the transaction it read from.
func (e *Explanation) DOT(h *history.History) string {
	var b strings.Builder
	b.WriteString("digraph violation {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n")
	fmt.Fprintf(&b, "  label=%s;\n  labelloc=t;\n", dotQuote(fmt.Sprintf("violates %s: %s", e.levelText(), e.Anomaly)))
	nodes := map[history.TxnID]bool{}
	node := func(t history.TxnID, extra string) {
		if nodes[t] {
			return
		}
		nodes[t] = true
		label := txnName(h, t)
		if t != history.Init && int(t) < len(h.Txns) {
			label += fmt.Sprintf("\\nsession %s\\n%s, %s", sessionName(h, t), h.Txns[t].Level, h.Txns[t].Outcome)
		}
		fmt.Fprintf(&b, "  t%d [label=\"%s\"%s];\n", t, dotEscape(label), extra)
	}
	if s := e.Structural; s != nil {
		node(s.Txn, "")
		if s.Writer != history.NoWriter && int(s.Writer) < len(h.Txns) && s.Writer != s.Txn {
			node(s.Writer, "")
			fmt.Fprintf(&b, "  t%d -> t%d [label=%s, tooltip=%s, color=red];\n", s.Writer, s.Txn,
				dotQuote("wr "+keyName(h, s.Key)), dotQuote(s.Reason))
		}
		b.WriteString("}\n")
		return b.String()
	}
	for _, ed := range e.Cycle {
		node(ed.From, "")
		node(ed.To, "")
	}
	for _, ed := range e.Cycle {
		label := ed.Kind.String()
		style := ""
		if ed.Kind == EdgeWR || ed.Kind == EdgeWW || ed.Kind == EdgeRW {
			label += " " + keyName(h, ed.Key)
		}
		if ed.Kind == EdgeWW || ed.Kind == EdgeRW {
			style = ", style=dashed, color=red"
		}
		fmt.Fprintf(&b, "  t%d -> t%d [label=%s, tooltip=%s%s];\n", ed.From, ed.To, dotQuote(label), dotQuote(ed.Reason), style)
	}
	for _, ed := range e.Cycle {
		if (ed.Kind == EdgeWW || ed.Kind == EdgeRW) && ed.Via != ed.From && ed.Via != ed.To {
			node(ed.Via, ", color=grey")
			fmt.Fprintf(&b, "  t%d -> t%d [label=%s, style=dotted, color=grey, constraint=false];\n",
				ed.To, ed.Via, dotQuote("wr "+keyName(h, ed.Key)))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string { return "\"" + dotEscape(s) + "\"" }

// dotEscape escapes quotes and backslashes that are not already line
// breaks for a DOT string.
func dotEscape(s string) string {
	s = strings.ReplaceAll(s, "\\n", "\x00")
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "\"", "\\\"")
	s = strings.ReplaceAll(s, "\n", "\\n")
	return strings.ReplaceAll(s, "\x00", "\\n")
}
