package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Aggregate levels, as PostgreSQL's check_agg_arguments (parse_agg.c)
// decides them: an aggregate belongs to the innermost query level whose
// columns or aggregates its arguments, ORDER BY and FILTER hold (a
// subquery's own columns not counted), its own level when they hold none.
// SELECT (SELECT max(o.x)) FROM o aggregates over o's rows, once, and the
// subquery reads the result from o's aggregation row.
//
// fickle decides whether a level aggregates before it compiles its select
// list, from the calls written in it; when a call turns out to belong to
// another level, the level it was wrongly decided for compiles its select
// list again (rebindLevel): a level whose only aggregates are outer ones
// does not aggregate, and one that a subquery's aggregate belongs to does.

// rebindLevel asks the query level whose FROM scope is sc to compile its
// select list again: as an aggregating level when aggregate is set, else
// with its calls' levels (binder.outerAggs) known.
type rebindLevel struct {
	sc        *scope
	aggregate bool
	loc       int32
}

func (r *rebindLevel) Error() string {
	return "a query level is compiled again for an aggregate of another level"
}

// maxRebinds bounds the attempts of one level: each attempt learns at
// least one aggregate's level, and a query needs few.
const maxRebinds = 8

// binderMark is the binder's state where a query level's select list
// begins, which an attempt abandoned for another (rebindLevel) returns to.
type binderMark struct {
	sc                                                                                   *scope
	pending                                                                              uint64
	subplans, perms, locks, constChecks, untypedParams, worktableReads, viewChecks       int
	volatileCalls, pgVolatileCalls, mutableCalls, routineCalls, mutableOpaqueCalls, refs int
}

func (b *binder) mark(sc *scope) binderMark {
	return binderMark{sc: sc, pending: sc.pending, subplans: len(b.subplans), perms: len(b.perms), locks: len(b.locks),
		constChecks: len(b.constChecks), untypedParams: len(b.untypedParams), worktableReads: len(b.worktableReads),
		viewChecks: len(b.viewChecks), volatileCalls: b.volatileCalls, pgVolatileCalls: b.pgVolatileCalls,
		mutableCalls: b.mutableCalls, routineCalls: b.routineCalls, mutableOpaqueCalls: b.mutableOpaqueCalls, refs: len(b.aggRefs)}
}

func (b *binder) restore(m binderMark) {
	m.sc.pending = m.pending
	b.subplans, b.perms, b.locks = b.subplans[:m.subplans], b.perms[:m.perms], b.locks[:m.locks]
	b.constChecks, b.untypedParams = b.constChecks[:m.constChecks], b.untypedParams[:m.untypedParams]
	b.worktableReads, b.viewChecks = b.worktableReads[:m.worktableReads], b.viewChecks[:m.viewChecks]
	b.volatileCalls, b.pgVolatileCalls, b.mutableCalls = m.volatileCalls, m.pgVolatileCalls, m.mutableCalls
	b.routineCalls, b.mutableOpaqueCalls = m.routineCalls, m.mutableOpaqueCalls
	b.aggRefs = b.aggRefs[:m.refs]
}

// containsLocalAgg is containsAgg without the calls known to belong to an
// enclosing level (binder.outerAggs).
func (b *binder) containsLocalAgg(ns ...*pg_query.Node) bool {
	if len(b.outerAggs) == 0 {
		return containsAgg(b.userAggregateNamed, ns...)
	}
	found := false
	for _, n := range ns {
		walk(n, func(c *pg_query.Node) bool {
			if found || c.GetSubLink() != nil {
				return false
			}
			if fc := c.GetFuncCall(); fc != nil && fc.Over == nil && b.isAggregateCall(fc) {
				found = !b.outerAggs[fc]
				return false
			}
			return true
		})
	}
	return found
}

// isAggregateCall reports whether fc, written without OVER, calls an
// aggregate.
func (b *binder) isAggregateCall(fc *pg_query.FuncCall) bool {
	names := strs(fc.Funcname)
	return fc.AggStar || fc.AggWithinGroup || types.IsAggregate(strings.ToLower(names[len(names)-1])) || b.userAggregateNamed(names)
}

// aggRefs collects, while the arguments, ORDER BY and FILTER of an
// aggregate call compile, what PostgreSQL's check_agg_arguments looks for:
// the scopes whose columns they read (vars) and those the aggregates
// nested in them belong to (aggs, with their places). ungrouped is the
// first reference to an ungrouped column of an enclosing grouped level,
// an error only if the aggregate does not belong to that level.
type aggRefs struct {
	vars      []*scope
	varLocs   []int32
	aggs      []*scope
	aggLocs   []int32
	ungrouped error
}

// noteColumnLevel records, for the aggregate calls being compiled, a
// column read (at loc) at the level of scope cur.
func (b *binder) noteColumnLevel(cur *scope, loc int32) {
	for _, r := range b.aggRefs {
		r.vars = append(r.vars, cur)
		r.varLocs = append(r.varLocs, loc)
	}
}

// noteAggLevel records, for the aggregate calls being compiled, an
// aggregate (at loc) that belongs to the level of scope cur.
func (b *binder) noteAggLevel(cur *scope, loc int32) {
	for _, r := range b.aggRefs {
		r.aggs = append(r.aggs, cur)
		r.aggLocs = append(r.aggLocs, loc)
	}
}

// deferUngrouped keeps err, an ungrouped outer column's error, for the
// innermost aggregate call being compiled; false outside one.
func (b *binder) deferUngrouped(err error) bool {
	if len(b.aggRefs) == 0 {
		return false
	}
	if r := b.aggRefs[len(b.aggRefs)-1]; r.ungrouped == nil {
		r.ungrouped = err
	}
	return true
}

// notingAggRefs runs compile, collecting the levels it reads.
func (b *binder) notingAggRefs(compile func() error) (*aggRefs, error) {
	r := &aggRefs{}
	b.aggRefs = append(b.aggRefs, r)
	err := compile()
	b.aggRefs = b.aggRefs[:len(b.aggRefs)-1]
	return r, err
}

// scopeDepth is how many query levels above sc the scope t is, -1 when it
// is none of sc's levels (a subquery's own).
func scopeDepth(sc, t *scope) int {
	for d, cur := 0, sc; cur != nil; d, cur = d+1, cur.parent {
		if cur == t {
			return d
		}
	}
	return -1
}

// level is the level, counted outwards from sc where the call is written,
// that the aggregate belongs to; nested is the place of an aggregate of
// that same level among its inputs (PostgreSQL's "aggregate function
// calls cannot be nested"), -1 for none.
func (r *aggRefs) level(sc *scope) (level int, nested int32) {
	minVar, _ := minLevel(sc, r.vars, r.varLocs)
	minAgg, aggLoc := minLevel(sc, r.aggs, r.aggLocs)
	switch {
	case minVar < 0 && minAgg < 0:
		return 0, -1
	case minVar < 0:
		level = minAgg
	case minAgg < 0:
		level = minVar
	default:
		level = min(minVar, minAgg)
	}
	if level == minAgg {
		return level, aggLoc
	}
	return level, -1
}

// levelScope is the scope depth levels above sc.
func levelScope(sc *scope, depth int) *scope {
	for ; depth > 0 && sc != nil; depth-- {
		sc = sc.parent
	}
	return sc
}

// errNestedAggregate is PostgreSQL's error for an aggregate among the
// inputs of another of its level.
func (b *binder) errNestedAggregate(loc int32) error {
	return b.errAt(pgerror.New(pgerror.GroupingError, "aggregate function calls cannot be nested"), loc)
}

// aggClause names the clause the expressions of scope t are in where
// aggregates of its level are not allowed, "" where they are.
func aggClause(t *scope) string {
	switch {
	case t.noAgg != "":
		return t.noAgg
	case t.noAggWin != "":
		return t.noAggWin
	}
	return t.aggLevelClause
}

// outerAggregate compiles the aggregate call fc, written in scope sc and
// belonging to the level depth levels above (depth > 0): an aggregate of
// that level, which the subquery reads from the level's aggregation row.
// A level that does not aggregate yet is compiled again as one
// (rebindLevel); a clause of that level that takes no aggregates fails as
// in PostgreSQL.
func (b *binder) outerAggregate(sc *scope, n *pg_query.Node, fc *pg_query.FuncCall, depth int) (*scalar, error) {
	t := levelScope(sc, depth)
	switch {
	case t == nil:
		return nil, b.errAt(errOuterAggregate, fc.Location)
	case t.agg != nil:
	case t.noAgg == "aggregate function calls":
		return nil, b.errNestedAggregate(fc.Location)
	case aggClause(t) != "":
		return nil, b.errAt(pgerror.Newf(pgerror.GroupingError, "aggregate functions are not allowed in %s", aggClause(t)), fc.Location)
	case t.mayAggregate:
		return nil, &rebindLevel{sc: t, aggregate: true, loc: fc.Location}
	case t.deparsed:
		// ruleutils compiles a subquery of the query it prints for its
		// type alone.
		t = &scope{cols: t.cols, parent: t.parent, ctes: t.ctes, agg: &aggScope{from: t}}
	default:
		return nil, b.errAt(errOuterAggregate, fc.Location)
	}
	e, ok, err := b.aggLookup(t, n)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, b.errAt(errOuterAggregate, fc.Location)
	}
	b.noteAggLevel(t, fc.Location)
	// The subquery reads the level's current row: correlated.
	t.pending |= itemBit(63)
	inner := e.eval
	return &scalar{typ: e.typ, slot: -1, name: e.name, coll: e.coll, eval: func(x *execCtx) (any, error) {
		ox := *x
		ox.row, ox.outer = x.outer[len(x.outer)-depth], x.outer[:len(x.outer)-depth]
		return inner(&ox)
	}}, nil
}

// aside runs compile without noting its references for the aggregate
// calls being compiled, and with its ungrouped columns errors: a compile
// that only peeks at names (groupKey) or plans (compileAside) reads
// nothing for them.
func (b *binder) aside(compile func()) {
	saved := b.aggRefs
	b.aggRefs = nil
	b.peeking++
	compile()
	b.peeking--
	b.aggRefs = saved
}

// minLevel is the innermost level, counted outwards from sc, among
// scopes, and the place of its first reference; -1 for none.
func minLevel(sc *scope, scopes []*scope, locs []int32) (int, int32) {
	level, loc := -1, int32(-1)
	for i, v := range scopes {
		if d := scopeDepth(sc, v); d >= 0 && (level < 0 || d < level) {
			level, loc = d, locs[i]
		}
	}
	return level, loc
}

// aggLevelOf compiles the inputs of the aggregate call fc, written in
// scope sc, to find the level it belongs to (PostgreSQL's
// check_agg_arguments), failing as PostgreSQL does for an aggregate
// nested in one of its level, and for a direct argument of an
// ordered-set aggregate that reads a level inside the aggregate's.
// What it compiles is dropped.
func (b *binder) aggLevelOf(sc *scope, fc *pg_query.FuncCall) (int, error) {
	saved, savedArgs := sc.noAgg, sc.aggArgsClause
	sc.noAgg, sc.aggArgsClause = "aggregate function calls", saved
	subplans, checks := len(b.subplans), len(b.constChecks)
	defer func() {
		sc.noAgg, sc.aggArgsClause = saved, savedArgs
		b.subplans, b.constChecks = b.subplans[:subplans], b.constChecks[:checks]
	}()
	aggregated := fc.Args
	if fc.AggWithinGroup {
		aggregated = nil
	}
	refs, err := b.notingAggRefs(func() error {
		for _, a := range aggregated {
			if _, err := b.expr(sc, a); err != nil {
				return err
			}
		}
		for _, o := range fc.AggOrder {
			if _, err := b.expr(sc, o.GetSortBy().Node); err != nil {
				return err
			}
		}
		if fc.AggFilter != nil {
			if _, err := b.filterClause(sc, fc.AggFilter); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	level, nested := refs.level(sc)
	if nested >= 0 {
		return 0, b.errNestedAggregate(nested)
	}
	if fc.AggWithinGroup && len(fc.Args) > 0 {
		direct, err := b.notingAggRefs(func() error {
			for _, a := range fc.Args {
				if _, err := b.expr(sc, a); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		if l, loc := minLevel(sc, direct.vars, direct.varLocs); l >= 0 && l < level {
			return 0, b.errAt(pgerror.New(pgerror.GroupingError, "outer-level aggregate cannot contain a lower-level variable in its direct arguments"), loc)
		}
		if l, loc := minLevel(sc, direct.aggs, direct.aggLocs); l >= 0 && l <= level {
			return 0, b.errNestedAggregate(loc)
		}
	}
	if level == 0 && refs.ungrouped != nil {
		return 0, refs.ungrouped
	}
	return level, nil
}

// aggregateOutsideGrouping compiles the aggregate call fc met in scope sc,
// which does not aggregate: an aggregate of an enclosing level, one that
// makes sc's level aggregate (in a clause where it may: the select list,
// ORDER BY, WINDOW), or PostgreSQL's error for the clause it is in.
func (b *binder) aggregateOutsideGrouping(sc *scope, fc *pg_query.FuncCall) (*scalar, error) {
	level, err := b.aggLevelOf(sc, fc)
	if err != nil {
		return nil, err
	}
	if level > 0 {
		return b.outerAggregate(sc, &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: fc}}, fc, level)
	}
	clause := aggClause(sc)
	switch {
	case clause == "aggregate function calls":
		return nil, b.errNestedAggregate(fc.Location)
	case clause == "" && sc.mayAggregate:
		return nil, &rebindLevel{sc: sc, aggregate: true, loc: fc.Location}
	case clause == "":
		clause = "this context"
	}
	return nil, b.errAt(pgerror.Newf(pgerror.GroupingError, "aggregate functions are not allowed in %s", clause), fc.Location)
}

// aggregateOfLevel compiles the aggregate call n (fc), met above the
// grouping of agg's level, that belongs to the level depth levels above
// (depth > 0). A level that aggregates only because of calls like it does
// not aggregate: it is compiled again without (rebindLevel).
func (b *binder) aggregateOfLevel(agg *aggScope, n *pg_query.Node, fc *pg_query.FuncCall, depth int) (*scalar, error) {
	known := b.outerAggs[fc]
	if b.outerAggs == nil {
		b.outerAggs = map[*pg_query.FuncCall]bool{}
	}
	b.outerAggs[fc] = true
	if !agg.fixed && !known {
		return nil, &rebindLevel{sc: agg.from, loc: fc.Location}
	}
	return b.outerAggregate(agg.from, n, fc, depth)
}

// filterClause compiles an aggregate's FILTER condition in sc, the scope
// of its inputs, where aggregates, window and set-returning calls are
// PostgreSQL's errors "... are not allowed in FILTER".
func (b *binder) filterClause(sc *scope, n *pg_query.Node) (*scalar, error) {
	saved := sc.noAgg
	sc.noAgg = "FILTER"
	defer func() { sc.noAgg = saved }()
	return b.cond(sc, n, "FILTER")
}

// windowInAggregateError is PostgreSQL's error for a window call among an
// aggregate's inputs (sc.noAgg "aggregate function calls"): the clause's
// own when the clause takes no window calls, else the aggregate's.
func (b *binder) windowInAggregateError(sc *scope, loc int32) error {
	if clause := sc.aggArgsClause; clause != "" {
		return b.errAt(pgerror.Newf(pgerror.WindowingError, "window functions are not allowed in %s", clause), loc)
	}
	if sc.noAggWin != "" {
		return b.errAt(pgerror.Newf(pgerror.WindowingError, "window functions are not allowed in %s", sc.noAggWin), loc)
	}
	return b.errAt(pgerror.New(pgerror.GroupingError, "aggregate function calls cannot contain window function calls"), loc)
}

// notationAggregate is the aggregate call rel.agg stands for, agg(rel.*),
// when the column reference cr names no column but a FROM item in scope
// and an aggregate (PostgreSQL's column notation: t.count is count(t));
// nil otherwise. The call is made once per reference, so that its level
// is known to every attempt (outerAggs).
func (b *binder) notationAggregate(sc *scope, cr *pg_query.ColumnRef) *pg_query.Node {
	if len(cr.Fields) != 2 || cr.Fields[0].GetString_() == nil || cr.Fields[1].GetString_() == nil {
		return nil
	}
	if call := b.notationCalls[cr]; call != nil {
		return call
	}
	fields := strs(cr.Fields)
	if !types.IsAggregate(strings.ToLower(fields[1])) && !b.userAggregateNamed(fields[1:]) || !b.relVisible(sc, fields[0]) {
		return nil
	}
	var err error
	b.aside(func() { _, err = b.resolveCol(sc, fields, cr.Location) })
	if err == nil {
		return nil
	}
	if _, ok := b.routineVar(fields, cr.Location); ok {
		return nil
	}
	if name := strings.ToLower(fields[1]); types.IsAggregate(name) {
		// A built-in aggregate that takes no row is no column notation:
		// the column is missing (t.max).
		var whole *scalar
		b.aside(func() { whole, _ = b.wholeRowRef(sc, fields[0]) })
		if whole == nil {
			return nil
		}
		if _, err := types.ResolveAggregate(name, []types.Type{whole.typ}, false); err != nil {
			return nil
		}
	}
	row := pg_query.MakeColumnRefNode([]*pg_query.Node{pg_query.MakeStrNode(fields[0]), pg_query.MakeAStarNode()}, cr.Location)
	call := &pg_query.Node{Node: &pg_query.Node_FuncCall{FuncCall: &pg_query.FuncCall{Funcname: []*pg_query.Node{pg_query.MakeStrNode(fields[1])},
		Args: []*pg_query.Node{row}, Funcformat: pg_query.CoercionForm_COERCE_EXPLICIT_CALL, Location: cr.Location}}}
	if b.notationCalls == nil {
		b.notationCalls = map[*pg_query.ColumnRef]*pg_query.Node{}
	}
	b.notationCalls[cr] = call
	return call
}

// deferUngroupedOf keeps err, a reference to an ungrouped column of agg's
// level, when the level may turn out not to aggregate (its aggregates all
// an outer level's); false when err is an error now.
func (b *binder) deferUngroupedOf(agg *aggScope, err error) bool {
	if agg.fixed || b.peeking > 0 {
		return false
	}
	if agg.ungrouped == nil {
		agg.ungrouped = err
	}
	return true
}
