package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// walk calls fn for every Node under n, n included, in depth-first order;
// fn returns false to skip a node's children.
func walk(n *pg_query.Node, fn func(*pg_query.Node) bool) {
	if n == nil {
		return
	}
	if !fn(n) {
		return
	}
	walkMsg(n.ProtoReflect(), fn)
}

func walkMsg(m protoreflect.Message, fn func(*pg_query.Node) bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		visit := func(sub protoreflect.Message) {
			if node, ok := sub.Interface().(*pg_query.Node); ok {
				walk(node, fn)
			} else {
				walkMsg(sub, fn)
			}
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visit(l.Get(i).Message())
			}
		} else {
			visit(v.Message())
		}
		return true
	})
}

// nodeKey returns a key of n that ignores source locations, so that the
// same expression written twice (in GROUP BY and in the select list) has
// the same key.
// shallowCopy returns a copy of m that shares its fields' values (messages
// and lists), for changing a field of a parse tree node without touching
// the tree, which the parse cache shares between sessions.
func shallowCopy(m proto.Message) proto.Message {
	src := m.ProtoReflect()
	dst := src.New()
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		dst.Set(fd, v)
		return true
	})
	return dst.Interface()
}

func nodeKey(n *pg_query.Node) string {
	c := proto.Clone(n)
	clearLocations(c.ProtoReflect())
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	return string(b)
}

func clearLocations(m protoreflect.Message) {
	var clear []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Name() == "location" || fd.Name() == "stmt_location" || fd.Name() == "arg_location":
			clear = append(clear, fd)
		case fd.Kind() == protoreflect.MessageKind && fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				clearLocations(l.Get(i).Message())
			}
		case fd.Kind() == protoreflect.MessageKind && !fd.IsMap():
			clearLocations(v.Message())
		}
		return true
	})
	for _, fd := range clear {
		m.Clear(fd)
	}
}

// containsAgg reports whether n calls an aggregate outside any subquery:
// a built-in one, or one userAgg says names a user aggregate.
func containsAgg(userAgg func(names []string) bool, ns ...*pg_query.Node) bool {
	found := false
	for _, n := range ns {
		walk(n, func(c *pg_query.Node) bool {
			if found || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over == nil {
				names := strs(fc.Funcname)
				if fc.AggStar || fc.AggWithinGroup || types.IsAggregate(strings.ToLower(names[len(names)-1])) || userAgg(names) {
					found = true
					return false
				}
			}
			return true
		})
	}
	return found
}

// firstColumnRef returns the place of the first column reference in n,
// in the order PostgreSQL's analysis meets them.
func firstColumnRef(n *pg_query.Node) (loc int32, ok bool) {
	walk(n, func(c *pg_query.Node) bool {
		if cr := c.GetColumnRef(); cr != nil && !ok {
			loc, ok = cr.Location, true
		}
		return !ok
	})
	return loc, ok
}

// containsSubLink reports whether n holds a subquery.
func containsSubLink(n *pg_query.Node) bool {
	if plainExpr(n) {
		return false
	}
	found := false
	walk(n, func(c *pg_query.Node) bool {
		if c.GetSubLink() != nil {
			found = true
		}
		return !found
	})
	return found
}

// volatileSubLink reports whether n holds a subquery expression that calls
// a volatile function, or one b did not compile, whose volatility it then
// does not know.
func (b *binder) volatileSubLink(n *pg_query.Node) bool {
	if plainExpr(n) {
		return false
	}
	found := false
	walk(n, func(c *pg_query.Node) bool {
		if sl := c.GetSubLink(); sl != nil {
			found = found || !b.stableSubLinks[sl]
			return false
		}
		return !found
	})
	return found
}

// plainExpr reports whether n is built of constants, column references,
// parameters and operators alone (so holds no subquery), without the
// reflective walk that cost a 100,000-item IN list a quarter of a second.
func plainExpr(n *pg_query.Node) bool {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_AConst, *pg_query.Node_ColumnRef, *pg_query.Node_ParamRef:
		return true
	case *pg_query.Node_AExpr:
		return (v.AExpr.Lexpr == nil || plainExpr(v.AExpr.Lexpr)) && (v.AExpr.Rexpr == nil || plainExpr(v.AExpr.Rexpr))
	case *pg_query.Node_List:
		for _, it := range v.List.Items {
			if !plainExpr(it) {
				return false
			}
		}
		return true
	}
	return false
}

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(n *pg_query.Node) []*pg_query.Node {
	if n == nil {
		return nil
	}
	if be := n.GetBoolExpr(); be != nil && be.Boolop == pg_query.BoolExprType_AND_EXPR {
		var out []*pg_query.Node
		for _, a := range be.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []*pg_query.Node{n}
}

// deparseExpr returns the SQL text of an expression.
func deparseExpr(n *pg_query.Node) string {
	tree := &pg_query.ParseResult{Version: parseTreeVersion, Stmts: []*pg_query.RawStmt{{Stmt: &pg_query.Node{Node: &pg_query.Node_SelectStmt{
		SelectStmt: &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(n, 0)},
			Op: pg_query.SetOperation_SETOP_NONE, LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT}}}}}}
	s, err := pg_query.Deparse(tree)
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(s, "SELECT ")
}

// parseTreeVersion is the protobuf tree version Deparse requires, read off
// a parse.
var parseTreeVersion = func() int32 {
	r, err := pg_query.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return r.Version
}()
