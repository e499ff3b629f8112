package sqlexec

import (
	"encoding/binary"
	"slices"
	"sort"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// aggScope compiles the expressions above a GROUP BY: they read the
// aggregation row, which holds the group values then the aggregate results.
type aggScope struct {
	from *scope
	// fixed says the level aggregates whatever level its aggregate calls
	// belong to: it has GROUP BY or HAVING, or a subquery's aggregate
	// belongs to it.
	fixed bool
	// ungrouped is the first reference to an ungrouped column met while
	// the select list of a level that is not fixed compiles: an error
	// only if the level still aggregates once its aggregates' levels are
	// known (select.go raises it then).
	ungrouped error
	groups    []groupEntry
	aggs      []*aggEntry
	// sets are the grouping sets (agg_grouping_sets.go), each the indexes
	// of its groups; nil for a plain GROUP BY, one set of every group.
	// With sets, the aggregation row ends with the index of its set.
	sets [][]int
	// srf, when set, holds the set-returning calls of GROUP BY
	// expressions: each input row is aggregated once for every row of
	// their expansion.
	srf *srfScope
}

type groupEntry struct {
	key string
	e   *scalar
	// text is the key as EXPLAIN prints it.
	text string
	// column is the select-list expression the entry groups by, as
	// PostgreSQL resolves a GROUP BY item to an output column (the one a
	// name or position names, else the first equal to it); nil for none.
	// Two output columns of one expression are two PostgreSQL groups,
	// which fickle's entry cannot tell apart (twoColumns).
	column     *pg_query.Node
	twoColumns bool
}

type aggEntry struct {
	key      string
	fn       *types.Aggregate
	args     []*scalar
	distinct bool
	filter   *scalar
	// orderBy and order are the call's ORDER BY (array_agg(x ORDER BY
	// y)): the group's inputs are sorted by them before the aggregate
	// sees them.
	orderBy []*scalar
	order   []sortKey
	// sortArgs sorts the inputs of a DISTINCT call without ORDER BY by its
	// arguments (order holds their keys): PostgreSQL sorts them to drop
	// the repeats, so array_agg(DISTINCT x) lists its values in order.
	sortArgs bool
	// direct are the direct arguments of an ordered-set or
	// hypothetical-set aggregate, compiled over the aggregation row and
	// given to its accumulator (directArgsAcc) once per group.
	direct []*scalar
}

// implementable is the planner's check that PostgreSQL can group the
// rows: a grouping set with a key it cannot sort (xid) is hashed, which
// needs every key of the set hashable (bit is not) and no aggregate with
// ORDER BY or DISTINCT; 0A000 otherwise.
func (agg *aggScope) implementable() error {
	canHash := true
	for _, a := range agg.aggs {
		if a.distinct || len(a.orderBy) > 0 {
			canHash = false
		}
	}
	sets := agg.sets
	if sets == nil {
		all := make([]int, len(agg.groups))
		for i := range all {
			all[i] = i
		}
		sets = [][]int{all}
	}
	for _, set := range sets {
		keys := make([]types.Type, len(set))
		for i, g := range set {
			keys[i] = agg.groups[g].e.typ
		}
		if err := types.GroupingImplementationError("GROUP BY", keys, canHash); err != nil {
			return err
		}
	}
	return nil
}

// groupBy compiles the GROUP BY list in the FROM scope. Ordinals and
// output-column names refer to the select list, as in PostgreSQL.
func (b *binder) groupBy(agg *aggScope, groups []*pg_query.Node, targets []*pg_query.Node, distinct bool) error {
	if hasGroupingSets(groups) {
		return b.groupingSets(agg, groups, targets, distinct)
	}
	for _, g := range groups {
		if _, err := b.setUnit(agg, g, targets); err != nil {
			return err
		}
	}
	return nil
}

// outputExprs are the expressions of a select list's output columns, in
// order, a * or rel.* standing for a reference to each of its columns.
func (b *binder) outputExprs(sc *scope, targets []*pg_query.Node) ([]*pg_query.Node, error) {
	var out []*pg_query.Node
	for _, t := range targets {
		val := t.GetResTarget().Val
		cr := starRef(val)
		if cr == nil {
			out = append(out, val)
			continue
		}
		cols, err := b.starColumns(sc, cr)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			out = append(out, starColumnRef(cr, c))
		}
	}
	return out, nil
}

// groupEntry compiles one GROUP BY expression (an output column's position
// or name standing for its expression) and returns its index in
// agg.groups, where an equal expression is entered once.
func (b *binder) groupEntry(agg *aggScope, g *pg_query.Node, targets []*pg_query.Node) (int, error) {
	{
		n := g
		var column *pg_query.Node
		if c := g.GetAConst(); c != nil && c.GetIval() != nil {
			vals, err := b.outputExprs(agg.from, targets)
			if err != nil {
				return 0, err
			}
			i := int(c.GetIval().Ival)
			if i < 1 || i > len(vals) {
				return 0, b.errAt(pgerror.Newf(pgerror.InvalidColumnReference, "GROUP BY position %d is not in select list", i), c.Location)
			}
			n = vals[i-1]
			column = n
		} else if cr := g.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			name := cr.Fields[0].GetString_().Sval
			if !scopeHas(agg.from, name) {
				for _, t := range targets {
					if rt := t.GetResTarget(); rt.Name == name {
						n, column = rt.Val, rt.Val
						break
					}
				}
			}
		}
		if n.GetRowExpr() != nil {
			return 0, pgerror.Unsupported("GROUP BY a row constructor")
		}
		key := b.groupKey(agg.from, n)
		if column == nil {
			for _, t := range targets {
				if rt := t.GetResTarget(); starRef(rt.Val) == nil && b.groupKey(agg.from, rt.Val) == key {
					column = rt.Val
					break
				}
			}
		}
		for i, g := range agg.groups {
			if g.key == key {
				if column != g.column {
					agg.groups[i].twoColumns = true
				}
				return i, nil
			}
		}
		agg.from.noAggWin = "GROUP BY"
		if b.containsSetCall(n) {
			// PostgreSQL expands the call below the grouping (a ProjectSet
			// over the scan) and groups the rows it makes.
			if agg.srf == nil {
				agg.srf = &srfScope{}
			}
			agg.from.srf = agg.srf
		}
		e, err := b.expr(agg.from, n)
		agg.from.noAggWin, agg.from.srf = "", nil
		if err != nil {
			return 0, err
		}
		if unresolved(e) || e.lit != nil || e.null {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return 0, err
			}
		}
		if err := types.EqualityOperatorError(e.typ); err != nil {
			return 0, err
		}
		if e.coll.strength == collConflict {
			return 0, b.errAt(e.coll.conflictError(), exprLocation(n))
		}
		agg.groups = append(agg.groups, groupEntry{key: key, e: e, text: predicateText(n), column: column})
		return len(agg.groups) - 1, nil
	}
}

// groupKey is n's key for matching an expression with a GROUP BY one: its
// tree without locations, each reference to a column of the query's own
// FROM (from) replaced by the column it resolves to, so that a, t.a and
// s.t.a match, as PostgreSQL compares the expressions after resolving
// their Vars.
func (b *binder) groupKey(from *scope, n *pg_query.Node) string {
	c := proto.Clone(n).(*pg_query.Node)
	walk(c, func(m *pg_query.Node) bool {
		if m.GetSubLink() != nil {
			return false
		}
		cr := m.GetColumnRef()
		if cr == nil {
			return true
		}
		if slices.ContainsFunc(cr.Fields, func(f *pg_query.Node) bool { return f.GetAStar() != nil }) {
			return false
		}
		var e *scalar
		var err error
		b.aside(func() { e, err = b.expr(from, m) })
		if err == nil && e.slot >= 0 {
			m.Node = &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{pg_query.MakeStrNode("\x00" + strconv.Itoa(e.slot))}}}
		} else if err == nil && e.outID != 0 {
			m.Node = &pg_query.Node_ColumnRef{ColumnRef: &pg_query.ColumnRef{Fields: []*pg_query.Node{pg_query.MakeStrNode("\x01" + strconv.Itoa(e.outID))}}}
		}
		return false
	})
	return nodeKey(c)
}

func scopeHas(sc *scope, name string) bool {
	for _, c := range sc.cols {
		if c.name == name {
			return true
		}
	}
	return false
}

// aggLookup compiles n when it is a GROUP BY expression or an aggregate
// call; ok is false otherwise and compilation descends into n.
func (b *binder) aggLookup(sc *scope, n *pg_query.Node) (*scalar, bool, error) {
	agg := sc.agg
	if n.GetAConst() != nil || n.GetParamRef() != nil {
		return nil, false, nil
	}
	if cr := n.GetColumnRef(); cr != nil {
		if call := b.notationAggregate(agg.from, cr); call != nil {
			n = call
		}
	}
	key := b.groupKey(agg.from, n)
	for i, g := range agg.groups {
		if g.key == key {
			return aggSlot(i, g.e.typ, g.e.name), true, nil
		}
	}
	if cr := n.GetColumnRef(); cr != nil {
		e, err := b.expr(agg.from, n)
		if err != nil {
			return nil, false, err
		}
		col := e
		if e.usingOf != nil {
			col = e.usingOf
		}
		for i, g := range agg.groups {
			if col.slot >= 0 && g.e.slot == col.slot {
				grouped := aggSlot(i, g.e.typ, e.name)
				if col != e {
					// The merged column of a USING join grouped by its
					// left column: converted as the reference reads it.
					grouped, err = b.coerce(grouped, e.typ, types.CastImplicit)
				}
				return grouped, true, err
			}
		}
		if e.refs == 0 {
			return e, true, nil
		}
		if b.dependsOnGroupedKey(agg, e) {
			return agg.dependent(key, e), true, nil
		}
		return nil, false, nil
	}
	fc := n.GetFuncCall()
	if fc == nil || fc.Over != nil {
		return nil, false, nil
	}
	name := strings.ToLower(lastName(fc.Funcname))
	userAgg := b.userAggregateNamed(strs(fc.Funcname))
	if !fc.AggStar && !fc.AggWithinGroup && !types.IsAggregate(name) && !userAgg {
		return nil, false, nil
	}
	for i, a := range agg.aggs {
		if a.key == key {
			return aggSlot(len(agg.groups)+i, a.fn.Result, name), true, nil
		}
	}
	if fc.AggWithinGroup && userAgg {
		return nil, true, b.errAt(pgerror.Unsupported("WITHIN GROUP on a user-defined aggregate"), fc.Location)
	}
	from := agg.from
	if fc.AggWithinGroup {
		level, err := b.aggLevelOf(from, fc)
		if err != nil {
			return nil, true, err
		}
		if level > 0 {
			e, err := b.aggregateOfLevel(agg, n, fc, level)
			return e, true, err
		}
		e, err := b.orderedSetAggregate(agg, fc, key, name)
		return e, true, err
	}
	from.noAgg = "aggregate function calls"
	defer func() { from.noAgg = "" }()
	args := make([]*scalar, len(fc.Args))
	ts := make([]types.Type, len(fc.Args))
	// PostgreSQL places an aggregate at the innermost level whose columns
	// or aggregates its arguments, ORDER BY or FILTER read (agg_levels.go);
	// refs collects them over the three parts, compiled in PostgreSQL's
	// order.
	refs := &aggRefs{}
	subplans := len(b.subplans)
	compileNotingRefs := func(compile func() error) error {
		b.aggRefs = append(b.aggRefs, refs)
		err := compile()
		b.aggRefs = b.aggRefs[:len(b.aggRefs)-1]
		return err
	}
	err := compileNotingRefs(func() error {
		for i, a := range fc.Args {
			e, err := b.expr(from, a)
			if err != nil {
				return err
			}
			args[i] = e
		}
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	var fn *types.Aggregate
	if userAgg {
		fn, args, err = b.userAggregate(fc, args)
		if err != nil {
			return nil, true, err
		}
	}
	// An untyped literal or parameter takes the type of the argument of
	// the overload it resolves to (string_agg(bytea_col, '') is
	// string_agg(bytea, bytea)), as in function calls; count, min and max
	// make it text, and the polymorphic aggregates resolve it themselves.
	overloaded := types.AggregateOverloaded(name)
	for i, e := range args {
		if fn == nil && (unresolved(e) || e.lit != nil) && !overloaded && !types.AggregateIsPolymorphic(name) {
			if e, err = b.coerce(e, types.Text, types.CastImplicit); err != nil {
				return nil, true, err
			}
		}
		args[i], ts[i] = e, e.typ
	}
	if fn == nil {
		if fn, err = types.ResolveAggregate(name, ts, fc.AggStar); err != nil {
			return nil, true, b.withPos(err, fc.Location)
		}
		if overloaded {
			if fn, err = b.typeAggregateArgs(name, fn, args, ts); err != nil {
				return nil, true, b.withPos(err, fc.Location)
			}
		}
	}
	if err := b.citextOutOfPath(fn.Args...); err != nil {
		return nil, true, b.errAt(err, fc.Location)
	}
	if fc.AggDistinct {
		for i, a := range args {
			if err := types.EqualityOperatorError(a.typ); err != nil {
				return nil, true, b.errAt(err, exprLocation(fc.Args[i]))
			}
		}
		for i, a := range args {
			if err := types.OrderingOperatorError(a.typ); err != nil {
				err.Hint = ""
				return nil, true, b.errAt(err.WithDetail("Aggregates with DISTINCT must be able to sort their inputs."), exprLocation(fc.Args[i]))
			}
		}
	}
	ent := &aggEntry{key: key, fn: fn, args: args, distinct: fc.AggDistinct}
	if err := compileNotingRefs(func() (err error) {
		ent.orderBy, ent.order, err = b.sortClause(from, fc.AggOrder, false)
		return err
	}); err != nil {
		return nil, true, err
	}
	if ent.distinct && len(ent.orderBy) == 0 {
		ent.sortArgs = true
		for j, a := range args {
			ent.order = append(ent.order, sortKey{col: j, typ: a.typ})
		}
	}
	if ent.distinct && !orderedByArguments(fc) {
		return nil, true, b.errAt(pgerror.New(pgerror.InvalidColumnReference,
			"in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"), fc.Location)
	}
	if fc.AggFilter != nil {
		if err := compileNotingRefs(func() (err error) {
			ent.filter, err = b.filterClause(from, fc.AggFilter)
			return err
		}); err != nil {
			return nil, true, err
		}
	}
	level, nested := refs.level(from)
	switch {
	case nested >= 0:
		return nil, true, b.errNestedAggregate(nested)
	case level > 0:
		// PostgreSQL evaluates such an aggregate in the outer query
		// ((SELECT max(o.x)) aggregates over o's rows).
		b.subplans = b.subplans[:subplans]
		from.noAgg = ""
		e, err := b.aggregateOfLevel(agg, n, fc, level)
		return e, true, err
	case refs.ungrouped != nil:
		return nil, true, refs.ungrouped
	}
	agg.aggs = append(agg.aggs, ent)
	return aggSlot(len(agg.groups)+len(agg.aggs)-1, fn.Result, name), true, nil
}

// orderedByArguments reports whether every ORDER BY expression of a call
// is one of its arguments, as DISTINCT requires.
func orderedByArguments(fc *pg_query.FuncCall) bool {
	args := map[string]bool{}
	for _, a := range fc.Args {
		args[nodeKey(a)] = true
	}
	for _, o := range fc.AggOrder {
		if !args[nodeKey(o.GetSortBy().Node)] {
			return false
		}
	}
	return true
}

// notingOuterRefs runs compile and reports whether it resolved columns of
// the levels from parent outwards (the pending bits it set there).
func (b *binder) notingOuterRefs(parent *scope, compile func() error) (bool, error) {
	var saved []uint64
	for cur := parent; cur != nil; cur = cur.parent {
		saved = append(saved, cur.pending)
		cur.pending = 0
	}
	err := compile()
	outer := false
	i := 0
	for cur := parent; cur != nil; cur = cur.parent {
		outer = outer || cur.pending != 0
		cur.pending |= saved[i]
		i++
	}
	return outer, err
}

// typeAggregateArgs gives the untyped literals and parameters among args
// (of types ts) the types of aggregate fn's arguments, and returns the
// aggregate resolved again over the typed arguments.
func (b *binder) typeAggregateArgs(name string, fn *types.Aggregate, args []*scalar, ts []types.Type) (*types.Aggregate, error) {
	typed := false
	for i, e := range args {
		if (unresolved(e) || e.lit != nil) && i < len(fn.Args) {
			ce, err := b.coerce(e, fn.Args[i], types.CastImplicit)
			if err != nil {
				return nil, err
			}
			args[i], ts[i], typed = ce, ce.typ, true
		}
	}
	if !typed {
		return fn, nil
	}
	return types.ResolveAggregate(name, ts, false)
}

// errOuterAggregate refuses an aggregate of an enclosing query level met
// where fickle cannot place it in that level (agg_levels.go).
var errOuterAggregate = pgerror.Unsupported("an aggregate of an outer query's columns in this clause of a subquery")

// outerGroupSlot is the place in agg's aggregation row of the FROM column
// c that a subquery above the GROUP BY references: the column's group.
// Any other column is PostgreSQL's 42803; one functionally dependent on
// a grouped primary key, which PostgreSQL reads, is refused.
func (b *binder) outerGroupSlot(agg *aggScope, c scopeCol, loc int32) (int, error) {
	for i, g := range agg.groups {
		if c.slot >= 0 && g.e.slot == c.slot || c.outID != 0 && g.e.outID == c.outID {
			return i, nil
		}
	}
	if b.dependsOnGroupedKey(agg, &scalar{typ: c.typ, slot: c.slot}) {
		return 0, b.errAt(pgerror.Unsupported("a subquery's reference to an outer column that depends on the grouped primary key"), loc)
	}
	name := c.name
	if c.rel != "" {
		name = c.rel + "." + c.name
	}
	return 0, b.errAt(pgerror.Newf(pgerror.GroupingError, "subquery uses ungrouped column \"%s\" from outer query", name), loc)
}

// inEverySet reports whether the group of that index is in every grouping
// set (so in every group without grouping sets).
func (agg *aggScope) inEverySet(group int) bool {
	for _, set := range agg.sets {
		if !slices.Contains(set, group) {
			return false
		}
	}
	return true
}

// dependsOnGroupedKey reports whether column e is functionally dependent
// on the GROUP BY list: every column of its table's primary key is grouped
// by, for the same FROM item, in every grouping set, as PostgreSQL allows.
func (b *binder) dependsOnGroupedKey(agg *aggScope, e *scalar) bool {
	if e.slot < 0 {
		return false
	}
	var col *scopeCol
	for i := range agg.from.cols {
		if agg.from.cols[i].slot == e.slot {
			col = &agg.from.cols[i]
		}
	}
	if col == nil || col.tableOID == 0 {
		return false
	}
	t := b.cat.tables[col.tableOID]
	if t == nil || t.pk == nil {
		return false
	}
	for _, pc := range t.pk {
		grouped := false
		for _, c := range agg.from.cols {
			if c.item != col.item || c.tableOID != t.oid || c.attnum != t.cols[pc].attnum {
				continue
			}
			for gi, g := range agg.groups {
				grouped = grouped || g.e.slot == c.slot && agg.inEverySet(gi)
			}
		}
		if !grouped {
			return false
		}
	}
	if !slices.Contains(b.groupedKeys, t.oid) {
		b.groupedKeys = append(b.groupedKeys, t.oid)
	}
	return true
}

// dependent compiles a column that depends on the grouped primary key: it
// has one value per group, which an aggregate that keeps the first row's
// value carries to the aggregation row.
func (agg *aggScope) dependent(key string, e *scalar) *scalar {
	key = "dependent:" + key
	for i, a := range agg.aggs {
		if a.key == key {
			return aggSlot(len(agg.groups)+i, e.typ, e.name)
		}
	}
	fn := &types.Aggregate{Name: "dependent", Args: []types.Type{e.typ}, Result: e.typ, New: func(*types.Env) types.Accumulator { return &firstValue{} }}
	agg.aggs = append(agg.aggs, &aggEntry{key: key, fn: fn, args: []*scalar{e}})
	return aggSlot(len(agg.groups)+len(agg.aggs)-1, e.typ, e.name)
}

// firstValue keeps the value of a group's first row.
type firstValue struct {
	v   any
	set bool
}

func (f *firstValue) Add(args []any) error {
	if !f.set {
		f.v, f.set = args[0], true
	}
	return nil
}

func (f *firstValue) Result() (any, error) { return f.v, nil }

func aggSlot(i int, t types.Type, name string) *scalar {
	return &scalar{typ: t, slot: -1, name: name, eval: func(x *execCtx) (any, error) { return x.row[i], nil }}
}

// aggRun accumulates the groups of one execution.
type aggRun struct {
	s      *aggScope
	env    *types.Env
	groups map[string]*groupState
	order  []*groupState
	buf    []byte
	in     []aggInput // the current row's inputs (inputs), reused
	// x is the context of the row being aggregated (add) or of the
	// groups being finished (finish), in which the accumulators of user
	// aggregates evaluate their support functions.
	x *execCtx
}

type groupState struct {
	set  int // the index of its grouping set; 0 without sets
	vals []any
	accs []types.Accumulator
	seen []map[string]bool // per DISTINCT aggregate
	// inputs holds, per aggregate with an ORDER BY, its arguments and
	// sort keys, fed to it sorted when the group is complete.
	inputs [][]orderedInput
}

// orderedInput is one row's input to an ordered aggregate.
type orderedInput struct {
	args, keys []any
}

func (a *aggScope) start(env *types.Env) *aggRun {
	return &aggRun{s: a, env: env, groups: map[string]*groupState{}}
}

func (r *aggRun) newGroup(set int, vals []any) *groupState {
	g := &groupState{set: set, vals: vals, accs: make([]types.Accumulator, len(r.s.aggs)), seen: make([]map[string]bool, len(r.s.aggs)),
		inputs: make([][]orderedInput, len(r.s.aggs))}
	for i, a := range r.s.aggs {
		g.accs[i] = a.fn.New(r.env)
		if ua, ok := g.accs[i].(*userAcc); ok {
			ua.run = func() *execCtx { return r.x }
		}
		if a.distinct {
			g.seen[i] = map[string]bool{}
		}
	}
	r.order = append(r.order, g)
	return g
}

// aggInput is one row's input to one aggregate: skip when its FILTER
// rejected the row, its arguments, and its ORDER BY keys.
type aggInput struct {
	skip       bool
	args, keys []any
}

// add folds the current row of x into its group, or into its group of
// every grouping set.
func (r *aggRun) add(x *execCtx) error {
	r.x = x
	vals := make([]any, len(r.s.groups))
	for i, g := range r.s.groups {
		v, err := g.e.eval(x)
		if err != nil {
			return err
		}
		vals[i] = v
	}
	in, err := r.inputs(x)
	if err != nil {
		return err
	}
	if r.s.sets == nil {
		return r.feed(r.group(0, nil, vals), in)
	}
	for si, set := range r.s.sets {
		if err := r.feed(r.group(si, set, vals), in); err != nil {
			return err
		}
	}
	return nil
}

// group returns the group of vals in grouping set si, whose members are
// set (every group without sets), making it if it is new.
func (r *aggRun) group(si int, set []int, vals []any) *groupState {
	r.buf = r.buf[:0]
	if r.s.sets != nil {
		r.buf = binary.AppendUvarint(r.buf, uint64(si))
		grouped := make([]any, len(vals))
		for _, i := range set {
			grouped[i] = vals[i]
			r.buf = types.AppendKey(r.buf, r.s.groups[i].e.typ, vals[i])
		}
		vals = grouped
	} else {
		for i, g := range r.s.groups {
			r.buf = types.AppendKey(r.buf, g.e.typ, vals[i])
		}
	}
	g := r.groups[string(r.buf)]
	if g == nil {
		g = r.newGroup(si, vals)
		r.groups[string(r.buf)] = g
	}
	return g
}

// inputs evaluates each aggregate's FILTER, arguments and ORDER BY keys on
// the current row of x, once whatever the number of grouping sets.
func (r *aggRun) inputs(x *execCtx) ([]aggInput, error) {
	if r.in == nil {
		r.in = make([]aggInput, len(r.s.aggs))
	}
	in := r.in
	for i, a := range r.s.aggs {
		in[i] = aggInput{}
		if a.filter != nil {
			v, err := a.filter.eval(x)
			if err != nil {
				return nil, err
			}
			if v != true {
				in[i].skip = true
				continue
			}
		}
		in[i].args = make([]any, len(a.args))
		for j, e := range a.args {
			v, err := e.eval(x)
			if err != nil {
				return nil, err
			}
			in[i].args[j] = v
		}
		if a.sortArgs {
			in[i].keys = in[i].args
		}
		if len(a.orderBy) > 0 {
			in[i].keys = make([]any, len(a.orderBy))
			for j, e := range a.orderBy {
				v, err := e.eval(x)
				if err != nil {
					return nil, err
				}
				in[i].keys[j] = v
			}
		}
	}
	return in, nil
}

// feed gives group g one row's inputs.
func (r *aggRun) feed(g *groupState, in []aggInput) error {
	for i, a := range r.s.aggs {
		if in[i].skip {
			continue
		}
		args := in[i].args
		if a.distinct {
			var k []byte
			for j, e := range a.args {
				k = types.AppendKey(k, e.typ, args[j])
			}
			if g.seen[i][string(k)] {
				continue
			}
			g.seen[i][string(k)] = true
		}
		if len(a.orderBy) > 0 || a.sortArgs {
			g.inputs[i] = append(g.inputs[i], orderedInput{args: args, keys: in[i].keys})
			continue
		}
		if err := g.accs[i].Add(args); err != nil {
			return err
		}
	}
	return nil
}

// feedOrdered gives the ordered aggregates of g their inputs, sorted.
func (r *aggRun) feedOrdered(g *groupState) error {
	for i, in := range g.inputs {
		if len(in) == 0 {
			continue
		}
		order := r.s.aggs[i].order
		sort.SliceStable(in, func(a, b int) bool { return compareKeys(in[a].keys, in[b].keys, order) < 0 })
		for _, o := range in {
			if err := g.accs[i].Add(o.args); err != nil {
				return err
			}
		}
		g.inputs[i] = nil
	}
	return nil
}

// finish computes every group's aggregation row (its group values, then
// its aggregates' results) and keeps those HAVING accepts.
func (r *aggRun) finish(x *execCtx, having *scalar) ([][]any, error) {
	r.x = x
	if len(r.order) == 0 && len(r.s.groups) == 0 && r.s.sets == nil {
		r.newGroup(0, nil)
	}
	for si, set := range r.s.sets {
		if len(set) == 0 {
			r.group(si, set, make([]any, len(r.s.groups))) // one row even for no input
		}
	}
	width := len(r.s.groups) + len(r.s.aggs)
	if r.s.sets != nil {
		width++
	}
	var out [][]any
	for _, g := range r.order {
		if err := r.feedOrdered(g); err != nil {
			return nil, err
		}
		row := make([]any, width)
		copy(row, g.vals)
		if r.s.sets != nil {
			row[width-1] = g.set
		}
		x.row = row
		// Direct arguments read the group's values and the columns that
		// depend on them, computed first.
		for _, withDirect := range []bool{false, true} {
			for i, acc := range g.accs {
				a := r.s.aggs[i]
				if (a.direct != nil) != withDirect {
					continue
				}
				if withDirect {
					vals := make([]any, len(a.direct))
					for j, e := range a.direct {
						v, err := e.eval(x)
						if err != nil {
							return nil, err
						}
						vals[j] = v
					}
					acc.(directArgsAcc).setDirect(vals)
				}
				v, err := acc.Result()
				if err != nil {
					return nil, err
				}
				row[len(r.s.groups)+i] = v
			}
		}
		if having != nil {
			v, err := having.eval(x)
			if err != nil {
				return nil, err
			}
			if v != true {
				continue
			}
		}
		out = append(out, row)
	}
	return out, nil
}
