package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// inferArbiter infers ON CONFLICT (elems) [WHERE pred]'s arbiter on t as
// PostgreSQL's infer_arbiter_indexes does: the primary key or a unique
// index whose columns and expressions are exactly the elements; a partial
// index only when the WHERE clause implies its predicate. fickle proves
// that only when each of the predicate's AND-ed terms is one of the WHERE
// clause's (compared as ruleutils prints them), and disproves it when a term reads a column the WHERE clause
// does not (PostgreSQL's predicate_implied_by proves a term only from
// clauses over the same expressions); where PostgreSQL could prove more, it
// refuses (0A000) rather than pick another arbiter. pk reports the primary
// key; ix is the index otherwise.
func (b *binder) inferArbiter(t *tableDesc, infer *pg_query.InferClause) (pk bool, ix *indexDesc, err error) {
	var cols []int
	var exprKeys []string
	for _, e := range infer.IndexElems {
		ie := e.GetIndexElem()
		if ie.Expr == nil {
			c := t.colIndex(ie.Name)
			if c < 0 {
				return false, nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
			cols = append(cols, c)
			continue
		}
		s, err := b.indexExpr(t, ie.Expr, "index expression")
		if err != nil {
			return false, nil, err
		}
		if s.slot >= 0 {
			cols = append(cols, s.slot) // a column reference is the column
			continue
		}
		exprKeys = append(exprKeys, b.exprKey(t, ie.Expr))
	}
	var whereTerms []string
	if infer.WhereClause != nil {
		if _, err := b.cond(tableScope(t, t.name), infer.WhereClause, "WHERE"); err != nil {
			return false, nil, err
		}
		whereTerms = b.andTerms(t, infer.WhereClause)
	}
	if exprKeys == nil && sameSet(cols, t.pk) {
		return true, nil, nil
	}
	var found []*indexDesc
	for _, cand := range t.indexes {
		if !cand.unique || cand.exclusion || !b.sameKeys(t, cand, cols, exprKeys) {
			continue
		}
		switch {
		case cand.pred == nil:
			found = append(found, cand)
		case whereTerms == nil:
			// A partial index whose predicate the (absent) WHERE cannot imply.
		case implies(whereTerms, b.andTerms(t, cand.pred)):
			found = append(found, cand)
		case !readsOnlyColumnsOf(cand.pred, infer.WhereClause):
			// A term over a column the WHERE clause does not mention.
		default:
			return false, nil, pgerror.Unsupported("ON CONFLICT ... WHERE that does not repeat the predicate of partial index \"" + cand.name + "\" term by term")
		}
	}
	if len(found) == 0 {
		return false, nil, pgerror.New(pgerror.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
	}
	if len(found) > 1 && slices.ContainsFunc(found, func(ix *indexDesc) bool { return !ix.onColumnsOnly() }) {
		return false, nil, pgerror.Unsupported("ON CONFLICT whose specification matches more than one unique index")
	}
	return false, found[len(found)-1], nil
}

// exprKey is expression n over t's columns as ruleutils prints it, which
// two spellings of one expression share (lower(email), LOWER(t.email)).
func (b *binder) exprKey(t *tableDesc, n *pg_query.Node) string {
	return decompile(b.s, b.cat, deparseExpr(n), t.oid, false)
}

// sameKeys reports whether ix's key (t's index) is exactly the columns
// cols and the expressions whose exprKeys are exprKeys, in any order.
func (b *binder) sameKeys(t *tableDesc, ix *indexDesc, cols []int, exprKeys []string) bool {
	var ixCols []int
	var ixExprs []string
	for i, c := range ix.cols {
		if ix.isExprKey(i) {
			ixExprs = append(ixExprs, b.exprKey(t, ix.exprs[i]))
		} else {
			ixCols = append(ixCols, c)
		}
	}
	return sameMembers(ixCols, cols) && sameMembers(ixExprs, exprKeys)
}

// sameMembers reports whether a and b hold the same distinct values.
func sameMembers[T comparable](a, b []T) bool {
	for _, v := range a {
		if !slices.Contains(b, v) {
			return false
		}
	}
	for _, v := range b {
		if !slices.Contains(a, v) {
			return false
		}
	}
	return true
}

// andTerms splits n, an expression over t's columns, at its top-level ANDs
// into its terms as ruleutils prints them: a term written as PostgreSQL
// prints it back (Rails repeats pg_indexes' predicate in ON CONFLICT ...
// WHERE) matches the term it was printed from.
func (b *binder) andTerms(t *tableDesc, n *pg_query.Node) []string {
	if be := n.GetBoolExpr(); be != nil && be.Boolop == pg_query.BoolExprType_AND_EXPR {
		var out []string
		for _, a := range be.Args {
			out = append(out, b.andTerms(t, a)...)
		}
		return out
	}
	return []string{b.exprKey(t, n)}
}

// readsOnlyColumnsOf reports whether pred reads no column that where does
// not read.
func readsOnlyColumnsOf(pred, where *pg_query.Node) bool {
	ok := true
	walk(pred, func(n *pg_query.Node) bool {
		if cr := n.GetColumnRef(); cr != nil {
			ok = readsColumn(where, cr.Fields[len(cr.Fields)-1].GetString_().GetSval())
		}
		return ok
	})
	return ok
}

// implies reports whether every term of want is among have: a conjunction
// of have then implies one of want.
func implies(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
