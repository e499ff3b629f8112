package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// GROUPING SETS, ROLLUP and CUBE. A GROUP BY with them groups the rows
// once per grouping set: the cross product of its items' sets, each item a
// list of sets (an expression one set of itself, ROLLUP (a, b) the sets
// (a, b), (a) and (), CUBE every subset, GROUPING SETS the concatenation
// of its items'). Every expression of any set is one of aggScope.groups;
// in a set's rows those outside the set are NULL, and GROUPING(...) tells
// which (a bit set for each argument the row's set does not group by).

// hasGroupingSets reports whether a GROUP BY list uses grouping sets.
func hasGroupingSets(groups []*pg_query.Node) bool {
	return slices.ContainsFunc(groups, func(n *pg_query.Node) bool { return n.GetGroupingSet() != nil })
}

// groupingSets compiles a GROUP BY list with grouping sets into agg's
// groups and sets; with distinct (GROUP BY DISTINCT) a set listed twice
// is kept once.
func (b *binder) groupingSets(agg *aggScope, groups []*pg_query.Node, targets []*pg_query.Node, distinct bool) error {
	sets := [][]int{{}}
	for _, g := range groups {
		item, err := b.itemSets(agg, g, targets)
		if err != nil {
			return err
		}
		var product [][]int
		for _, s := range sets {
			for _, t := range item {
				product = append(product, union(s, t))
			}
		}
		sets = product
		if len(sets) > 4096 {
			return pgerror.New(pgerror.ProgramLimitExceeded, "too many grouping sets present (maximum 4096)")
		}
	}
	if distinct {
		var kept [][]int
		for _, s := range sets {
			if !slices.ContainsFunc(kept, func(k []int) bool { return slices.Equal(k, s) }) {
				kept = append(kept, s)
			}
		}
		sets = kept
	}
	agg.sets = sets
	for i, g := range agg.groups {
		if g.twoColumns {
			// PostgreSQL groups by each output column on its own, nulling
			// one where a set holds the other.
			return pgerror.Unsupported("grouping sets over two output columns of one expression")
		}
		// PostgreSQL nulls such an expression in the sets without it,
		// where fickle reads it as it is; a volatile one (a set-returning
		// call) reads the group row as one naming columns does.
		if g.e.refs == 0 && !g.e.volatile && slices.ContainsFunc(sets, func(s []int) bool { return !slices.Contains(s, i) }) {
			return pgerror.Unsupported("a grouping set expression that names none of the query's columns, absent from some grouping sets")
		}
	}
	return nil
}

// itemSets returns the grouping sets of one GROUP BY item.
func (b *binder) itemSets(agg *aggScope, n *pg_query.Node, targets []*pg_query.Node) ([][]int, error) {
	gs := n.GetGroupingSet()
	if gs == nil {
		unit, err := b.setUnit(agg, n, targets)
		return [][]int{unit}, err
	}
	switch gs.Kind {
	case pg_query.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]int{{}}, nil
	case pg_query.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]int
		for _, c := range gs.Content {
			sets, err := b.itemSets(agg, c, targets)
			if err != nil {
				return nil, err
			}
			out = append(out, sets...)
		}
		return out, nil
	case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP, pg_query.GroupingSetKind_GROUPING_SET_CUBE:
		units := make([][]int, len(gs.Content))
		for i, c := range gs.Content {
			if c.GetGroupingSet() != nil {
				return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "syntax error at or near \"(\""), exprLocation(c))
			}
			u, err := b.setUnit(agg, c, targets)
			if err != nil {
				return nil, err
			}
			units[i] = u
		}
		var out [][]int
		if gs.Kind == pg_query.GroupingSetKind_GROUPING_SET_ROLLUP {
			for k := len(units); k >= 0; k-- {
				var s []int
				for _, u := range units[:k] {
					s = union(s, u)
				}
				out = append(out, s)
			}
			return out, nil
		}
		if len(units) > 12 {
			return nil, pgerror.New(pgerror.ProgramLimitExceeded, "CUBE is limited to 12 elements")
		}
		// PostgreSQL's order: by size, largest first, then as the bits
		// of the leading elements.
		for size := len(units); size >= 0; size-- {
			for mask := (1 << len(units)) - 1; mask >= 0; mask-- {
				if popcount(mask) != size {
					continue
				}
				var s []int
				for i, u := range units {
					if mask&(1<<(len(units)-1-i)) != 0 {
						s = union(s, u)
					}
				}
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, pgerror.Unsupported("this kind of grouping set")
}

// setUnit compiles one element of a grouping set: an expression, or a
// parenthesized list of them.
func (b *binder) setUnit(agg *aggScope, n *pg_query.Node, targets []*pg_query.Node) ([]int, error) {
	var items []*pg_query.Node
	if r := n.GetRowExpr(); r != nil && r.RowFormat != pg_query.CoercionForm_COERCE_EXPLICIT_CALL {
		items = r.Args
	} else {
		items = []*pg_query.Node{n}
	}
	var unit []int
	for _, it := range items {
		i, err := b.groupEntry(agg, it, targets)
		if err != nil {
			return nil, err
		}
		unit = union(unit, []int{i})
	}
	return unit, nil
}

// union returns the sorted union of the group index sets a and b.
func union(a, b []int) []int {
	out := slices.Clone(a)
	for _, i := range b {
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// groupingFunc compiles GROUPING(a, b, ...) above a GROUP BY: an integer
// whose bits, the first argument's the highest, are set for the arguments
// the row's grouping set does not group by. As in PostgreSQL, the call
// belongs to the query level of its arguments' columns (the innermost one
// they name, this level when they name none): in a subquery, GROUPING of
// an outer query's grouped columns reads that query's grouping set.
func (b *binder) groupingFunc(sc *scope, g *pg_query.GroupingFunc) (*scalar, error) {
	notGrouping := func(arg *pg_query.Node) error {
		return b.errAt(pgerror.New(pgerror.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), exprLocation(arg))
	}
	if len(g.Args) > 31 {
		return nil, b.errAt(pgerror.New(pgerror.TooManyArguments, "GROUPING must have fewer than 32 arguments"), g.Location)
	}
	depth := -1
	for _, a := range g.Args {
		if d := columnsLevel(sc, a); d >= 0 && (depth < 0 || d < depth) {
			depth = d
		}
	}
	level := sc
	for i := 0; i < depth && level != nil; i++ {
		level = level.parent
	}
	depth = max(depth, 0)
	var agg *aggScope
	if level != nil {
		agg = level.agg
	}
	args := make([]int, len(g.Args))
	for i, a := range g.Args {
		if agg == nil {
			return nil, notGrouping(a)
		}
		key := b.groupKey(agg.from, a)
		args[i] = slices.IndexFunc(agg.groups, func(e groupEntry) bool { return e.key == key })
		if args[i] < 0 {
			return nil, notGrouping(a)
		}
		if depth > 0 {
			// Compiled for its outer references, which make the
			// subquery correlated.
			if _, err := b.expr(sc, a); err != nil {
				return nil, err
			}
		}
	}
	return &scalar{typ: types.Int4, slot: -1, name: "grouping", eval: func(x *execCtx) (any, error) {
		if agg.sets == nil {
			return int64(0), nil
		}
		row := x.row
		if depth > 0 {
			row = x.outer[len(x.outer)-depth]
		}
		set := agg.sets[row[len(agg.groups)+len(agg.aggs)].(int)]
		var bits int64
		for _, i := range args {
			bits <<= 1
			if !slices.Contains(set, i) {
				bits |= 1
			}
		}
		return bits, nil
	}}, nil
}

// columnsLevel is the innermost query level, counted outwards from sc, of
// the columns that expression n names outside its subqueries; -1 when it
// names none.
func columnsLevel(sc *scope, n *pg_query.Node) int {
	level := -1
	walk(n, func(m *pg_query.Node) bool {
		if m.GetSubLink() != nil {
			return false
		}
		cr := m.GetColumnRef()
		if cr == nil {
			return true
		}
		var rel, name string
		switch fs := cr.Fields; len(fs) {
		case 1:
			name = fs[0].GetString_().GetSval()
		default:
			rel, name = fs[len(fs)-2].GetString_().GetSval(), fs[len(fs)-1].GetString_().GetSval()
		}
		depth := 0
		for cur := sc; cur != nil; cur, depth = cur.parent, depth+1 {
			if slices.ContainsFunc(cur.cols, func(c scopeCol) bool {
				return (rel == "" && !c.merged || c.rel == rel) && (name == "" || c.name == name)
			}) {
				if level < 0 || depth < level {
					level = depth
				}
				break
			}
		}
		return false
	})
	return level
}
