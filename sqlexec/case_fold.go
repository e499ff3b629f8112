package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// PostgreSQL simplifies constant subexpressions when it plans a query
// (eval_const_expressions), so an error in one surfaces even when no row
// reaches it: CASE WHEN i > 100 THEN 1/0 ELSE 0 END fails with 22012 on any
// table. Its CASE simplification skips the results of WHEN conditions
// that are constant false, and the branches after a constant true one;
// every other result is simplified. foldCase does the same for the
// constants fickle can be sure PostgreSQL folds: arithmetic and comparison
// operators over numeric, boolean and NULL literals and parameters, all
// immutable.

// foldCase registers the check that evaluates, when the statement starts,
// the constant WHEN conditions and the constant results PostgreSQL would
// fold when planning, and fails with the first error. conds and results
// are the compiled conditions and results (results ends with the ELSE
// result). The check runs at the start of each execution rather than here
// because constants may be parameters: the literal cache plans a text with
// its numbers as parameters, as PostgreSQL plans a custom plan with the
// parameters' values in place.
func (b *binder) foldCase(c *pg_query.CaseExpr, conds, results []*scalar) {
	type branch struct {
		cond   *scalar // nil when the condition is not constant
		result *scalar // nil when the result is not constant
	}
	var branches []branch
	any := false
	for i, w := range c.Args {
		cw := w.GetCaseWhen()
		var br branch
		if foldableConstant(cw.Expr) && (c.Arg == nil || foldableConstant(c.Arg)) {
			br.cond = conds[i]
		}
		if foldableConstant(cw.Result) {
			br.result = results[i]
		}
		any = any || br.cond != nil || br.result != nil
		branches = append(branches, br)
	}
	if c.Defresult != nil && foldableConstant(c.Defresult) {
		branches = append(branches, branch{result: results[len(results)-1]})
		any = true
	}
	if !any {
		return
	}
	b.constChecks = append(b.constChecks, func(x *execCtx) error {
		for _, br := range branches {
			if br.cond != nil {
				v, err := br.cond.eval(x)
				if err != nil {
					return err
				}
				if v != true {
					continue
				}
			}
			if br.result != nil {
				if _, err := br.result.eval(x); err != nil {
					return err
				}
			}
			if br.cond != nil {
				// A constant true condition ends the CASE.
				return nil
			}
		}
		return nil
	})
}

// foldableConstant reports whether n is built only of numeric, boolean and
// NULL literals and operators over them, which PostgreSQL computes when it
// plans.
func foldableConstant(n *pg_query.Node) bool {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_ParamRef:
		return true
	case *pg_query.Node_AConst:
		c := v.AConst
		return c.Isnull || c.GetIval() != nil || c.GetFval() != nil || c.GetBoolval() != nil
	case *pg_query.Node_AExpr:
		a := v.AExpr
		if a.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
			return false
		}
		return (a.Lexpr == nil || foldableConstant(a.Lexpr)) && foldableConstant(a.Rexpr)
	}
	return false
}

// addConstChecks makes p run checks, in order, before anything else when
// it executes, whether it returns its rows or streams them.
func addConstChecks(p *stmtPlan, checks []func(*execCtx) error) {
	if len(checks) == 0 {
		return
	}
	run := func(x *execCtx) error {
		for _, c := range checks {
			if err := c(x); err != nil {
				return err
			}
		}
		return nil
	}
	exec := p.exec
	p.exec = func(x *execCtx) (*Result, error) {
		if err := run(x); err != nil {
			return nil, err
		}
		return exec(x)
	}
	if stream := p.stream; stream != nil {
		p.stream = func(x *execCtx, send func(row []any) error) (string, error) {
			if err := run(x); err != nil {
				return "", err
			}
			return stream(x, send)
		}
	}
}
