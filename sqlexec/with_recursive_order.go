package sqlexec

import (
	"maps"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// recursiveWithOrder returns the queries of a WITH RECURSIVE clause in an
// order where each follows the sibling queries it reads, as PostgreSQL's
// dependency sort does: under RECURSIVE a query may read one written after
// it. A query that reads itself must be a SELECT (42P19) of the form base
// UNION [ALL] step (42P19); siblings that read each other are mutual
// recursion, which PostgreSQL does not implement (0A000).
func recursiveWithOrder(w *pg_query.WithClause) ([]*pg_query.CommonTableExpr, error) {
	index := map[string]int{}
	for i, n := range w.Ctes {
		index[n.GetCommonTableExpr().Ctename] = i
	}
	deps := make([][]int, len(w.Ctes))
	for i, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		seen := map[int]bool{}
		withRefs(c.Ctequery, nil, func(name string) {
			if j, ok := index[name]; ok && !seen[j] {
				seen[j] = true
				deps[i] = append(deps[i], j)
			}
		})
		if seen[i] {
			if modifiedTable(c.Ctequery) != nil {
				return nil, pgerror.Newf(pgerror.InvalidRecursion, "recursive query \"%s\" must not contain data-modifying statements", c.Ctename)
			}
			if st := c.Ctequery.GetSelectStmt(); st == nil || st.Op != pg_query.SetOperation_SETOP_UNION {
				return nil, pgerror.Newf(pgerror.InvalidRecursion, "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", c.Ctename)
			}
		}
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(w.Ctes))
	var order []*pg_query.CommonTableExpr
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			return pgerror.New(pgerror.FeatureNotSupported, "mutual recursion between WITH items is not implemented")
		}
		state[i] = visiting
		for _, j := range deps[i] {
			if j != i {
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		state[i] = done
		order = append(order, w.Ctes[i].GetCommonTableExpr())
		return nil
	}
	for i := range w.Ctes {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// readsItself reports whether the WITH query c reads its own name: under
// RECURSIVE only such a query is recursive, as in PostgreSQL; a UNION that
// reads only its siblings runs once, as an ordinary WITH query does.
func readsItself(c *pg_query.CommonTableExpr) bool {
	self := false
	withRefs(c.Ctequery, nil, func(name string) {
		if name == c.Ctename {
			self = true
		}
	})
	return self
}

// withRefs calls ref with the name of each relation n reads without a
// schema, except where a WITH query of n's own of that name hides it (or
// the name is in hidden): a WITH query is seen by the statement's body
// and by the WITH queries after it, or under RECURSIVE by all of them.
func withRefs(n *pg_query.Node, hidden map[string]bool, ref func(string)) {
	walk(n, func(m *pg_query.Node) bool {
		if rv := m.GetRangeVar(); rv != nil && rv.Schemaname == "" && !hidden[rv.Relname] {
			ref(rv.Relname)
		}
		field := withField(m)
		if field == nil || *field == nil {
			return true
		}
		w := *field
		body := maps.Clone(hidden)
		if body == nil {
			body = map[string]bool{}
		}
		for i, cn := range w.Ctes {
			seen := maps.Clone(body)
			for j, other := range w.Ctes {
				if w.Recursive || j < i {
					seen[other.GetCommonTableExpr().Ctename] = true
				}
			}
			withRefs(cn.GetCommonTableExpr().Ctequery, seen, ref)
		}
		for _, cn := range w.Ctes {
			body[cn.GetCommonTableExpr().Ctename] = true
		}
		rest := proto.Clone(m).(*pg_query.Node)
		*withField(rest) = nil
		withRefs(rest, body, ref)
		return false
	})
}

// withField is the WITH clause field of a SELECT, INSERT, UPDATE or
// DELETE node; nil for other nodes.
func withField(n *pg_query.Node) **pg_query.WithClause {
	switch v := n.Node.(type) {
	case *pg_query.Node_SelectStmt:
		return &v.SelectStmt.WithClause
	case *pg_query.Node_InsertStmt:
		return &v.InsertStmt.WithClause
	case *pg_query.Node_UpdateStmt:
		return &v.UpdateStmt.WithClause
	case *pg_query.Node_DeleteStmt:
		return &v.DeleteStmt.WithClause
	}
	return nil
}
