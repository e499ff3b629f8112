package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// PostgreSQL decides whether a partition key expression is immutable after
// inlining its SQL functions: plusone(b), whose body is SELECT $1 + 1, is
// accepted although the function is not declared IMMUTABLE. fickle does
// not inline, so it accepts the key when every call in it is of such a
// function whose body is one arithmetic expression over its parameters and
// constants, and refuses it as before otherwise.

// inlinedImmutable reports whether every function call in key is of a
// user SQL function whose body is arithmetic over its parameters, and the
// key has no other call, so that PostgreSQL's inlining leaves it
// immutable.
func (b *binder) inlinedImmutable(key *pg_query.Node) bool {
	ok, calls := true, 0
	walk(key, func(n *pg_query.Node) bool {
		if n.GetSubLink() != nil {
			ok = false
		}
		fc := n.GetFuncCall()
		if fc == nil || !ok {
			return ok
		}
		calls++
		cands := b.s.lookupFuncs(b.cat, strs(fc.Funcname))
		if len(cands) != 1 || !inlinableArithmetic(cands[0], len(fc.Args)) {
			ok = false
		}
		return ok
	})
	return ok && calls > 0
}

// inlinableArithmetic reports whether f, called with nargs arguments, is a
// LANGUAGE SQL function over numbers that PostgreSQL inlines, whose body
// is SELECT of one arithmetic expression over parameters and constants.
func inlinableArithmetic(f *funcDesc, nargs int) bool {
	if f.lang != "sql" || f.kind != 'f' || f.retSet || f.secDef || len(f.config) > 0 || f.sqlBody != nil ||
		nargs != len(f.in) || f.volatility == 'i' {
		return false
	}
	for _, t := range append(slices.Clone(f.in), f.result) {
		switch t.Oid {
		case types.OidInt2, types.OidInt4, types.OidInt8, types.OidNumeric, types.OidFloat4, types.OidFloat8:
		default:
			return false // other types' operators need not be immutable (timestamptz + interval)
		}
	}
	tree, err := pg_query.Parse(f.src)
	if err != nil || len(tree.Stmts) != 1 {
		return false
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) > 0 || sel.WhereClause != nil || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil ||
		sel.WithClause != nil || len(sel.DistinctClause) > 0 || len(sel.ValuesLists) > 0 || sel.Op != pg_query.SetOperation_SETOP_NONE {
		return false
	}
	params := map[string]bool{}
	for _, p := range f.params {
		params[p.name] = true
	}
	ok := true
	walk(sel.TargetList[0].GetResTarget().GetVal(), func(n *pg_query.Node) bool {
		switch v := n.Node.(type) {
		case *pg_query.Node_AExpr:
			op := strs(v.AExpr.Name)
			ok = ok && v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_OP && len(op) == 1 &&
				(op[0] == "+" || op[0] == "-" || op[0] == "*" || op[0] == "/" || op[0] == "%")
		case *pg_query.Node_ColumnRef:
			name := v.ColumnRef.Fields[len(v.ColumnRef.Fields)-1].GetString_().GetSval()
			ok = ok && len(v.ColumnRef.Fields) == 1 && params[name]
		case *pg_query.Node_ParamRef, *pg_query.Node_AConst, *pg_query.Node_String_, *pg_query.Node_Integer, *pg_query.Node_Float:
		default:
			ok = false
		}
		return ok
	})
	return ok
}
