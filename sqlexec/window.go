package sqlexec

import (
	"sort"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// winScope collects the window function calls of a query level. Only the
// default frame is supported: the whole partition without ORDER BY, and
// from the partition's start to the current row's last peer with it.
type winScope struct {
	calls []*winCall
}

type winCall struct {
	name      string
	agg       *types.Aggregate // nil for row_number, rank, dense_rank
	args      []*scalar
	partition []*scalar
	order     []sortKey
	orderBy   []*scalar
}

// frameNonDefault is PostgreSQL's FRAMEOPTION_NONDEFAULT: set when the
// query gives a frame clause.
const frameNonDefault = 1

// containsWindow reports whether the nodes call a window function outside
// subqueries.
func containsWindow(ns ...*pg_query.Node) bool {
	found := false
	for _, n := range ns {
		walk(n, func(c *pg_query.Node) bool {
			if found || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over != nil {
				found = true
			}
			return !found
		})
	}
	return found
}

// windowCall compiles fn(...) OVER (...) in the scope sc of the query's
// rows; the result reads the value computed for the current row.
func (b *binder) windowCall(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	w := fc.Over
	if w.Name != "" || w.Refname != "" {
		return nil, b.errAt(pgerror.Unsupported("named windows"), fc.Location)
	}
	if w.FrameOptions&frameNonDefault != 0 {
		return nil, b.errAt(pgerror.Unsupported("window frame clauses"), fc.Location)
	}
	if fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return nil, b.errAt(pgerror.Unsupported("DISTINCT, FILTER or ORDER BY in a window function"), fc.Location)
	}
	name := strings.ToLower(lastName(fc.Funcname))
	call := &winCall{name: name}
	for _, a := range fc.Args {
		e, err := b.expr(sc, a)
		if err != nil {
			return nil, err
		}
		if unresolved(e) || e.lit != nil || e.null {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		call.args = append(call.args, e)
	}
	var result types.Type
	switch name {
	case "row_number", "rank", "dense_rank":
		if len(call.args) != 0 {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedFunction, "function %s() takes no arguments", name), fc.Location)
		}
		result = types.Int8
	default:
		if !types.IsAggregate(name) {
			return nil, b.errAt(pgerror.Unsupported("window function "+name), fc.Location)
		}
		ts := make([]types.Type, len(call.args))
		for i, a := range call.args {
			ts[i] = a.typ
		}
		agg, err := types.ResolveAggregate(name, ts, fc.AggStar)
		if err != nil {
			return nil, b.withPos(err, fc.Location)
		}
		call.agg, result = agg, agg.Result
	}
	for _, p := range w.PartitionClause {
		e, err := b.expr(sc, p)
		if err != nil {
			return nil, err
		}
		if unresolved(e) || e.lit != nil || e.null {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, err
			}
		}
		call.partition = append(call.partition, e)
	}
	var err error
	if call.orderBy, call.order, err = b.sortClause(sc, w.OrderClause); err != nil {
		return nil, err
	}
	slot := len(sc.win.calls)
	sc.win.calls = append(sc.win.calls, call)
	return &scalar{typ: result, slot: -1, name: name, eval: func(x *execCtx) (any, error) { return x.win[slot], nil }}, nil
}

// compute fills, for every row (the query level's rows before projection),
// the value of every window call.
func (ws *winScope) compute(x *execCtx, rows [][]any) ([][]any, error) {
	vals := make([][]any, len(rows))
	for i := range vals {
		vals[i] = make([]any, len(ws.calls))
	}
	for ci, c := range ws.calls {
		// Partition the rows, keeping their order, then sort each
		// partition by the window's ORDER BY (stable).
		parts := map[string][]int{}
		var order []string
		keys := make([][]any, len(rows))
		for i, r := range rows {
			x.row = r
			var buf []byte
			for _, p := range c.partition {
				v, err := p.eval(x)
				if err != nil {
					return nil, err
				}
				buf = types.AppendKey(buf, p.typ, v)
			}
			k := string(buf)
			if _, ok := parts[k]; !ok {
				order = append(order, k)
			}
			parts[k] = append(parts[k], i)
			ok := make([]any, len(c.orderBy))
			for j, e := range c.orderBy {
				v, err := e.eval(x)
				if err != nil {
					return nil, err
				}
				ok[j] = v
			}
			keys[i] = ok
		}
		for _, k := range order {
			idx := parts[k]
			if len(c.order) > 0 {
				sort.SliceStable(idx, func(a, b int) bool {
					return compareKeys(keys[idx[a]], keys[idx[b]], c.order) < 0
				})
			}
			if err := c.fill(x, rows, idx, keys, vals, ci); err != nil {
				return nil, err
			}
		}
	}
	return vals, nil
}

// fill computes one call's values over one sorted partition.
func (c *winCall) fill(x *execCtx, rows [][]any, idx []int, keys [][]any, vals [][]any, ci int) error {
	peerEnd := func(start int) int {
		end := start + 1
		for end < len(idx) && len(c.order) > 0 && compareKeys(keys[idx[start]], keys[idx[end]], c.order) == 0 {
			end++
		}
		if len(c.order) == 0 {
			return len(idx)
		}
		return end
	}
	var acc types.Accumulator
	if c.agg != nil {
		acc = c.agg.New()
	}
	rank, dense := int64(0), int64(0)
	for start := 0; start < len(idx); {
		end := peerEnd(start)
		dense++
		rank = int64(start) + 1
		if acc != nil {
			for _, i := range idx[start:end] {
				x.row = rows[i]
				args := make([]any, len(c.args))
				for j, a := range c.args {
					v, err := a.eval(x)
					if err != nil {
						return err
					}
					args[j] = v
				}
				if err := acc.Add(args); err != nil {
					return err
				}
			}
		}
		var v any
		if acc != nil {
			r, err := acc.Result()
			if err != nil {
				return err
			}
			v = r
		}
		for k, i := range idx[start:end] {
			switch c.name {
			case "row_number":
				vals[i][ci] = int64(start + k + 1)
			case "rank":
				vals[i][ci] = rank
			case "dense_rank":
				vals[i][ci] = dense
			default:
				vals[i][ci] = v
			}
		}
		start = end
	}
	return nil
}

// sortClause compiles the ORDER BY of a window or an aggregate call: the
// expressions, and the keys that sort rows of their values.
func (b *binder) sortClause(sc *scope, clause []*pg_query.Node) ([]*scalar, []sortKey, error) {
	var exprs []*scalar
	var keys []sortKey
	for i, o := range clause {
		sb := o.GetSortBy()
		if sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
			return nil, nil, b.errAt(pgerror.Unsupported("ORDER BY ... USING"), sb.Location)
		}
		e, err := b.expr(sc, sb.Node)
		if err != nil {
			return nil, nil, err
		}
		if unresolved(e) || e.lit != nil || e.null {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, nil, err
			}
		}
		exprs = append(exprs, e)
		keys = append(keys, sortKeyOf(sb, i, e.typ))
	}
	return exprs, keys, nil
}

func compareKeys(a, b []any, keys []sortKey) int {
	for _, k := range keys {
		x, y := a[k.col], b[k.col]
		var c int
		switch {
		case x == nil && y == nil:
		case x == nil:
			c = 1
			if k.nullsFirst {
				c = -1
			}
		case y == nil:
			c = -1
			if k.nullsFirst {
				c = 1
			}
		default:
			c = types.Compare(k.typ, x, y)
			if k.desc {
				c = -c
			}
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
