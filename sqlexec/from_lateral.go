package sqlexec

import pg_query "github.com/pganalyze/pg_query_go/v6"

// lateralSubquery compiles FROM ... LATERAL (subquery) alias: the subquery
// sees the columns of the FROM items before it as an enclosing query's,
// and runs again for each combination of their rows.
func (b *binder) lateralSubquery(sc *scope, rs *pg_query.RangeSubselect) (*fromItem, []scopeCol, error) {
	ls := lateralScope(sc)
	ls.aggLevelClause = "FROM clause of their own query level"
	sub, err := b.selectNode(ls, rs.Subquery, sc.ctes)
	if err != nil {
		return nil, nil, err
	}
	sub.correlated = true
	it, cols, err := b.cteItem(sc, &ctePlan{plan: sub, parent: sc.parent}, rs.Alias.Aliasname, rs.Alias)
	if err != nil {
		return nil, nil, err
	}
	it.sub = func(x *execCtx) ([][]any, error) { return sub.run(x.child()) }
	return it, cols, nil
}
