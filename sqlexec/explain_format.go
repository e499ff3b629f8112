package sqlexec

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// explainDoc lays a plan out in one of EXPLAIN's formats: TEXT as
// PostgreSQL indents it ("->" per child), JSON, YAML and XML as one
// document of the same properties.
type explainDoc struct {
	opts                explainOptions
	root                *planNode
	stats               planStats
	planning, execution time.Duration
	// subplanCount numbers the InitPlans and SubPlans in print order.
	subplanCount int
}

// render returns the result rows: one per line in TEXT, one document
// otherwise.
func (d *explainDoc) render() []string {
	if d.opts.format == "text" {
		var lines []string
		d.textNode(&lines, d.root, "", 0, false)
		if d.opts.summary {
			lines = append(lines, "Planning Time: "+millis(d.planning)+" ms")
			if d.opts.analyze {
				lines = append(lines, "Execution Time: "+millis(d.execution)+" ms")
			}
		}
		return lines
	}
	top := []field{{key: "Plan", obj: d.structNode(d.root, "")}}
	if d.opts.summary {
		top = append(top, field{key: "Planning Time", num: millis(d.planning)})
	}
	if d.opts.analyze {
		top = append(top, field{key: "Triggers", list: []string{}})
		if d.opts.summary {
			top = append(top, field{key: "Execution Time", num: millis(d.execution)})
		}
	}
	var b strings.Builder
	switch d.opts.format {
	case "json":
		b.WriteString("[\n  {\n")
		writeJSON(&b, top, 4)
		b.WriteString("\n  }\n]")
	case "yaml":
		b.WriteString("- ")
		writeYAML(&b, top, 2, true)
	case "xml":
		b.WriteString("<explain xmlns=\"http://www.postgresql.org/2009/explain\">\n  <Query>\n")
		writeXML(&b, top, 4)
		b.WriteString("  </Query>\n</explain>")
	}
	return []string{b.String()}
}

func millis(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Nanoseconds())/1e6, 'f', 3, 64)
}

// textName is the node's first line without its estimates: the node type
// with its join type, set command or DML operation, and what it reads.
func textName(desc opDesc) string {
	var b strings.Builder
	switch {
	case desc.nodeType == "ModifyTable":
		b.WriteString(desc.strategy)
	case desc.joinType != "" && desc.joinType != "Inner":
		// "Nested Loop Left Join", "Hash Left Join".
		b.WriteString(strings.TrimSuffix(desc.nodeType, " Join") + " " + desc.joinType + " Join")
	default:
		b.WriteString(desc.nodeType)
	}
	for _, p := range desc.props {
		if p.key == "Command" {
			b.WriteString(" " + p.value)
		}
	}
	if desc.index != "" {
		b.WriteString(" using " + types.QuoteIdent(desc.index))
	}
	rel := desc.relation
	if rel != "" && desc.schema != "" {
		rel = types.QuoteIdent(desc.schema) + "." + types.QuoteIdent(rel)
	} else if rel != "" && desc.relationKey != "Alias" {
		rel = types.QuoteIdent(rel)
	}
	alias := desc.alias
	switch {
	case rel != "" && alias != "" && alias != desc.relation:
		b.WriteString(" on " + rel + " " + types.QuoteIdent(alias))
	case rel != "":
		b.WriteString(" on " + rel)
	case alias != "" && desc.nodeType != "ModifyTable":
		b.WriteString(" on " + types.QuoteIdent(alias))
	}
	return b.String()
}

// textNode appends n's lines: its header (after "->  " when it is a
// child), then its properties, InitPlans, children and SubPlans.
func (d *explainDoc) textNode(lines *[]string, n *planNode, label string, indent int, child bool) {
	desc := n.op.describe(explainView{verbose: d.opts.verbose})
	head := textName(desc)
	if d.opts.costs {
		head += fmt.Sprintf("  (cost=%.2f..%.2f rows=%s width=%d)", n.startup, n.cost, formatCount(n.rows), n.width)
	}
	head += d.actualText(n)
	propIndent := 2
	if child {
		head = strings.Repeat(" ", indent) + "->  " + head
		propIndent = indent + 6
	}
	if label != "" {
		*lines = append(*lines, strings.Repeat(" ", indent-2)+label)
	}
	*lines = append(*lines, head)
	pad := strings.Repeat(" ", propIndent)
	for _, p := range desc.props {
		if p.key == "Command" {
			continue
		}
		v := p.value
		if p.list != nil {
			v = strings.Join(p.list, ", ")
		}
		*lines = append(*lines, pad+p.key+": "+v)
	}
	for _, sp := range n.subplans {
		if !sp.correlated {
			d.subplanCount++
			d.textNode(lines, sp.plan, fmt.Sprintf("InitPlan %d (returns $%d)", d.subplanCount, d.subplanCount-1), propIndent+2, true)
		}
	}
	for _, c := range n.children {
		d.textNode(lines, c, "", propIndent, true)
	}
	for _, sp := range n.subplans {
		if sp.correlated {
			d.subplanCount++
			d.textNode(lines, sp.plan, fmt.Sprintf("SubPlan %d", d.subplanCount), propIndent+2, true)
		}
	}
}

// actualText is the " (actual ...)" part of a node's line under ANALYZE.
func (d *explainDoc) actualText(n *planNode) string {
	if !d.opts.analyze {
		return ""
	}
	s := d.stats[n]
	if s == nil || s.loops == 0 {
		return " (never executed)"
	}
	rows := formatCount(float64(s.rows) / float64(s.loops))
	if d.opts.timing {
		return fmt.Sprintf(" (actual time=%s..%s rows=%s loops=%d)", millis(s.first), millis(s.total/time.Duration(s.loops)), rows, s.loops)
	}
	return fmt.Sprintf(" (actual rows=%s loops=%d)", rows, s.loops)
}

// field is one property of a structured document: a string, a number
// (num, printed bare), a list of strings, a nested object or a list of
// objects.
type field struct {
	key   string
	str   string
	num   string
	isStr bool
	list  []string
	obj   []field
	objs  [][]field
}

// structNode is n as the properties of a structured format.
func (d *explainDoc) structNode(n *planNode, relationship string) []field {
	desc := n.op.describe(explainView{verbose: d.opts.verbose})
	f := []field{{key: "Node Type", str: desc.nodeType, isStr: true}}
	if desc.nodeType == "ModifyTable" {
		f = append(f, field{key: "Operation", str: desc.strategy, isStr: true})
	} else if desc.strategy != "" {
		f = append(f, field{key: "Strategy", str: desc.strategy, isStr: true})
	}
	if desc.joinType != "" {
		f = append(f, field{key: "Join Type", str: desc.joinType, isStr: true})
	}
	if relationship != "" {
		f = append(f, field{key: "Parent Relationship", str: relationship, isStr: true})
	}
	f = append(f, field{key: "Parallel Aware", num: "false"}, field{key: "Async Capable", num: "false"})
	if desc.index != "" {
		f = append(f, field{key: "Index Name", str: desc.index, isStr: true})
	}
	if desc.relation != "" && desc.relationKey != "" {
		f = append(f, field{key: desc.relationKey, str: strings.Trim(desc.relation, `"`), isStr: true})
	}
	if desc.schema != "" {
		f = append(f, field{key: "Schema", str: desc.schema, isStr: true})
	}
	if desc.alias != "" {
		f = append(f, field{key: "Alias", str: desc.alias, isStr: true})
	}
	if d.opts.costs {
		f = append(f, field{key: "Startup Cost", num: fmt.Sprintf("%.2f", n.startup)}, field{key: "Total Cost", num: fmt.Sprintf("%.2f", n.cost)},
			field{key: "Plan Rows", num: formatCount(n.rows)}, field{key: "Plan Width", num: strconv.Itoa(n.width)})
	}
	if d.opts.analyze {
		s := d.stats[n]
		if s == nil {
			s = &nodeStats{}
		}
		if d.opts.timing && s.loops > 0 {
			f = append(f, field{key: "Actual Startup Time", num: millis(s.first)}, field{key: "Actual Total Time", num: millis(s.total / time.Duration(s.loops))})
		}
		rows := 0.0
		if s.loops > 0 {
			rows = float64(s.rows) / float64(s.loops)
		}
		f = append(f, field{key: "Actual Rows", num: formatCount(rows)}, field{key: "Actual Loops", num: strconv.FormatInt(s.loops, 10)})
	}
	for _, p := range desc.props {
		if p.list != nil {
			f = append(f, field{key: p.key, list: p.list})
		} else {
			f = append(f, field{key: p.key, str: p.value, isStr: true})
		}
	}
	var plans [][]field
	for _, sp := range n.subplans {
		if !sp.correlated {
			d.subplanCount++
			plans = append(plans, d.structNode(sp.plan, "InitPlan"))
		}
	}
	for i, c := range n.children {
		rel := "Outer"
		if i > 0 {
			rel = "Inner"
		}
		if _, ok := n.op.(appendOp); ok {
			rel = "Member"
		}
		plans = append(plans, d.structNode(c, rel))
	}
	for _, sp := range n.subplans {
		if sp.correlated {
			d.subplanCount++
			plans = append(plans, d.structNode(sp.plan, "SubPlan"))
		}
	}
	if len(plans) > 0 {
		f = append(f, field{key: "Plans", objs: plans})
	}
	return f
}

func jsonString(s string) string { return strconv.Quote(s) }

func writeJSON(b *strings.Builder, fs []field, indent int) {
	pad := strings.Repeat(" ", indent)
	for i, f := range fs {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(pad + jsonString(f.key) + ": ")
		switch {
		case f.obj != nil:
			b.WriteString("{\n")
			writeJSON(b, f.obj, indent+2)
			b.WriteString("\n" + pad + "}")
		case f.objs != nil:
			b.WriteString("[\n")
			for j, o := range f.objs {
				if j > 0 {
					b.WriteString(",\n")
				}
				b.WriteString(pad + "  {\n")
				writeJSON(b, o, indent+4)
				b.WriteString("\n" + pad + "  }")
			}
			b.WriteString("\n" + pad + "]")
		case f.list != nil:
			qs := make([]string, len(f.list))
			for j, s := range f.list {
				qs[j] = jsonString(s)
			}
			b.WriteString("[" + strings.Join(qs, ", ") + "]")
		case f.isStr:
			b.WriteString(jsonString(f.str))
		default:
			b.WriteString(f.num)
		}
	}
}

// yamlString quotes a string value, as PostgreSQL's YAML format does.
func yamlString(s string) string {
	return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\""
}

// writeYAML writes fs as a YAML mapping; first says the first key
// continues a line that already holds its list dash.
func writeYAML(b *strings.Builder, fs []field, indent int, first bool) {
	pad := strings.Repeat(" ", indent)
	for i, f := range fs {
		if i > 0 || !first {
			b.WriteString("\n" + pad)
		}
		b.WriteString(f.key + ": ")
		switch {
		case f.obj != nil:
			b.WriteString("\n" + pad + "  ")
			writeYAML(b, f.obj, indent+2, true)
		case f.objs != nil:
			for _, o := range f.objs {
				b.WriteString("\n" + pad + "  - ")
				writeYAML(b, o, indent+4, true)
			}
		case f.list != nil:
			for _, s := range f.list {
				b.WriteString("\n" + pad + "  - " + yamlString(s))
			}
		case f.isStr:
			b.WriteString(yamlString(f.str))
		default:
			b.WriteString(f.num)
		}
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;").Replace(s)
}

func xmlTag(key string) string { return strings.ReplaceAll(key, " ", "-") }

func writeXML(b *strings.Builder, fs []field, indent int) {
	pad := strings.Repeat(" ", indent)
	for _, f := range fs {
		tag := xmlTag(f.key)
		switch {
		case f.obj != nil:
			b.WriteString(pad + "<" + tag + ">\n")
			writeXML(b, f.obj, indent+2)
			b.WriteString(pad + "</" + tag + ">\n")
		case f.objs != nil:
			b.WriteString(pad + "<" + tag + ">\n")
			for _, o := range f.objs {
				b.WriteString(pad + "  <Plan>\n")
				writeXML(b, o, indent+4)
				b.WriteString(pad + "  </Plan>\n")
			}
			b.WriteString(pad + "</" + tag + ">\n")
		case f.list != nil:
			b.WriteString(pad + "<" + tag + ">\n")
			for _, s := range f.list {
				b.WriteString(pad + "  <Item>" + xmlEscape(s) + "</Item>\n")
			}
			b.WriteString(pad + "</" + tag + ">\n")
		case f.isStr:
			b.WriteString(pad + "<" + tag + ">" + xmlEscape(f.str) + "</" + tag + ">\n")
		default:
			b.WriteString(pad + "<" + tag + ">" + f.num + "</" + tag + ">\n")
		}
	}
}
