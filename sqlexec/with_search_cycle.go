package sqlexec

import (
	"fmt"
	"github.com/fickle-db/fickle/sqlexec/types"
	"slices"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// searchCycleCTE checks the SEARCH and CYCLE clauses of a WITH query as
// PostgreSQL's analyzer does (parse_cte.c) and, like its rewriter
// (rewriteSearchCycle.c), returns a copy of the query whose recursive
// UNION computes the clauses' columns.
func (b *binder) searchCycleCTE(w *pg_query.WithClause, c *pg_query.CommonTableExpr) (*pg_query.CommonTableExpr, error) {
	var mark *cycleMark
	if cy := c.CycleClause; cy != nil {
		var err error
		if mark, err = b.cycleMarkOf(cy); err != nil {
			return nil, err
		}
	}
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
	return searchCycleRewrite(c, st, names, searchCols, ref, mark)
}

// cycleMark is the compiled CYCLE ... SET col TO value DEFAULT default:
// both constants cast to their common type.
type cycleMark struct {
	value, def *pg_query.Node
}

// cycleMarkOf checks the mark values of a CYCLE clause as PostgreSQL's
// analyzer does before anything else in the WITH query: their common type
// (42804 "CYCLE types ... cannot be matched") must have an equality
// operator (42883).
func (b *binder) cycleMarkOf(cy *pg_query.CTECycleClause) (*cycleMark, error) {
	value, def := cy.CycleMarkValue, cy.CycleMarkDefault
	if value == nil {
		boolean := func(v bool) *pg_query.Node {
			return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: v}}, Location: -1}}}
		}
		value, def = boolean(true), boolean(false)
	}
	vs, err := b.exprAlone(&scope{}, value)
	if err != nil {
		return nil, err
	}
	ds, err := b.exprAlone(&scope{}, def)
	if err != nil {
		return nil, err
	}
	common, err := types.CommonType("CYCLE", vs.typ, ds.typ)
	if err != nil {
		return nil, err
	}
	if e := types.EqualityOperatorError(common); e != nil {
		return nil, e
	}
	tree, err := pg_query.Parse("SELECT NULL::" + common.String())
	if err != nil {
		return nil, err
	}
	typeName := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast().TypeName
	cast := func(n *pg_query.Node) *pg_query.Node {
		return &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{Arg: proto.Clone(n).(*pg_query.Node), TypeName: typeName, Location: -1}}}
	}
	return &cycleMark{value: cast(value), def: cast(def)}, nil
}

// searchCycleRewrite rewrites a WITH query with SEARCH and CYCLE clauses
// as PostgreSQL's rewriter does (rewriteSearchCycle.c): the non-recursive
// term, wrapped as "*TLOCRN*", sets the sequence column to ROW(0, cols)
// (breadth first) or ARRAY[ROW(cols)] (depth first), the cycle mark to
// its default and the path to ARRAY[ROW(cycle cols)]; the recursive term,
// wrapped as "*TROCRN*" with the recursive reference's added columns
// and, for CYCLE, only the rows whose mark is not set, extends them from
// the row it read.
func searchCycleRewrite(c *pg_query.CommonTableExpr, st *pg_query.SelectStmt, names, searchCols []string, ref string, mark *cycleMark) (*pg_query.CommonTableExpr, error) {
	left, err := deparseSelect(st.Larg)
	if err != nil {
		return nil, err
	}
	right := proto.Clone(st.Rarg).(*pg_query.SelectStmt)
	for _, t := range right.TargetList {
		if cr := t.GetResTarget().GetVal().GetColumnRef(); cr != nil && hasStar(cr) && (len(cr.Fields) == 1 || cr.Fields[0].GetString_().GetSval() == ref) {
			// The reference's * would take the added columns too, where
			// PostgreSQL's rewriter sees the query's own columns only.
			return nil, pgerror.Unsupported("SEARCH or CYCLE on a recursive query whose recursive term selects * of its recursive reference")
		}
	}
	if len(right.TargetList) != len(names) && !slices.ContainsFunc(right.TargetList, func(t *pg_query.Node) bool {
		cr := t.GetResTarget().GetVal().GetColumnRef()
		return cr != nil && hasStar(cr)
	}) {
		return nil, pgerror.New(pgerror.SyntaxError, "each UNION query must have the same number of columns")
	}
	row := func(rel string, cols []string) string {
		q := make([]string, len(cols))
		for i, n := range cols {
			q[i] = rel + "." + quoteIdent(n)
		}
		return "ROW(" + strings.Join(q, ", ") + ")"
	}
	const l, r = `"*TLOCRN*"`, `"*TROCRN*"`
	var added, first, next []string
	if s := c.SearchClause; s != nil {
		seq := quoteIdent(s.SearchSeqColumn)
		added = append(added, s.SearchSeqColumn)
		if s.SearchBreadthFirst {
			first = append(first, "ROW(0::int8, "+strings.TrimPrefix(row(l, searchCols), "ROW("))
			next = append(next, "ROW(("+r+"."+seq+").f1 + 1, "+strings.TrimPrefix(row(r, searchCols), "ROW("))
		} else {
			first = append(first, "ARRAY["+row(l, searchCols)+"]")
			next = append(next, "array_cat("+r+"."+seq+", ARRAY["+row(r, searchCols)+"])")
		}
	}
	if cy := c.CycleClause; cy != nil {
		cycleCols := strs(cy.CycleColList)
		path := r + "." + quoteIdent(cy.CyclePathColumn)
		added = append(added, cy.CycleMarkColumn, cy.CyclePathColumn)
		first = append(first, markDefault, "ARRAY["+row(l, cycleCols)+"]")
		next = append(next, "CASE WHEN "+row(r, cycleCols)+" = ANY ("+path+") THEN "+markValue+" ELSE "+markDefault+" END",
			"array_cat("+path+", ARRAY["+row(r, cycleCols)+"])")
		notSet := pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("<>")},
			pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(ref), pg_query.MakeStrNode(cy.CycleMarkColumn)}, -1), mark.value, -1)
		if right.WhereClause == nil {
			right.WhereClause = notSet
		} else {
			right.WhereClause = pg_query.MakeBoolExprNode(pg_query.BoolExprType_AND_EXPR, []*pg_query.Node{right.WhereClause, notSet}, -1)
		}
	}
	for _, n := range added {
		right.TargetList = append(right.TargetList, pg_query.MakeResTargetNodeWithVal(
			pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(ref), pg_query.MakeStrNode(n)}, -1), -1))
	}
	all := append(slices.Clone(names), added...)
	union := "UNION"
	if st.All {
		union = "UNION ALL"
	}
	sql := fmt.Sprintf(`SELECT %s, %s FROM (%s) AS %s(%s) %s SELECT %s, %s FROM (SELECT 1) AS %s(%s)`,
		qualifiedList(l, names), strings.Join(first, ", "), left, l, quotedList(names), union,
		qualifiedList(r, names), strings.Join(next, ", "), r, quotedList(all))
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil, err
	}
	top := tree.Stmts[0].Stmt
	if mark != nil {
		placeMarks(top, mark)
	}
	top.GetSelectStmt().Rarg.FromClause[0].GetRangeSubselect().Subquery = &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: right}}
	out := proto.Clone(c).(*pg_query.CommonTableExpr)
	out.SearchClause, out.CycleClause = nil, nil
	out.Ctequery = top
	out.Aliascolnames = nil
	for _, n := range all {
		out.Aliascolnames = append(out.Aliascolnames, pg_query.MakeStrNode(n))
	}
	return out, nil
}

// The placeholders of the cycle mark's value and default in the text
// searchCycleRewrite parses, which placeMarks replaces.
const (
	markValue   = `"*CYCLE MARK VALUE*"`
	markDefault = `"*CYCLE MARK DEFAULT*"`
)

// placeMarks replaces the placeholders of the cycle mark in n.
func placeMarks(n *pg_query.Node, mark *cycleMark) {
	walk(n, func(m *pg_query.Node) bool {
		cr := m.GetColumnRef()
		if cr == nil || len(cr.Fields) != 1 {
			return true
		}
		switch `"` + cr.Fields[0].GetString_().GetSval() + `"` {
		case markValue:
			m.Node = proto.Clone(mark.value).(*pg_query.Node).Node
		case markDefault:
			m.Node = proto.Clone(mark.def).(*pg_query.Node).Node
		}
		return true
	})
}

// qualifiedList lists the columns names of rel.
func qualifiedList(rel string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = rel + "." + quoteIdent(n)
	}
	return strings.Join(q, ", ")
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
