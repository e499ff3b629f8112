package sqlexec

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// recursionCheck checks where WITH RECURSIVE name AS (base UNION step)
// refers to itself, as PostgreSQL's checkWellFormedRecursion does: never
// in base, and once in step, outside subqueries, the nullable side of an
// outer join, INTERSECT and EXCEPT. Each is 42P19; fickle would otherwise
// run a query PostgreSQL refuses.
type recursionCheck struct {
	name string
	refs int
	// userAgg says a name names a user aggregate.
	userAgg func([]string) bool
}

// checkRecursion checks the terms of the recursive WITH query c.
func checkRecursion(c *pg_query.CommonTableExpr, st *pg_query.SelectStmt, userAgg func([]string) bool) error {
	base := &recursionCheck{name: c.Ctename}
	if st.WithClause != nil {
		// The UNION's own WITH queries run before either term.
		for _, n := range st.WithClause.Ctes {
			if err := base.node(n.GetCommonTableExpr().GetCtequery(), "a subquery"); err != nil {
				return err
			}
		}
	}
	if err := base.selectStmt(st.Larg, "its non-recursive term"); err != nil {
		return err
	}
	step := &recursionCheck{name: c.Ctename, userAgg: userAgg}
	if err := step.selectStmt(st.Rarg, ""); err != nil {
		return err
	}
	return step.aggregates(st.Rarg)
}

// aggregates refuses aggregates in a query level of the
// recursive term that reads the recursive query in its FROM list, as
// PostgreSQL does (42P19).
func (rc *recursionCheck) aggregates(st *pg_query.SelectStmt) error {
	if st == nil {
		return nil
	}
	if st.Op != pg_query.SetOperation_SETOP_NONE {
		if err := rc.aggregates(st.Larg); err != nil {
			return err
		}
		return rc.aggregates(st.Rarg)
	}
	reads := false
	for _, f := range st.FromClause {
		walk(f, func(m *pg_query.Node) bool {
			if m.GetRangeSubselect() != nil {
				return false
			}
			if rv := m.GetRangeVar(); rv != nil && rv.Schemaname == "" && rv.Relname == rc.name {
				reads = true
			}
			return !reads
		})
	}
	if reads && containsAgg(rc.userAgg, append([]*pg_query.Node{st.HavingClause}, st.TargetList...)...) {
		return pgerror.New(pgerror.InvalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term")
	}
	return nil
}

// selectStmt checks a SELECT where a self-reference is forbidden when
// within is not "" (it names the construct).
func (rc *recursionCheck) selectStmt(st *pg_query.SelectStmt, within string) error {
	if st == nil {
		return nil
	}
	if st.Op != pg_query.SetOperation_SETOP_NONE {
		// INTERSECT ALL takes no reference, EXCEPT none on its right,
		// EXCEPT ALL none at all.
		left, right := within, within
		if within == "" {
			switch {
			case st.Op == pg_query.SetOperation_SETOP_INTERSECT && st.All:
				left, right = "INTERSECT", "INTERSECT"
			case st.Op == pg_query.SetOperation_SETOP_EXCEPT && st.All:
				left, right = "EXCEPT", "EXCEPT"
			case st.Op == pg_query.SetOperation_SETOP_EXCEPT:
				right = "EXCEPT"
			}
		}
		if err := rc.setOperationClauses(st, within); err != nil {
			return err
		}
		if err := rc.selectStmt(st.Larg, left); err != nil {
			return err
		}
		return rc.selectStmt(st.Rarg, right)
	}
	root := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: st}}
	return rc.node(root, within)
}

// setOperationClauses checks what a set operation carries besides its
// operands: its WITH queries (a parenthesized step may open with WITH),
// ORDER BY, LIMIT and OFFSET, as a plain SELECT's are checked.
func (rc *recursionCheck) setOperationClauses(st *pg_query.SelectStmt, within string) error {
	if st.WithClause != nil {
		for _, c := range st.WithClause.Ctes {
			if err := rc.nestedWithin(c.GetCommonTableExpr().GetCtequery(), within); err != nil {
				return err
			}
		}
	}
	clauses := append([]*pg_query.Node{st.LimitCount, st.LimitOffset}, st.SortClause...)
	for _, n := range clauses {
		if n == nil {
			continue
		}
		if err := rc.node(n, within); err != nil {
			return err
		}
	}
	return nil
}

// node checks the references to the query in n.
func (rc *recursionCheck) node(n *pg_query.Node, within string) error {
	var err error
	walk(n, func(m *pg_query.Node) bool {
		if err != nil {
			return false
		}
		switch v := m.Node.(type) {
		case *pg_query.Node_SelectStmt:
			if m == n {
				return true
			}
			err = rc.selectStmt(v.SelectStmt, within)
			return false
		case *pg_query.Node_SubLink:
			// A subquery is a context of its own, whatever it is in.
			if err = rc.node(v.SubLink.Subselect, "a subquery"); err == nil {
				err = rc.node(v.SubLink.Testexpr, within)
			}
			return false
		case *pg_query.Node_JoinExpr:
			err = rc.join(v.JoinExpr, within)
			return false
		case *pg_query.Node_RangeSubselect:
			err = rc.nestedWithin(v.RangeSubselect.Subquery, within)
			return false
		case *pg_query.Node_CommonTableExpr:
			err = rc.nestedWithin(v.CommonTableExpr.Ctequery, within)
			return false
		case *pg_query.Node_RangeVar:
			err = rc.reference(v.RangeVar, within)
		}
		return true
	})
	return err
}

// nestedWithin checks a subquery in FROM or a WITH query: within a
// construct that takes no reference at all (the non-recursive term, ...)
// a reference there fails as PostgreSQL's does; elsewhere it is nested.
func (rc *recursionCheck) nestedWithin(n *pg_query.Node, within string) error {
	if within != "" {
		return rc.node(n, within)
	}
	return rc.nested(n)
}

// nested checks a subquery in FROM or a WITH query of the recursive term,
// where a reference counts as one at the top of the term does (the
// subquery runs again in every round, binder.worktableReads). One that
// defines a WITH query of the same name is refused where it reads the
// recursive query: its references are not told apart here.
func (rc *recursionCheck) nested(n *pg_query.Node) error {
	shadows := false
	walk(n, func(m *pg_query.Node) bool {
		shadows = shadows || m.GetCommonTableExpr().GetCtename() == rc.name
		return !shadows
	})
	if !shadows {
		return rc.node(n, "")
	}
	found := false
	withRefs(n, nil, func(name string) { found = found || name == rc.name })
	if found {
		return pgerror.Unsupported("a recursive reference inside a subquery in FROM or a WITH query of the recursive term that defines a WITH query of the same name")
	}
	return nil
}

// join checks a join's sides, the nullable ones of an outer join as
// within one, and its condition.
func (rc *recursionCheck) join(j *pg_query.JoinExpr, within string) error {
	left, right := within, within
	if within == "" {
		switch j.Jointype {
		case pg_query.JoinType_JOIN_LEFT:
			right = "an outer join"
		case pg_query.JoinType_JOIN_RIGHT:
			left = "an outer join"
		case pg_query.JoinType_JOIN_FULL:
			left, right = "an outer join", "an outer join"
		}
	}
	if err := rc.node(j.Larg, left); err != nil {
		return err
	}
	if err := rc.node(j.Rarg, right); err != nil {
		return err
	}
	return rc.node(j.Quals, within)
}

// reference counts rv when it names the query.
func (rc *recursionCheck) reference(rv *pg_query.RangeVar, within string) error {
	if rv.Schemaname != "" || rv.Relname != rc.name {
		return nil
	}
	rc.refs++
	switch {
	case within != "":
		return pgerror.Newf(pgerror.InvalidRecursion, "recursive reference to query \"%s\" must not appear within %s", rc.name, within)
	case rc.refs > 1:
		return pgerror.Newf(pgerror.InvalidRecursion, "recursive reference to query \"%s\" must not appear more than once", rc.name)
	}
	return nil
}
