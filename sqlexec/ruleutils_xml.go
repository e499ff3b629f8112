package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// The SQL/XML expressions as ruleutils prints them (get_rule_expr's
// T_XmlExpr): XMLCONCAT(...), XMLELEMENT(NAME n, XMLATTRIBUTES(v AS a),
// ...), XMLFOREST(v AS n), XMLPARSE(CONTENT v STRIP WHITESPACE), XMLPI(NAME
// n, v), XMLROOT(v, VERSION v, STANDALONE YES), XMLSERIALIZE(CONTENT v AS
// type) and v IS DOCUMENT, with the names mapped back from XML to SQL.

// dxml is what an XML expression prints from besides its arguments.
type dxml struct {
	op        pg_query.XmlExprOp
	name      string   // the XML name of XMLELEMENT and XMLPI
	named     []*dnode // XMLATTRIBUTES' or XMLFOREST's values
	argNames  []string // their XML names
	document  bool     // DOCUMENT rather than CONTENT
	preserve  bool     // XMLPARSE's PRESERVE WHITESPACE
	noVersion bool     // XMLROOT's VERSION NO VALUE
	// standalone is XMLROOT's STANDALONE clause as types.XMLStandalone.
	standalone types.XMLStandalone
	target     types.Type // XMLSERIALIZE's type
}

// xmlExpr analyzes an XmlExpr as transformXmlExpr types its arguments.
func (d *deparser) xmlExpr(x *pg_query.XmlExpr) (*dnode, error) {
	info := &dxml{op: x.Op, document: x.Xmloption == pg_query.XmlOptionType_XMLOPTION_DOCUMENT}
	if x.Name != "" {
		info.name = types.XMLName(x.Name)
	}
	for _, n := range x.NamedArgs {
		rt := n.GetResTarget()
		e, err := d.analyze(rt.Val)
		if err != nil {
			return nil, err
		}
		name := rt.Name
		if name == "" {
			cr := rt.Val.GetColumnRef()
			if cr == nil {
				return nil, errNotDeparsed
			}
			name = columnRefName(cr)
		}
		info.named = append(info.named, e)
		info.argNames = append(info.argNames, types.XMLName(name))
	}
	out := &dnode{kind: dXML, typ: types.XMLType, xml: info}
	for i, n := range x.Args {
		e, err := d.analyze(n)
		if err != nil {
			return nil, err
		}
		switch {
		case x.Op == pg_query.XmlExprOp_IS_XMLELEMENT:
		case x.Op == pg_query.XmlExprOp_IS_XMLPARSE && i == 1:
			info.preserve = e.text == "t" || e.text == "true"
			continue
		case x.Op == pg_query.XmlExprOp_IS_XMLROOT && i == 1 && e.null:
			info.noVersion = true
		case x.Op == pg_query.XmlExprOp_IS_XMLROOT && i == 2:
			c := n.GetAConst()
			if c == nil || c.GetIval() == nil {
				return nil, errNotDeparsed
			}
			info.standalone = types.XMLStandalone(c.GetIval().Ival)
			continue
		case x.Op == pg_query.XmlExprOp_IS_XMLPARSE, x.Op == pg_query.XmlExprOp_IS_XMLPI,
			x.Op == pg_query.XmlExprOp_IS_XMLROOT && i == 1:
			e = d.coerce(e, types.Text)
		default:
			e = d.coerce(e, types.XMLType)
		}
		out.args = append(out.args, e)
	}
	if x.Op == pg_query.XmlExprOp_IS_DOCUMENT {
		out.typ = types.Bool
	}
	return out, nil
}

// xmlSerialize analyzes XMLSERIALIZE: its text, cast to a type other
// than text as the coercion PostgreSQL adds (and shows).
func (d *deparser) xmlSerialize(xs *pg_query.XmlSerialize) (*dnode, error) {
	e, err := d.analyze(xs.Expr)
	if err != nil {
		return nil, err
	}
	target, err := d.b.typeName(xs.TypeName)
	if err != nil {
		return nil, err
	}
	info := &dxml{op: pg_query.XmlExprOp_IS_XMLSERIALIZE, document: xs.Xmloption == pg_query.XmlOptionType_XMLOPTION_DOCUMENT, target: target}
	out := &dnode{kind: dXML, typ: types.Text, xml: info, args: []*dnode{d.coerce(e, types.XMLType)}}
	if target.Oid == types.OidText {
		return out, nil
	}
	return &dnode{kind: dCast, typ: target, args: []*dnode{out}}, nil
}

// printXML prints an analyzed XML expression.
func (d *deparser) printXML(n *dnode, pretty bool) string {
	x := n.xml
	arg := func(a *dnode) string { return d.print(a, nil, pretty, true) }
	sqlName := func(name string) string { return types.QuoteIdent(types.XMLNameToSQL(name)) }
	if x.op == pg_query.XmlExprOp_IS_DOCUMENT {
		// The argument list is never a simple node: pretty printing
		// parenthesizes it; nothing parenthesizes the whole.
		if pretty {
			return "(" + d.print(n.args[0], nil, pretty, false) + ") IS DOCUMENT"
		}
		return d.print(n.args[0], nil, pretty, false) + " IS DOCUMENT"
	}
	var b strings.Builder
	b.WriteString(strings.TrimPrefix(x.op.String(), "IS_") + "(")
	if x.op == pg_query.XmlExprOp_IS_XMLPARSE || x.op == pg_query.XmlExprOp_IS_XMLSERIALIZE {
		if x.document {
			b.WriteString("DOCUMENT ")
		} else {
			b.WriteString("CONTENT ")
		}
	}
	comma := false
	if x.name != "" {
		b.WriteString("NAME " + sqlName(x.name))
		comma = true
	}
	if len(x.named) > 0 {
		forest := x.op == pg_query.XmlExprOp_IS_XMLFOREST
		if !forest {
			if comma {
				b.WriteString(", ")
			}
			b.WriteString("XMLATTRIBUTES(")
			comma = false
		}
		for i, e := range x.named {
			if comma {
				b.WriteString(", ")
			}
			b.WriteString(arg(e) + " AS " + sqlName(x.argNames[i]))
			comma = true
		}
		if !forest {
			b.WriteString(")")
		}
	}
	if len(n.args) > 0 {
		if comma {
			b.WriteString(", ")
		}
		switch x.op {
		case pg_query.XmlExprOp_IS_XMLPARSE:
			b.WriteString(arg(n.args[0]))
			if x.preserve {
				b.WriteString(" PRESERVE WHITESPACE")
			} else {
				b.WriteString(" STRIP WHITESPACE")
			}
		case pg_query.XmlExprOp_IS_XMLROOT:
			b.WriteString(arg(n.args[0]) + ", VERSION ")
			if x.noVersion {
				b.WriteString("NO VALUE")
			} else {
				b.WriteString(d.print(n.args[1], nil, pretty, false))
			}
			switch x.standalone {
			case types.XMLStandaloneYes:
				b.WriteString(", STANDALONE YES")
			case types.XMLStandaloneNo:
				b.WriteString(", STANDALONE NO")
			case types.XMLStandaloneNoValue:
				b.WriteString(", STANDALONE NO VALUE")
			}
		default:
			parts := make([]string, len(n.args))
			for i, a := range n.args {
				parts[i] = arg(a)
			}
			b.WriteString(strings.Join(parts, ", "))
		}
	}
	if x.op == pg_query.XmlExprOp_IS_XMLSERIALIZE {
		typ, _ := catalogNames{s: d.b.s}.typeName(uint32(x.target.Oid), x.target.Typmod)
		b.WriteString(" AS " + typ)
	}
	b.WriteString(")")
	return b.String()
}
