package sqlexec

import (
	"cmp"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// setTargets compiles the SET list of UPDATE or ON CONFLICT DO UPDATE.
// A multiple-column item, SET (a, b) = (x, y) or = (SELECT ...), reaches
// it as one ResTarget per column, each naming the shared source and its
// column number; a row source is split into one assignment per column, a
// sub-SELECT runs once per row for all of them. A column assigned whole
// and assigned again (whole or through subscripts or fields) is an error,
// as in PostgreSQL.
func (b *binder) setTargets(t *tableDesc, sc *scope, list []*pg_query.Node) ([]setTarget, error) {
	// Aggregates, window and set-returning calls are PostgreSQL's errors
	// "... are not allowed in UPDATE" there.
	was := sc.noAgg
	sc.noAgg = "UPDATE"
	defer func() { sc.noAgg = was }()
	var sets, constant []setTarget
	whole, partly := map[int]bool{}, map[int]bool{}
	var src *multiSource
	for _, n := range list {
		rt := n.GetResTarget()
		var st []setTarget
		var err error
		val := rt.Val // the value's expression, nil from a sub-SELECT
		if m := rt.Val.GetMultiAssignRef(); m != nil {
			if m.Colno == 1 {
				if src, err = b.multiSourceFor(sc, m); err != nil {
					return nil, err
				}
			}
			st, err = b.multiTarget(t, sc, rt, src, int(m.Colno)-1)
			val = nil
			if int(m.Colno) <= len(src.items) {
				val = src.items[m.Colno-1]
			}
		} else {
			st, err = b.setTargetFor(t, sc, rt)
		}
		if err != nil {
			return nil, err
		}
		c := t.colIndex(rt.Name)
		if whole[c] || len(rt.Indirection) == 0 && partly[c] {
			return nil, b.errAt(pgerror.Newf(pgerror.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name), rt.Location)
		}
		whole[c], partly[c] = len(rt.Indirection) == 0, len(rt.Indirection) > 0 || partly[c]
		sets = append(sets, st...)
		if len(rt.Indirection) == 0 && len(st) == 1 && st[0].e != nil && t.cols[c].domain == 0 && val != nil && foldableConstant(val) {
			constant = append(constant, st[0])
		}
	}
	b.foldSetTargets(constant)
	return sets, nil
}

// foldSetTargets registers the evaluation, when the statement starts, of
// the SET values built of constants only (foldableConstant) with their
// conversion to the column's type: PostgreSQL computes them when it plans
// (eval_const_expressions), so UPDATE t SET smallint_col = 40000 WHERE
// false fails with 22003. Its rewriter puts an UPDATE's targets in column
// order first, so the first column's error wins.
func (b *binder) foldSetTargets(sets []setTarget) {
	if len(sets) == 0 {
		return
	}
	sets = slices.Clone(sets)
	slices.SortStableFunc(sets, func(a, b setTarget) int { return cmp.Compare(a.col, b.col) })
	b.constChecks = append(b.constChecks, func(x *execCtx) error {
		for _, st := range sets {
			if _, err := st.e.eval(x); err != nil {
				return err
			}
		}
		return nil
	})
}

// multiSource is the source of one SET (a, b, ...) = ... item: the items
// of a row constructor, or a sub-SELECT whose row every column takes its
// value from.
type multiSource struct {
	items []*pg_query.Node
	// row evaluates the sub-SELECT: its one row, nil when it returns none.
	row  func(x *execCtx) ([]any, error)
	cols []outCol
	node *pg_query.Node
}

// multiSourceFor compiles the source of m, checking its width.
func (b *binder) multiSourceFor(sc *scope, m *pg_query.MultiAssignRef) (*multiSource, error) {
	src := &multiSource{node: m.Source}
	mismatch := func(loc int32) error {
		return b.errAt(pgerror.New(pgerror.SyntaxError, "number of columns does not match number of values"), loc)
	}
	switch {
	case m.Source.GetRowExpr() != nil:
		r := m.Source.GetRowExpr()
		items, err := b.expandRowStars(sc, r.Args)
		if err != nil {
			return nil, b.errAt(err.(*pgerror.Error), r.Location)
		}
		if len(items) != int(m.Ncolumns) {
			return nil, mismatch(r.Location)
		}
		src.items = items
	case m.Source.GetSubLink() != nil && m.Source.GetSubLink().SubLinkType == pg_query.SubLinkType_EXPR_SUBLINK:
		sl := m.Source.GetSubLink()
		var saved uint64
		var ctes map[string]*ctePlan
		if sc != nil {
			saved, sc.pending, ctes = sc.pending, 0, sc.ctes
		}
		p, _, rows, err := b.subquery(sc, sl.Subselect, ctes, saved)
		if err != nil {
			return nil, err
		}
		if len(p.cols) != int(m.Ncolumns) {
			return nil, mismatch(sl.Location)
		}
		src.cols = p.cols
		src.row = func(x *execCtx) ([]any, error) {
			rs, err := rows(x)
			if err != nil {
				return nil, err
			}
			switch len(rs) {
			case 0:
				return nil, nil
			case 1:
				return rs[0], nil
			}
			return nil, pgerror.New(pgerror.CardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
	default:
		return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression"), leftmostLocation(m.Source))
	}
	return src, nil
}

// multiTarget compiles the assignment of column k of src to rt's column.
func (b *binder) multiTarget(t *tableDesc, sc *scope, rt *pg_query.ResTarget, src *multiSource, k int) ([]setTarget, error) {
	if src.items != nil {
		one := &pg_query.ResTarget{Name: rt.Name, Indirection: rt.Indirection, Val: src.items[k], Location: rt.Location}
		return b.setTargetFor(t, sc, one)
	}
	c := t.colIndex(rt.Name)
	if c < 0 {
		return nil, b.unknownSetColumn(t, rt)
	}
	if len(rt.Indirection) > 0 {
		return nil, b.errAt(pgerror.Unsupported("subscripts in a multiple-column SET item with a sub-SELECT"), rt.Location)
	}
	col := t.cols[c]
	typ := src.cols[k].typ
	if typ.Oid == types.OidUnknown {
		typ = types.Text
	}
	// The first column runs the sub-SELECT and keeps its row for the
	// others, which the UPDATE evaluates next for the same row.
	e := &scalar{typ: typ, slot: -1, volatile: true, name: src.cols[k].Name, eval: func(x *execCtx) (any, error) {
		var row []any
		if v, ok := x.memoGet(src); ok && k > 0 {
			row, _ = v.([]any)
		} else {
			var err error
			if row, err = src.row(x); err != nil {
				return nil, err
			}
			x.memoSet(src, row)
		}
		if row == nil {
			return nil, nil
		}
		return row[k], nil
	}}
	ce, err := b.coerce(e, col.typ, types.CastAssignment)
	if err != nil {
		return nil, b.assignError(err, col, e, src.node)
	}
	return []setTarget{{col: c, e: ce}}, nil
}

// expandRowStars replaces the rel.* items of a row constructor with a
// reference to each of rel's columns, in the nearest scope that has rel,
// or else to each field of the routine's composite variable rel (a
// trigger's OLD and NEW), as PostgreSQL expands them.
func (b *binder) expandRowStars(sc *scope, items []*pg_query.Node) ([]*pg_query.Node, error) {
	var out []*pg_query.Node
	for _, it := range items {
		cr := it.GetColumnRef()
		if cr == nil || !isStarRef(cr) {
			out = append(out, it)
			continue
		}
		if len(cr.Fields) != 2 || !b.relVisible(sc, cr.Fields[0].GetString_().GetSval()) {
			if fields := b.routineVarFields(it); fields != nil {
				out = append(out, fields...)
				continue
			}
		}
		if len(cr.Fields) != 2 || sc == nil {
			return nil, pgerror.Unsupported("* in a row constructor")
		}
		rel := cr.Fields[0].GetString_().GetSval()
		found := false
		for cur := sc; cur != nil && !found; cur = cur.parent {
			cols := cur.cols
			if ac := cur.usingAliasCols(rel); ac != nil {
				cols = ac
			}
			for _, c := range cols {
				if c.rel != rel || c.hidden {
					continue
				}
				found = true
				out = append(out, &pg_query.Node{Node: &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{
					Fields: []*pg_query.Node{pg_query.MakeStrNode(rel), pg_query.MakeStrNode(c.name)}, Location: cr.Location}}})
			}
		}
		if !found {
			return nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table \"%s\"", rel).WithPosition(int(cr.Location) + 1)
		}
	}
	return out, nil
}
