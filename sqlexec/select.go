package sqlexec

import (
	"errors"
	"math"
	"slices"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// selectPlan is a compiled query: it produces rows of its output columns.
type selectPlan struct {
	cols []outCol
	run  func(x *execCtx) ([][]any, error)
	// stream, set on a plan that need not hold its rows, passes them to
	// send one at a time instead (results sent to a client as made).
	stream func(x *execCtx, send func(row []any) error) error
	// correlated plans read rows of enclosing query levels and cannot be
	// cached for the statement.
	correlated bool
	// node is the plan EXPLAIN shows.
	node *planNode
	// prunable marks the output columns the plan may leave uncomputed when
	// nobody reads them (prunableOutputs), and skip those it leaves
	// uncomputed, as NULL (skipUnread).
	prunable []bool
	skip     []bool
	// deferErrs marks the outputs whose errors the plan leaves in the row as
	// a failedOutput, for the reading level to raise once the row has
	// passed its conditions (deferErrors).
	deferErrs []bool
	// lazy, set on a plan whose rows a reader may take as they are made
	// (WITH RECURSIVE), starts a computation of them; run computes them
	// all.
	lazy func() *lazyRows
}

// lazyRows is a query's rows computed as far as its readers have needed
// them: a recursive WITH query produces them round by round, and a reader
// that stops early (a LIMIT above it) leaves the rest uncomputed, as
// PostgreSQL's CTE scan does, so that a recursion without end under a
// LIMIT answers.
type lazyRows struct {
	rows [][]any
	done bool
	// next appends the next rows to rows, or sets done.
	next func(x *execCtx, r *lazyRows) error
}

// all computes every row.
func (r *lazyRows) all(x *execCtx) ([][]any, error) {
	for !r.done {
		if err := r.next(x, r); err != nil {
			return nil, err
		}
	}
	return r.rows, nil
}

// each passes the rows to yield in order, computing each when yield has
// taken the ones before it; yield's error stops it.
func (r *lazyRows) each(x *execCtx, yield func(row []any) error) error {
	for i := 0; ; i++ {
		for i >= len(r.rows) && !r.done {
			if err := r.next(x, r); err != nil {
				return err
			}
		}
		if i >= len(r.rows) {
			return nil
		}
		if err := yield(r.rows[i]); err != nil {
			return err
		}
	}
}

// lazyCached returns the statement's computation of a lazy plan's rows,
// shared by every reader, or a fresh one for a correlated plan.
func (p *selectPlan) lazyCached(x *execCtx) *lazyRows {
	if p.correlated {
		return p.lazy()
	}
	if x.caches == nil {
		x.caches = &stmtCaches{}
	}
	if r, ok := x.caches.lazy[p]; ok {
		return r
	}
	r := p.lazy()
	if x.caches.lazy == nil {
		x.caches.lazy = map[*selectPlan]*lazyRows{}
	}
	x.caches.lazy[p] = r
	return r
}

// skipUnread makes p leave uncomputed its prunable outputs that reads
// does not mark.
func (p *selectPlan) skipUnread(reads []bool) {
	var skip []bool
	for i, r := range reads {
		if !r && i < len(p.prunable) && p.prunable[i] {
			if skip == nil {
				skip = make([]bool, len(reads))
			}
			skip[i] = true
		}
	}
	p.skip = skip
}

// outCol describes an output column.
type outCol struct {
	Name     string
	typ      types.Type
	tableOID uint32
	attnum   int16
	// coll is the collation derived for the column (collation.go).
	coll collState
	// param is the number of the parameter a set operation's branch
	// outputs here untyped, for the set operation to type by the other
	// branches (setOp); 0 for any other column. paramOcc is that
	// occurrence of it, which the set operation types.
	param    int
	paramOcc *scalar
	// domain is the OID of the domain the column's values are of (typ is
	// its base type), 0 for none: a view's or CREATE TABLE AS's column
	// made from it is of the domain, as in PostgreSQL.
	domain uint32
}

// rowsCached runs p once per statement execution unless it is correlated.
func (p *selectPlan) rowsCached(x *execCtx) ([][]any, error) {
	if p.lazy != nil {
		return p.lazyCached(x).all(x)
	}
	if p.correlated {
		return p.run(x)
	}
	if x.caches == nil {
		x.caches = &stmtCaches{}
	}
	if rows, ok := x.caches.subqueries[p]; ok {
		return rows, nil
	}
	rows, err := p.run(x)
	if err != nil {
		return nil, err
	}
	if x.caches.subqueries == nil {
		x.caches.subqueries = map[*selectPlan][][]any{}
	}
	x.caches.subqueries[p] = rows
	return rows, nil
}

var errLimitReached = errors.New("limit reached")

func (b *binder) selectNode(parent *scope, n *pg_query.Node, ctes map[string]*ctePlan) (*selectPlan, error) {
	st := n.GetSelectStmt()
	if st == nil {
		return nil, pgerror.Unsupported("this kind of subquery (" + nodeKind(n) + ")")
	}
	return b.selectStmt(parent, st, ctes)
}

// sortKey is one ORDER BY key: a column of the pre-trim output row.
type sortKey struct {
	col        int
	typ        types.Type
	desc       bool
	nullsFirst bool
	// text is the key as EXPLAIN prints it.
	text string
	// noCollation marks a key of a collatable type without a collation,
	// which cannot order two strings (collation.go).
	noCollation bool
}

func (b *binder) selectStmt(parent *scope, st *pg_query.SelectStmt, ctes map[string]*ctePlan) (*selectPlan, error) {
	// This level's select list, and only it, takes what the caller asked
	// for its unknown items.
	unknown := b.unknownOutputs
	b.unknownOutputs = unknownOutputs{}
	subplansFrom := len(b.subplans)
	savedColl := b.collCtx
	b.collCtx = nil
	defer func() { b.collCtx = savedColl }()
	if st.IntoClause != nil {
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "SELECT ... INTO is not allowed here"), st.IntoClause.Rel.Location)
	}
	if st.WithClause != nil {
		var err error
		if ctes, err = b.withClause(parent, st.WithClause, ctes); err != nil {
			return nil, err
		}
	}
	if st.Op != pg_query.SetOperation_SETOP_NONE && st.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED || len(st.ValuesLists) > 0 {
		if err := checkLockingQuery(st, false, false); err != nil {
			return nil, err
		}
	}
	if st.Op != pg_query.SetOperation_SETOP_NONE && st.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED {
		return b.setOp(parent, st, ctes)
	}
	if len(st.ValuesLists) > 0 {
		p, err := b.valuesPlan(parent, st.ValuesLists, ctes)
		if err != nil {
			return nil, err
		}
		return b.finishOutput(parent, p, st)
	}
	savedPullUp, savedPlain := b.pullUpOK, b.pullUpPlainOnly
	b.pullUpOK, b.pullUpPlainOnly = len(st.LockingClause) == 0 && b.declaring == nil, false
	items, sc, pending, err := b.buildFrom(parent, st.FromClause, ctes)
	b.pullUpOK, b.pullUpPlainOnly = savedPullUp, savedPlain
	if err != nil {
		return nil, err
	}
	var pre []*conj
	if err := b.placeConds(sc, items, pending, st.WhereClause, &pre); err != nil {
		return nil, err
	}
	for _, it := range items {
		it.noteConditionReads()
	}
	chooseAccesses(items)
	if err := b.applyLocking(st, sc, items); err != nil {
		return nil, err
	}
	planJoins(items)
	return b.selectAboveFrom(parent, st, sc, items, pre, unknown, subplansFrom)
}

// selectAboveFrom compiles what a query level computes from the rows of
// its FROM and WHERE (sc, items, pre): grouping, select list, ordering,
// DISTINCT and LIMIT. When an aggregate met in it belongs to another
// level than the one its calls' places suggested (PostgreSQL's
// agglevelsup: an aggregate of outer columns only belongs to the outer
// level), it compiles them again with the level known to aggregate, or
// not (rebindLevel).
func (b *binder) selectAboveFrom(parent *scope, st *pg_query.SelectStmt, sc *scope, items []*fromItem, pre []*conj, unknown unknownOutputs, subplansFrom int) (*selectPlan, error) {
	mark := b.mark(sc)
	forceAgg := false
	for attempt := 0; ; attempt++ {
		p, err := b.selectLevel(parent, st, sc, items, pre, unknown, subplansFrom, forceAgg)
		rb, ok := err.(*rebindLevel)
		if !ok || rb.sc != sc {
			return p, err
		}
		if attempt == maxRebinds {
			return nil, b.errAt(errOuterAggregate, rb.loc)
		}
		b.restore(mark)
		forceAgg = forceAgg || rb.aggregate
	}
}

// selectLevel is one attempt of selectAboveFrom; forceAgg makes the
// level aggregate whatever its own clauses hold, as an aggregate of a
// subquery that belongs to it does.
func (b *binder) selectLevel(parent *scope, st *pg_query.SelectStmt, sc *scope, items []*fromItem, pre []*conj, unknown unknownOutputs, subplansFrom int, forceAgg bool) (*selectPlan, error) {
	targets := st.TargetList
	var sortNodes []*pg_query.Node
	for _, s := range st.SortClause {
		sortNodes = append(sortNodes, s.GetSortBy().Node)
	}
	fixedAgg := len(st.GroupClause) > 0 || st.HavingClause != nil || forceAgg
	hasAgg := fixedAgg || b.containsLocalAgg(append(append([]*pg_query.Node{}, targets...), sortNodes...)...)
	proj := sc
	var agg *aggScope
	hasWindow := len(st.WindowClause) > 0 || containsWindow(append(append([]*pg_query.Node{}, targets...), sortNodes...)...)
	// In a subquery, the aggregates written in the select list may all be
	// an outer level's, known once it is compiled.
	lockAgg := hasAgg
	if parent != nil {
		lockAgg = fixedAgg
	}
	if err := checkLockingQuery(st, lockAgg, hasWindow && lockAgg == hasAgg); err != nil {
		return nil, err
	}
	if !hasAgg {
		sc.mayAggregate = true
		defer func() { sc.mayAggregate = false }()
	}
	if hasAgg {
		agg = &aggScope{from: sc, fixed: fixedAgg}
		if err := b.groupBy(agg, st.GroupClause, targets, st.GroupDistinct); err != nil {
			return nil, err
		}
		if agg.srf != nil && len(agg.srf.calls) == 0 {
			agg.srf = nil
		}
		proj = &scope{cols: sc.cols, parent: sc.parent, agg: agg, ctes: sc.ctes}
	}
	var win *winScope
	if hasWindow {
		// Windows see the query's rows after grouping: their expressions
		// bind where the select list does.
		win = &winScope{leading: sortGroupTexts(st, targets)}
		proj.win = win
		defer func() { proj.win = nil }()
		if err := b.windowClause(proj, win, st.WindowClause); err != nil {
			return nil, err
		}
	}
	var srf *srfScope
	if b.containsSetCall(targets...) || b.containsSetCall(sortNodes...) {
		if err := b.srfsAboveGrouping(agg, append(append([]*pg_query.Node{}, targets...), sortNodes...)); err != nil {
			return nil, err
		}
		srf = &srfScope{}
		proj.srf = srf
		defer func() { proj.srf = nil }()
	}
	outs, cols, targetNodes, err := b.targetList(proj, targets, unknown)
	if err != nil {
		return nil, err
	}
	if agg != nil {
		for _, g := range agg.groups {
			for i, n := range targetNodes {
				if n != nil && n == g.column {
					if err := b.textKeyOutput(outs, cols, i); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	positions := false // the rows end with their positions, for a cursor's WHERE CURRENT OF
	if st == b.declaring {
		if pos := b.cursorPositions(st, items, hasAgg || hasWindow || srf != nil && len(srf.calls) > 0 || len(st.DistinctClause) > 0); pos != nil {
			positions = true
			outs, cols, targetNodes = append(outs, pos), append(cols, outCol{Name: pos.name, typ: pos.typ}), append(targetNodes, nil)
		}
	}
	var having *scalar
	if st.HavingClause != nil {
		// No set-returning call in HAVING: the select list's are expanded
		// after it.
		if err := b.srfInHaving(st.HavingClause); err != nil {
			return nil, err
		}
		proj.srf = nil
		having, err = b.cond(proj, st.HavingClause, "HAVING")
		proj.srf = srf
		if err != nil {
			return nil, err
		}
	}
	orderCols := cols // ORDER BY names and numbers the select list's columns, not the position
	if positions {
		orderCols = cols[:len(cols)-1]
	}
	keys, outs, err := b.orderBy(proj, st.SortClause, outs, orderCols, targetNodes)
	if err != nil {
		return nil, err
	}
	if err := checkLockingQuery(st, hasAgg, hasWindow); err != nil {
		return nil, err
	}
	distinct, distinctOn := distinctKind(st)
	var onCols []int
	var onKeys []sortKey
	if distinctOn {
		var sorts []*pg_query.Node
		for _, n := range st.DistinctClause {
			sorts = append(sorts, pg_query.MakeSortByNode(n, pg_query.SortByDir_SORTBY_DEFAULT, pg_query.SortByNulls_SORTBY_NULLS_DEFAULT, -1))
		}
		if onKeys, outs, err = b.orderBy(proj, sorts, outs, cols, targetNodes); err != nil {
			return nil, err
		}
		for _, k := range onKeys {
			onCols = append(onCols, k.col)
		}
		if err := b.distinctOnMatchesOrderBy(st, keys, onKeys, len(cols)); err != nil {
			return nil, err
		}
	}
	if agg != nil && agg.ungrouped != nil {
		return nil, agg.ungrouped
	}
	if srf != nil && len(srf.calls) == 0 {
		srf = nil // the names called resolved to functions returning no set
	}
	if srf != nil && len(st.LockingClause) > 0 {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed with set-returning functions in the target list",
			rowLockStrength(st.LockingClause[0].GetLockingClause()))
	}
	if distinct {
		for i, o := range outs[:len(cols)] {
			if err := types.EqualityOperatorError(o.typ); err != nil {
				return nil, err
			}
			if o.coll.strength == collConflict && targetNodes[i] != nil {
				return nil, b.errAt(o.coll.conflictError(), exprLocation(targetNodes[i]))
			}
		}
	}
	if distinct {
		for i := range cols {
			if err := b.textKeyOutput(outs, cols, i); err != nil {
				return nil, err
			}
		}
	}
	if distinct && len(outs) > len(cols) {
		loc := int32(-1)
		if i := slices.IndexFunc(keys, func(k sortKey) bool { return k.col >= len(cols) }); i >= 0 {
			loc = leftmostLocation(st.SortClause[i].GetSortBy().Node)
		}
		return nil, b.errAt(pgerror.New(pgerror.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list"), loc)
	}
	if agg != nil && len(agg.groups) > 0 {
		if err := agg.implementable(); err != nil {
			return nil, err
		}
	}
	if distinct {
		keys := make([]types.Type, len(cols))
		for i, o := range outs[:len(cols)] {
			keys[i] = o.typ
		}
		if err := types.GroupingImplementationError("DISTINCT", keys, true); err != nil {
			return nil, err
		}
	}
	limit, offset, ties, err := b.limitOffset(sc, st)
	if err != nil {
		return nil, err
	}
	if ties && len(st.LockingClause) > 0 {
		return nil, pgerror.Unsupported("FETCH FIRST ... WITH TIES with FOR UPDATE or FOR SHARE")
	}
	width := len(sc.cols)
	nVisible := len(cols)
	correlated := sc.pending != 0 || parent != nil && b.refsOuter(sc)
	var locking *lockStage
	if len(st.LockingClause) > 0 {
		locking = &lockStage{items: items, outs: outs, width: width}
	}
	// A grouped query without GROUP BY and without aggregates (HAVING
	// alone) is one group whatever its rows: PostgreSQL does not read
	// them (is_degenerate_grouping), so neither do its WHERE clause's
	// errors surface.
	degenerate := agg != nil && len(agg.groups) == 0 && len(agg.aggs) == 0
	earlyStop := !hasAgg && win == nil && len(keys) == 0 && !distinct && !distinctOn && limit != nil && locking == nil
	// A level with no operator that holds all its rows (aggregate, window,
	// sort, DISTINCT, lock stage) can pass them on as it makes them.
	streamable := agg == nil && win == nil && len(keys) == 0 && !distinct && !distinctOn && locking == nil
	var onSort []sortKey
	if distinctOn {
		onSort = b.distinctOnSort(st, keys, onKeys, len(cols))
	}
	srfCols := make([]bool, nVisible)
	for i := range srfCols {
		srfCols[i] = srf != nil && i < len(targetNodes) && targetNodes[i] != nil && b.containsSetCall(targetNodes[i])
	}
	postponed, lateSRFs := b.postponedOutputs(st, outs, nVisible, keys, onKeys, targetNodes, agg, srfCols, locking != nil || distinct)
	earlySRFs := srf
	if lateSRFs {
		earlySRFs = nil
	}
	// endCols are the volatile columns the set-returning calls' ProjectSet
	// computes once more when they end (srfScope.expand).
	var endCols []int
	for i, o := range outs[:nVisible] {
		if o.volatile && !srfCols[i] && slices.Contains(postponed, i) == lateSRFs {
			endCols = append(endCols, i)
		}
	}
	var deferredSlots []int // outputs of subquery items whose errors wait for the row to pass every condition
	if locking == nil {
		for _, it := range items {
			it.pruneUnread()
			deferredSlots = append(deferredSlots, it.deferErrors()...)
		}
	}
	p := &selectPlan{cols: cols, correlated: correlated,
		prunable: prunableOutputs(outs[:nVisible], targetNodes, keys, onCols, srf != nil || locking != nil || distinct || distinctOn, b.volatileSubLink)}
	ln := b.levelPlan(levelShape{items: items, pre: pre, agg: agg, having: st.HavingClause, window: win != nil, srf: srf != nil,
		groupSRF: agg != nil && agg.srf != nil, lateSRF: lateSRFs, keys: keys, onKeys: onSort, distinct: distinct, distinctOn: distinctOn, limited: limit != nil || offset != nil, locking: locking != nil, cols: cols})
	p.node = ln.top
	b.claimSubplans(subplansFrom, p.node)
	// produce runs the level: with send set (streamable levels only) it
	// passes each output row to send after OFFSET and stops at LIMIT,
	// holding none; without, it returns them all.
	produce := func(x *execCtx, send func(row []any) error) ([][]any, error) {
		if x.stats != nil {
			defer ln.loops(x.stats, time.Now())
		}
		run := &levelRun{cx: *x}
		cx := &run.cx
		cx.row = make([]any, width)
		cx.items, cx.marks, cx.epq = nil, nil, nil
		if locking != nil {
			cx.marks = locking.start()
		} else if positions {
			cx.marks = (&lockStage{items: items}).start()
		}
		lim, off, err := evalLimit(cx, limit, offset)
		if err != nil {
			return nil, err
		}
		var acc *aggRun
		if agg != nil {
			acc = agg.start(cx.env)
		}
		emit := func() error {
			run.emitted++
			if acc != nil || win != nil {
				if err := deferredError(cx.row, deferredSlots); err != nil {
					return err
				}
			}
			if acc != nil {
				if agg.srf != nil {
					return agg.srf.expand(cx, func() error { return acc.add(cx) }, nil)
				}
				return acc.add(cx)
			}
			if win != nil {
				run.winRows = append(run.winRows, append([]any(nil), cx.row...))
				return nil
			}
			emitRow := func() error {
				if send != nil && limit != nil && lim >= 0 && run.sent >= lim {
					return errLimitReached
				}
				if err := deferredError(cx.row, deferredSlots); err != nil {
					return err
				}
				row := make([]any, len(outs), len(outs)+1)
				if err := projectInto(cx, row, outs, postponed, p, true); err != nil {
					return err
				}
				if send != nil {
					if run.skipped < off {
						run.skipped++
						return nil
					}
					run.sent++
					return send(row[:nVisible])
				}
				if locking != nil {
					row = append(row, len(run.cands))
					run.cands = append(run.cands, locking.candidate(cx))
				}
				run.out = append(run.out, row)
				if earlyStop && lim >= 0 && int64(len(run.out)) >= off+lim {
					return errLimitReached
				}
				return nil
			}
			if earlySRFs != nil {
				return earlySRFs.expand(cx, emitRow, evalEach(cx, outs, endCols))
			}
			return emitRow()
		}
		ok, err := allHold(cx, pre, false)
		if err == nil && ok {
			ok, err = allHold(cx, pre, true)
		}
		if err != nil {
			return nil, err
		}
		if ok && !degenerate {
			if err := runItems(cx, items, 0, emit); err != nil && err != errLimitReached {
				return nil, err
			}
		}
		x.stats.addRows(ln.result, run.emitted)
		if send != nil {
			x.stats.addRows(ln.mid, int(run.skipped+run.sent))
			x.stats.addRows(ln.sort, int(run.skipped+run.sent))
			x.stats.addRows(ln.limit, int(run.sent))
			return nil, nil
		}
		if acc != nil {
			groups, err := acc.finish(cx, having)
			if err != nil {
				return nil, err
			}
			x.stats.addRows(ln.agg, len(groups))
			if win != nil {
				run.winRows = groups
			} else {
				run.out = make([][]any, 0, len(groups))
				for _, g := range groups {
					cx.row = g
					if err := projectExpanding(cx, earlySRFs, &run.out, outs, postponed, endCols, p); err != nil {
						return nil, err
					}
				}
			}
		}
		if win != nil {
			vals, order, err := win.compute(cx, run.winRows)
			if err != nil {
				return nil, err
			}
			for _, i := range order {
				cx.row, cx.win = run.winRows[i], vals[i]
				if err := projectExpanding(cx, earlySRFs, &run.out, outs, postponed, endCols, p); err != nil {
					return nil, err
				}
			}
		}
		if !lateSRFs {
			x.stats.addRows(ln.mid, len(run.out))
		}
		if distinctOn {
			x.stats.addRows(ln.onSort, len(run.out))
			if err := checkSortCollations(onSort); err != nil {
				return nil, err
			}
			types.PGQsort(run.out, func(a, b []any) int { return compareKeys(a, b, onSort) })
			run.out = distinctOnRows(run.out, onCols, outs)
			x.stats.addRows(ln.unique, len(run.out))
		}
		if locking != nil {
			if len(keys) > 0 {
				if err := checkSortCollations(keys); err != nil {
					return nil, err
				}
				run.out = sortRows(run.out, keys, -1)
			}
			if run.out, err = locking.apply(cx, run.out, run.cands, lim, off, limit != nil); err != nil {
				return nil, err
			}
			x.stats.addRows(ln.lock, len(run.out))
			x.stats.addRows(ln.limit, len(run.out))
			return trimOutput(run.out, nil, false, nVisible, outs, -1, 0, false, false, false)
		}
		if distinct {
			run.out = distinctRows(run.out, nVisible, outs)
			x.stats.addRows(ln.distinct, len(run.out))
		}
		x.stats.addRows(ln.sort, len(run.out))
		// Rows a window has put in ORDER BY's order need no Sort in
		// PostgreSQL's plan; others get one right under the Limit.
		bounded := win == nil || !sortedBy(run.out, keys)
		if lateSRFs {
			return expandAfterSort(cx, run.out, srf, keys, nVisible, outs, postponed, endCols, lim, off, limit != nil, ties, ln)
		}
		if len(postponed) > 0 {
			return sortAndLimitPostponed(cx, run.out, keys, nVisible, outs, postponed, lim, off, limit != nil, ties, bounded, ln)
		}
		out, err := trimOutput(run.out, keys, false, nVisible, outs, lim, off, limit != nil, ties, bounded)
		x.stats.addRows(ln.limit, len(out))
		return out, err
	}
	p.run = func(x *execCtx) ([][]any, error) { return produce(x, nil) }
	if streamable {
		p.stream = func(x *execCtx, send func(row []any) error) error {
			_, err := produce(x, send)
			return err
		}
	}
	return p, nil
}

// postponedOutputs lists the visible output columns PostgreSQL computes
// only after ORDER BY's sort, DISTINCT ON, OFFSET and LIMIT
// (make_sort_input_target), and reports whether the set-returning calls
// are among them (late). An output column PostgreSQL sorts or groups by
// (ORDER BY, DISTINCT ON or GROUP BY names it) is computed before; of the
// others, one calling a volatile function is postponed, so that SELECT
// nextval(...), x ... ORDER BY x LIMIT n numbers the rows in their output
// order and draws n values, and one calling a set-returning function is
// too when no sorted or grouped column calls one: its rows are expanded
// after the sort and before LIMIT. fickle does not postpone past the row
// locks or DISTINCT of a level (unsupported).
func (b *binder) postponedOutputs(st *pg_query.SelectStmt, outs []*scalar, nVisible int, keys, onKeys []sortKey, targetNodes []*pg_query.Node,
	agg *aggScope, srfCols []bool, unsupported bool) (postponed []int, late bool) {
	if len(keys) == 0 || unsupported {
		return nil, false
	}
	hasSRFs := slices.Contains(srfCols, true)
	ref := map[int]bool{}
	srfRef := false
	note := func(col int, n *pg_query.Node) {
		ref[col] = true
		if col < nVisible && col < len(targetNodes) && targetNodes[col] != nil {
			n = targetNodes[col]
		}
		if hasSRFs && n != nil && b.containsSetCall(n) {
			srfRef = true
		}
	}
	for i, k := range keys {
		note(k.col, st.SortClause[i].GetSortBy().Node)
	}
	for i, k := range onKeys {
		note(k.col, st.DistinctClause[i])
	}
	if agg != nil {
		for i, n := range targetNodes[:min(nVisible, len(targetNodes))] {
			if n != nil && slices.ContainsFunc(agg.groups, func(g groupEntry) bool { return g.column == n }) {
				note(i, nil)
			}
		}
	}
	for i := range outs[:nVisible] {
		if !ref[i] && srfCols[i] {
			late = !srfRef
		}
	}
	for i, o := range outs[:nVisible] {
		switch {
		case ref[i]:
		case srfCols[i]:
			if late {
				postponed = append(postponed, i)
			}
		case o.volatile:
			postponed = append(postponed, i)
		}
	}
	return postponed, late
}

// postponedInput is what a postponed output column is computed from once
// its row survived the sort and the limit: the level's row and window
// values it would have been computed from at once.
type postponedInput struct {
	row []any
	win []any
}

// prunableOutputs marks the outputs a level may leave uncomputed when its
// reader does not read them, as PostgreSQL's remove_unused_subquery_outputs
// removes them: none under DISTINCT, set-returning functions or row locks
// (all unsupported), and no sort or DISTINCT ON key, volatile expression or
// expression with a subquery calling a volatile function (volatileSub).
func prunableOutputs(outs []*scalar, targetNodes []*pg_query.Node, keys []sortKey, onCols []int, unsupported bool, volatileSub func(*pg_query.Node) bool) []bool {
	if unsupported {
		return nil
	}
	prunable := make([]bool, len(outs))
	for i, o := range outs {
		prunable[i] = !o.volatile && !slices.Contains(onCols, i) && !slices.ContainsFunc(keys, func(k sortKey) bool { return k.col == i }) &&
			(i >= len(targetNodes) || !volatileSub(targetNodes[i]))
	}
	return prunable
}

// projectInto computes the outputs of the level's current row into row,
// leaving a postponedInput in the postponed columns, NULL in the ones p
// skips and a failedOutput in the ones whose errors p defers; copyRow is
// set where the level reuses its current row for the next one.
func projectInto(x *execCtx, row []any, outs []*scalar, postponed []int, p *selectPlan, copyRow bool) error {
	var in *postponedInput
	if len(postponed) > 0 {
		in = &postponedInput{row: x.row, win: x.win}
		if copyRow {
			in.row = slices.Clone(x.row)
		}
	}
	for i, o := range outs {
		if in != nil && slices.Contains(postponed, i) {
			row[i] = in
			continue
		}
		if i < len(p.skip) && p.skip[i] {
			row[i] = nil
			continue
		}
		v, err := o.eval(x)
		if err != nil {
			if i >= len(p.deferErrs) || !p.deferErrs[i] {
				return err
			}
			v = &failedOutput{err}
		}
		row[i] = v
	}
	return nil
}

// sortAndLimitPostponed is trimOutput for a level with postponed output
// columns: it sorts, then computes them for the rows up to OFFSET plus
// LIMIT in their output order, the rows OFFSET skips included (in
// PostgreSQL they pass through the projection below the Limit node), and
// then skips those.
func sortAndLimitPostponed(x *execCtx, rows [][]any, keys []sortKey, nVisible int, outs []*scalar, postponed []int,
	lim, off int64, hasLimit, ties, bounded bool, ln levelNodes) ([][]any, error) {
	upTo := int64(-1)
	if hasLimit && lim >= 0 && lim <= math.MaxInt64-off {
		upTo = off + lim
	}
	rows, err := trimOutput(rows, keys, false, nVisible, outs, upTo, 0, upTo >= 0, ties, bounded)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		for _, i := range postponed {
			in := r[i].(*postponedInput)
			x.row, x.win = in.row, in.win
			v, err := outs[i].eval(x)
			if err != nil {
				return nil, err
			}
			r[i] = v
		}
	}
	rows = rows[min(off, int64(len(rows))):]
	x.stats.addRows(ln.limit, len(rows))
	return rows, nil
}

// evalEach returns what computes the outputs cols of the current row,
// for their side effects alone.
func evalEach(x *execCtx, outs []*scalar, cols []int) func() error {
	if len(cols) == 0 {
		return nil
	}
	return func() error {
		for _, i := range cols {
			if _, err := outs[i].eval(x); err != nil {
				return err
			}
		}
		return nil
	}
}

// expandAfterSort is trimOutput for a level whose set-returning calls
// PostgreSQL expands after the sort (a ProjectSet node above the Sort,
// below the Limit): it sorts the rows, expands each into the rows of its
// calls, computing the postponed columns for each, until OFFSET plus
// LIMIT rows are made, and then applies OFFSET and LIMIT.
func expandAfterSort(x *execCtx, rows [][]any, srf *srfScope, keys []sortKey, nVisible int, outs []*scalar, postponed, endCols []int,
	lim, off int64, hasLimit, ties bool, ln levelNodes) ([][]any, error) {
	if err := checkSortCollations(keys); err != nil {
		return nil, err
	}
	rows = sortRows(rows, keys, -1)
	upTo := int64(-1)
	if hasLimit && !ties && lim >= 0 && lim <= math.MaxInt64-off {
		upTo = off + lim
	}
	var out [][]any
	for _, r := range rows {
		if upTo >= 0 && int64(len(out)) >= upTo {
			break
		}
		in := r[postponed[0]].(*postponedInput)
		x.row, x.win = in.row, in.win
		err := srf.expand(x, func() error {
			o := slices.Clone(r)
			for _, i := range postponed {
				v, err := outs[i].eval(x)
				if err != nil {
					return err
				}
				o[i] = v
			}
			out = append(out, o)
			if upTo >= 0 && int64(len(out)) >= upTo {
				return errLimitReached
			}
			return nil
		}, evalEach(x, outs, endCols))
		if err != nil && err != errLimitReached {
			return nil, err
		}
	}
	var tieKeys []sortKey
	if ties {
		tieKeys = keys // already sorted: the sort only compares the peers
	}
	x.stats.addRows(ln.mid, len(out))
	out, err := trimOutput(out, tieKeys, false, nVisible, outs, lim, off, hasLimit, ties, false)
	x.stats.addRows(ln.limit, len(out))
	return out, err
}

// levelRun is what one run of a query level's rows shares between its emit
// callback and the rest of the run, in one allocation instead of one for
// each variable the callback captured.
type levelRun struct {
	cx           execCtx
	cands        []lockCandidate
	out, winRows [][]any
	emitted      int
	skipped      int64
	sent         int64
}

// refsOuter reports whether compiling sc resolved columns of an enclosing
// level (recorded as pending bits on an ancestor).
func (b *binder) refsOuter(sc *scope) bool {
	for cur := sc.parent; cur != nil; cur = cur.parent {
		if cur.pending != 0 {
			return true
		}
	}
	return false
}

// runItems is the nested-loop join over items[i:].
func runItems(x *execCtx, items []*fromItem, i int, emit func() error) error {
	if i == len(items) {
		return emit()
	}
	if err := x.checkCancel(); err != nil {
		return err
	}
	it := items[i]
	if empty, err := pruneEmptyJoins(x, it); err != nil || empty {
		return err
	}
	var rows [][]any
	var keys [][]byte // the rows' store keys, kept for a lock stage
	var members []int // the members they live in (keyedRow.member)
	conds := it.on
	// A table item's rows go on as the store returns them (a LIMIT above
	// stops the scan) unless something needs them all first.
	keep := x.marks != nil && (it.lock != isolation.RowLockNone || it.target || it.cursorPos) // the rows' keys go to x.marks
	streamed := x.epq == nil && !it.cached && it.table != nil && streamsTable(x, it, keep)
	if x.stats != nil {
		if i == 0 {
			defer countJoins(x, items, time.Now())
		}
		defer it.plan.count(x, time.Now(), it.cached, &rows)
	}
	switch {
	case x.epq != nil:
		if !x.epq.nullExt[i] {
			rows = [][]any{x.epq.full[it.off : it.off+it.width]}
		}
	case it.cached:
		var err error
		var kept keyedRows
		if rows, kept, err = cachedRows(x, it); err != nil {
			return err
		}
		if keep {
			keys, members = kept.keys, kept.members
		}
		conds = it.join
	case streamed:
	case i > 0 && it.once:
		var err error
		if rows, err = runOnce(x, it); err != nil {
			return err
		}
	case it.table != nil:
		krs, err := fetchTable(x, it, keep)
		if err != nil {
			return err
		}
		rows = make([][]any, len(krs))
		for j, kr := range krs {
			rows[j] = kr.row
			if keep {
				keys = append(keys, kr.key)
				members = append(members, kr.member)
			}
		}
	case it.each != nil:
	default:
		// A system table's conjunct "column = value", the value computed
		// by the items before it, reads its rows by key; else a later
		// item joined on one of its columns may narrow them.
		var keyed bool
		var err error
		if rows, keyed, err = catalogKeyRows(x, it, conds, itemBit(i)-1); err != nil {
			return err
		}
		if !keyed {
			if rows, keyed, err = catalogSemiJoinRows(x, items, i); err != nil {
				return err
			}
		}
		if !keyed {
			if rows, err = it.sub(x); err != nil {
				return err
			}
		}
	}
	matched := false
	n := 0
	visit := func(r []any) error {
		n++
		if n%1024 == 0 {
			// A condition may be costly: the timeout and a cancel stop
			// the loop, not only the next level.
			if err := x.checkCancel(); err != nil {
				return err
			}
		}
		copy(x.row[it.off:it.off+it.width], r)
		if it.hasPresence {
			x.row[it.presence] = true
		}
		if x.marks != nil {
			x.marks.nullExt[i] = false
			if keys != nil {
				x.marks.keys[i], x.marks.members[i] = keys[n-1], members[n-1]
			}
		}
		// The conditions without subqueries first (the scan applied them
		// already to a table's rows it read itself), as PostgreSQL orders
		// quals by cost: a subquery runs only for rows the others kept.
		ok, err := true, error(nil)
		if it.table == nil || it.cached || x.epq != nil {
			ok, err = allHold(x, conds, false)
		}
		if err == nil && ok {
			ok, err = allHold(x, conds, true)
		}
		if err != nil || !ok {
			return err
		}
		matched = true
		if ok, err = postHold(x, it); err != nil || !ok {
			return err
		}
		x.stats.addRows(it.plan.joined(), 1)
		return runItems(x, items, i+1, emit)
	}
	switch {
	case it.each != nil && x.epq == nil && !(i > 0 && it.once):
		if err := it.each(x, visit); err != nil {
			return err
		}
	case streamed:
		if err := streamTable(x, it, visit); err != nil {
			return err
		}
	default:
		for _, r := range rows {
			if err := visit(r); err != nil {
				return err
			}
		}
	}
	if !matched && it.left {
		for j := it.off; j < it.off+it.width; j++ {
			x.row[j] = nil
		}
		if it.hasPresence {
			x.row[it.presence] = nil
		}
		if x.marks != nil {
			x.marks.nullExt[i] = true
		}
		ok, err := postHold(x, it)
		if err != nil || !ok {
			return err
		}
		x.stats.addRows(it.plan.joined(), 1)
		return runItems(x, items, i+1, emit)
	}
	return nil
}

func postHold(x *execCtx, it *fromItem) (bool, error) {
	ok, err := allHold(x, it.post, false)
	if err != nil || !ok {
		return ok, err
	}
	return allHold(x, it.post, true)
}

// placeConds compiles the join conditions and the WHERE conjuncts and
// attaches each to the first item at which all its columns are bound.
// Conjuncts of no item go to pre.
func (b *binder) placeConds(sc *scope, items []*fromItem, pending []pendingCond, where *pg_query.Node, pre *[]*conj) error {
	sc.noAgg = "WHERE"
	defer func() { sc.noAgg = "" }()
	place := func(c *conj, on *fromItem) {
		if on != nil {
			on.on = append(on.on, c)
			return
		}
		if len(items) == 0 || c.e.refs == 0 && !c.e.volatile {
			*pre = append(*pre, c)
			return
		}
		// A volatile condition without columns (random() < 0.1) holds or
		// not row by row, as in PostgreSQL: it goes to the last item.
		maxItem := 63
		for maxItem > 0 && c.e.refs&itemBit(maxItem) == 0 {
			maxItem--
		}
		if maxItem >= len(items) || c.e.refs&(1<<63) != 0 || c.e.volatile && c.e.refs == 0 {
			maxItem = len(items) - 1
		}
		it := items[maxItem]
		if it.left {
			it.post = append(it.post, c)
		} else {
			it.on = append(it.on, c)
		}
	}
	for _, pc := range pending {
		if pc.compiled != nil {
			place(pc.compiled, pc.on)
			continue
		}
		// Aggregates, window and set-returning calls are PostgreSQL's
		// errors "... are not allowed in JOIN conditions" there.
		sc.noAgg = "JOIN conditions"
		for _, n := range conjuncts(pc.node) {
			c, err := b.conjunct(sc, n, pc.clause)
			if err != nil {
				return err
			}
			if pc.on != nil {
				// A LEFT JOIN's ON condition may not move to an earlier
				// item: it decides whether the right side matches.
				place(c, pc.on)
			} else {
				place(c, nil)
			}
		}
	}
	sc.noAgg = "WHERE"
	for _, n := range conjuncts(where) {
		c, err := b.conjunct(sc, n, "WHERE")
		if err != nil {
			return err
		}
		place(c, nil)
	}
	for i, it := range items {
		// PostgreSQL pushes conditions down into a subquery or view it
		// does not flatten, those of a security barrier view only when
		// leakproof, which changes their order; fickle does not, so it
		// orders the conditions of tables alone.
		if it.table != nil {
			orderConds(it.on, itemBit(i), b.costs)
			orderConds(it.post, itemBit(i), b.costs)
		}
	}
	orderConds(*pre, 0, b.costs)
	return nil
}

// targetList compiles the select list, expanding * and t.*.
// unknownOutputs says what a select list does with its unknown-typed
// items (string literals, NULL and parameters whose type nothing decided):
// by default they become text, as PostgreSQL resolves them at the end of
// a query level, except where their context types them first.
type unknownOutputs struct {
	// want types the items of an INSERT ... SELECT's select list by the
	// target columns, as assignments.
	want []types.Type
	// domains holds the domain each target column of want is declared
	// with (0 for none): a parameter the item is takes it.
	domains []uint32
	// keep leaves string literals and NULL of a set operation's branch
	// unknown, so that the set operation can give them the other
	// branch's type.
	keep bool
}

func (b *binder) targetList(sc *scope, targets []*pg_query.Node, unknown unknownOutputs) ([]*scalar, []outCol, []*pg_query.Node, error) {
	var outs []*scalar
	var cols []outCol
	var nodes []*pg_query.Node
	for _, t := range targets {
		rt := t.GetResTarget()
		if arg, ok, err := b.starOfValue(sc, rt.Val); err != nil {
			return nil, nil, nil, err
		} else if ok {
			fouts, fcols, err := expandFields(arg)
			if err != nil {
				return nil, nil, nil, b.errAt(err, rt.Location)
			}
			outs, cols = append(outs, fouts...), append(cols, fcols...)
			nodes = append(nodes, make([]*pg_query.Node, len(fouts))...)
			continue
		}
		if cr := starRef(rt.Val); cr != nil {
			all, err := b.starColumns(sc, cr)
			if err != nil {
				return nil, nil, nil, err
			}
			var refs []*pg_query.Node
			for _, c := range all {
				ref := starColumnRef(cr, c)
				refs = append(refs, ref)
				if sc.agg != nil || c.expr != nil {
					// In a grouped query each column the star stands for
					// is an expression of its own: grouped, or of a row a
					// grouped primary key determines. A flattened
					// subquery's computed output is its expression.
					e, err := b.expr(sc, ref)
					if err != nil {
						return nil, nil, nil, err
					}
					outs = append(outs, e)
					cols = append(cols, outCol{Name: c.name, typ: e.typ, coll: e.coll})
					nodes = append(nodes, ref)
					continue
				}
				c.markRead()
				slot := c.slot
				coll := outputCollation(c.typ, c.coll)
				out := &scalar{typ: c.typ, slot: slot, refs: itemBit(c.item), coll: coll, eval: func(x *execCtx) (any, error) { return x.row[slot], nil }}
				col := outCol{Name: c.name, typ: c.typ, tableOID: c.tableOID, attnum: c.attnum, coll: coll}
				if dom, _ := b.columnDomain(c); dom != nil {
					col.domain = dom.oid
				}
				if (len(cr.Fields) == 1 || c.joinAlias) && c.usingType.Oid != 0 {
					var err error
					if out, err = b.usingMerged(c, out); err != nil {
						return nil, nil, nil, err
					}
					col = outCol{Name: c.name, typ: out.typ, coll: out.coll}
				}
				outs = append(outs, out)
				cols = append(cols, col)
				nodes = append(nodes, nil)
			}
			if b.frozen != nil {
				b.frozen.stars[cr] = refs
			}
			continue
		}
		e, err := b.expr(sc, rt.Val)
		if err != nil {
			return nil, nil, nil, err
		}
		isUnknown := unresolved(e) || e.lit != nil || e.null
		switch {
		case isUnknown && len(outs) < len(unknown.want):
			col := &columnDesc{name: rt.Name, typ: unknown.want[len(outs)]}
			if len(outs) < len(unknown.domains) {
				col.domain = unknown.domains[len(outs)]
			}
			ce, err := b.coerceToColumn(e, col, rt.Val)
			if err != nil {
				return nil, nil, nil, b.assignError(err, col, e, rt.Val)
			}
			e = ce
		case unknown.keep && (e.lit != nil || e.null || unresolved(e)):
		case unresolved(e):
			b.fix(e, types.Text)
		case e.lit != nil || e.null:
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, nil, nil, err
			}
		}
		name := rt.Name
		if name == "" {
			name = e.name
			if name == "" {
				name = "?column?"
			}
		}
		col := outCol{Name: name, typ: e.typ, coll: e.coll, param: e.param}
		if unresolved(e) {
			col.paramOcc = e
		}
		if e.domain != nil {
			col.domain = e.domain.oid
		}
		if e.slot >= 0 && sc != nil && sc.agg == nil {
			for _, c := range sc.cols {
				if c.slot == e.slot {
					col.tableOID, col.attnum = c.tableOID, c.attnum
				}
			}
		}
		outs = append(outs, e)
		cols = append(cols, col)
		nodes = append(nodes, rt.Val)
	}
	return outs, cols, nodes, nil
}

// textKeyOutput resolves output column i to text if it is a set operation
// branch's literal, NULL or parameter left untyped (unknownOutputs.keep):
// once its level sorts, groups or deduplicates by it, PostgreSQL gives it
// text and the other branches no longer choose its type.
func (b *binder) textKeyOutput(outs []*scalar, cols []outCol, i int) error {
	if cols[i].typ.Oid != types.OidUnknown {
		return nil
	}
	e, err := b.coerce(outs[i], types.Text, types.CastImplicit)
	if err != nil {
		return err
	}
	outs[i] = e
	cols[i].typ, cols[i].coll, cols[i].param, cols[i].paramOcc = e.typ, e.coll, 0, nil
	return nil
}

// starOfValue compiles the value whose fields a select list's item
// (value).* or var.* lists: the expression before .* in parentheses, or
// a routine's variable of a row type that no FROM item's name hides; ok
// is false for any other item.
func (b *binder) starOfValue(sc *scope, n *pg_query.Node) (*scalar, bool, error) {
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 2 && cr.Fields[1].GetAStar() != nil {
		name := cr.Fields[0].GetString_().GetSval()
		for cur := sc; cur != nil; cur = cur.parent {
			if slices.Contains(cur.rels, name) || slices.ContainsFunc(cur.cols, func(c scopeCol) bool { return c.rel == name }) {
				return nil, false, nil
			}
		}
		v, ok := b.routineVar([]string{name}, cr.Location)
		if !ok || !v.typ.IsRecord() {
			return nil, false, nil
		}
		return v, true, nil
	}
	ind := n.GetAIndirection()
	if ind == nil || len(ind.Indirection) == 0 || ind.Indirection[len(ind.Indirection)-1].GetAStar() == nil {
		return nil, false, nil
	}
	arg, err := b.expr(sc, ind.Arg)
	if err != nil {
		return nil, false, err
	}
	if rest := ind.Indirection[:len(ind.Indirection)-1]; len(rest) > 0 {
		if arg, err = b.applyIndirection(sc, arg, rest); err != nil {
			return nil, false, err
		}
	}
	return arg, true, nil
}

// expandFields lists the fields of a composite value as select list
// items, each named after its field; the value is computed once for each
// field, as PostgreSQL computes (f()).*.
func expandFields(arg *scalar) ([]*scalar, []outCol, *pgerror.Error) {
	fields, ok := arg.typ.Fields()
	if arg.typ.ShapeHidden() {
		return nil, nil, errRecordNotRegistered
	}
	if !ok {
		if arg.typ.Oid == types.OidRecord {
			return nil, nil, pgerror.Unsupported(".* of a record of unknown shape")
		}
		return nil, nil, pgerror.Newf(pgerror.DatatypeMismatch, "type %s is not composite", arg.typ)
	}
	var outs []*scalar
	var cols []outCol
	for i, f := range fields {
		eval := arg.eval
		coll := columnCollation(f.Type, "")
		outs = append(outs, &scalar{typ: f.Type, slot: -1, refs: arg.refs, volatile: arg.volatile, name: f.Name, coll: coll,
			eval: func(x *execCtx) (any, error) {
				v, err := eval(x)
				r, _ := v.([]any)
				if err != nil || i >= len(r) {
					return nil, err
				}
				return r[i], nil
			}})
		cols = append(cols, outCol{Name: f.Name, typ: f.Type, coll: coll})
	}
	return outs, cols, nil
}

// starCols returns the columns of sc in the order * lists them.
func starCols(sc *scope) []scopeCol {
	if sc.starOrder == nil {
		return sc.cols
	}
	out := make([]scopeCol, len(sc.starOrder))
	for i, j := range sc.starOrder {
		out[i] = sc.cols[j]
	}
	return out
}

// starRef returns n when it is a * or rel.* of a select list, else nil.
func starRef(n *pg_query.Node) *pg_query.ColumnRef {
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
		return cr
	}
	return nil
}

// starColumns lists the columns a select list's * or rel.* (star) stands
// for in scope sc.
func (b *binder) starColumns(sc *scope, star *pg_query.ColumnRef) ([]scopeCol, error) {
	rel := ""
	if len(star.Fields) >= 2 {
		rel = star.Fields[len(star.Fields)-2].GetString_().GetSval()
	}
	// A table of no columns still brings its system columns; a subquery
	// of no columns brings none, and * of it is no column.
	if sc == nil || len(sc.cols) == 0 {
		if sc != nil && (rel == "" && len(sc.rels) > 0 || slices.Contains(sc.rels, rel)) {
			return nil, nil
		}
		if rel != "" {
			return nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table \"%s\"", rel), star.Location)
		}
		return nil, b.errAt(pgerror.New(pgerror.SyntaxError, "SELECT * with no tables specified is not valid"), star.Location)
	}
	all := starCols(sc)
	if rel != "" {
		if ac := sc.usingAliasCols(rel); ac != nil {
			return ac, nil
		}
		// rel.* lists the relation's own columns in its order, a column
		// merged by USING included.
		all = sc.cols
	}
	var out []scopeCol
	for _, c := range all {
		if c.hidden && !(rel != "" && c.merged) || rel != "" && c.rel != rel {
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 && rel != "" && !slices.ContainsFunc(sc.cols, func(c scopeCol) bool { return c.rel == rel }) {
		return nil, b.errAt(pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table \"%s\"", rel), star.Location)
	}
	return out, nil
}

// starColumnRef is the reference to column c that a * or rel.* (star)
// stands for: qualified as the star is, or by the column's relation, but
// unqualified for a column USING merged under another type or with no
// relation of its own (FULL JOIN ... USING), whose unqualified name is the
// merged column.
func starColumnRef(star *pg_query.ColumnRef, c scopeCol) *pg_query.Node {
	var fields []*pg_query.Node
	switch {
	case len(star.Fields) > 1:
		fields = append(fields, star.Fields[:len(star.Fields)-1]...)
	case c.rel != "" && c.usingType.Oid == 0:
		fields = append(fields, pg_query.MakeStrNode(c.rel))
	}
	return pg_query.MakeColumnRefNode(append(fields, pg_query.MakeStrNode(c.name)), star.Location)
}

// frozenParts are what PostgreSQL fixes in a view's query when it stores
// it: the columns each * and rel.* of a select list stands for, and the
// common columns of each NATURAL join.
type frozenParts struct {
	stars   map[*pg_query.ColumnRef][]*pg_query.Node
	natural map[*pg_query.JoinExpr][]string
}

func newFrozenParts() *frozenParts {
	return &frozenParts{stars: map[*pg_query.ColumnRef][]*pg_query.Node{}, natural: map[*pg_query.JoinExpr][]string{}}
}

// freezeQuery rewrites query, as bound with parts recording, into the
// query a view stores: each star replaced by the columns it stood for and
// each NATURAL join by a join USING its common columns, so that columns
// added to its tables later change neither its columns nor its joins.
func freezeQuery(query *pg_query.Node, parts *frozenParts) {
	walk(query, func(n *pg_query.Node) bool {
		if j := n.GetJoinExpr(); j != nil && j.IsNatural {
			if names, ok := parts.natural[j]; ok {
				j.IsNatural = false
				j.UsingClause = nil
				for _, name := range names {
					j.UsingClause = append(j.UsingClause, pg_query.MakeStrNode(name))
				}
			}
		}
		sel := n.GetSelectStmt()
		if sel == nil {
			return true
		}
		var out []*pg_query.Node
		for _, t := range sel.TargetList {
			refs, ok := parts.stars[t.GetResTarget().GetVal().GetColumnRef()]
			if !ok {
				out = append(out, t)
				continue
			}
			for _, r := range refs {
				out = append(out, &pg_query.Node{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: r, Location: t.GetResTarget().Location}}})
			}
		}
		sel.TargetList = out
		return true
	})
}
