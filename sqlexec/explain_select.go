package sqlexec

import (
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// levelShape is what the planner decided for one query level, as the plan
// of EXPLAIN records it.
type levelShape struct {
	items  []*fromItem
	pre    []*conj
	agg    *aggScope
	having *pg_query.Node
	window bool
	srf    bool
	// groupSRF and lateSRF place the ProjectSet of set-returning calls
	// below the grouping (GROUP BY calls them) and above the sort (they
	// are expanded after it).
	groupSRF, lateSRF bool
	keys              []sortKey
	// onKeys are the keys DISTINCT ON sorts by.
	onKeys     []sortKey
	distinct   bool
	distinctOn bool
	limited    bool
	locking    bool
	cols       []outCol
}

// levelNodes are the nodes of a query level above its FROM items, which
// its run counts under EXPLAIN ANALYZE: result is the Result node that
// checks conditions of no item (nil without one), mid the window or
// set-returning stage, onSort and unique DISTINCT ON's stages.
type levelNodes struct {
	top, result, agg, mid, onSort, unique, lock, distinct, sort, limit *planNode
}

// levelPlan builds the plan nodes of a query level, bottom up in the order
// its run applies them.
func (b *binder) levelPlan(sh levelShape) levelNodes {
	var ln levelNodes
	width := widthOf(colTypes(sh.cols))
	n := fromTree(sh.items, sh.pre)
	if _, ok := n.op.(*resultOp); ok {
		ln.result = n
	}
	if len(sh.items) == 0 {
		n.width = width
	}
	switch {
	case sh.agg != nil:
		if sh.groupSRF {
			n = newNode(projectSetOp{}, n.rows*10, width, 0.01*n.rows, n)
		}
		op := &aggOp{}
		for _, g := range sh.agg.groups {
			op.keys = append(op.keys, g.text)
		}
		if sh.having != nil {
			op.having = exprText(sh.having)
		}
		rows := 1.0
		if len(op.keys) > 0 {
			rows = min(n.rows, 200)
		}
		n = newNode(op, filtered(rows, btoi(sh.having != nil)), width, 0.025*n.rows, n)
		ln.agg = n
	case sh.window:
		n = newNode(windowOp{}, n.rows, width, 0.01*n.rows, n)
		ln.mid = n
	}
	if sh.srf && !sh.lateSRF {
		n = newNode(projectSetOp{}, n.rows*10, width, 0.01*n.rows, n)
		ln.mid = n
	}
	if sh.distinctOn {
		n = newNode(&sortOp{keys: sortKeyTexts(sh.onKeys)}, n.rows, width, sortCost(n.rows), n)
		n.startup = n.cost
		ln.onSort = n
		n = newNode(uniqueOp{}, n.rows/2, width, 0, n)
		ln.unique = n
	}
	if sh.locking {
		n = newNode(lockRowsOp{}, n.rows, width, 0.01*n.rows, n)
		ln.lock = n
	}
	if sh.distinct {
		op := &aggOp{keys: outColNames(sh.cols)}
		n = newNode(op, min(n.rows, 200), width, 0.0125*n.rows, n)
		ln.distinct = n
	}
	if len(sh.keys) > 0 && !sh.distinctOn {
		n = newNode(&sortOp{keys: sortKeyTexts(sh.keys)}, n.rows, width, sortCost(n.rows), n)
		n.startup = n.cost
		ln.sort = n
	}
	if sh.lateSRF {
		n = newNode(projectSetOp{}, n.rows*10, width, 0.01*n.rows, n)
		ln.mid = n
	}
	if sh.limited {
		n = newNode(limitOp{}, n.rows, width, 0, n)
		ln.limit = n
	}
	ln.top = n
	return ln
}

// loops records one run of each of the level's nodes, begun at start.
func (ln *levelNodes) loops(ps planStats, start time.Time) {
	d := time.Since(start)
	for _, n := range []*planNode{ln.result, ln.agg, ln.mid, ln.onSort, ln.unique, ln.lock, ln.distinct, ln.sort, ln.limit} {
		ps.loop(n, 0, d)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortCost(rows float64) float64 {
	c := 0.0
	for r := rows; r > 1; r /= 2 {
		c += 2 * 0.0025 * rows
	}
	return c
}

func sortKeyTexts(keys []sortKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.text
		if k.desc {
			out[i] += " DESC"
			if !k.nullsFirst {
				out[i] += " NULLS LAST"
			}
		} else if k.nullsFirst {
			out[i] += " NULLS FIRST"
		}
	}
	return out
}

// fromTree builds the join of a level's FROM items as runItems performs
// it: a left-deep tree, each item joined to the ones before it by a nested
// loop or, for an item read once with a usable equality, a hash join.
// Conditions that name no item are checked once by a Result node.
func fromTree(items []*fromItem, pre []*conj) *planNode {
	if len(items) == 0 {
		return newNode(&resultOp{oneTime: pre}, 1, 0, 0)
	}
	var n *planNode
	for i, it := range items {
		scan, joinConds, hashCond := itemScan(it, i)
		if i == 0 {
			n = scan
			it.plan = itemNodes{scan: scan}
			continue
		}
		op := &joinOp{left: it.left, filter: it.post}
		inner := scan
		rows := n.rows * scan.rows
		if hashCond != nil {
			op.hash, op.hashCond = true, []*conj{hashCond}
			inner = newNode(hashOp{}, scan.rows, scan.width, 0, scan)
			inner.startup = inner.cost
			rows = max(n.rows, scan.rows)
		}
		op.joinFilter = joinConds
		rows = filtered(rows, len(joinConds)+len(it.post))
		if it.left {
			rows = max(rows, n.rows)
		}
		n = newNode(op, rows, n.width+scan.width, 0, n, inner)
		it.plan = itemNodes{scan: scan, join: n}
		if inner != scan {
			it.plan.hash = inner
		}
	}
	if len(pre) > 0 {
		n = newNode(&resultOp{oneTime: pre}, n.rows, n.width, 0, n)
	}
	return n
}

// itemNodes are the nodes of a FROM item, for EXPLAIN ANALYZE's counts:
// its scan and the join that adds it to the items before it (nil for the
// first item, whose scan counts the rows that pass its conditions).
type itemNodes struct {
	scan, join, hash *planNode
}

// itemScan builds the scan node of item i, splitting its conditions into
// those the scan checks and those that join it to earlier items; hashCond
// is the equality a hash join answers, nil for a nested loop.
func itemScan(it *fromItem, i int) (scan *planNode, joinConds []*conj, hashCond *conj) {
	earlier := itemBit(i) - 1
	if i >= 63 {
		earlier = ^uint64(0)
	}
	op := &scanOp{it: it, source: it.source}
	conds := it.on
	if it.cached {
		conds = it.local
		for _, c := range it.join {
			if it.hashVal != nil && c.eqVal == it.hashVal && hashCond == nil {
				hashCond = c
				continue
			}
			joinConds = append(joinConds, c)
		}
	}
	for _, c := range conds {
		switch {
		case isKeyCond(it, c):
			op.keyConds = append(op.keyConds, c)
		case c.e.refs&earlier != 0 && !it.cached:
			joinConds = append(joinConds, c)
		default:
			op.filter = append(op.filter, c)
		}
	}
	var children []*planNode
	if it.subPlan != nil {
		children = append(children, it.subPlan)
	}
	var ts []types.Type
	rows := float64(seqRows)
	cost := 10.0
	switch {
	case it.table != nil:
		for _, c := range it.table.cols {
			ts = append(ts, c.typ)
		}
		rows = accessRows(it.access, it.table)
		if it.access.kind != accessScan {
			cost = 4 * rows
		}
	case it.subPlan != nil:
		rows, cost = it.subPlan.rows, 0
		ts = nil
	}
	w := widthOf(ts)
	if it.subPlan != nil {
		w = it.subPlan.width
	}
	scan = newNode(op, filtered(rows, len(op.filter)), w, cost, children...)
	return scan, joinConds, hashCond
}

// isKeyCond reports whether c is one of the conditions item it's access
// path looks up.
func isKeyCond(it *fromItem, c *conj) bool {
	a := it.access
	if it.table == nil || a.kind == accessScan {
		return false
	}
	for _, v := range a.keyVals {
		if c.eqVal == v || c.anyArr == v || len(c.inVals) > 0 && len(a.keyVals) == len(c.inVals) && c.inVals[0] == a.keyVals[0] {
			return true
		}
	}
	return false
}

func accessRows(a access, t *tableDesc) float64 {
	switch a.kind {
	case accessPK:
		return 1
	case accessIndex:
		if a.index.unique {
			return 1
		}
		return 10
	case accessPKList, accessIndexList:
		if a.keyArray {
			return 10
		}
		return float64(len(a.keyVals))
	}
	return seqRows
}

// planStats are the counts EXPLAIN ANALYZE collects per node; the
// executor fills them only when execCtx.stats is set.
type planStats map[*planNode]*nodeStats

// nodeStats are a node's actual rows, loops and time (the time to its
// first row and to its last, summed over loops).
type nodeStats struct {
	rows, loops  int64
	first, total time.Duration
}

func (ps planStats) of(n *planNode) *nodeStats {
	s := ps[n]
	if s == nil {
		s = &nodeStats{}
		ps[n] = s
	}
	return s
}

// loop counts a run of n that took d and produced rows rows.
func (ps planStats) loop(n *planNode, rows int, d time.Duration) {
	if ps == nil || n == nil {
		return
	}
	s := ps.of(n)
	s.loops++
	s.rows += int64(rows)
	s.total += d
	if s.first == 0 {
		s.first = d
	}
}

// addRows counts rows of n without a loop of their own.
func (ps planStats) addRows(n *planNode, rows int) {
	if ps == nil || n == nil {
		return
	}
	ps.of(n).rows += int64(rows)
}

// joined is the node that counts the rows this item joins: its join, or
// its scan when it is the level's first item.
func (in itemNodes) joined() *planNode {
	if in.join != nil {
		return in.join
	}
	return in.scan
}

// countJoins records a run of the joins of a level's items, begun at
// start (their rows count as they pass, through joined).
func countJoins(x *execCtx, items []*fromItem, start time.Time) {
	d := time.Since(start)
	for _, it := range items {
		x.stats.loop(it.plan.join, 0, d)
	}
}

// count records one pass of runItems over the item, begun at start: a
// loop of its scan with the rows it read (those of the first item count
// as they pass its conditions, through joined). An item read once per
// execution counts when it is read (countCached).
func (in itemNodes) count(x *execCtx, start time.Time, cached bool, rows *[][]any) {
	switch {
	case cached:
	case in.join != nil:
		x.stats.loop(in.scan, len(*rows), time.Since(start))
	default:
		x.stats.loop(in.scan, 0, time.Since(start))
	}
}

// countCached records the one read of an item read once per execution:
// its scan and its hash table.
func (in itemNodes) countCached(x *execCtx, rows int, d time.Duration) {
	x.stats.loop(in.scan, rows, d)
	x.stats.loop(in.hash, rows, d)
}

// setOpNodes are the nodes of a set operation: the Append of its
// branches, and above it the node that removes duplicates or computes
// INTERSECT or EXCEPT (top is the Append itself for UNION ALL).
type setOpNodes struct {
	top, appended *planNode
}

func setOpPlan(op pg_query.SetOperation, all bool, l, r *planNode, cols []outCol) setOpNodes {
	width := widthOf(colTypes(cols))
	app := newNode(appendOp{}, l.rows+r.rows, width, 0, l, r)
	sn := setOpNodes{top: app, appended: app}
	switch {
	case op == pg_query.SetOperation_SETOP_UNION && !all:
		sn.top = newNode(&aggOp{keys: outColNames(cols)}, min(app.rows, 200), width, 0.0125*app.rows, app)
	case op == pg_query.SetOperation_SETOP_INTERSECT:
		sn.top = newNode(&setOpOp{command: "Intersect", all: all}, min(l.rows, r.rows), width, 0.0125*app.rows, app)
	case op == pg_query.SetOperation_SETOP_EXCEPT:
		sn.top = newNode(&setOpOp{command: "Except", all: all}, l.rows, width, 0.0125*app.rows, app)
	}
	return sn
}

func outColNames(cols []outCol) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = types.QuoteIdent(c.Name)
	}
	return out
}

func (sn setOpNodes) loops(ps planStats, start time.Time) {
	d := time.Since(start)
	ps.loop(sn.appended, 0, d)
	if sn.top != sn.appended {
		ps.loop(sn.top, 0, d)
	}
}

// inputs counts the rows the branches gave, outputs those the operation
// kept.
func (sn setOpNodes) inputs(ps planStats, n int) { ps.addRows(sn.appended, n) }

func (sn setOpNodes) outputs(ps planStats, n int) {
	if sn.top != sn.appended {
		ps.addRows(sn.top, n)
	}
}
