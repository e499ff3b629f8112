package sqlexec

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// expr compiles a scalar expression in scope sc, with its collation
// (collation.go).
func (b *binder) expr(sc *scope, n *pg_query.Node) (*scalar, error) {
	return b.exprCollated(sc, n)
}

// exprNode compiles the scalar expression n in scope sc.
func (b *binder) exprNode(sc *scope, n *pg_query.Node) (*scalar, error) {
	if sc != nil && sc.agg != nil {
		if e, ok, err := b.aggLookup(sc, n); ok || err != nil {
			return e, err
		}
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst:
		return b.constant(v.AConst)
	case *pg_query.Node_ColumnRef:
		return b.columnRef(sc, v.ColumnRef)
	case *pg_query.Node_ParamRef:
		return b.paramRef(v.ParamRef)
	case *pg_query.Node_TypeCast:
		return b.typeCast(sc, v.TypeCast)
	case *pg_query.Node_AExpr:
		return b.aExpr(sc, v.AExpr)
	case *pg_query.Node_BoolExpr:
		return b.boolExpr(sc, v.BoolExpr)
	case *pg_query.Node_NullTest:
		return b.nullTest(sc, v.NullTest)
	case *pg_query.Node_BooleanTest:
		return b.booleanTest(sc, v.BooleanTest)
	case *pg_query.Node_CaseExpr:
		return b.caseExpr(sc, v.CaseExpr)
	case *pg_query.Node_CoalesceExpr:
		return b.coalesce(sc, v.CoalesceExpr)
	case *pg_query.Node_MinMaxExpr:
		name := "greatest"
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_LEAST {
			name = "least"
		}
		return b.callBuiltin(sc, name, v.MinMaxExpr.Args, v.MinMaxExpr.Location)
	case *pg_query.Node_FuncCall:
		return b.funcCall(sc, v.FuncCall)
	case *pg_query.Node_JsonParseExpr:
		// PostgreSQL 15 has no JSON(...) constructor: json(x) is a call,
		// the cast to json.
		jp := v.JsonParseExpr
		if jp.UniqueKeys || jp.Expr.GetFormat().GetFormatType() != pg_query.JsonFormatType_JS_FORMAT_DEFAULT {
			return nil, b.errAt(pgerror.Unsupported("JSON(...) with FORMAT or WITH UNIQUE KEYS (PostgreSQL 16)"), jp.Location)
		}
		return b.funcCall(sc, &pg_query.FuncCall{Funcname: []*pg_query.Node{pg_query.MakeStrNode("json")},
			Args: []*pg_query.Node{jp.Expr.RawExpr}, Location: jp.Location, Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL})
	case *pg_query.Node_SqlvalueFunction:
		return b.sqlValueFunction(sc, v.SqlvalueFunction)
	case *pg_query.Node_XmlExpr:
		return b.xmlExpr(sc, v.XmlExpr)
	case *pg_query.Node_XmlSerialize:
		return b.xmlSerialize(sc, v.XmlSerialize)
	case *pg_query.Node_SubLink:
		return b.subLink(sc, v.SubLink)
	case *pg_query.Node_CollateClause:
		return b.collateClause(sc, v.CollateClause)
	case *pg_query.Node_RowExpr:
		return b.rowExpr(sc, v.RowExpr)
	case *pg_query.Node_AArrayExpr:
		return b.arrayExpr(sc, v.AArrayExpr, types.Type{})
	case *pg_query.Node_AIndirection:
		return b.indirection(sc, v.AIndirection)
	case *pg_query.Node_GroupingFunc:
		return b.groupingFunc(sc, v.GroupingFunc)
	case *pg_query.Node_SetToDefault:
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "DEFAULT is not allowed in this context"), v.SetToDefault.Location)
	case *pg_query.Node_MergeSupportFunc:
		// The parser's merge_action() (PostgreSQL 17) is a function
		// PostgreSQL 15 does not have.
		return nil, b.errAt(pgerror.New(pgerror.UndefinedFunction, "function merge_action() does not exist").
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."), v.MergeSupportFunc.Location)
	}
	if n.GetCurrentOfExpr() != nil {
		// fickle's cursors keep copies of their rows, not positions in tables.
		return nil, pgerror.Unsupported("WHERE CURRENT OF")
	}
	return nil, pgerror.Unsupported("expression " + nodeKind(n))
}

// isDistinct compiles l IS DISTINCT FROM r, or IS NOT DISTINCT FROM when
// not is set. Two row constructors are distinct when a pair of their
// fields is.
// nullLiteralOperand is the other operand of a comparison one of whose
// operands is an undecorated NULL literal, nil when neither is.
func nullLiteralOperand(a *pg_query.A_Expr) *pg_query.Node {
	switch {
	case a.Rexpr.GetAConst().GetIsnull():
		return a.Lexpr
	case a.Lexpr.GetAConst().GetIsnull():
		return a.Rexpr
	}
	return nil
}

func (b *binder) isDistinct(l, r *scalar, not bool, loc int32) (*scalar, error) {
	if l.row != nil && r.row != nil {
		return b.rowDistinct(l, r, not, loc)
	}
	volatile := l.volatile || r.volatile
	l, lOnce := onceOperand(l)
	r, rOnce := onceOperand(r)
	eq, err := b.binary("=", l, r, loc)
	if err != nil {
		return nil, err
	}
	le, re, ee := l.eval, r.eval, eq.eval
	distinct := func(x *execCtx) (any, error) {
		lv, err := le(x)
		if err != nil {
			return nil, err
		}
		rv, err := re(x)
		if err != nil {
			return nil, err
		}
		var d bool
		if lv == nil || rv == nil {
			d = (lv == nil) != (rv == nil)
		} else {
			v, err := ee(x)
			if err != nil {
				return nil, err
			}
			d = v != true
		}
		return d != not, nil
	}
	return &scalar{typ: types.Bool, slot: -1, refs: eq.refs, volatile: volatile, name: "?column?", eval: func(x *execCtx) (any, error) {
		return lOnce(x, func() (any, error) { return rOnce(x, func() (any, error) { return distinct(x) }) })
	}}, nil
}

// nodeKind names a parse node's kind for messages.
func nodeKind(n *pg_query.Node) string {
	if n == nil || n.Node == nil {
		return "(empty)"
	}
	s := strings.TrimPrefix(fmt.Sprintf("%T", n.Node), "*pg_query.Node_")
	return s
}

func (b *binder) constant(c *pg_query.A_Const) (*scalar, error) {
	if c.Isnull {
		return &scalar{typ: types.Unknown, null: true, slot: -1, eval: constEval(nil), name: "?column?"}, nil
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		return &scalar{typ: types.Int4, slot: -1, eval: constEval(int64(v.Ival.Ival)), name: "?column?"}, nil
	case *pg_query.A_Const_Fval:
		s := v.Fval.Fval
		if !strings.ContainsAny(s, ".eE") {
			// An integer the parser did not make an Ival: past int4 but
			// for -2147483648 (a negated 2147483648), which is int4 in
			// PostgreSQL as its value fits.
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				typ := types.Int8
				if i >= math.MinInt32 && i <= math.MaxInt32 {
					typ = types.Int4
				}
				return &scalar{typ: typ, slot: -1, eval: constEval(i), name: "?column?"}, nil
			}
		}
		d, err := types.ParseText(types.NumericAny, s)
		if err != nil {
			return nil, err
		}
		return &scalar{typ: types.NumericAny, slot: -1, eval: constEval(d), name: "?column?"}, nil
	case *pg_query.A_Const_Boolval:
		return &scalar{typ: types.Bool, slot: -1, eval: constEval(v.Boolval.Boolval), name: "?column?"}, nil
	case *pg_query.A_Const_Sval:
		s := v.Sval.Sval
		return &scalar{typ: types.Unknown, lit: &s, litLoc: c.Location, slot: -1, eval: constEval(s), name: "?column?"}, nil
	case *pg_query.A_Const_Bsval:
		// B'0101' and X'1F' arrive as "b0101" and "x1F": bit constants of
		// their own length, typed unlike '0101'.
		bits, err := types.ParseText(types.BitAny, v.Bsval.Bsval)
		if err != nil {
			return nil, err
		}
		return &scalar{typ: types.BitAny, slot: -1, eval: constEval(bits), name: "?column?"}, nil
	}
	return nil, pgerror.Unsupported("constant")
}

func (b *binder) columnRef(sc *scope, c *pg_query.ColumnRef) (*scalar, error) {
	var fields []string
	for i, f := range c.Fields {
		if f.GetAStar() != nil {
			if e := b.starAsWholeRow(sc, c, i); e != nil {
				return e, nil
			}
			return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "* is not supported in this position by fickle"), c.Location)
		}
		fields = append(fields, f.GetString_().GetSval())
	}
	if sc == nil {
		if v, ok := b.routineVar(fields, c.Location); ok {
			return v, nil
		}
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", fields[len(fields)-1]), c.Location)
	}
	e, err := b.resolveCol(sc, fields, c.Location)
	if err != nil {
		if v, ok := b.routineVar(fields, c.Location); ok {
			return v, nil
		}
		if len(fields) == 2 {
			if call, ok, cerr := b.columnNotationCall(sc, fields, c); ok {
				return call, cerr
			}
		}
		if len(fields) != 1 {
			return nil, err
		}
		if gerr := b.groupedOuterRow(sc, fields[0], c.Location); gerr != nil {
			return nil, gerr
		}
		var ok bool
		if e, ok = b.wholeRowRef(sc, fields[0]); !ok {
			return nil, err
		}
	}
	if _, ok := b.routineVar(fields, c.Location); ok && b.varsConflict {
		return nil, b.errAt(pgerror.Newf(pgerror.AmbiguousColumn, "column reference \"%s\" is ambiguous", strings.Join(fields, ".")).
			WithDetail("It could refer to either a PL/pgSQL variable or a table column."), c.Location)
	}
	if e.outID != 0 {
		b.noteRefCost(c, e.outID)
	}
	if sc.agg != nil && e.refs != 0 {
		err := b.errAt(pgerror.Newf(pgerror.GroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", ungroupedName(sc, fields)), c.Location)
		if !b.deferUngroupedOf(sc.agg, err) {
			return nil, err
		}
	}
	return e, nil
}

// ungroupedName names the column fields refers to as PostgreSQL's error
// about an ungrouped column does: its FROM item's name or alias, then its
// own name.
func ungroupedName(sc *scope, fields []string) string {
	name := fields[len(fields)-1]
	if len(fields) >= 2 {
		return fields[len(fields)-2] + "." + name
	}
	for cur := sc; cur != nil; cur = cur.parent {
		for _, c := range cur.cols {
			if c.name == name && !c.merged {
				if c.rel == "" {
					return name
				}
				return c.rel + "." + name
			}
		}
	}
	return name
}

// columnNotationCall compiles rel.name, where the FROM item rel has no
// column name, as the call name(rel) of an aggregate or of a user
// function taking rel's row, as PostgreSQL takes column notation for a
// function of one argument; ok is false when rel is no FROM item or no
// such function fits.
func (b *binder) columnNotationCall(sc *scope, fields []string, cr *pg_query.ColumnRef) (*scalar, bool, error) {
	loc := cr.Location
	ok := false
	b.aside(func() { _, ok = b.wholeRowRef(sc, fields[0]) })
	if !ok {
		return nil, false, nil
	}
	if call := b.notationAggregate(sc, cr); call != nil {
		// PostgreSQL aggregates the whole rows (t.count is count(t)).
		e, err := b.aggregateOutsideGrouping(sc, call.GetFuncCall())
		return e, true, err
	}
	row := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(fields[0]), pg_query.MakeAStarNode()}, loc)
	fc := &pg_query.FuncCall{Funcname: []*pg_query.Node{pg_query.MakeStrNode(fields[1])}, Args: []*pg_query.Node{row},
		Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL, Location: loc}
	e, ok, err := b.userFuncCall(sc, fc)
	if ok && err == nil {
		e.name = fields[1]
	}
	return e, ok, err
}

// starAsWholeRow compiles x.* where no list expands it (a function's
// argument, an operand) as PostgreSQL does: the whole-row value of the FROM
// item x, or the composite routine variable x. nil when the star is not
// last (position i), x names neither, or x has more than one part and is
// no routine variable.
func (b *binder) starAsWholeRow(sc *scope, c *pg_query.ColumnRef, i int) *scalar {
	if i != len(c.Fields)-1 || i == 0 {
		return nil
	}
	for _, f := range c.Fields[:i] {
		if f.GetString_() == nil {
			return nil
		}
	}
	prefix := strs(c.Fields[:i])
	if len(prefix) == 1 && sc != nil && b.groupedOuterRow(sc, prefix[0], c.Location) == nil {
		if e, ok := b.wholeRowRef(sc, prefix[0]); ok {
			return e
		}
	}
	if v, ok := b.routineVar(prefix, c.Location); ok && v.typ.IsRecord() {
		return v
	}
	return nil
}

func (b *binder) paramRef(p *pg_query.ParamRef) (*scalar, error) {
	n := int(p.Number)
	if n < 1 || n > 65535 || b.fixedParams && n > len(b.params) {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedParameter, "there is no parameter $%d", n), p.Location)
	}
	idx := n - 1
	e := &scalar{slot: -1, name: "?column?", eval: func(x *execCtx) (any, error) {
		if idx >= len(x.params) {
			return nil, pgerror.Newf(pgerror.UndefinedParameter, "there is no parameter $%d", idx+1)
		}
		return x.params[idx], nil
	}}
	if t := b.paramType(n); t.Oid != 0 {
		e.typ = t
		return e, nil
	}
	for len(b.params) < n {
		b.params = append(b.params, types.Type{})
	}
	e.typ, e.param = types.Unknown, n
	b.untypedParams = append(b.untypedParams, untypedParam{e: e, loc: p.Location})
	return e, nil
}

func (b *binder) typeCast(sc *scope, tc *pg_query.TypeCast) (*scalar, error) {
	t, _, err := b.declaredType(tc.TypeName)
	if err != nil {
		return nil, err
	}
	arg, typed, err := b.typedArrayExpr(sc, tc, t)
	if !typed && err == nil {
		arg, err = b.expr(sc, tc.Arg)
	}
	if err != nil {
		return nil, err
	}
	return b.castTo(arg, t, tc)
}

// castTo converts arg, tc's bound argument, to t, tc's type, as CAST does.
func (b *binder) castTo(arg *scalar, t types.Type, tc *pg_query.TypeCast) (*scalar, error) {
	param := arg.param
	_, dom, _ := b.declaredType(tc.TypeName)
	ctx := types.CastExplicit
	if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil && dom != nil && b.catalogNow().holdsDomainArray(dom) {
		// array_in reads the elements with the domain's input, which
		// takes the base type's modifier as a column's input does.
		ctx = types.CastAssignment
	}
	out, err := b.coerce(arg, t, ctx)
	if err != nil {
		if pe, ok := err.(*pgerror.Error); ok && pe.Position == 0 {
			// A string literal's input error points at the literal, as
			// PostgreSQL's coercion of an unknown constant does.
			loc := tc.Location
			if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil {
				loc = c.Location
			}
			pe.Position = b.pos(loc)
		}
		return nil, err
	}
	if out == arg && t.Typmod >= 0 && arg.typ != t {
		out = &scalar{typ: t, eval: arg.eval, slot: -1, refs: arg.refs, name: arg.name}
	}
	if dom != nil {
		b.setParamDomain(param, dom.oid)
		saved := b.literalPos
		if c := tc.Arg.GetAConst(); c != nil && c.GetSval() != nil && b.catalogNow().holdsDomainArray(dom) {
			b.literalPos = b.pos(c.Location)
		}
		out, err = b.withDomainCheck(out, dom)
		b.literalPos = saved
		if err != nil {
			return nil, err
		}
	} else if out.domain != nil {
		// A value of a domain cast to its base type is of the base type.
		c := *out
		c.domain = nil
		out = &c
	}
	if arg.name == "?column?" || arg.name == "" || arg.weakName {
		if out == arg {
			c := *arg
			out = &c
		}
		out.name, out.weakName = t.Name(), true
		if names := strs(tc.TypeName.Names); len(names) > 0 && names[len(names)-1] != "bpchar" {
			out.name = names[len(names)-1]
		}
	}
	return out, nil
}

// binary compiles l op r after compiling both sides: the operator named
// op on the search path, an extension's or a user's one included, as
// PostgreSQL looks up the operators IN, BETWEEN, CASE, IS DISTINCT FROM,
// USING and row comparisons apply.
func (b *binder) binary(op string, l, r *scalar, loc int32) (*scalar, error) {
	if e, err := b.extensionBinary([]string{op}, l, r, loc); e != nil || err != nil {
		return e, err
	}
	return b.builtinBinary(op, l, r, loc)
}

// builtinBinary compiles l op r with the built-in operator named op.
func (b *binder) builtinBinary(op string, l, r *scalar, loc int32) (*scalar, error) {
	if op == "#=" && (r.typ.IsHstore() || r.typ.Oid == types.OidUnknown) {
		return b.hstorePopulateOperator(l, r, loc)
	}
	if l.row != nil && r.row != nil {
		return b.rowComparison(op, l, r, loc)
	}
	if isComparisonOp(op) {
		if err := b.recordLiteral(l, r); err != nil {
			return nil, err
		}
		if err := b.recordLiteral(r, l); err != nil {
			return nil, err
		}
	}
	if err := b.domainArrayOperands(op, l, r, loc); err != nil {
		return nil, err
	}
	lt, rt := l.typ, r.typ
	switch {
	case unresolved(l) && (unresolved(r) || r.typ.Oid == types.OidUnknown), unresolved(r) && l.typ.Oid == types.OidUnknown:
		// A parameter beside another or beside an untyped literal: the
		// operator two unknown operands resolve to
		// (text = text, or PostgreSQL's "not unique" when no string
		// operator decides), each typed as its side of it.
		o, err := types.ResolveBinaryOp(op, types.Unknown, types.Unknown)
		if err != nil {
			return nil, b.withPos(err, loc)
		}
		for _, side := range []struct {
			p *scalar
			t types.Type
		}{{l, o.Left}, {r, o.Right}} {
			if !unresolved(side.p) {
				continue
			}
			if side.t.Oid == types.OidUnknown || side.t.IsPolymorphic() {
				side.t = types.Text
			}
			b.fix(side.p, side.t)
		}
		lt, rt = l.typ, r.typ
	case unresolved(l), unresolved(r):
		p, other, isLeft := l, r.typ, true
		if unresolved(r) {
			p, other, isLeft = r, l.typ, false
		}
		t, err := b.fixOperand(op, p, other, isLeft)
		if err != nil {
			return nil, b.withPos(err, loc)
		}
		if isLeft {
			lt = t
		} else {
			rt = t
		}
	}
	o, err := types.ResolveBinaryOp(op, lt, rt)
	if err != nil {
		if pe, ok := err.(*pgerror.Error); ok && pe.Position == 0 {
			pe.Position = b.pos(loc)
		}
		return nil, err
	}
	if err := b.citextOutOfPath(o.Left, o.Right); err != nil {
		return nil, b.errAt(err, loc)
	}
	if err := b.hstoreOperatorOutOfPath(op, o.Left, o.Right); err != nil {
		return nil, b.errAt(err, loc)
	}
	if err := cmp.Or(b.readLiteralOperand(l, o.Left), b.readLiteralOperand(r, o.Right)); err != nil {
		return nil, err
	}
	le, re, ev := l.eval, r.eval, o.EvalEnv
	return &scalar{typ: o.Result, slot: -1, refs: l.refs | r.refs, volatile: l.volatile || r.volatile, name: "?column?",
		eval: func(x *execCtx) (any, error) {
			lv, err := le(x)
			if err != nil {
				return nil, err
			}
			rv, err := re(x)
			if err != nil {
				return nil, err
			}
			return ev(x.env, lv, rv)
		}}, nil
}

// domainArrayOperands refuses an array operator between a value of the
// array type of a domain and an array of another type: PostgreSQL's array
// comparison and containment operators take two arrays of one type
// (anyarray), so it finds no operator (42883), where fickle, which holds
// both as arrays of the base type, would compare them. When the other
// operand may itself be of that array type (a subquery's column, an
// expression) fickle cannot tell, and refuses (0A000).
func (b *binder) domainArrayOperands(op string, l, r *scalar, loc int32) error {
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=", "@>", "<@", "&&":
	default:
		return nil
	}
	arrayDomain := func(e *scalar) uint32 {
		if e.domain != nil && e.domain.domain.elem != 0 {
			return e.domain.oid
		}
		return 0
	}
	ld, rd := arrayDomain(l), arrayDomain(r)
	if ld == rd || !l.typ.IsArray() || !r.typ.IsArray() || unresolved(l) || unresolved(r) {
		return nil
	}
	other := r
	if ld == 0 {
		other = l
	}
	if arrayDomain(other) == 0 && !other.plain {
		return b.errAt(pgerror.Unsupported("an array operator between an array of a domain and an array that may be of another type"), loc)
	}
	name := func(e *scalar) string {
		if e.domain != nil {
			if n, ok := (catalogNames{s: b.s, cat: b.catalogNow()}).typeName(e.domain.oid, typmodNone); ok {
				return n
			}
		}
		return e.typ.String()
	}
	return b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", name(l), op, name(r)).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts."), loc)
}

// readLiteralOperand reads e, when it is a string literal an operator or
// a built-in function takes as type to, as PostgreSQL's parser coerces a constant operand: a
// text the type refuses fails the statement when it is bound, pointing at
// the literal, even if the operator never runs (no row, a false AND). The
// operator itself still reads the text it is given.
func (b *binder) readLiteralOperand(e *scalar, to types.Type) error {
	if e.lit == nil || e.typ.Oid != types.OidUnknown || to.Oid == types.OidUnknown || to.IsPolymorphic() {
		return nil
	}
	f, err := types.LookupCastEnv(e.typ, to, types.CastImplicit)
	if err != nil {
		return nil // not a type a literal is read as ("any"): the callee reads it
	}
	_, err = castScalar(e, to, f, b.bindEnv())
	return b.withPos(err, e.litLoc)
}

// fixOperand types parameter p, the left (isLeft) or right operand of op
// beside one of type other, and returns the type op resolves with, as
// PostgreSQL's operator lookup does: the operator taking other on both
// sides if there is one, else the one an unknown operand resolves to
// (jsonb ? $1 is jsonb ? text). Beside a composite value a comparison
// resolves to the record operators, so PostgreSQL types the parameter
// record, whose values no client can send (Bind fails with 0A000, and only
// NULL binds): the operator is the composite's own.
func (b *binder) fixOperand(op string, p *scalar, other types.Type, isLeft bool) (types.Type, error) {
	if other.IsRecord() && isComparisonOp(op) {
		b.fix(p, types.Type{Oid: types.OidRecord, Typmod: -1})
		return other, nil
	}
	if _, err := types.ResolveBinaryOp(op, other, other); err != nil {
		l, r := types.Unknown, other
		if !isLeft {
			l, r = other, types.Unknown
		}
		o, err := types.ResolveBinaryOp(op, l, r)
		if err != nil {
			return other, err
		}
		t := o.Right
		if isLeft {
			t = o.Left
		}
		if t.Oid != types.OidUnknown && !t.IsPolymorphic() {
			b.fix(p, t)
			return t, nil
		}
	}
	b.fix(p, other)
	return other, nil
}

// recordLiteral is PostgreSQL's 0A000 for an untyped string literal lit
// compared with a composite value v: the comparison resolves to the record
// operators, and a literal cannot be read as an anonymous record (a typed
// literal, '(1,2)'::t, or a list of several in IN, can).
func (b *binder) recordLiteral(v, lit *scalar) error {
	if lit.lit == nil || lit.typ.Oid != types.OidUnknown || !v.typ.IsRecord() {
		return nil
	}
	return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "input of anonymous composite types is not implemented"), lit.litLoc)
}

func opName(names []*pg_query.Node) string {
	ss := strs(names)
	return ss[len(ss)-1]
}

func (b *binder) aExpr(sc *scope, a *pg_query.A_Expr) (*scalar, error) {
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE,
		pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		op := opName(a.Name)
		if a.Lexpr == nil {
			arg, err := b.expr(sc, a.Rexpr)
			if err != nil {
				return nil, err
			}
			if a.Kind == pg_query.A_Expr_Kind_AEXPR_OP {
				if e, err := b.userPrefix(strs(a.Name), arg, a.Location); e != nil || err != nil {
					return e, err
				}
			}
			if only := types.UnaryOperandTypes(op); len(only) == 1 && only[0].Oid != types.OidNumeric && (unresolved(arg) || arg.lit != nil) {
				// The one operator of this name (!! tsquery) says what
				// an untyped literal is, as func_select_candidate does.
				if arg, err = b.coerce(arg, only[0], types.CastImplicit); err != nil {
					return nil, err
				}
			}
			if arg, err = b.hstorePrefixOperand(op, arg); err != nil {
				return nil, err
			}
			if unresolved(arg) {
				// A parameter takes the operand type of the one operator
				// an unknown resolves to (PostgreSQL: - $1 is not unique).
				u, err := types.ResolveUnaryOp(op, types.Unknown)
				if err != nil {
					return nil, b.withPos(err, a.Location)
				}
				b.fix(arg, u.Arg)
			}
			u, err := types.ResolveUnaryOp(op, arg.typ)
			if err != nil {
				return nil, b.withPos(err, a.Location)
			}
			if err := b.hstoreOutOfPath(u.Arg); err != nil {
				return nil, b.errAt(err, a.Location)
			}
			if err := b.readLiteralOperand(arg, u.Arg); err != nil {
				return nil, err
			}
			inner, ev := arg.eval, u.Eval
			return &scalar{typ: u.Result, slot: -1, refs: arg.refs, name: "?column?", eval: func(x *execCtx) (any, error) {
				v, err := inner(x)
				if err != nil {
					return nil, err
				}
				return ev(v)
			}}, nil
		}
		l, r, err := b.pair(sc, a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		if a.Kind == pg_query.A_Expr_Kind_AEXPR_OP {
			if e, err := b.extensionBinary(strs(a.Name), l, r, a.Location); e != nil || err != nil {
				return e, err
			}
		}
		return b.builtinBinary(op, l, r, a.Location)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		if other := nullLiteralOperand(a); other != nil {
			// x IS [NOT] DISTINCT FROM NULL is a test of x itself, as
			// PostgreSQL's transformAExprDistinct makes it.
			e, err := b.expr(sc, other)
			if err != nil {
				return nil, err
			}
			return nullTestOf(e, a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT, false), nil
		}
		l, r, err := b.pair(sc, a.Lexpr, a.Rexpr)
		if err != nil {
			return nil, err
		}
		return b.isDistinct(l, r, a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT, a.Location)
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		args, err := b.builtinArgs(sc, "nullif", []*pg_query.Node{a.Lexpr, a.Rexpr}, a.Location)
		if err != nil {
			return nil, err
		}
		if err := cmp.Or(b.recordLiteral(args[0], args[1]), b.recordLiteral(args[1], args[0])); err != nil {
			return nil, err
		}
		return b.callResolved("nullif", args, a.Location)
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return b.inList(sc, a)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		return b.between(sc, a)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		return b.anyAll(sc, a)
	}
	return nil, b.errAt(pgerror.Unsupported("operator expression"), a.Location)
}

func (b *binder) withPos(err error, loc int32) error {
	if pe, ok := err.(*pgerror.Error); ok && pe.Position == 0 {
		if p := b.pos(loc); p > 0 {
			// A copy: err may be a value shared by every statement that
			// fails alike, and the position is this statement's.
			c := *pe
			c.Position = p
			return &c
		}
	}
	return err
}

func (b *binder) pair(sc *scope, ln, rn *pg_query.Node) (*scalar, *scalar, error) {
	l, err := b.expr(sc, ln)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.expr(sc, rn)
	if err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

// inList compiles x IN (a, b, ...) and x NOT IN (...).
func (b *binder) inList(sc *scope, a *pg_query.A_Expr) (*scalar, error) {
	e, _, _, err := b.inListParts(sc, a)
	return e, err
}

// inListParts compiles x IN (list) and also returns x and the elements,
// for the planner's point lookups.
func (b *binder) inListParts(sc *scope, a *pg_query.A_Expr) (*scalar, *scalar, []*scalar, error) {
	x, err := b.expr(sc, a.Lexpr)
	if err != nil {
		return nil, nil, nil, err
	}
	list := a.Rexpr.GetList()
	if list == nil {
		return nil, nil, nil, b.errAt(pgerror.Unsupported("IN over a non-list"), a.Location)
	}
	elems := make([]*scalar, len(list.Items))
	for i, it := range list.Items {
		if elems[i], err = b.expr(sc, it); err != nil {
			return nil, nil, nil, err
		}
	}
	if unresolved(x) {
		for _, e := range elems {
			if !unresolved(e) && e.typ.Oid != types.OidUnknown {
				b.fix(x, e.typ)
				break
			}
		}
		if unresolved(x) {
			b.fix(x, types.Text)
		}
	}
	eqs := make([]*scalar, len(elems))
	refs, volatile := x.refs, x.volatile
	operand, once := onceOperand(x)
	toOperandType := inListTakesOperandType(x, elems)
	// The list's common type is a type, without x's modifier: a string
	// longer than a varchar(3) column is compared, not cut or refused.
	common := types.Type{Oid: x.typ.Oid, Typmod: -1}
	for i, e := range elems {
		// An untyped literal or NULL in a list of two or more takes the
		// list's common type, as PostgreSQL's IN resolves it, and so does
		// an untyped parameter beside a composite x, which reads it as its
		// row. (PostgreSQL reads a list of one as x = e.)
		untyped := e.lit != nil && e.typ.Oid == types.OidUnknown || e.null || unresolved(e) && x.typ.IsComposite()
		if toOperandType && untyped {
			if e, err = b.fix(e, common); err != nil {
				return nil, nil, nil, err
			}
			elems[i] = e
		}
		if eqs[i], err = b.binary("=", operand, e, a.Location); err != nil {
			return nil, nil, nil, err
		}
		refs |= eqs[i].refs
		volatile = volatile || e.volatile
	}
	neg := opName(a.Name) == "<>"
	hashElems := make([]*scalar, len(elems))
	for i, e := range elems {
		if hashElems[i] = e; unresolved(e) || e.lit != nil {
			if hashElems[i], err = b.coerce(e, common, types.CastImplicit); err != nil {
				hashElems = nil
				break
			}
		}
	}
	if b.userOperatorChosen("=", operand, elems) {
		hashElems = nil // the list compares with a user's =, which hashing would not apply
	}
	if eval := hashedInList(x, hashElems, list.Items, neg); eval != nil && x.row == nil {
		return &scalar{typ: types.Bool, slot: -1, refs: refs, volatile: volatile, name: "?column?", eval: eval}, x, elems, nil
	}
	compare := func(xc *execCtx) (any, error) {
		sawNull := false
		for _, eq := range eqs {
			v, err := eq.eval(xc)
			if err != nil {
				return nil, err
			}
			if v == nil {
				sawNull = true
				continue
			}
			if v.(bool) {
				return !neg, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return neg, nil
	}
	return &scalar{typ: types.Bool, slot: -1, refs: refs, volatile: volatile, name: "?column?", eval: func(xc *execCtx) (any, error) {
		return once(xc, func() (any, error) { return compare(xc) })
	}}, x, elems, nil
}

// inListTakesOperandType reports whether the untyped literals and NULLs of
// x IN (elems) take x's type before they are compared, as PostgreSQL's IN
// gives x and the list's items that read no column their common type when
// there are two or more such items: x's type when every one of them is
// untyped or of x's type. That differs from comparing each item on its
// own where no operator takes x's type on both sides (regclass IN ('t1',
// 't2') compares regclass values, where regclass = 't1' reads 't1' as an
// oid). A composite x reads its list's untyped items as its rows.
func inListTakesOperandType(x *scalar, elems []*scalar) bool {
	if len(elems) < 2 {
		return false
	}
	if x.typ.IsComposite() {
		return true
	}
	if unresolved(x) || x.null || x.typ.Oid == types.OidUnknown {
		return false
	}
	constants := 0
	for _, e := range elems {
		if e.refs != 0 {
			continue
		}
		constants++
		if !(e.lit != nil && e.typ.Oid == types.OidUnknown || e.null) && e.typ.Oid != x.typ.Oid {
			return false
		}
	}
	return constants > 1
}

// cond compiles a boolean condition of the named clause.
func (b *binder) cond(sc *scope, n *pg_query.Node, clause string) (*scalar, error) {
	e, err := b.expr(sc, n)
	if err != nil {
		return nil, err
	}
	return b.requireBool(e, clause, n)
}

func (b *binder) requireBool(e *scalar, clause string, n *pg_query.Node) (*scalar, error) {
	if unresolved(e) || e.lit != nil || e.null {
		return b.fix(e, types.Bool)
	}
	if e.typ.Oid != types.OidBool {
		return nil, b.errAt(pgerror.Newf(pgerror.DatatypeMismatch, "argument of %s must be type boolean, not type %s", clause, e.typ), exprLocation(n))
	}
	return e, nil
}

// exprLocation returns the location of a node when it has one.
func exprLocation(n *pg_query.Node) int32 {
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst:
		return v.AConst.Location
	case *pg_query.Node_ColumnRef:
		return v.ColumnRef.Location
	case *pg_query.Node_AExpr:
		return v.AExpr.Location
	case *pg_query.Node_FuncCall:
		return v.FuncCall.Location
	case *pg_query.Node_TypeCast:
		// The leftmost of the cast and its argument, as PostgreSQL's
		// exprLocation of a raw TypeCast.
		if arg := exprLocation(v.TypeCast.Arg); arg >= 0 && (arg < v.TypeCast.Location || v.TypeCast.Location < 0) {
			return arg
		}
		return v.TypeCast.Location
	case *pg_query.Node_ParamRef:
		return v.ParamRef.Location
	case *pg_query.Node_AArrayExpr:
		return v.AArrayExpr.Location
	}
	return -1
}
