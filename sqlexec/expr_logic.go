package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// This file compiles the logical and conditional expressions: AND, OR,
// NOT, IS [NOT] NULL, IS TRUE and kin, BETWEEN, CASE and COALESCE.

func (b *binder) boolExpr(sc *scope, be *pg_query.BoolExpr) (*scalar, error) {
	name := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "AND", pg_query.BoolExprType_OR_EXPR: "OR", pg_query.BoolExprType_NOT_EXPR: "NOT"}[be.Boolop]
	args := make([]*scalar, len(be.Args))
	var refs uint64
	for i, a := range be.Args {
		e, err := b.cond(sc, a, name)
		if err != nil {
			return nil, err
		}
		args[i] = e
		refs |= e.refs
	}
	out := &scalar{typ: types.Bool, slot: -1, refs: refs, name: "?column?"}
	switch be.Boolop {
	case pg_query.BoolExprType_NOT_EXPR:
		a := args[0]
		out.eval = func(x *execCtx) (any, error) {
			v, err := a.eval(x)
			if err != nil {
				return nil, err
			}
			return types.Not(v), nil
		}
	case pg_query.BoolExprType_AND_EXPR:
		out.eval = func(x *execCtx) (any, error) {
			var acc any = true
			for _, a := range args {
				v, err := a.eval(x)
				if err != nil {
					return nil, err
				}
				if v == false {
					return false, nil
				}
				acc = types.And(acc, v)
			}
			return acc, nil
		}
	default:
		out.eval = func(x *execCtx) (any, error) {
			var acc any = false
			for _, a := range args {
				v, err := a.eval(x)
				if err != nil {
					return nil, err
				}
				if v == true {
					return true, nil
				}
				acc = types.Or(acc, v)
			}
			return acc, nil
		}
	}
	return out, nil
}

func (b *binder) nullTest(sc *scope, nt *pg_query.NullTest) (*scalar, error) {
	arg, err := b.expr(sc, nt.Arg)
	if err != nil {
		return nil, err
	}
	return nullTestOf(arg, nt.Nulltesttype == pg_query.NullTestType_IS_NULL, true), nil
}

// nullTestOf is IS [NOT] NULL of arg: of each field of a row value when
// rowwise, as SQL defines it, else of the value itself (IS [NOT] DISTINCT
// FROM NULL). A parameter of no type yet keeps none: IS NULL types
// nothing in PostgreSQL (checkParamOccurrences).
func nullTestOf(arg *scalar, isNull, rowwise bool) *scalar {
	isRecord := rowwise && arg.typ.IsRecord()
	return &scalar{typ: types.Bool, slot: -1, refs: arg.refs, name: "?column?", eval: func(x *execCtx) (any, error) {
		v, err := arg.eval(x)
		if err != nil {
			return nil, err
		}
		if isRecord && v != nil {
			return recordIsNull(v.([]any), isNull), nil
		}
		return (v == nil) == isNull, nil
	}}
}

func (b *binder) booleanTest(sc *scope, bt *pg_query.BooleanTest) (*scalar, error) {
	arg, err := b.cond(sc, bt.Arg, "IS TRUE")
	if err != nil {
		return nil, err
	}
	kind := bt.Booltesttype
	return &scalar{typ: types.Bool, slot: -1, refs: arg.refs, name: "?column?", eval: func(x *execCtx) (any, error) {
		v, err := arg.eval(x)
		if err != nil {
			return nil, err
		}
		switch kind {
		case pg_query.BoolTestType_IS_TRUE:
			return v == true, nil
		case pg_query.BoolTestType_IS_NOT_TRUE:
			return v != true, nil
		case pg_query.BoolTestType_IS_FALSE:
			return v == false, nil
		case pg_query.BoolTestType_IS_NOT_FALSE:
			return v != false, nil
		case pg_query.BoolTestType_IS_UNKNOWN:
			return v == nil, nil
		}
		return v != nil, nil
	}}, nil
}

// unify resolves the common type of several expressions and coerces each.
func (b *binder) unify(context string, es []*scalar) (types.Type, error) {
	var ts []types.Type
	for _, e := range es {
		if !unresolved(e) {
			ts = append(ts, e.typ)
		}
	}
	t := types.Text
	if len(ts) > 0 {
		var err error
		if t, err = types.CommonType(context, ts...); err != nil {
			return t, err
		}
	}
	for i, e := range es {
		c, err := b.coerce(e, t, types.CastImplicit)
		if err != nil {
			return t, err
		}
		es[i] = c
	}
	return t, nil
}

// caseExpr compiles CASE; a set-returning call in it fails, as in
// PostgreSQL.
func (b *binder) caseExpr(sc *scope, c *pg_query.CaseExpr) (*scalar, error) {
	return barringSRFs(sc, "CASE", func() (*scalar, error) { return b.caseArms(sc, c) })
}

func (b *binder) caseArms(sc *scope, c *pg_query.CaseExpr) (*scalar, error) {
	var arg *scalar
	var err error
	if c.Arg != nil {
		if arg, err = b.exprAlone(sc, c.Arg); err != nil {
			return nil, err
		}
	}
	conds := make([]*scalar, len(c.Args))
	results := make([]*scalar, 0, len(c.Args)+1)
	var refs uint64
	volatile := arg != nil && arg.volatile
	operand, once := onceOperand(arg)
	for i, w := range c.Args {
		cw := w.GetCaseWhen()
		if arg != nil {
			v, err := b.exprAlone(sc, cw.Expr)
			if err != nil {
				return nil, err
			}
			if conds[i], err = b.binary("=", operand, v, cw.Location); err != nil {
				return nil, err
			}
		} else if conds[i], err = b.cond(sc, cw.Expr, "CASE/WHEN"); err != nil {
			return nil, err
		}
		r, err := b.expr(sc, cw.Result)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
		refs |= conds[i].refs | r.refs
	}
	var def *scalar
	if c.Defresult != nil {
		if def, err = b.expr(sc, c.Defresult); err != nil {
			return nil, err
		}
	} else {
		def = &scalar{typ: types.Unknown, null: true, slot: -1, eval: constEval(nil)}
	}
	// PostgreSQL resolves the result type with the ELSE result first
	// (transformCaseExpr), which decides between types that coerce both
	// ways (name and text).
	ordered := append([]*scalar{def}, results...)
	t, err := b.unify("CASE", ordered)
	if err != nil {
		return nil, b.withPos(err, c.Location)
	}
	results = append(ordered[1:], ordered[0])
	for _, r := range results {
		refs |= r.refs
		volatile = volatile || r.volatile
	}
	for _, cw := range conds {
		volatile = volatile || cw.volatile
	}
	b.foldCase(c, conds, results)
	choose := func(x *execCtx) (any, error) {
		for i, cw := range conds {
			v, err := cw.eval(x)
			if err != nil {
				return nil, err
			}
			if v == true {
				return results[i].eval(x)
			}
		}
		return results[len(results)-1].eval(x)
	}
	name, weak := caseColname(c, def)
	return &scalar{typ: t, slot: -1, refs: refs, volatile: volatile, name: name, weakName: weak, eval: func(x *execCtx) (any, error) {
		return once(x, func() (any, error) { return choose(x) })
	}}, nil
}

// caseColname is the output column name of a CASE, as PostgreSQL's
// FigureColname gives it: the ELSE result's name when that is a column's
// or a function's, else "case", which an enclosing cast's type name
// replaces (weak).
func caseColname(c *pg_query.CaseExpr, def *scalar) (name string, weak bool) {
	if c.Defresult != nil && def.name != "" && def.name != "?column?" && !def.weakName {
		return def.name, false
	}
	return "case", true
}

// coalesce compiles COALESCE; a set-returning call in it fails, as in
// PostgreSQL.
func (b *binder) coalesce(sc *scope, c *pg_query.CoalesceExpr) (*scalar, error) {
	return barringSRFs(sc, "COALESCE", func() (*scalar, error) { return b.coalesceArgs(sc, c) })
}

func (b *binder) coalesceArgs(sc *scope, c *pg_query.CoalesceExpr) (*scalar, error) {
	args := make([]*scalar, len(c.Args))
	var refs uint64
	for i, a := range c.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	t, err := b.unify("COALESCE", args)
	if err != nil {
		return nil, b.withPos(err, c.Location)
	}
	for _, a := range args {
		refs |= a.refs
	}
	dom, plain := b.commonDomain(c.Args, args)
	return &scalar{typ: t, slot: -1, refs: refs, name: "coalesce", domain: dom, plain: plain, eval: func(x *execCtx) (any, error) {
		for _, a := range args {
			v, err := a.eval(x)
			if err != nil || v != nil {
				return v, err
			}
		}
		return nil, nil
	}}, nil
}

func (b *binder) between(sc *scope, a *pg_query.A_Expr) (*scalar, error) {
	list := a.Rexpr.GetList()
	if list == nil || len(list.Items) != 2 {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "BETWEEN needs two bounds"), a.Location)
	}
	x, err := b.expr(sc, a.Lexpr)
	if err != nil {
		return nil, err
	}
	lo, hi, err := b.pair(sc, list.Items[0], list.Items[1])
	if err != nil {
		return nil, err
	}
	ge, err := b.binary(">=", x, lo, a.Location)
	if err != nil {
		return nil, err
	}
	le, err := b.binary("<=", x, hi, a.Location)
	if err != nil {
		return nil, err
	}
	sym := a.Kind == pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
	neg := a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN || a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM
	var ge2, le2 *scalar
	if sym {
		if ge2, err = b.binary(">=", x, hi, a.Location); err != nil {
			return nil, err
		}
		if le2, err = b.binary("<=", x, lo, a.Location); err != nil {
			return nil, err
		}
	}
	return &scalar{typ: types.Bool, slot: -1, refs: ge.refs | le.refs, name: "?column?", eval: func(xc *execCtx) (any, error) {
		r, err := and2(xc, ge, le)
		if err != nil {
			return nil, err
		}
		if sym && r != true {
			r2, err := and2(xc, ge2, le2)
			if err != nil {
				return nil, err
			}
			r = types.Or(r, r2)
		}
		if neg {
			return types.Not(r), nil
		}
		return r, nil
	}}, nil
}

func and2(x *execCtx, a, b *scalar) (any, error) {
	av, err := a.eval(x)
	if err != nil || av == false {
		return av, err
	}
	bv, err := b.eval(x)
	if err != nil {
		return nil, err
	}
	return types.And(av, bv), nil
}
