package sqlexec

import (
	"math"
	"slices"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// This file compiles and applies ORDER BY, DISTINCT, LIMIT and OFFSET.

// orderBy compiles ORDER BY: output column names and ordinals refer to the
// select list; other expressions become hidden output columns.
func (b *binder) orderBy(sc *scope, sorts []*pg_query.Node, outs []*scalar, cols []outCol, targetNodes []*pg_query.Node) ([]sortKey, []*scalar, error) {
	var keys []sortKey
	for _, s := range sorts {
		sb := s.GetSortBy()
		col := -1
		if c := sb.Node.GetAConst(); c != nil && c.GetIval() != nil {
			n := int(c.GetIval().Ival)
			if n < 1 || n > len(cols) {
				return nil, nil, b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "ORDER BY position %d is not in select list", n), c.Location)
			}
			col = n - 1
		} else if cr := sb.Node.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			for i, c := range cols {
				if c.Name == name {
					if col >= 0 {
						return nil, nil, b.errAt(pgerror.Newf(pgerror.AmbiguousColumn, "ORDER BY \"%s\" is ambiguous", name), cr.Location)
					}
					col = i
				}
			}
		}
		if col < 0 {
			key := nodeKey(sb.Node)
			for i, tn := range targetNodes {
				if tn != nil && nodeKey(tn) == key {
					col = i
					break
				}
			}
		}
		if col >= 0 {
			if err := b.textKeyOutput(outs, cols, col); err != nil {
				return nil, nil, err
			}
		} else {
			e, err := b.expr(sc, sb.Node)
			if err != nil {
				return nil, nil, err
			}
			if unresolved(e) || e.lit != nil || e.null {
				if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
					return nil, nil, err
				}
			}
			// A column the select list has too, written another way
			// ("t"."a" for a, or a column of t.*), is that output, as
			// PostgreSQL matches ORDER BY expressions to targets: SELECT
			// DISTINCT t.* ... ORDER BY t.a is valid.
			if e.slot >= 0 {
				col = slices.IndexFunc(outs[:len(cols)], func(o *scalar) bool { return o.slot == e.slot })
			} else {
				col = b.sameTarget(sc, sb.Node, targetNodes[:len(cols)])
			}
			if col < 0 {
				outs = append(outs, e)
				col = len(outs) - 1
			}
		}
		if sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
			if err := b.orderingOperator(sb, outs[col]); err != nil {
				return nil, nil, err
			}
		}
		if sb.SortbyDir != pg_query.SortByDir_SORTBY_USING {
			if err := types.OrderingOperatorError(outs[col].typ); err != nil {
				return nil, nil, b.errAt(err, sb.Location)
			}
		}
		if outs[col].coll.strength == collConflict {
			return nil, nil, b.errAt(outs[col].coll.conflictError(), exprLocation(sb.Node))
		}
		k := sortKeyOf(sb, col, outs[col].typ)
		k.noCollation = outs[col].coll.indeterminate
		k.text = predicateText(sb.Node)
		if sb.Node.GetAConst() != nil && col < len(cols) {
			k.text = types.QuoteIdent(cols[col].Name)
		}
		keys = append(keys, k)
	}
	return keys, outs, nil
}

// sameTarget is the index of the select-list item that is expression n
// once their column references are resolved (upper(t.a) for upper(a), a
// grouped query's t.a for a), as PostgreSQL's findTargetlistEntrySQL99
// compares them; -1 for none.
func (b *binder) sameTarget(sc *scope, n *pg_query.Node, targetNodes []*pg_query.Node) int {
	from := sc
	if sc.agg != nil {
		from = sc.agg.from
	}
	var key string
	for i, tn := range targetNodes {
		if tn == nil || starRef(tn) != nil {
			continue
		}
		if key == "" {
			key = b.groupKey(from, n)
		}
		if b.groupKey(from, tn) == key {
			return i
		}
	}
	return -1
}

// orderingOperator checks ORDER BY ... USING's operator on e, as
// PostgreSQL does: it must exist for e's type (42883 otherwise) and be the
// type's less-than or greater-than operator, which sort ascending and
// descending (42809 for any other).
func (b *binder) orderingOperator(sb *pg_query.SortBy, e *scalar) error {
	op := opName(sb.UseOp)
	// An operator CREATE OPERATOR or an extension made belongs to no
	// btree operator family fickle has.
	user, err := b.operatorOf(strs(sb.UseOp), operandType(e), operandType(e))
	if err != nil {
		return b.withPos(err, sb.Location)
	}
	if user == nil {
		if _, err := b.builtinBinary(op, e, e, sb.Location); err != nil {
			return err
		}
	}
	if user != nil && orderingMember(b.catalogNow(), user.oid) {
		return b.errAt(pgerror.Unsupported("ORDER BY USING an operator of a user's btree operator family"), sb.Location)
	}
	if op != "<" && op != ">" || user != nil {
		return b.errAt(pgerror.Newf(pgerror.WrongObjectType, "operator %s is not a valid ordering operator", op).
			WithHint("Ordering operators must be \"<\" or \">\" members of btree operator families."), sb.Location)
	}
	return nil
}

// sortKeyOf is the key that sorts column col of type t as sb says: DESC
// (or USING >) puts NULLs first unless NULLS LAST says otherwise.
func sortKeyOf(sb *pg_query.SortBy, col int, t types.Type) sortKey {
	desc := sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC ||
		sb.SortbyDir == pg_query.SortByDir_SORTBY_USING && opName(sb.UseOp) == ">"

	nullsFirst := desc
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		nullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		nullsFirst = false
	}
	return sortKey{col: col, typ: t, desc: desc, nullsFirst: nullsFirst}
}

func distinctKind(st *pg_query.SelectStmt) (distinct, on bool) {
	if len(st.DistinctClause) == 0 {
		return false, false
	}
	if len(st.DistinctClause) == 1 && st.DistinctClause[0].Node == nil {
		return true, false
	}
	return false, true
}

// distinctOnMatchesOrderBy refuses DISTINCT ON expressions that are not
// the initial ORDER BY expressions (in any order), or a prefix of them
// followed by none, as PostgreSQL's transformDistinctOnClause does: an
// ORDER BY item outside DISTINCT ON may only come after all of them. An
// item is the output column it sorts, or, for an expression outside the
// select list, the expression itself.
func (b *binder) distinctOnMatchesOrderBy(st *pg_query.SelectStmt, keys, onKeys []sortKey, nCols int) error {
	item := func(k sortKey, n *pg_query.Node) string {
		if k.col < nCols {
			return strconv.Itoa(k.col)
		}
		return nodeKey(n)
	}
	on := make(map[string]int, len(onKeys))
	for i, k := range onKeys {
		on[item(k, st.DistinctClause[i])] = i
	}
	mismatch := func(i int) error {
		return b.errAt(pgerror.New(pgerror.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions"),
			leftmostLocation(st.DistinctClause[i]))
	}
	skipped := false
	sorted := map[int]bool{}
	for i, k := range keys {
		j, ok := on[item(k, st.SortClause[i].GetSortBy().Node)]
		switch {
		case !ok:
			skipped = true
		case skipped:
			return mismatch(j)
		default:
			sorted[j] = true
		}
	}
	if skipped {
		for i := range onKeys {
			if !sorted[on[item(onKeys[i], st.DistinctClause[i])]] {
				return mismatch(i)
			}
		}
	}
	return nil
}

// distinctOnSort is the order DISTINCT ON sorts its rows in before it
// keeps the first of each run, as PostgreSQL's create_distinct_paths
// picks it: the ORDER BY keys, or when the DISTINCT ON list is longer,
// those followed by the DISTINCT ON expressions the ORDER BY does not
// name, ascending.
func (b *binder) distinctOnSort(st *pg_query.SelectStmt, keys, onKeys []sortKey, nCols int) []sortKey {
	if len(onKeys) <= len(keys) {
		return keys
	}
	item := func(k sortKey, n *pg_query.Node) string {
		if k.col < nCols {
			return strconv.Itoa(k.col)
		}
		return nodeKey(n)
	}
	sorted := map[string]bool{}
	for i, k := range keys {
		sorted[item(k, st.SortClause[i].GetSortBy().Node)] = true
	}
	out := slices.Clone(keys)
	for i, k := range onKeys {
		if it := item(k, st.DistinctClause[i]); !sorted[it] {
			sorted[it] = true
			out = append(out, k)
		}
	}
	return out
}

// distinctOnRows keeps the first row of each run of rows (sorted) with
// equal values in cols: DISTINCT ON.
func distinctOnRows(rows [][]any, cols []int, outs []*scalar) [][]any {
	seen := map[string]bool{}
	kept := rows[:0]
	var buf []byte
	for _, r := range rows {
		buf = buf[:0]
		for _, c := range cols {
			buf = types.AppendKey(buf, outs[c].typ, r[c])
		}
		if !seen[string(buf)] {
			seen[string(buf)] = true
			kept = append(kept, r)
		}
	}
	return kept
}

// limitOffset compiles LIMIT (or FETCH FIRST) and OFFSET; ties says FETCH
// FIRST ... WITH TIES, whose count may not be the NULL constant.
//
// The expressions may read enclosing queries' columns (a subquery's
// OFFSET outer.n) but not the level's own: sc is the level's scope, where
// they fail as in PostgreSQL (42P10), and so do aggregates, window
// functions and set-returning calls.
func (b *binder) limitOffset(sc *scope, st *pg_query.SelectStmt) (limit, offset *scalar, ties bool, err error) {
	ties = st.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES
	if ties {
		n := st.LimitCount
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
		}
		if c := n.GetAConst(); c != nil && c.Isnull {
			return nil, nil, false, errNullTiesCount
		}
	}
	conv := func(n *pg_query.Node, clause string) (*scalar, error) {
		if n == nil {
			return nil, nil
		}
		if c := n.GetAConst(); c != nil && c.Isnull {
			return nil, nil
		}
		saved := *sc
		sc.srf, sc.win, sc.agg, sc.noAgg, sc.noAggWin, sc.srfBarred = nil, nil, nil, clause, "", ""
		pending := sc.pending
		e, err := b.expr(sc, n)
		sc.srf, sc.win, sc.agg, sc.noAgg, sc.noAggWin, sc.srfBarred = saved.srf, saved.win, saved.agg, saved.noAgg, saved.noAggWin, saved.srfBarred
		if err != nil {
			return nil, err
		}
		if e.refs != 0 || sc.pending != pending {
			loc := int32(-1)
			walk(n, func(c *pg_query.Node) bool {
				if cr := c.GetColumnRef(); cr != nil && loc < 0 {
					loc = cr.Location
				}
				return loc < 0
			})
			return nil, b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "argument of %s must not contain variables", clause), loc)
		}
		return b.coerce(e, types.Int8, types.CastImplicit)
	}
	if limit, err = conv(st.LimitCount, "LIMIT"); err != nil {
		return nil, nil, false, err
	}
	offset, err = conv(st.LimitOffset, "OFFSET")
	return limit, offset, ties, err
}

// errNullTiesCount is PostgreSQL's error for a WITH TIES count written as
// NULL (a NULL computed when the statement runs takes every row, as a
// NULL LIMIT does).
var errNullTiesCount = pgerror.New(pgerror.InvalidRowCountInLimitClause, "row count cannot be null in FETCH FIRST ... WITH TIES clause")

// evalLimit computes LIMIT and OFFSET: lim is -1 for none or NULL.
func evalLimit(x *execCtx, limit, offset *scalar) (lim, off int64, err error) {
	lim = -1
	if limit != nil {
		v, err := limit.eval(x)
		if err != nil {
			return 0, 0, err
		}
		if v != nil {
			lim = v.(int64)
			if lim < 0 {
				return 0, 0, pgerror.New(pgerror.InvalidRowCountInLimitClause, "LIMIT must not be negative")
			}
		}
	}
	if offset != nil {
		v, err := offset.eval(x)
		if err != nil {
			return 0, 0, err
		}
		if v != nil {
			off = v.(int64)
			if off < 0 {
				return 0, 0, pgerror.New(pgerror.InvalidRowCountInResultOffsetClause, "OFFSET must not be negative")
			}
		}
	}
	return lim, off, nil
}

// trimOutput applies DISTINCT, ORDER BY, OFFSET and LIMIT (with ties, the
// rows after the last that sort as its peers too) and drops the hidden
// sort columns. bounded says PostgreSQL's Sort sits right under its Limit
// (not below a WindowAgg), which then bounds it to the rows it needs.
func trimOutput(rows [][]any, keys []sortKey, distinct bool, nVisible int, outs []*scalar, lim, off int64, hasLimit, ties, bounded bool) ([][]any, error) {
	if distinct {
		rows = distinctRows(rows, nVisible, outs)
	}
	if len(keys) > 0 {
		if err := checkSortCollations(keys); err != nil {
			return nil, err
		}
		// PostgreSQL bounds the Sort under a Limit (not under the Unique
		// of a DISTINCT, nor for WITH TIES) to the rows the Limit needs.
		bound := int64(-1)
		if bounded && hasLimit && !ties && !distinct && lim >= 0 && lim <= math.MaxInt64-off {
			bound = off + lim
		}
		rows = sortRows(rows, keys, bound)
	}
	if off > 0 {
		if off >= int64(len(rows)) {
			rows = nil
		} else {
			rows = rows[off:]
		}
	}
	if hasLimit && lim >= 0 && lim < int64(len(rows)) {
		end := lim
		for ties && end > 0 && end < int64(len(rows)) && compareKeys(rows[end], rows[lim-1], keys) == 0 {
			end++
		}
		rows = rows[:end]
	}
	if len(outs) > nVisible {
		for i, r := range rows {
			rows[i] = r[:nVisible]
		}
	}
	return rows, nil
}

// distinctRows keeps the first of the rows equal in their first nVisible
// columns.
func distinctRows(rows [][]any, nVisible int, outs []*scalar) [][]any {
	seen := map[string]bool{}
	kept := rows[:0]
	var buf []byte
	for _, r := range rows {
		buf = buf[:0]
		for i := 0; i < nVisible; i++ {
			buf = types.AppendKey(buf, outs[i].typ, r[i])
		}
		if !seen[string(buf)] {
			seen[string(buf)] = true
			kept = append(kept, r)
		}
	}
	return kept
}

// sortedBy reports whether rows are already in the order of keys.
func sortedBy(rows [][]any, keys []sortKey) bool {
	for i := 1; i < len(rows); i++ {
		if compareKeys(rows[i-1], rows[i], keys) > 0 {
			return false
		}
	}
	return true
}

// sortRows sorts rows by keys as PostgreSQL's tuplesort does, so that
// ties come out in its order: a quicksort, or a top-N heapsort when bound
// (the rows a Limit above needs; -1 for all) is less than half the rows,
// which returns only the first bound rows.
func sortRows(rows [][]any, keys []sortKey, bound int64) [][]any {
	b := -1
	if bound >= 0 && bound < int64(len(rows)) {
		b = int(bound)
	}
	return types.PGSortBounded(rows, b, func(a, c []any) int { return compareKeys(a, c, keys) })
}
