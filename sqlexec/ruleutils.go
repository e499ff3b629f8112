package sqlexec

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/pgident"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Stored expressions (CHECK constraints, column defaults) print as
// PostgreSQL's ruleutils prints them from its analyzed trees: untyped
// literals as constants of the type they resolved to ('x'::text),
// implicit coercions as casts where PostgreSQL shows them, IN lists as
// = ANY (ARRAY[...]), BETWEEN as two comparisons, and parentheses
// everywhere or, pretty, only where needed. decompile analyzes the raw
// tree against the table's columns into a dnode tree and prints it.

// dnode is an analyzed expression: what ruleutils prints it from.
type dnode struct {
	kind dkind
	typ  types.Type
	// op is the operator (dOp, dAnyAll), the function (dFunc), AND/OR/NOT
	// (dBool), IS [NOT] NULL/TRUE/... (dTest).
	op   string
	args []*dnode
	// text is a constant's text output or a column's name (qualified
	// with its relation in a query), column the column's own name; for
	// EXTRACT(field FROM source) the field.
	text, column string
	// star marks count(*).
	star bool
	// sub is a subquery's printed text (dSubLink).
	sub string
	// literal marks an untyped string literal or NULL, which takes the
	// type it is coerced to instead of a cast.
	literal bool
	// null marks the NULL constant (dConst), whose text is not a value.
	null bool
	// implicit marks a cast the coercion rules added.
	implicit bool
	// all marks <> ALL (dAnyAll).
	all bool
	// wholeRow marks a whole-row reference rel.* (dColumn); rowType is
	// the relation's row type, which ruleutils casts it to at the top of
	// a select list or VALUES row (0 for a relation without a named one).
	wholeRow bool
	rowType  types.Type
	// over is a window function's window, printed (dFunc): a name or a
	// parenthesized specification.
	over string
	// distinct, aggOrder and filter are an aggregate's DISTINCT, its
	// ORDER BY keys (printed) and its FILTER condition (dFunc).
	distinct bool
	aggOrder string
	filter   *dnode
	// domain is the OID of the domain the value is of (a cast to it, a
	// column of it; typ is its base type), 0 for none: where its base type
	// is wanted, ruleutils shows the coercion (coerce).
	domain uint32
	// xml holds an SQL/XML expression's clauses (dXML).
	xml *dxml
}

type dkind int

const (
	dConst dkind = iota
	dColumn
	dOp
	dBool
	dCast
	dFunc
	dTest
	dArray
	dAnyAll
	dDistinct
	dSubLink
	dValue // an SQL value function, CURRENT_TIMESTAMP, printed as text
	// dCollate is expr COLLATE name: op holds the quoted collation name.
	dCollate
	// dXML is an SQL/XML expression (ruleutils_xml.go), xml its clauses.
	dXML
)

// errNotDeparsed marks an expression ruleutils-lite does not analyze: the
// caller prints the raw tree instead.
var errNotDeparsed = pgerror.Unsupported("printing this stored expression")

// deparser analyzes expressions over one table's columns (none for
// relid 0).
type deparser struct {
	b  *binder
	sc *scope
	// qualify prefixes column references with their relation, as a
	// query's (a view's) do.
	qualify bool
	// domainValue prints the scope's column "value" as VALUE: the
	// expression is a domain's CHECK.
	domainValue bool
	// standalone marks pg_get_expr's deparser, not a query's: a subquery
	// prints at the expression's own indentation, with parentheses as
	// pretty (pg_get_expr's third argument) says, where a view's prints
	// one level deeper and without them. In a query's deparser pretty is
	// the query's pretty mode, which window specifications print by.
	standalone, pretty bool
	// ctes are the WITH queries a query being printed may read.
	ctes map[string]*ctePlan
	// aliases are the names the FROM items of the query levels being
	// printed go by (nameItems), by level, shared by a query's deparsers;
	// levels are those of the levels enclosing the one being printed,
	// which its items' names must not take.
	aliases map[*scope]map[string]string
	levels  []map[string]string
	// namesHidden marks a subquery of an expression, whose output
	// columns' names nobody sees: ruleutils leaves out AS "?column?" there
	// (colNamesVisible false).
	namesHidden bool
}

// decompile is pg_get_expr(expr, relid, pretty): a stored expression
// (fickle's pg_node_tree columns hold its SQL text) printed as ruleutils
// prints it, its columns those of relation relid. What it cannot analyze
// prints as stored.
func decompile(s *Session, c *catalog, text string, relid uint32, pretty bool) string {
	if rest, ok := strings.CutPrefix(text, listPrefix); ok {
		parts := strings.Split(rest, listSeparator)
		for i, p := range parts {
			parts[i] = decompile(s, c, p, relid, pretty)
		}
		return strings.Join(parts, ", ")
	}
	sql, coerceTo := text, types.Oid(0)
	var domain *typeDesc
	if oid, rest, ok := domainOfStoredCheck(text); ok {
		if domain = c.typeByOid(oid); domain == nil || domain.domain == nil {
			return rest
		}
		sql = rest
	}
	if rest, ok := strings.CutPrefix(text, coercionPrefix); ok {
		if oid, sql2, found := strings.Cut(rest, "} "); found {
			if n, err := strconv.ParseUint(oid, 10, 32); err == nil {
				sql, coerceTo = sql2, types.Oid(n)
			}
		}
	}
	tree, err := pg_query.Parse("SELECT " + sql)
	if err != nil || len(tree.Stmts) != 1 || len(tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()) != 1 {
		return text
	}
	d := &deparser{b: &binder{s: s, cat: c}, sc: &scope{}, standalone: true, pretty: pretty}
	if t := c.tables[relid]; t != nil {
		d.sc = tableScope(t, t.name)
	}
	if domain != nil {
		d.sc, d.domainValue = domainValueScope(domain), true
	}
	dn, err := d.analyze(tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val)
	if err != nil {
		return sql
	}
	if dom := c.typeByOid(uint32(coerceTo)); dom != nil && dom.domain != nil {
		if dn.domain != dom.oid {
			dn = d.coerce(dn, types.Type{Oid: dom.domain.base.Oid, Typmod: -1})
		}
	} else if coerceTo != 0 {
		dn = d.coerce(dn, types.Type{Oid: coerceTo, Typmod: -1})
	}
	return d.print(dn, nil, pretty, false)
}

// coercionPrefix starts a stored expression that is coerced to a type
// (a column's default), as "{coerce OID} sql": fickle's pg_node_tree
// columns hold SQL text, which decompile reads back.
const coercionPrefix = "{coerce "

// listPrefix starts a stored list of expressions (pg_proc.proargdefaults),
// its elements separated by listSeparator; pg_get_expr prints them
// separated by commas.
const (
	listPrefix    = "{list} "
	listSeparator = "\x00"
)

// storedCoercion stores sql coerced to type oid.
func storedCoercion(oid types.Oid, sql string) string {
	return coercionPrefix + strconv.FormatUint(uint64(oid), 10) + "} " + sql
}

func (d *deparser) analyze(n *pg_query.Node) (*dnode, error) {
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst:
		return d.constant(v.AConst)
	case *pg_query.Node_ColumnRef:
		if row, ok := d.wholeRow(v.ColumnRef); ok {
			return row, nil
		}
		text, column, e, err := d.columnName(v.ColumnRef)
		if err != nil {
			return nil, err
		}
		out := &dnode{kind: dColumn, typ: e.typ, text: text, column: column}
		if e.domain != nil {
			out.domain = e.domain.oid
		}
		return out, nil
	case *pg_query.Node_SubLink:
		return d.subLink(v.SubLink)
	case *pg_query.Node_TypeCast:
		arg, err := d.analyze(v.TypeCast.Arg)
		if err != nil {
			return nil, err
		}
		t, err := d.b.typeName(v.TypeCast.TypeName)
		if err != nil {
			return nil, err
		}
		var domain uint32
		if dom := d.b.domainNamed(v.TypeCast.TypeName); dom != nil {
			domain = dom.oid
		}
		if arg.literal {
			// A constant of the type, then (a domain's) checked for the
			// domain: (5)::posint.
			if arg = d.retype(arg, t); domain == 0 {
				return arg, nil
			}
		}
		if arg.typ == t && arg.domain == domain {
			return arg, nil // a cast to the type it has is no cast (coerce_type)
		}
		return &dnode{kind: dCast, typ: t, args: []*dnode{arg}, domain: domain}, nil
	case *pg_query.Node_AExpr:
		return d.aExpr(v.AExpr)
	case *pg_query.Node_CollateClause:
		arg, err := d.analyze(v.CollateClause.Arg)
		if err != nil {
			return nil, err
		}
		if arg.literal {
			arg = d.retype(arg, types.Text)
		}
		names := strs(v.CollateClause.Collname)
		for i, n := range names {
			names[i] = types.QuoteIdent(n)
		}
		return &dnode{kind: dCollate, typ: arg.typ, op: strings.Join(names, "."), args: []*dnode{arg}}, nil
	case *pg_query.Node_BoolExpr:
		op := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "AND", pg_query.BoolExprType_OR_EXPR: "OR",
			pg_query.BoolExprType_NOT_EXPR: "NOT"}[v.BoolExpr.Boolop]
		out := &dnode{kind: dBool, typ: types.Bool, op: op}
		for _, a := range v.BoolExpr.Args {
			arg, err := d.analyze(a)
			if err != nil {
				return nil, err
			}
			out.args = append(out.args, d.coerce(arg, types.Bool))
		}
		return out, nil
	case *pg_query.Node_NullTest:
		arg, err := d.analyze(v.NullTest.Arg)
		if err != nil {
			return nil, err
		}
		op := "IS NULL"
		if v.NullTest.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL {
			op = "IS NOT NULL"
		}
		return &dnode{kind: dTest, typ: types.Bool, op: op, args: []*dnode{arg}}, nil
	case *pg_query.Node_BooleanTest:
		arg, err := d.analyze(v.BooleanTest.Arg)
		if err != nil {
			return nil, err
		}
		op := strings.ReplaceAll(strings.TrimPrefix(v.BooleanTest.Booltesttype.String(), "IS_"), "_", " ")
		return &dnode{kind: dTest, typ: types.Bool, op: "IS " + op, args: []*dnode{d.coerce(arg, types.Bool)}}, nil
	case *pg_query.Node_FuncCall:
		return d.funcCall(v.FuncCall)
	case *pg_query.Node_SqlvalueFunction:
		return sqlValueNode(v.SqlvalueFunction)
	case *pg_query.Node_XmlExpr:
		return d.xmlExpr(v.XmlExpr)
	case *pg_query.Node_XmlSerialize:
		return d.xmlSerialize(v.XmlSerialize)
	case *pg_query.Node_CoalesceExpr:
		return d.common("COALESCE", v.CoalesceExpr.Args)
	case *pg_query.Node_AArrayExpr:
		out, err := d.common("ARRAY", v.AArrayExpr.Elements)
		if err != nil {
			return nil, err
		}
		out.kind = dArray
		if out.typ, _ = types.ArrayOf(out.typ); out.typ.Oid == 0 {
			return nil, errNotDeparsed
		}
		return out, nil
	}
	return nil, errNotDeparsed
}

// subLink analyzes EXISTS (subquery), x IN (subquery), x op ANY/ALL
// (subquery) and a scalar (subquery), printed as ruleutils prints them.
func (d *deparser) subLink(sl *pg_query.SubLink) (*dnode, error) {
	// The subquery follows the pretty mode of what is printed (a query, a
	// rule); pg_get_expr's prints it at the expression's own indentation.
	indent := prettyIndent
	if d.standalone {
		indent = 0
	}
	sub, err := d.subquery(sl.Subselect.GetSelectStmt(), indent, d.pretty)
	if err != nil {
		return nil, err
	}
	plan, err := d.b.selectNode(d.sc, sl.Subselect, nil)
	if err != nil {
		return nil, err
	}
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return &dnode{kind: dSubLink, typ: types.Bool, op: "EXISTS ", sub: sub}, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(plan.cols) != 1 {
			return nil, errNotDeparsed
		}
		return &dnode{kind: dSubLink, typ: plan.cols[0].typ, sub: sub}, nil
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		l, err := d.analyze(sl.Testexpr)
		if err != nil {
			return nil, err
		}
		if len(plan.cols) != 1 {
			return nil, errNotDeparsed
		}
		op := "IN"
		if len(sl.OperName) > 0 {
			op = opName(sl.OperName) + " ANY"
			if sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK {
				op = opName(sl.OperName) + " ALL"
			}
		}
		return &dnode{kind: dSubLink, typ: types.Bool, op: op, sub: sub, args: []*dnode{l}}, nil
	}
	return nil, errNotDeparsed
}

// constant is a literal with the type PostgreSQL's lexer gives it.
func (d *deparser) constant(c *pg_query.A_Const) (*dnode, error) {
	switch {
	case c.Isnull:
		return &dnode{kind: dConst, typ: types.Unknown, literal: true, null: true}, nil
	case c.GetIval() != nil:
		return &dnode{kind: dConst, typ: types.Int4, text: strconv.FormatInt(int64(c.GetIval().Ival), 10)}, nil
	case c.GetFval() != nil:
		s := c.GetFval().Fval
		if !strings.ContainsAny(s, ".eE") {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return &dnode{kind: dConst, typ: types.Int8, text: s}, nil
			}
		}
		v, err := types.ParseText(types.NumericAny, s)
		if err != nil {
			return nil, err
		}
		return &dnode{kind: dConst, typ: types.NumericAny, text: types.FormatText(types.NumericAny, v, nil)}, nil
	case c.GetBoolval() != nil:
		return &dnode{kind: dConst, typ: types.Bool, text: strconv.FormatBool(c.GetBoolval().Boolval)}, nil
	case c.GetSval() != nil:
		return &dnode{kind: dConst, typ: types.Unknown, text: c.GetSval().Sval, literal: true}, nil
	case c.GetBsval() != nil:
		// B'...' and X'...' are bit constants, printed as '0101'::"bit".
		v, err := types.ParseText(types.BitAny, c.GetBsval().Bsval)
		if err != nil {
			return nil, err
		}
		return &dnode{kind: dConst, typ: types.BitAny, text: types.FormatText(types.BitAny, v, nil)}, nil
	}
	return nil, errNotDeparsed
}

// retype gives an untyped literal its type, reading it with the type's
// input function as PostgreSQL does (so that its text is the canonical
// one).
func (d *deparser) retype(lit *dnode, t types.Type) *dnode {
	out := &dnode{kind: dConst, typ: t, text: lit.text, null: lit.null}
	if lit.null {
		return out
	}
	if t.Oid == types.OidRegclass {
		if oid, err := (catalogNames{s: d.b.s, cat: d.b.cat, path: storedExprPath}).RelationOid(lit.text); err == nil {
			if name, ok := (catalogNames{s: d.b.s, cat: d.b.cat}).RelationName(oid); ok {
				out.text = name
				return out
			}
		}
	}
	if v, err := types.ParseTextEnv(d.b.s.newEnv(), t, lit.text); err == nil {
		out.text = types.FormatTextEnv(d.b.s.newEnv(), t, v)
	}
	return out
}

// storedExprPath is the search path the relation names in stored
// expressions are written for: a SERIAL column's nextval('seq') names its
// sequence unqualified in public (nextvalDefault). PostgreSQL stores the
// OID, and prints the name as the reading session's path reaches it.
var storedExprPath = []string{"pg_catalog", "public"}

// coerce converts an analyzed expression to type t: a literal takes the
// type, anything else of another type gets an implicit cast.
func (d *deparser) coerce(n *dnode, t types.Type) *dnode {
	switch {
	case n.literal:
		return d.retype(n, t)
	case n.domain != 0 && n.typ.Oid == t.Oid:
		// A domain's value read as its base type: shown, so that the
		// expression reads it so again.
		return &dnode{kind: dCast, typ: t, args: []*dnode{n}}
	case n.typ.Oid == t.Oid:
		return n
	}
	return &dnode{kind: dCast, typ: t, args: []*dnode{n}, implicit: true}
}

func (d *deparser) aExpr(a *pg_query.A_Expr) (*dnode, error) {
	op := opName(a.Name)
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if n, err := d.extensionOperator(strs(a.Name), a.Lexpr, a.Rexpr); n != nil || err != nil {
			return n, err
		}
		return d.operator(op, a.Lexpr, a.Rexpr)
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		return d.operator(op, a.Lexpr, a.Rexpr)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		if other := nullLiteralOperand(a); other != nil {
			// A test of the value itself (expr.go), which ruleutils
			// prints as IS [NOT] NULL but of a row value.
			arg, err := d.analyze(other)
			if err != nil {
				return nil, err
			}
			op := map[bool]string{true: "IS NOT NULL", false: "IS NULL"}[a.Kind == pg_query.A_Expr_Kind_AEXPR_DISTINCT]
			if arg.typ.IsComposite() || arg.typ.IsRecord() {
				op = map[bool]string{true: "IS DISTINCT FROM NULL", false: "IS NOT DISTINCT FROM NULL"}[a.Kind == pg_query.A_Expr_Kind_AEXPR_DISTINCT]
			}
			return &dnode{kind: dTest, typ: types.Bool, op: op, args: []*dnode{arg}}, nil
		}
		eq, err := d.operator("=", a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		eq.kind, eq.op = dDistinct, "IS DISTINCT FROM"
		if a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			eq.op = "IS NOT DISTINCT FROM"
		}
		return eq, nil
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := a.Rexpr.GetList().GetItems()
		if len(bounds) != 2 {
			return nil, errNotDeparsed
		}
		lo, err := d.operator(">=", a.Lexpr, bounds[0])
		if err != nil {
			return nil, err
		}
		hi, err := d.operator("<=", a.Lexpr, bounds[1])
		if err != nil {
			return nil, err
		}
		if a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			lo.op, hi.op = "<", ">"
			return &dnode{kind: dBool, typ: types.Bool, op: "OR", args: []*dnode{lo, hi}}, nil
		}
		return &dnode{kind: dBool, typ: types.Bool, op: "AND", args: []*dnode{lo, hi}}, nil
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return d.inList(op, a.Lexpr, a.Rexpr.GetList().GetItems())
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		l, err := d.analyze(a.Lexpr)
		if err != nil {
			return nil, err
		}
		arr, err := d.analyze(a.Rexpr)
		if err != nil {
			return nil, err
		}
		elem, ok := arr.typ.Elem()
		if !ok {
			return nil, errNotDeparsed
		}
		return d.anyAll(op, l, arr, elem, a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL)
	}
	return nil, errNotDeparsed
}

// operator analyzes l op r (or op r) with PostgreSQL's operator
// resolution, coercing each side to the operator's declared type.
func (d *deparser) operator(op string, ln, rn *pg_query.Node) (*dnode, error) {
	r, err := d.analyze(rn)
	if err != nil {
		return nil, err
	}
	if ln == nil {
		u, err := types.ResolveUnaryOp(op, resolvable(r.typ))
		if err != nil {
			return nil, err
		}
		return &dnode{kind: dOp, typ: u.Result, op: op, args: []*dnode{d.coerce(r, u.Arg)}}, nil
	}
	l, err := d.analyze(ln)
	if err != nil {
		return nil, err
	}
	lt, rt := l.typ, r.typ
	if lt.Oid == types.OidUnknown && rt.Oid == types.OidUnknown {
		lt, rt = types.Text, types.Text
	}
	if l.wholeRow && r.wholeRow && slices.Contains([]string{"=", "<>", "<", "<=", ">", ">="}, op) {
		// Rows of one table compare as records, column by column.
		return &dnode{kind: dOp, typ: types.Bool, op: op, args: []*dnode{l, r}}, nil
	}
	o, err := types.ResolveBinaryOp(op, lt, rt)
	if err != nil {
		return nil, err
	}
	return &dnode{kind: dOp, typ: o.Result, op: o.Name, args: []*dnode{d.coerce(l, o.Left), d.coerce(r, o.Right)}}, nil
}

// wholeRow analyzes rel.*, or rel alone where no column has the name, in
// an expression a whole row of a table of the scope, which ruleutils
// prints as rel.*.
func (d *deparser) wholeRow(cr *pg_query.ColumnRef) (*dnode, bool) {
	if d.sc == nil {
		return nil, false // a rule's qualification: its names are NEW's and OLD's columns
	}
	var rel string
	switch {
	case len(cr.Fields) == 2 && cr.Fields[1].GetAStar() != nil:
		rel = cr.Fields[0].GetString_().GetSval()
	case len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil:
		rel = cr.Fields[0].GetString_().Sval
		for sc := d.sc; sc != nil; sc = sc.parent {
			if slices.ContainsFunc(sc.cols, func(c scopeCol) bool { return c.name == rel && !c.hidden }) {
				return nil, false // a column of that name wins
			}
		}
	default:
		return nil, false
	}
	var fields []types.Field
	for _, c := range d.sc.cols {
		if c.rel == rel && !c.hidden {
			fields = append(fields, types.Field{Name: c.name, Type: c.typ})
		}
	}
	if len(fields) == 0 {
		return nil, false
	}
	out := &dnode{kind: dColumn, typ: types.RecordType(fields), text: types.QuoteIdent(d.alias(d.sc, rel)) + ".*", wholeRow: true}
	if e, err := d.b.expr(d.sc, &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: cr}}); err == nil && e.typ.IsComposite() {
		out.rowType = e.typ
	}
	return out, true
}

// printTopLevel prints n at the top of a select list or of a VALUES row,
// where ruleutils casts a whole-row reference to its row type so that it
// is read as one value (get_rule_expr_toplevel).
func (d *deparser) printTopLevel(n *dnode, pretty bool) (string, error) {
	s := d.print(n, nil, pretty, false)
	for n.kind == dCast && n.implicit {
		n = n.args[0] // printed without the cast
	}
	if n.kind == dColumn && n.wholeRow {
		if n.rowType.Oid == 0 {
			return "", errNotDeparsed
		}
		typ, _ := catalogNames{s: d.b.s, cat: d.b.cat}.typeName(uint32(n.rowType.Oid), n.rowType.Typmod)
		s += "::" + typ
	}
	return s, nil
}

// resolvable is the type an untyped literal resolves as on its own.
func resolvable(t types.Type) types.Type {
	if t.Oid == types.OidUnknown {
		return types.Text
	}
	return t
}

// inList analyzes x IN (a, b) as PostgreSQL's transformAExprIn does: the
// values and x coerced to their common type, compared by = ANY over an
// array of them (<> ALL for NOT IN).
func (d *deparser) inList(op string, xn *pg_query.Node, items []*pg_query.Node) (*dnode, error) {
	x, err := d.analyze(xn)
	if err != nil {
		return nil, err
	}
	arr := &dnode{kind: dArray}
	ts := []types.Type{x.typ}
	for _, it := range items {
		e, err := d.analyze(it)
		if err != nil {
			return nil, err
		}
		if e.kind != dConst {
			return nil, errNotDeparsed
		}
		arr.args = append(arr.args, e)
		ts = append(ts, e.typ)
	}
	common, err := types.CommonType("IN", ts...)
	if err != nil {
		return nil, err
	}
	for i, e := range arr.args {
		arr.args[i] = d.coerce(e, common)
	}
	if arr.typ, _ = types.ArrayOf(common); arr.typ.Oid == 0 {
		return nil, errNotDeparsed
	}
	return d.anyAll(op, d.coerce(x, common), arr, common, op == "<>")
}

// anyAll analyzes l op ANY/ALL (array) with the operator resolved on the
// array's element type.
func (d *deparser) anyAll(op string, l, arr *dnode, elem types.Type, all bool) (*dnode, error) {
	o, err := types.ResolveBinaryOp(op, resolvable(l.typ), elem)
	if err != nil {
		return nil, err
	}
	if elem.Oid != o.Right.Oid {
		rt, _ := types.ArrayOf(o.Right)
		arr = d.coerce(arr, rt)
	}
	return &dnode{kind: dAnyAll, typ: types.Bool, op: o.Name, all: all, args: []*dnode{d.coerce(l, o.Left), arr}}, nil
}

// common analyzes COALESCE(...) and ARRAY[...]: the arguments coerced to
// their common type.
func (d *deparser) common(name string, items []*pg_query.Node) (*dnode, error) {
	out := &dnode{kind: dFunc, op: name}
	var ts []types.Type
	for _, it := range items {
		e, err := d.analyze(it)
		if err != nil {
			return nil, err
		}
		out.args = append(out.args, e)
		ts = append(ts, e.typ)
	}
	common, err := types.CommonType(name, ts...)
	if err != nil {
		return nil, err
	}
	for i, a := range out.args {
		out.args[i] = d.coerce(a, common)
	}
	out.typ = common
	return out, nil
}

func (d *deparser) funcCall(fc *pg_query.FuncCall) (*dnode, error) {
	if fc.Over != nil {
		return d.windowCall(fc)
	}
	name := strings.ToLower(lastName(fc.Funcname))
	if types.IsAggregate(name) && !fc.FuncVariadic {
		return d.aggregate(fc, name)
	}
	if fc.AggDistinct || fc.FuncVariadic || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return nil, errNotDeparsed
	}
	out := &dnode{kind: dFunc, op: name}
	var ts []types.Type
	for _, a := range fc.Args {
		e, err := d.analyze(a)
		if err != nil {
			return nil, err
		}
		out.args = append(out.args, e)
		ts = append(ts, e.typ)
	}
	if f, err := d.userFunc(fc, ts, false); err != nil || f != nil {
		if err != nil {
			return nil, err
		}
		for i, a := range out.args {
			out.args[i] = d.coerce(a, f.in[i])
		}
		out.typ, out.op = f.result, d.userFuncName(f)
		return out, nil
	}
	if overloads, ok := sysFuncs[name]; ok {
		sigs := make([][]types.Type, len(overloads))
		for i, o := range overloads {
			sigs[i] = o.args
		}
		chosen, err := types.ChooseOverload(name, ts, sigs)
		if err != nil {
			return nil, err
		}
		for i, a := range out.args {
			out.args[i] = d.coerce(a, overloads[chosen].args[i])
		}
		out.typ = overloads[chosen].result
		return out, nil
	}
	f, err := types.ResolveFunc(name, ts)
	if err != nil {
		return nil, err
	}
	for i, a := range out.args {
		if i < len(f.Args) {
			out.args[i] = d.coerce(a, f.Args[i])
		}
	}
	out.typ = f.Result
	out.op = pgident.Quote(name)
	if fc.Funcformat == pg_query.CoercionForm_COERCE_SQL_SYNTAX {
		if op, text, ok := sqlSyntaxCall(name, f.Args, out.args); ok {
			out.op, out.text = op, text
		}
	}
	return out, nil
}

// sqlSyntaxCall is how PostgreSQL's get_func_sql_syntax prints a call of
// the built-in function name over arguments of types args that was
// written in SQL's own syntax (EXTRACT, AT TIME ZONE, OVERLAPS, IS
// NORMALIZED, NORMALIZE, OVERLAY, POSITION, SUBSTRING, TRIM): the form, as
// the operator print knows it, and the text it needs (EXTRACT's field,
// TRIM's side, a normalization form); ok is false for a call PostgreSQL
// prints as a function call.
func sqlSyntaxCall(name string, args []types.Type, nodes []*dnode) (op, text string, ok bool) {
	constText := func(i int) (string, bool) {
		if i < len(nodes) && nodes[i].kind == dConst && !nodes[i].null {
			return nodes[i].text, true
		}
		return "", false
	}
	switch {
	case name == "extract" && len(nodes) == 2:
		field, ok := constText(0)
		return "EXTRACT", field, ok
	case name == "timezone" && len(nodes) == 2:
		return "AT TIME ZONE", "", true
	case name == "overlaps" && len(nodes) == 4:
		return "OVERLAPS", "", true
	case name == "is_normalized" || name == "normalize":
		form := "NFC"
		if len(nodes) == 2 {
			if form, ok = constText(1); !ok {
				return "", "", false
			}
		}
		return strings.ToUpper(name), form, true
	case name == "overlay" && (len(nodes) == 3 || len(nodes) == 4):
		return "OVERLAY", "", true
	case name == "position" && len(nodes) == 2:
		return "POSITION", "", true
	case name == "substring" && len(nodes) == 3 && args[1].Oid != types.OidInt4:
		return "SUBSTRING SIMILAR", "", true
	case name == "substring" && (len(nodes) == 2 || len(nodes) == 3) && args[1].Oid == types.OidInt4:
		return "SUBSTRING", "", true
	case name == "btrim" || name == "ltrim" || name == "rtrim":
		return "TRIM", map[string]string{"btrim": "BOTH", "ltrim": "LEADING", "rtrim": "TRAILING"}[name], true
	}
	return "", "", false
}

// userFunc is the user function a call resolves to by its arguments'
// types, nil for a built-in one, as the binder resolves it: along the
// search path (a function hiding those of its argument types behind it),
// pg_catalog's function winning a call without arguments when it comes
// first. Calls it cannot resolve as PostgreSQL would (defaults,
// VARIADIC, OUT parameters or a set as the result outside FROM (inFrom),
// a user function beside a built-in one taking the same arguments) are
// not deparsed.
func (d *deparser) userFunc(fc *pg_query.FuncCall, ts []types.Type, inFrom bool) (*funcDesc, error) {
	names := strs(fc.Funcname)
	var cands []*funcDesc
	var sigs [][]types.Type
	for _, f := range d.b.s.lookupFuncs(d.b.cat, names) {
		if f.kind != 'f' || len(f.in) != len(ts) || slices.ContainsFunc(sigs, func(s []types.Type) bool { return sameTypes(s, f.in) }) {
			continue
		}
		if f.nDefaults > 0 || !inFrom && (len(f.outCols) > 0 || f.retSet) ||
			slices.ContainsFunc(f.params, func(p funcParam) bool { return p.mode == 'v' || p.dom.oid != 0 }) {
			return nil, errNotDeparsed
		}
		cands, sigs = append(cands, f), append(sigs, f.in)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	if len(names) == 1 {
		_, builtin := types.ResolveFunc(names[0], ts)
		if _, sys := sysFuncs[names[0]]; sys || builtin == nil {
			if len(ts) > 0 || !builtinWithoutParams(names[0]) {
				return nil, errNotDeparsed
			}
			if d.b.s.catalogBefore(cands[0].schema) {
				return nil, nil
			}
			return cands[0], nil
		}
	}
	chosen, err := types.ChooseOverload(lastName(fc.Funcname), ts, sigs)
	if err != nil {
		return nil, errNotDeparsed
	}
	return cands[chosen], nil
}

// userFuncName is user function f's name as ruleutils prints a call of
// it: qualified with its schema when the search path does not reach it.
func (d *deparser) userFuncName(f *funcDesc) string {
	name := types.QuoteIdent(f.name)
	if names := (catalogNames{s: d.b.s, cat: d.b.cat}); !names.procVisible(userProc(d.b.cat, f)) {
		name = types.QuoteIdent(f.schema) + "." + name
	}
	return name
}

// print writes n as ruleutils does, parent being the node it is an
// argument of (nil at the top). Implicit casts show where ruleutils shows
// them: on the arguments of operators and functions, not at the top or
// under AND, OR and NOT.
func (d *deparser) print(n, parent *dnode, pretty, showImplicit bool) string {
	var s string
	arg := func(a *dnode) string { return d.print(a, n, pretty, true) }
	switch n.kind {
	case dConst:
		return d.printConst(n)
	case dXML:
		return d.printXML(n, pretty)
	case dColumn, dValue:
		return n.text
	case dCast:
		if n.implicit && !showImplicit {
			return d.print(n.args[0], n, pretty, false)
		}
		typ, _ := catalogNames{s: d.b.s}.typeName(uint32(n.typ.Oid), n.typ.Typmod)
		if n.domain != 0 {
			typ, _ = catalogNames{s: d.b.s}.typeName(n.domain, -1)
		}
		if pretty {
			return arg(n.args[0]) + "::" + typ
		}
		return "(" + d.print(n.args[0], nil, pretty, true) + ")::" + typ
	case dOp:
		if len(n.args) == 1 {
			s = n.op + " " + arg(n.args[0])
		} else {
			s = arg(n.args[0]) + " " + n.op + " " + arg(n.args[1])
		}
	case dDistinct:
		s = arg(n.args[0]) + " " + n.op + " " + arg(n.args[1])
	case dCollate:
		s = arg(n.args[0]) + " COLLATE " + n.op
	case dBool:
		if n.op == "NOT" {
			s = "NOT " + d.print(n.args[0], n, pretty, false)
			break
		}
		parts := make([]string, len(n.args))
		for i, a := range n.args {
			parts[i] = d.print(a, n, pretty, false)
		}
		s = strings.Join(parts, " "+n.op+" ")
	case dTest:
		s = d.print(n.args[0], n, pretty, false) + " " + n.op
	case dAnyAll:
		quant := "ANY"
		if n.all {
			quant = "ALL"
		}
		right := d.print(n.args[1], nil, pretty, true)
		if r := n.args[1]; r.kind == dSubLink && r.op == "" && len(r.args) == 0 {
			// A scalar sub-SELECT here would read back as an ANY/ALL
			// SubLink: ruleutils casts it to its own type, in parentheses
			// when pretty.
			if pretty {
				right = "(" + right + ")"
			}
			typ, _ := catalogNames{s: d.b.s}.typeName(uint32(r.typ.Oid), r.typ.Typmod)
			right += "::" + typ
		}
		s = arg(n.args[0]) + " " + n.op + " " + quant + " (" + right + ")"
	case dFunc, dArray:
		parts := make([]string, len(n.args))
		for i, a := range n.args {
			parts[i] = d.print(a, nil, pretty, true)
		}
		if n.kind == dArray {
			return "ARRAY[" + strings.Join(parts, ", ") + "]"
		}
		switch n.op {
		case "EXTRACT":
			// Written EXTRACT(field FROM source), printed so again.
			return "EXTRACT(" + n.text + " FROM " + parts[1] + ")"
		case "IS_NORMALIZED":
			form := " "
			if len(parts) == 2 {
				form = " " + n.text + " "
			}
			return "(" + d.print(n.args[0], n, pretty, false) + " IS" + form + "NORMALIZED)"
		case "NORMALIZE":
			if len(parts) == 2 {
				return "NORMALIZE(" + parts[0] + ", " + n.text + ")"
			}
			return "NORMALIZE(" + parts[0] + ")"
		case "OVERLAY":
			s := "OVERLAY(" + parts[0] + " PLACING " + parts[1] + " FROM " + parts[2]
			if len(parts) == 4 {
				s += " FOR " + parts[3]
			}
			return s + ")"
		case "POSITION":
			return "POSITION((" + parts[1] + ") IN (" + parts[0] + "))"
		case "SUBSTRING":
			s := "SUBSTRING(" + parts[0] + " FROM " + parts[1]
			if len(parts) == 3 {
				s += " FOR " + parts[2]
			}
			return s + ")"
		case "SUBSTRING SIMILAR":
			return "SUBSTRING(" + parts[0] + " SIMILAR " + parts[1] + " ESCAPE " + parts[2] + ")"
		case "TRIM":
			if len(parts) == 2 {
				return "TRIM(" + n.text + " " + parts[1] + " FROM " + parts[0] + ")"
			}
			return "TRIM(" + n.text + " FROM " + parts[0] + ")"
		case "AT TIME ZONE":
			// timezone(zone, value), written value AT TIME ZONE zone.
			return "(" + d.print(n.args[1], n, pretty, false) + " AT TIME ZONE " + d.print(n.args[0], n, pretty, false) + ")"
		case "OVERLAPS":
			for i, a := range n.args {
				parts[i] = d.print(a, nil, pretty, false)
			}
			return "((" + parts[0] + ", " + parts[1] + ") OVERLAPS (" + parts[2] + ", " + parts[3] + "))"
		}
		// get_agg_expr and get_windowfunc_expr: name(DISTINCT args ORDER
		// BY keys) FILTER (WHERE cond) OVER window.
		call := n.op + "("
		switch {
		case n.star:
			call += "*"
		case n.distinct:
			call += "DISTINCT " + strings.Join(parts, ", ")
		default:
			call += strings.Join(parts, ", ")
		}
		if n.aggOrder != "" {
			call += " ORDER BY " + n.aggOrder
		}
		if n.filter != nil {
			call += ") FILTER (WHERE " + d.print(n.filter, nil, pretty, false)
		}
		call += ")"
		if n.over != "" {
			call += " OVER " + n.over
		}
		return call
	case dSubLink:
		if n.op == "EXISTS " {
			return "(" + n.op + n.sub + ")"
		}
		if len(n.args) == 0 {
			return n.op + n.sub
		}
		return "(" + arg(n.args[0]) + " " + n.op + " " + n.sub + ")"
	}
	if !pretty || parent != nil && !simpleIn(n, parent) {
		return "(" + s + ")"
	}
	return s
}

// simpleIn is ruleutils' isSimpleNode for the nodes that may need
// parentheses: whether pretty printing can leave them off n under parent.
func simpleIn(n, parent *dnode) bool {
	switch n.kind {
	case dOp:
		switch parent.kind {
		case dBool, dTest:
			return true
		case dOp:
			if len(n.args) != 2 || len(parent.args) != 2 {
				return false
			}
			low, high := strings.Contains("+-", n.op), strings.Contains("*/%", n.op)
			plow, phigh := strings.Contains("+-", parent.op), strings.Contains("*/%", parent.op)
			switch {
			case len(n.op) != 1 || len(parent.op) != 1 || !(low || high) || !(plow || phigh):
				return false
			case high && plow:
				return true
			case low && phigh:
				return false
			}
			return n == parent.args[0]
		}
		return false
	case dBool:
		return parent.kind == dBool && n.op == "NOT"
	case dTest, dDistinct, dAnyAll:
		return parent.kind == dBool
	case dCollate:
		return false
	}
	return true
}

// printConst is ruleutils' get_const_expr: integers and numerics that
// read back as themselves bare, booleans bare, everything else quoted
// with its type.
func (d *deparser) printConst(n *dnode) string {
	if n.null && n.typ.Oid == types.OidUnknown {
		return "NULL"
	}
	if n.typ.Oid == types.OidUnknown {
		// get_const_expr leaves an unknown-type literal unlabeled (an
		// argument of XMLELEMENT, which coerces none).
		return quoteLiteral(n.text)
	}
	typ, _ := catalogNames{s: d.b.s}.typeName(uint32(n.typ.Oid), n.typ.Typmod)
	if n.null {
		return "NULL::" + typ
	}
	switch n.typ.Oid {
	case types.OidInt4:
		if !strings.HasPrefix(n.text, "-") {
			return n.text
		}
	case types.OidNumeric:
		// Float-looking numerics read back as numeric; others are quoted.
		if n.text != "" && n.text[0] >= '0' && n.text[0] <= '9' && strings.ContainsAny(n.text, "eE.") {
			if n.typ.Typmod < 0 {
				return n.text
			}
			return n.text + "::" + typ
		}
	case types.OidBool:
		switch n.text {
		case "t":
			return "true"
		case "f":
			return "false"
		}
		return n.text
	}
	return quoteLiteral(n.text) + "::" + typ
}

// sqlValueNode is an SQL value function as ruleutils prints it.
func sqlValueNode(f *pg_query.SQLValueFunction) (*dnode, error) {
	var text string
	var typ types.Type
	withPrecision := func(name string, t types.Type) {
		text, typ = name, t
		if f.Typmod >= 0 {
			text += "(" + strconv.Itoa(int(f.Typmod)) + ")"
		}
	}
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		text, typ = "CURRENT_DATE", types.Date
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		withPrecision("CURRENT_TIMESTAMP", types.Timestamptz)
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		withPrecision("LOCALTIMESTAMP", types.Timestamp)
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		withPrecision("LOCALTIME", types.Time)
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		withPrecision("CURRENT_TIME", types.Timetz)
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		text, typ = "CURRENT_ROLE", types.Name
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		text, typ = "CURRENT_USER", types.Name
	case pg_query.SQLValueFunctionOp_SVFOP_USER:
		text, typ = "USER", types.Name
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		text, typ = "SESSION_USER", types.Name
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		text, typ = "CURRENT_CATALOG", types.Name
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		text, typ = "CURRENT_SCHEMA", types.Name
	default:
		return nil, errNotDeparsed
	}
	return &dnode{kind: dValue, typ: typ, text: text}, nil
}
