package sqlexec

import (
	"regexp"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// The SQL/XML expressions of the grammar (XmlExpr, XmlSerialize) as
// transformXmlExpr and ExecEvalXmlExpr compile and run them: XMLCONCAT,
// XMLELEMENT (with XMLATTRIBUTES), XMLFOREST, XMLPARSE, XMLPI, XMLROOT,
// IS DOCUMENT and XMLSERIALIZE. The XML work itself is package types'.

// indentWordRE finds XMLSERIALIZE's INDENT option in the statement text.
var indentWordRE = regexp.MustCompile(`(?i)\bindent\b`)

// xmlExpr compiles an XmlExpr.
func (b *binder) xmlExpr(sc *scope, x *pg_query.XmlExpr) (*scalar, error) {
	names := map[pg_query.XmlExprOp]string{
		pg_query.XmlExprOp_IS_XMLCONCAT: "xmlconcat", pg_query.XmlExprOp_IS_XMLELEMENT: "xmlelement",
		pg_query.XmlExprOp_IS_XMLFOREST: "xmlforest", pg_query.XmlExprOp_IS_XMLPARSE: "xmlparse",
		pg_query.XmlExprOp_IS_XMLPI: "xmlpi", pg_query.XmlExprOp_IS_XMLROOT: "xmlroot",
		pg_query.XmlExprOp_IS_DOCUMENT: "?column?",
	}
	colName, ok := names[x.Op]
	if !ok {
		return nil, b.errAt(pgerror.Unsupported("XML expression "+x.Op.String()), x.Location)
	}
	// The named arguments: XMLATTRIBUTES' and XMLFOREST's.
	var named []*scalar
	var argNames []string
	for _, n := range x.NamedArgs {
		rt := n.GetResTarget()
		e, err := b.expr(sc, rt.Val)
		if err != nil {
			return nil, err
		}
		if e, err = b.xmlFixUnknown(e); err != nil {
			return nil, err
		}
		var name string
		switch {
		case rt.Name != "":
			name = types.XMLName(rt.Name)
		case rt.Val.GetColumnRef() != nil:
			name = types.XMLName(columnRefName(rt.Val.GetColumnRef()))
		case x.Op == pg_query.XmlExprOp_IS_XMLELEMENT:
			return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "unnamed XML attribute value must be a column reference"), rt.Location)
		default:
			return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "unnamed XML element value must be a column reference"), rt.Location)
		}
		if x.Op == pg_query.XmlExprOp_IS_XMLELEMENT {
			for _, prev := range argNames {
				if prev == name {
					return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "XML attribute name \"%s\" appears more than once", name), rt.Location)
				}
			}
		}
		named = append(named, e)
		argNames = append(argNames, name)
	}
	construct := map[pg_query.XmlExprOp]string{
		pg_query.XmlExprOp_IS_XMLCONCAT: "XMLCONCAT", pg_query.XmlExprOp_IS_XMLPARSE: "XMLPARSE",
		pg_query.XmlExprOp_IS_XMLPI: "XMLPI", pg_query.XmlExprOp_IS_XMLROOT: "XMLROOT", pg_query.XmlExprOp_IS_DOCUMENT: "IS DOCUMENT",
	}[x.Op]
	args := make([]*scalar, len(x.Args))
	for i, n := range x.Args {
		e, err := b.expr(sc, n)
		if err != nil {
			return nil, err
		}
		want := types.XMLType
		switch {
		case x.Op == pg_query.XmlExprOp_IS_XMLELEMENT:
			e, err = b.xmlFixUnknown(e)
			want = e.typ
		case x.Op == pg_query.XmlExprOp_IS_XMLPARSE && i == 1:
			e, err = b.requireBool(e, "XMLPARSE", n)
			want = types.Bool
		case x.Op == pg_query.XmlExprOp_IS_XMLPARSE, x.Op == pg_query.XmlExprOp_IS_XMLPI,
			x.Op == pg_query.XmlExprOp_IS_XMLROOT && i == 1:
			want = types.Text
		case x.Op == pg_query.XmlExprOp_IS_XMLROOT && i == 2:
			want = types.Int4
		}
		if err != nil {
			return nil, err
		}
		if args[i], err = b.xmlCoerce(e, want, construct, n); err != nil {
			return nil, err
		}
	}
	var refs uint64
	volatile := false
	for _, e := range append(append([]*scalar{}, named...), args...) {
		refs |= e.refs
		volatile = volatile || e.volatile
	}
	out := &scalar{typ: types.XMLType, slot: -1, refs: refs, volatile: volatile, name: colName}
	evalAll := func(x *execCtx, es []*scalar) ([]any, error) {
		vs := make([]any, len(es))
		for i, e := range es {
			v, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		return vs, nil
	}
	switch x.Op {
	case pg_query.XmlExprOp_IS_XMLCONCAT:
		out.eval = func(x *execCtx) (any, error) {
			vs, err := evalAll(x, args)
			if err != nil {
				return nil, err
			}
			var present []string
			for _, v := range vs {
				if v != nil {
					present = append(present, v.(string))
				}
			}
			if len(present) == 0 {
				return nil, nil
			}
			return types.XMLConcat(present), nil
		}
	case pg_query.XmlExprOp_IS_XMLELEMENT:
		name := types.XMLName(x.Name)
		out.eval = func(x *execCtx) (any, error) {
			return xmlElement(x, name, argNames, named, args)
		}
	case pg_query.XmlExprOp_IS_XMLFOREST:
		out.eval = func(x *execCtx) (any, error) {
			var s []byte
			present, err := xmlValues(x, named, true, func(i int, text string) {
				s = append(s, "<"+argNames[i]+">"+text+"</"+argNames[i]+">"...)
			})
			if err != nil || !present {
				return nil, err
			}
			return string(s), nil
		}
	case pg_query.XmlExprOp_IS_XMLPARSE:
		document := x.Xmloption == pg_query.XmlOptionType_XMLOPTION_DOCUMENT
		out.eval = func(x *execCtx) (any, error) {
			v, err := args[0].eval(x)
			if err != nil || v == nil {
				return nil, err
			}
			return types.XMLParse(v.(string), document)
		}
	case pg_query.XmlExprOp_IS_XMLPI:
		target := types.XMLName(x.Name)
		out.eval = func(x *execCtx) (any, error) {
			if err := types.XMLPITargetError(target); err != nil {
				return nil, err
			}
			if len(args) == 0 {
				return types.XMLPI(target, "", false)
			}
			v, err := args[0].eval(x)
			if err != nil || v == nil {
				return nil, err
			}
			return types.XMLPI(target, v.(string), true)
		}
	case pg_query.XmlExprOp_IS_XMLROOT:
		out.eval = func(x *execCtx) (any, error) {
			vs, err := evalAll(x, args)
			if err != nil || vs[0] == nil {
				return nil, err
			}
			var version *string
			if vs[1] != nil {
				v := vs[1].(string)
				version = &v
			}
			return types.XMLRoot(vs[0].(string), version, types.XMLStandalone(vs[2].(int64))), nil
		}
	case pg_query.XmlExprOp_IS_DOCUMENT:
		out.typ = types.Bool
		out.eval = func(x *execCtx) (any, error) {
			v, err := args[0].eval(x)
			if err != nil || v == nil {
				return nil, err
			}
			return types.XMLIsDocument(v.(string)), nil
		}
	}
	return out, nil
}

// xmlValues evaluates exprs in order and hands each non-NULL value, mapped
// to XML (escaped as content when escape), to each with its index; present
// reports whether any was not NULL.
func xmlValues(x *execCtx, exprs []*scalar, escape bool, each func(i int, text string)) (present bool, err error) {
	for i, e := range exprs {
		v, err := e.eval(x)
		if err != nil {
			return false, err
		}
		if v == nil {
			continue
		}
		text, err := types.XMLValue(x.env, e.typ, v, escape)
		if err != nil {
			return false, err
		}
		present = true
		each(i, text)
	}
	return present, nil
}

// xmlElement is xmlelement: the attributes of the non-NULL named values,
// escaped, then the non-NULL content values mapped to XML; an element
// without content closes itself.
func xmlElement(x *execCtx, name string, argNames []string, named, args []*scalar) (any, error) {
	s := []byte("<" + name)
	if _, err := xmlValues(x, named, false, func(i int, text string) {
		s = append(s, " "+argNames[i]+"=\""+types.XMLAttrEscape(text)+"\""...)
	}); err != nil {
		return nil, err
	}
	var content []byte
	present, err := xmlValues(x, args, true, func(_ int, text string) { content = append(content, text...) })
	if err != nil {
		return nil, err
	}
	if !present {
		return string(append(s, "/>"...)), nil
	}
	s = append(append(append(s, '>'), content...), "</"+name+">"...)
	return string(s), nil
}

// xmlFixUnknown types an untyped literal or parameter as text, as
// PostgreSQL resolves an unknown-type argument of XMLELEMENT or XMLFOREST.
func (b *binder) xmlFixUnknown(e *scalar) (*scalar, error) {
	if unresolved(e) || e.lit != nil && e.typ.Oid == types.OidUnknown || e.null {
		return b.fix(e, types.Text)
	}
	return e, nil
}

// xmlCoerce is coerce_to_specific_type: e implicitly converted to want,
// else 42804 "argument of CONSTRUCT must be type ...".
func (b *binder) xmlCoerce(e *scalar, want types.Type, construct string, n *pg_query.Node) (*scalar, error) {
	if e.typ.Oid == want.Oid && !unresolved(e) && e.lit == nil {
		return e, nil
	}
	if unresolved(e) || e.lit != nil || e.null {
		c, err := b.coerce(e, want, types.CastImplicit)
		if err != nil {
			return nil, b.withPos(err, exprLocation(n))
		}
		return c, nil
	}
	if _, err := types.LookupCastEnv(e.typ, want, types.CastImplicit); err != nil {
		return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "argument of %s must be type %s, not type %s", construct, want, e.typ), exprLocation(n))
	}
	return b.coerce(e, want, types.CastImplicit)
}

// xmlSerialize compiles XMLSERIALIZE(DOCUMENT|CONTENT e AS type): the xml
// value as text (DOCUMENT requires a document), cast implicitly to the
// type.
func (b *binder) xmlSerialize(sc *scope, xs *pg_query.XmlSerialize) (*scalar, error) {
	if xs.Indent {
		// INDENT is PostgreSQL 16's: 15's grammar stops at the word.
		loc := xs.Location
		word := "INDENT"
		if m := indentWordRE.FindStringIndex(b.full[min(int(xs.Location), len(b.full)):]); m != nil {
			loc += int32(m[0])
			word = b.full[loc : loc+int32(m[1]-m[0])]
		}
		return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "syntax error at or near \"%s\"", word), loc)
	}
	e, err := b.expr(sc, xs.Expr)
	if err != nil {
		return nil, err
	}
	if e, err = b.xmlCoerce(e, types.XMLType, "XMLSERIALIZE", xs.Expr); err != nil {
		return nil, err
	}
	target, err := b.typeName(xs.TypeName)
	if err != nil {
		return nil, err
	}
	document := xs.Xmloption == pg_query.XmlOptionType_XMLOPTION_DOCUMENT
	arg := e.eval
	text := &scalar{typ: types.Text, slot: -1, refs: e.refs, volatile: e.volatile, name: "xmlserialize", eval: func(x *execCtx) (any, error) {
		v, err := arg(x)
		if err != nil || v == nil {
			return nil, err
		}
		return types.XMLSerialize(v.(string), document)
	}}
	if target.Oid == types.OidText && target.Typmod < 0 {
		return text, nil
	}
	if _, err := types.LookupCastEnv(types.Text, target, types.CastImplicit); err != nil {
		return nil, b.errAt(pgerror.Newf(pgerror.CannotCoerce, "cannot cast XMLSERIALIZE result to %s", types.FormatTypeBe(target)), xs.Location)
	}
	out, err := b.coerce(text, target, types.CastImplicit)
	if err != nil {
		return nil, err
	}
	out.name = "xmlserialize"
	return out, nil
}
