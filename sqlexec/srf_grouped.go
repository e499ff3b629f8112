package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// Set-returning functions in the select list of a grouped or windowed
// query: as PostgreSQL's ProjectSet node above the Agg and WindowAgg
// nodes, they expand each group's (or window row's) projection, after
// grouping, HAVING and window functions and before DISTINCT, ORDER BY and
// LIMIT.

// srfsAboveGrouping refuses what fickle cannot run of a grouped or
// windowed query whose select list or ORDER BY calls set-returning
// functions: a window definition that calls one other than as a GROUP BY
// expression (PostgreSQL orders the expanded rows), and a window function
// whose arguments call one (PostgreSQL's error).
func (b *binder) srfsAboveGrouping(agg *aggScope, nodes []*pg_query.Node) error {
	var err error
	for _, n := range nodes {
		walk(n, func(c *pg_query.Node) bool {
			if err != nil || c.GetSubLink() != nil {
				return false
			}
			fc := c.GetFuncCall()
			if fc == nil || fc.Over == nil {
				return true
			}
			if b.containsSetCall(fc.Args...) {
				err = b.errAt(pgerror.New(pgerror.FeatureNotSupported, "window function calls cannot contain set-returning function calls").
					WithHint("You might be able to move the set-returning function into a LATERAL FROM item."), lastSetCallLocation(b, fc.Args))
				return false
			}
			var calling []*pg_query.Node
			for _, d := range append(append([]*pg_query.Node{}, fc.Over.PartitionClause...), fc.Over.OrderClause...) {
				if s := d.GetSortBy(); s != nil {
					d = s.Node
				}
				if b.containsSetCall(d) && !b.isGroupExpr(agg, d) {
					calling = append(calling, d)
				}
			}
			if len(calling) > 0 {
				err = b.errAt(pgerror.Unsupported("set-returning functions in a window definition"), lastSetCallLocation(b, calling))
			}
			return false
		})
	}
	return err
}

// isGroupExpr reports whether n is one of the GROUP BY expressions of agg
// (nil for a query without grouping), which the grouping computed.
func (b *binder) isGroupExpr(agg *aggScope, n *pg_query.Node) bool {
	if agg == nil {
		return false
	}
	key := b.groupKey(agg.from, n)
	return slices.ContainsFunc(agg.groups, func(g groupEntry) bool { return g.key == key })
}

// lastSetCallLocation is the location of the last outermost
// set-returning call in ns, outside subqueries: the one PostgreSQL
// reports (p_last_srf).
func lastSetCallLocation(b *binder, ns []*pg_query.Node) int32 {
	loc := int32(-1)
	for _, n := range ns {
		walk(n, func(c *pg_query.Node) bool {
			if c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over == nil && (b.lookupSetFunc(strs(fc.Funcname)) != nil || b.hasUserSetFunc(strs(fc.Funcname))) {
				loc = fc.Location
				return false
			}
			return true
		})
	}
	return loc
}

// projectExpanding projects the level's row in cx into out: one output
// row, or with set-returning calls, one per row of their expansion.
func projectExpanding(cx *execCtx, srf *srfScope, out *[][]any, outs []*scalar, postponed, endCols []int, p *selectPlan) error {
	project := func() error {
		o := make([]any, len(outs))
		if err := projectInto(cx, o, outs, postponed, p, false); err != nil {
			return err
		}
		*out = append(*out, o)
		return nil
	}
	if srf == nil {
		return project()
	}
	return srf.expand(cx, project, evalEach(cx, outs, endCols))
}

// srfInHaving is PostgreSQL's error for a set-returning call in HAVING.
func (b *binder) srfInHaving(having *pg_query.Node) error {
	if !b.containsSetCall(having) {
		return nil
	}
	return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "set-returning functions are not allowed in HAVING"),
		lastSetCallLocation(b, []*pg_query.Node{having}))
}
