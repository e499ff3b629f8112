package sqlexec

import (
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/pgdata"
	"github.com/fickle-db/fickle/sqlexec/types"
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
	var specific []inferenceElem // the elements naming a collation or operator class
	for _, e := range infer.IndexElems {
		ie := e.GetIndexElem()
		el := inferenceElem{col: -1}
		var typ types.Type
		if ie.Expr == nil {
			if el.col = t.colIndex(ie.Name); el.col < 0 {
				return false, nil, pgerror.Newf(pgerror.UndefinedColumn, "column \"%s\" does not exist", ie.Name)
			}
			typ = t.cols[el.col].typ
		} else {
			s, err := b.indexExpr(t, ie.Expr, "index expression")
			if err != nil {
				return false, nil, err
			}
			if el.col = s.slot; el.col < 0 { // a column reference is the column
				el.expr = b.exprKey(t, ie.Expr)
			}
			typ = s.typ
		}
		if el.col >= 0 {
			cols = append(cols, el.col)
		} else {
			exprKeys = append(exprKeys, el.expr)
		}
		if len(ie.Collation) > 0 || len(ie.Opclass) > 0 {
			opts, err := indexOptions(ie, "btree", typ, func(names []string, method string, _ types.Type) *opclassDesc {
				if names == nil {
					return nil // btree's default classes are built in
				}
				return b.s.userIndexOpclass(b.catalogNow(), names, method)
			})
			if err != nil {
				return false, nil, err
			}
			if len(ie.Collation) > 0 {
				el.collation = collationOIDs[opts.collation]
			}
			if opts.opclassOID != 0 {
				el.family, el.intype = classFamily(b.catalogNow(), opts.opclassOID)
			}
			specific = append(specific, el)
		}
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
		if !cand.unique || cand.exclusion || cand.invalid || !b.sameKeys(t, cand, cols, exprKeys) ||
			slices.ContainsFunc(specific, func(el inferenceElem) bool { return !b.matchesSomeKey(t, cand, el) }) {
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

// inferenceElem is an element of ON CONFLICT's inference specification
// that names a collation or an operator class: column col, or the
// expression expr (col -1), with the collation (0: any) and the operator
// family and input type of the operator class (0: any) named.
type inferenceElem struct {
	col            int
	expr           string
	collation      int64
	family, intype uint32
}

// matchesSomeKey reports whether a key column of ix (t's index) is el with
// el's collation and operator class, as PostgreSQL's
// infer_collation_opclass_match requires: an element naming them matches
// only an index that has them on that column or expression.
func (b *binder) matchesSomeKey(t *tableDesc, ix *indexDesc, el inferenceElem) bool {
	_, classes, _ := ix.catalogColumns(t)
	for i, c := range ix.cols {
		if el.family != 0 {
			if family, intype := classFamily(b.catalogNow(), uint32(classes[i].(int64))); family != el.family || intype != el.intype {
				continue
			}
		}
		if el.collation != 0 && ix.keyCollation(t, i) != el.collation {
			continue
		}
		if ix.isExprKey(i) {
			if el.col < 0 && b.exprKey(t, ix.exprs[i]) == el.expr {
				return true
			}
		} else if c == el.col {
			return true
		}
	}
	return false
}

// opclassFamily is the operator family and input type of operator class
// oid (pg_opclass's opcfamily and opcintype).
func opclassFamily(oid uint32) (family, intype uint32) {
	want := strconv.FormatUint(uint64(oid), 10)
	eachRow(pgdata.Load(pgdata.PgOpclass), func(get func(string) string) {
		if family == 0 && get("oid") == want {
			family, intype = atou(get("opcfamily")), atou(get("opcintype"))
		}
	})
	return family, intype
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
