package sqlexec

import (
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
// functions: a GROUP BY or window definition that calls one (PostgreSQL
// groups or orders the expanded rows), and a window function whose
// arguments call one (PostgreSQL's error).
func (b *binder) srfsAboveGrouping(groupClause, nodes []*pg_query.Node) error {
	if b.containsSetCall(groupClause...) {
		return pgerror.Unsupported("set-returning functions in GROUP BY")
	}
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
			} else if b.containsSetCall(fc.Over.PartitionClause...) || b.containsSetCall(fc.Over.OrderClause...) {
				err = b.errAt(pgerror.Unsupported("set-returning functions in a window definition"),
					lastSetCallLocation(b, append(append([]*pg_query.Node{}, fc.Over.PartitionClause...), fc.Over.OrderClause...)))
			}
			return false
		})
	}
	return err
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
func projectExpanding(cx *execCtx, srf *srfScope, out *[][]any, outs []*scalar, postponed []int, p *selectPlan) error {
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
	return srf.expand(cx, project)
}

// srfDistinctOn refuses DISTINCT ON with an ORDER BY none of whose keys
// calls a set-returning function while the select list calls one:
// PostgreSQL then expands the calls after DISTINCT ON has kept one row
// per key (make_sort_input_target postpones them past the sort), where
// fickle expands them before.
func (b *binder) srfDistinctOn(sortClause []*pg_query.Node, keys []sortKey, targetNodes []*pg_query.Node) error {
	if len(sortClause) == 0 {
		return nil
	}
	for i, k := range keys {
		var key *pg_query.Node
		if k.col < len(targetNodes) && targetNodes[k.col] != nil {
			key = targetNodes[k.col]
		} else if i < len(sortClause) {
			key = sortClause[i]
		}
		if key == nil || b.containsSetCall(key) {
			return nil
		}
	}
	return pgerror.Unsupported("DISTINCT ON with set-returning functions in the select list that the ORDER BY does not name")
}

// srfInHaving is PostgreSQL's error for a set-returning call in HAVING.
func (b *binder) srfInHaving(having *pg_query.Node) error {
	if !b.containsSetCall(having) {
		return nil
	}
	return b.errAt(pgerror.New(pgerror.FeatureNotSupported, "set-returning functions are not allowed in HAVING"),
		lastSetCallLocation(b, []*pg_query.Node{having}))
}
