package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// fullJoinItem compiles a FULL JOIN b ON q as one item of the enclosing
// FROM clause: a's and b's rows (each a nested item, read once per run of
// the query level, so the store records each read once) joined by a nested
// loop, each row of a with every row of b that q accepts or, when none
// does, with NULLs; then every row of b that no row of a matched, with NULLs
// for a. As in PostgreSQL, a clause of q that names both sides must be an
// equality. With USING or NATURAL the item's columns start with the merged
// ones, each the COALESCE of its pair in their common type (fullJoinUsing).
func (b *binder) fullJoinItem(outer *scope, j *pg_query.JoinExpr) (*fromItem, []scopeCol, error) {
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
	for i := wa; i < len(cols); i++ {
		cols[i].nullMark += wa // the right side's markers count from its first column
	}
	if j.Quals != nil && !fullJoinable(j.Quals, cols, wa) {
		return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions")
	}
	qsc := &scope{parent: outer.parent, ctes: outer.ctes, noAgg: "JOIN conditions"}
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
	var conds []*scalar
	var merged []mergedColumn
	if j.IsNatural || len(j.UsingClause) > 0 {
		if conds, merged, err = b.fullJoinUsing(qsc, cols, wa, j); err != nil {
			return nil, nil, err
		}
	}
	if j.Quals != nil {
		q, err := b.cond(qsc, j.Quals, "JOIN/ON")
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, q)
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
				ok, err := holds(&cx, conds)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
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
		if len(merged) > 0 {
			if rows, err = withMergedColumns(&cx, rows, merged); err != nil {
				return nil, err
			}
		}
		if x.items == nil {
			x.items = map[*fromItem]*itemRows{}
		}
		x.items[it] = &itemRows{rows: rows}
		return rows, nil
	}
	if len(merged) > 0 {
		front := make([]scopeCol, len(merged))
		for i, m := range merged {
			front[i] = m.col
		}
		cols = append(front, cols...)
	}
	return it, cols, nil
}

// mergedColumn is a column of a FULL JOIN ... USING: its pair's values
// converted to their common type, the left one unless it is NULL.
type mergedColumn struct {
	col         scopeCol
	left, right *scalar
}

// holds reports whether every one of conds is true for x's row.
func holds(x *execCtx, conds []*scalar) (bool, error) {
	for _, c := range conds {
		if v, err := c.eval(x); err != nil || v != true {
			return false, err
		}
	}
	return true, nil
}

// fullJoinUsing compiles a FULL JOIN's USING list (or NATURAL's common
// columns) over qsc, whose columns are the left side's (the first wa) and
// the right side's: the join condition, an equality a pair in the pair's
// common type, and the merged columns. The pairs' own columns stay
// reachable by qualified name only.
func (b *binder) fullJoinUsing(qsc *scope, cols []scopeCol, wa int, j *pg_query.JoinExpr) ([]*scalar, []mergedColumn, error) {
	names := b.usingNames(j, qsc.cols[:wa], qsc.cols[wa:])
	var conds []*scalar
	var merged []mergedColumn
	for _, name := range names {
		l, err := usingColumn(name, qsc.cols[:wa], "left")
		if err != nil {
			return nil, nil, err
		}
		r, err := usingColumn(name, qsc.cols[wa:], "right")
		if err != nil {
			return nil, nil, err
		}
		r += wa
		common, err := types.CommonType("JOIN/USING", qsc.cols[l].typ, qsc.cols[r].typ)
		if err != nil {
			return nil, nil, err
		}
		m := mergedColumn{col: scopeCol{name: name, typ: common}}
		if a := j.JoinUsingAlias; a != nil {
			m.col = withUsingAlias(m.col, a.Aliasname, len(merged))
		}
		for _, side := range []struct {
			at  int
			out **scalar
		}{{l, &m.left}, {r, &m.right}} {
			c := qsc.cols[side.at]
			slot := side.at
			e := &scalar{typ: c.typ, slot: slot, name: name, coll: outputCollation(c.typ, c.coll), eval: func(x *execCtx) (any, error) { return x.row[slot], nil }}
			if *side.out, err = b.coerce(e, common, types.CastImplicit); err != nil {
				return nil, nil, err
			}
			cols[side.at].merged, cols[side.at].hidden = true, true
			qsc.cols[side.at].merged = true
		}
		m.col.coll = qsc.cols[l].coll
		merged = append(merged, m)
		eq, err := b.binary("=", m.left, m.right, -1)
		if err != nil {
			return nil, nil, err
		}
		conds = append(conds, eq)
	}
	return conds, merged, nil
}

// withMergedColumns puts the merged columns' values in front of each of a
// FULL JOIN's rows.
func withMergedColumns(x *execCtx, rows [][]any, merged []mergedColumn) ([][]any, error) {
	for i, r := range rows {
		x.row = r
		out := make([]any, len(merged), len(merged)+len(r))
		for k, m := range merged {
			v, err := m.left.eval(x)
			if err == nil && v == nil {
				v, err = m.right.eval(x)
			}
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		rows[i] = append(out, r...)
	}
	return rows, nil
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
