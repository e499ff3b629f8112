package sqlexec

import (
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// searchCycleCTE checks the SEARCH and CYCLE clauses of a WITH query as
// PostgreSQL's analyzer does (parse_cte.c) and, like its rewriter
// (rewriteSearchCycle.c), returns a copy of the query whose recursive
// UNION computes the clauses' columns. Only SEARCH BREADTH FIRST is
// rewritten: depth-first search and CYCLE keep arrays of anonymous records
// (record[]), which fickle refuses.
func (b *binder) searchCycleCTE(w *pg_query.WithClause, c *pg_query.CommonTableExpr) (*pg_query.CommonTableExpr, error) {
	if !w.Recursive || !readsItself(c) {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "WITH query is not recursive"), c.Location)
	}
	st := c.Ctequery.GetSelectStmt()
	if st == nil || st.Op != pg_query.SetOperation_SETOP_UNION {
		return nil, b.errAt(pgerror.Unsupported("a SEARCH or CYCLE clause on this WITH query"), c.Location)
	}
	if st.Larg == nil || st.Larg.Op != pg_query.SetOperation_SETOP_NONE {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT")
	}
	if st.Rarg == nil || st.Rarg.Op != pg_query.SetOperation_SETOP_NONE {
		return nil, pgerror.New(pgerror.SyntaxError, "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT")
	}
	names := strs(c.Aliascolnames)
	if len(names) == 0 {
		var ok bool
		if names, ok = targetNames(st.Larg); !ok {
			return nil, b.errAt(pgerror.Unsupported("a SEARCH or CYCLE clause on a WITH query without a column list whose columns are not all named"), c.Location)
		}
	}
	has := func(n string) bool {
		for _, x := range names {
			if x == n {
				return true
			}
		}
		return false
	}
	checkCols := func(kind string, cols []*pg_query.Node) ([]string, *pgerror.Error) {
		seen := map[string]bool{}
		out := strs(cols)
		for _, n := range out {
			if !has(n) {
				return nil, pgerror.Newf(pgerror.SyntaxError, "%s column \"%s\" not in WITH query column list", kind, n)
			}
			if seen[n] {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "%s column \"%s\" specified more than once", kind, n)
			}
			seen[n] = true
		}
		return out, nil
	}
	var searchCols []string
	if s := c.SearchClause; s != nil {
		var err *pgerror.Error
		if searchCols, err = checkCols("search", s.SearchColList); err != nil {
			return nil, b.errAt(err, s.Location)
		}
		if has(s.SearchSeqColumn) {
			return nil, pgerror.Newf(pgerror.SyntaxError, "search sequence column name \"%s\" already used in WITH query column list", s.SearchSeqColumn)
		}
	}
	if cy := c.CycleClause; cy != nil {
		if _, err := checkCols("cycle", cy.CycleColList); err != nil {
			return nil, b.errAt(err, cy.Location)
		}
		if has(cy.CycleMarkColumn) {
			return nil, pgerror.Newf(pgerror.SyntaxError, "cycle mark column name \"%s\" already used in WITH query column list", cy.CycleMarkColumn)
		}
		if has(cy.CyclePathColumn) {
			return nil, pgerror.Newf(pgerror.SyntaxError, "cycle path column name \"%s\" already used in WITH query column list", cy.CyclePathColumn)
		}
		if cy.CycleMarkColumn == cy.CyclePathColumn {
			return nil, pgerror.New(pgerror.SyntaxError, "cycle mark column name and cycle path column name are the same")
		}
		if s := c.SearchClause; s != nil {
			if s.SearchSeqColumn == cy.CycleMarkColumn {
				return nil, pgerror.New(pgerror.SyntaxError, "search sequence column name and cycle mark column name are the same")
			}
			if s.SearchSeqColumn == cy.CyclePathColumn {
				return nil, pgerror.New(pgerror.SyntaxError, "search sequence column name and cycle path column name are the same")
			}
		}
	}
	ref, ok := topLevelReference(st.Rarg, c.Ctename)
	if !ok {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "with a SEARCH or CYCLE clause, the recursive reference to WITH query \"%s\" must be at the top level of its right-hand SELECT", c.Ctename)
	}
	if c.CycleClause != nil || !c.SearchClause.SearchBreadthFirst {
		// Both keep a path of anonymous records.
		return nil, b.errAt(pgerror.Unsupported("SEARCH DEPTH FIRST and CYCLE clauses (arrays of anonymous records)"), c.Location)
	}
	return breadthFirstCTE(c, st, names, searchCols, ref)
}

// breadthFirstCTE rewrites a WITH query with SEARCH BREADTH FIRST BY cols
// SET seq: the non-recursive term sets seq to ROW(0, cols), the recursive
// term to ROW(depth of the row it extends + 1, cols).
func breadthFirstCTE(c *pg_query.CommonTableExpr, st *pg_query.SelectStmt, names, searchCols []string, ref string) (*pg_query.CommonTableExpr, error) {
	seq := c.SearchClause.SearchSeqColumn
	left, err := deparseSelect(st.Larg)
	if err != nil {
		return nil, err
	}
	right := proto.Clone(st.Rarg).(*pg_query.SelectStmt)
	if len(right.TargetList) != len(names) || len(right.GroupClause) > 0 || right.HavingClause != nil ||
		len(right.DistinctClause) > 0 || len(right.WindowClause) > 0 || right.LimitCount != nil || right.LimitOffset != nil {
		return nil, pgerror.Unsupported("SEARCH BREADTH FIRST over a recursive term with *, GROUP BY, HAVING, DISTINCT, WINDOW, LIMIT or OFFSET")
	}
	// The recursive term computes seq in its own target list, from the
	// expressions of the search columns: fickle runs no recursive
	// reference inside a subquery in FROM, where PostgreSQL wraps the term.
	tree, err := pg_query.Parse(fmt.Sprintf(`SELECT ROW(((%s.%s).f1 + 1)::int8)`, quoteIdent(ref), quoteIdent(seq)))
	if err != nil {
		return nil, err
	}
	row := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	for _, k := range searchCols {
		for i, n := range names {
			if n != k {
				continue
			}
			v := right.TargetList[i].GetResTarget()
			if v == nil || v.Val.GetColumnRef() != nil && hasStar(v.Val.GetColumnRef()) {
				return nil, pgerror.Unsupported("SEARCH BREADTH FIRST over a recursive term with *, GROUP BY, HAVING, DISTINCT, WINDOW, LIMIT or OFFSET")
			}
			row.GetRowExpr().Args = append(row.GetRowExpr().Args, proto.Clone(v.Val).(*pg_query.Node))
		}
	}
	for _, t := range right.TargetList {
		if cr := t.GetResTarget().GetVal().GetColumnRef(); cr != nil && hasStar(cr) {
			return nil, pgerror.Unsupported("SEARCH BREADTH FIRST over a recursive term with *, GROUP BY, HAVING, DISTINCT, WINDOW, LIMIT or OFFSET")
		}
	}
	right.TargetList = append(right.TargetList, pg_query.MakeResTargetNodeWithNameAndVal(seq, row, -1))
	cols := quotedList(names)
	union := "UNION"
	if st.All {
		union = "UNION ALL"
	}
	tree, err = pg_query.Parse(fmt.Sprintf(`SELECT %s, ROW(0::int8, %s) AS %s FROM (%s) AS "*TLOCRN*"(%s) %s SELECT 1`,
		cols, quotedList(searchCols), quoteIdent(seq), left, cols, union))
	if err != nil {
		return nil, err
	}
	tree.Stmts[0].Stmt.GetSelectStmt().Rarg = right
	out := proto.Clone(c).(*pg_query.CommonTableExpr)
	out.SearchClause = nil
	out.Ctequery = tree.Stmts[0].Stmt
	out.Aliascolnames = nil
	for _, n := range append(append([]string(nil), names...), seq) {
		out.Aliascolnames = append(out.Aliascolnames, pg_query.MakeStrNode(n))
	}
	return out, nil
}

// targetNames returns the column names of a simple SELECT's target list,
// false when a column has no name of its own (*, expressions).
func targetNames(st *pg_query.SelectStmt) ([]string, bool) {
	var out []string
	for _, t := range st.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			return nil, false
		}
		if rt.Name != "" {
			out = append(out, rt.Name)
			continue
		}
		cr := rt.Val.GetColumnRef()
		if cr == nil || len(cr.Fields) == 0 {
			return nil, false
		}
		s := cr.Fields[len(cr.Fields)-1].GetString_()
		if s == nil {
			return nil, false
		}
		out = append(out, s.Sval)
	}
	return out, len(out) > 0
}

// topLevelReference returns the name (alias or query name) under which a
// SELECT's FROM list, or a join in it, reads the WITH query name; false
// unless it does so exactly once there.
func topLevelReference(st *pg_query.SelectStmt, name string) (string, bool) {
	if st.WithClause != nil {
		for _, n := range st.WithClause.Ctes {
			if n.GetCommonTableExpr().GetCtename() == name {
				return "", false
			}
		}
	}
	ref, n := "", 0
	var walk func(f *pg_query.Node)
	walk = func(f *pg_query.Node) {
		if j := f.GetJoinExpr(); j != nil {
			walk(j.Larg)
			walk(j.Rarg)
			return
		}
		rv := f.GetRangeVar()
		if rv == nil || rv.Schemaname != "" || rv.Relname != name {
			return
		}
		n++
		ref = rv.Relname
		if rv.Alias != nil && rv.Alias.Aliasname != "" {
			ref = rv.Alias.Aliasname
		}
	}
	for _, f := range st.FromClause {
		walk(f)
	}
	return ref, n == 1
}

func deparseSelect(st *pg_query.SelectStmt) (string, error) {
	return pg_query.Deparse(&pg_query.ParseResult{Version: parseTreeVersion, Stmts: []*pg_query.RawStmt{{Stmt: &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: st}}}}})
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func hasStar(cr *pg_query.ColumnRef) bool {
	return len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}
