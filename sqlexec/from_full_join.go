package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// fullJoinItem compiles a FULL JOIN b ON q as one item of the enclosing
// FROM clause: a's and b's rows (each a nested item, read once per run of
// the query level, so the store records each read once) joined by a nested
// loop, each row of a with every row of b that q accepts or, when none
// does, with NULLs; then every row of b that no row of a matched, with NULLs
// for a. As in PostgreSQL, a clause of q that names both sides must be an
// equality; USING and NATURAL are refused.
func (b *binder) fullJoinItem(outer *scope, j *pg_query.JoinExpr) (*fromItem, []scopeCol, error) {
	if j.IsNatural || len(j.UsingClause) > 0 {
		return nil, nil, pgerror.Unsupported("FULL JOIN ... USING and NATURAL FULL JOIN")
	}
	left, colsA, err := b.nestedJoinItem(outer, j.Larg)
	if err != nil {
		return nil, nil, err
	}
	right, colsB, err := b.nestedJoinItem(outer, j.Rarg)
	if err != nil {
		return nil, nil, err
	}
	wa := len(colsA)
	cols := append(append([]scopeCol(nil), colsA...), colsB...)
	if !fullJoinable(j.Quals, cols, wa) {
		return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
	}
	qsc := &scope{parent: outer.parent, ctes: outer.ctes}
	for i, c := range cols {
		c.item, c.slot = 0, i
		if i >= wa {
			c.item = 1
		}
		qsc.cols = append(qsc.cols, c)
	}
	for _, c := range outer.cols {
		qsc.hiddenRels = append(qsc.hiddenRels, c.rel)
	}
	var q *scalar
	if j.Quals != nil {
		if q, err = b.cond(qsc, j.Quals, "JOIN/ON"); err != nil {
			return nil, nil, err
		}
	}
	it := &fromItem{nested: []*fromItem{left, right}, kind: itemJoin}
	it.sub = func(x *execCtx) ([][]any, error) {
		if ir := x.items[it]; ir != nil {
			return ir.rows, nil
		}
		as, err := left.sub(x)
		if err != nil {
			return nil, err
		}
		bs, err := right.sub(x)
		if err != nil {
			return nil, err
		}
		cx := *x
		cx.row = make([]any, len(cols))
		cx.items, cx.marks, cx.epq = nil, nil, nil
		var rows [][]any
		matchedB := make([]bool, len(bs))
		for n, a := range as {
			if n%1024 == 0 {
				if err := x.checkCancel(); err != nil {
					return nil, err
				}
			}
			matched := false
			for k, r := range bs {
				copy(cx.row, a)
				copy(cx.row[wa:], r)
				if q != nil {
					v, err := q.eval(&cx)
					if err != nil {
						return nil, err
					}
					if v != true {
						continue
					}
				}
				matched, matchedB[k] = true, true
				rows = append(rows, append([]any(nil), cx.row...))
			}
			if !matched {
				rows = append(rows, append(append([]any(nil), a...), make([]any, len(cols)-wa)...))
			}
		}
		for k, r := range bs {
			if !matchedB[k] {
				rows = append(rows, append(make([]any, wa), r...))
			}
		}
		if x.items == nil {
			x.items = map[*fromItem]*itemRows{}
		}
		x.items[it] = &itemRows{rows: rows}
		return rows, nil
	}
	return it, cols, nil
}

// fullJoinable reports whether a FULL JOIN's condition is one PostgreSQL
// can run: a conjunction whose clauses each name columns of one side only
// (or none), or are equalities. cols are the two sides' columns, a's the
// first wa.
func fullJoinable(q *pg_query.Node, cols []scopeCol, wa int) bool {
	if be := q.GetBoolExpr(); be != nil && be.Boolop == pg_query.BoolExprType_AND_EXPR {
		for _, a := range be.Args {
			if !fullJoinable(a, cols, wa) {
				return false
			}
		}
		return true
	}
	if e := q.GetAExpr(); e != nil && e.Kind == pg_query.A_Expr_Kind_AEXPR_OP && opName(e.Name) == "=" {
		return true
	}
	sides := 0
	walk(q, func(n *pg_query.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil {
			return true
		}
		names := strs(cr.Fields)
		if len(names) == 0 {
			return true
		}
		col, rel := names[len(names)-1], ""
		if len(names) > 1 {
			rel = names[len(names)-2]
		}
		for i, c := range cols {
			if c.name == col && (rel == "" || c.rel == rel) {
				if i < wa {
					sides |= 1
				} else {
					sides |= 2
				}
			}
		}
		return true
	})
	return sides != 3
}
