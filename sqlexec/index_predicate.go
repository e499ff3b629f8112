package sqlexec

import (
	"context"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// indexRowEval is a partial or expression index's predicate and key
// expressions compiled over its table's row layout: what decides whether a
// row is in the index and what its key is, when the key is not just
// columns of every row.
type indexRowEval struct {
	// pred is the partial index's WHERE predicate, nil for none.
	pred *scalar
	// cols and exprs are, per key position, the column (-1 for an
	// expression) and the compiled expression (nil for a column); typs are
	// the positions' types, which the key is encoded with.
	cols  []int
	exprs []*scalar
	typs  []types.Type
	// nullsNotDistinct is the index's NULLS NOT DISTINCT (storeKey).
	nullsNotDistinct bool
	// cat is the catalog the expressions were compiled against
	// (execCtx.exprCatalog).
	cat *catalog
}

// onColumnsOnly reports whether ix is a plain index: every row is in it and
// every key position is a column. Only plain indexes answer queries,
// foreign keys, partition index matching and FOR KEY SHARE's key columns,
// as in PostgreSQL (whose planner may use a partial index only where the
// query implies its predicate: fickle never does, the simplest correct
// choice). An exclusion constraint's index is not one: its store key
// holds only the elements compared by equality (ddl_exclusion.go).
func (ix *indexDesc) onColumnsOnly() bool {
	return ix.pred == nil && ix.exprs == nil && ix.excl == nil
}

// compileIndexRows compiles ix's predicate and expressions over t's
// columns, nil for a plain index. The predicate must be boolean; neither
// may use subqueries, aggregates, window or set-returning functions, or
// functions that are not immutable, with PostgreSQL's errors.
func (b *binder) compileIndexRows(t *tableDesc, ix *indexDesc) (*indexRowEval, error) {
	if ix.onColumnsOnly() {
		return nil, nil
	}
	ev := &indexRowEval{cols: ix.cols, exprs: make([]*scalar, len(ix.cols)), typs: make([]types.Type, len(ix.cols)),
		nullsNotDistinct: ix.nullsNotDistinct, cat: b.cat}
	if ix.pred != nil {
		e, err := b.indexExpr(t, ix.pred, "index predicate")
		if err != nil {
			return nil, err
		}
		if e, err = b.requireBool(e, "WHERE", ix.pred); err != nil {
			return nil, err
		}
		ev.pred = e
	}
	for i, c := range ix.cols {
		if c >= 0 {
			ev.typs[i] = t.cols[c].typ
			continue
		}
		e, err := b.indexExpr(t, ix.exprs[i], "index expression")
		if err != nil {
			return nil, err
		}
		ev.exprs[i], ev.typs[i] = e, e.typ
	}
	return ev, nil
}

// indexExpr compiles one index predicate or key expression (what names
// it, as PostgreSQL's messages do) over t's columns.
func (b *binder) indexExpr(t *tableDesc, n *pg_query.Node, what string) (*scalar, error) {
	if containsSubLink(n) {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "cannot use subquery in %s", what)
	}
	sc := tableScope(t, t.name)
	sc.noAgg = what + "s"
	calls, routines, opaque := b.mutableCalls, b.routineCalls, b.mutableOpaqueCalls
	e, err := b.expr(sc, n)
	if err != nil {
		return nil, err
	}
	if b.routineCalls != routines && b.mutableOpaqueCalls == opaque {
		// PostgreSQL inlines a simple SQL function before it checks
		// volatility, and fickle evaluates index keys without a session.
		return nil, pgerror.Unsupported("user-defined functions in index expressions and predicates")
	}
	if e.volatile || b.mutableCalls != calls {
		return nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
	}
	return e, nil
}

// indexEvalEnv is the environment index predicates and expressions are
// evaluated in: none of a session, since they are immutable; evaluation
// only reads it.
var indexEvalEnv = &types.Env{}

// eval evaluates the predicate over row, then each key position, calling
// put with the position and its value: in is false when the predicate
// leaves the row out, err an error evaluating the predicate or an
// expression (a panic included, reported as 0A000 rather than crashing
// the store, which calls Key under its lock).
func (ev *indexRowEval) eval(row []any, put func(i int, v any)) (in bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			in, err = false, pgerror.Newf(pgerror.FeatureNotSupported, "index expression cannot be evaluated without a session: %v", r)
		}
	}()
	x := &execCtx{ctx: context.Background(), env: indexEvalEnv, row: row, exprCatalog: ev.cat}
	if ev.pred != nil {
		v, err := ev.pred.eval(x)
		if err != nil || v != true {
			return false, err
		}
	}
	for i, c := range ev.cols {
		v := any(nil)
		if e := ev.exprs[i]; e != nil {
			if v, err = e.eval(x); err != nil {
				return false, err
			}
		} else {
			v = row[c]
		}
		put(i, v)
	}
	return true, nil
}

// values computes row's key values in the index, with eval's in and err.
func (ev *indexRowEval) values(row []any) (vals []any, in bool, err error) {
	vals = make([]any, len(ev.cols))
	in, err = ev.eval(row, func(i int, v any) { vals[i] = v })
	if err != nil || !in {
		return nil, in, err
	}
	return vals, true, nil
}

// key computes row's key in the index, with eval's in and err; hasNull
// reports a NULL key value.
func (ev *indexRowEval) key(dst []byte, row []any) (key []byte, hasNull, in bool, err error) {
	key = dst
	in, err = ev.eval(row, func(i int, v any) {
		hasNull = hasNull || v == nil
		key = types.AppendKey(key, ev.typs[i], v)
	})
	if err != nil || !in {
		return nil, false, in, err
	}
	return key, hasNull, true, nil
}

// castIsMutable reports whether PostgreSQL's cast from one type to another
// is not immutable: the stable cast functions of pg_cast (those through
// timestamptz, money and regclass), and the text conversions whose input
// or output function is stable (dates and times read or printed by
// DateStyle, TimeZone or IntervalStyle, enums, money).
func castIsMutable(from, to types.Type) bool {
	textual := func(t types.Type) bool {
		switch t.Oid {
		case types.OidText, types.OidVarchar, types.OidBpchar, types.OidName:
			return true
		}
		return false
	}
	switch {
	case from.Oid == to.Oid:
		return false
	case from.Oid == types.OidTimestamptz || to.Oid == types.OidTimestamptz:
		return true
	case from.Oid == types.OidMoney || to.Oid == types.OidMoney || to.Oid == types.OidRegclass:
		return true
	case from.Oid == types.OidTime && to.Oid == types.OidTimetz:
		return true
	case from.IsEnum() && textual(to) || to.IsEnum() && textual(from):
		return true
	case textual(from):
		switch to.Oid {
		case types.OidDate, types.OidTime, types.OidTimetz, types.OidTimestamp, types.OidInterval:
			return true
		}
	case textual(to):
		switch from.Oid {
		case types.OidDate, types.OidTimestamp, types.OidInterval:
			return true
		}
	}
	return false
}

// storeKey is the store's IndexSpec.Key of a partial or expression index:
// a row the predicate leaves out, or whose key fails to evaluate (the
// write path reports that error first, see checkIndexRows), is listed
// under the empty key and never conflicts.
func (ev *indexRowEval) storeKey(dst []byte, row []any) ([]byte, bool) {
	key, hasNull, in, err := ev.key(dst, row)
	if err != nil || !in {
		return nil, true
	}
	return key, hasNull && !ev.nullsNotDistinct
}

// checkIndexRows evaluates the predicates and expressions of t's indexes
// over a row about to be written, failing with the error of the first
// that fails, as PostgreSQL's index insertion does.
func (t *tableDesc) checkIndexRows(row []any) error {
	for _, ix := range t.indexes {
		if ix.rows == nil {
			continue
		}
		if _, _, err := ix.rows.values(row); err != nil {
			return err
		}
	}
	return nil
}

// buildIndexRows evaluates a new partial or expression index over t's
// existing rows, so that CREATE INDEX fails with the first evaluation
// error as PostgreSQL's index build does.
func (d *ddl) buildIndexRows(t *tableDesc, ev *indexRowEval) error {
	if ev == nil {
		return nil
	}
	return d.scanRows(t, func(row []any) error {
		_, _, err := ev.values(row)
		return err
	})
}

// predicateText is pg_index.indpred: the predicate's SQL text, which
// pg_get_expr prints as ruleutils does; NULL for a plain index.
func (ix *indexDesc) predicateText() any {
	if ix.pred == nil {
		return nil
	}
	return deparseExpr(ix.pred)
}

// predicateClause is the " WHERE ..." pg_get_indexdef appends for a
// partial index of table t, empty for others; the predicate prints as
// ruleutils prints it, its outer parentheses only when not pretty.
func (ix *indexDesc) predicateClause(s *Session, c *catalog, t *tableDesc, pretty bool) string {
	if ix.pred == nil {
		return ""
	}
	return " WHERE " + decompile(s, c, deparseExpr(ix.pred), t.oid, pretty)
}

// readsIndexColumn reports whether ix's predicate or expressions read the
// column named name: dropping the column drops the index.
func (ix *indexDesc) readsIndexColumn(name string) bool {
	if ix.pred != nil && readsColumn(ix.pred, name) {
		return true
	}
	for _, e := range ix.exprs {
		if e != nil && readsColumn(e, name) {
			return true
		}
	}
	return false
}

// readsColumnOf reports whether ix's predicate or expressions read a
// column of t that altered picks.
func (ix *indexDesc) readsColumnOf(t *tableDesc, altered func(col int) bool) bool {
	for i, c := range t.cols {
		if altered(i) && ix.readsIndexColumn(c.name) {
			return true
		}
	}
	return false
}

// convertedIndexRows checks, while ALTER COLUMN TYPE scans the rows before
// rewriting them, the partial and expression indexes that use a changed
// column over the converted rows: their expressions compiled anew for the
// new types, their evaluation errors and, for a unique index, a key twice,
// as PostgreSQL's rebuild of the index fails.
type convertedIndexRows struct {
	indexes []*indexDesc
	evals   []*indexRowEval
	seen    []map[string]bool
	// keys are the indexes' keys as a 23505's DETAIL names them.
	keys []string
}

// newConvertedIndexRows compiles the partial and expression indexes of t
// that changes touch over t with the new types; nil when there are none.
// As PostgreSQL rebuilds such an index from its definition's text, each
// index of live (t's descriptor in the catalog, which the statement
// changes) takes its predicate and expressions as ruleutils prints them
// over the old types, re-read: the casts the old types needed stay.
func (d *ddl) newConvertedIndexRows(t, live *tableDesc, changes []columnTypeChange) (*convertedIndexRows, error) {
	nt := t.clone()
	for _, ch := range changes {
		nc := *nt.cols[ch.i]
		nc.typ = ch.to
		nt.cols[ch.i] = &nc
	}
	changed := func(c int) bool {
		return slices.ContainsFunc(changes, func(ch columnTypeChange) bool { return ch.i == c })
	}
	var k *convertedIndexRows
	for _, ix := range t.indexes {
		if ix.onColumnsOnly() || !slices.ContainsFunc(ix.cols, changed) && !ix.readsColumnOf(t, changed) {
			continue
		}
		reread := ix.reread(d.s, d.cat, t)
		ev, err := d.binder("").compileIndexRows(nt, reread) // no text: its positions are another statement's
		if err != nil {
			return nil, err
		}
		for j, lix := range live.indexes {
			if lix.oid == ix.oid {
				live.indexes[j] = reread
				d.cat.schemas[live.schema].indexes[reread.name] = reread
			}
		}
		if k == nil {
			k = &convertedIndexRows{}
		}
		k.indexes, k.evals, k.seen = append(k.indexes, ix), append(k.evals, ev), append(k.seen, map[string]bool{})
		k.keys = append(k.keys, ix.keyNamesText(d.s, d.cat, nt))
	}
	return k, nil
}

// reread returns ix with its predicate and expressions printed as ruleutils
// prints them over table t and parsed again.
func (ix *indexDesc) reread(s *Session, c *catalog, t *tableDesc) *indexDesc {
	again := func(n *pg_query.Node) *pg_query.Node {
		if n == nil {
			return nil
		}
		tree, err := pg_query.Parse("SELECT " + decompile(s, c, deparseExpr(n), t.oid, false))
		if err != nil || len(tree.Stmts) != 1 || len(tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()) != 1 {
			return n
		}
		return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val
	}
	return ix.withTrees(again)
}

// withTrees returns a copy of ix whose predicate and expressions are what f
// makes of them (f gets nil where there is none).
func (ix *indexDesc) withTrees(f func(*pg_query.Node) *pg_query.Node) *indexDesc {
	nix := *ix
	nix.pred = f(ix.pred)
	if ix.exprs != nil {
		nix.exprs = make([]*pg_query.Node, len(ix.exprs))
		for i, e := range ix.exprs {
			nix.exprs[i] = f(e)
		}
	}
	return &nix
}

// add checks converted row nr.
func (k *convertedIndexRows) add(nr []any) error {
	for n, ev := range k.evals {
		key, hasNull, in, err := ev.key(nil, nr)
		if err != nil {
			return err
		}
		ix := k.indexes[n]
		if !ix.unique || !in || hasNull && !ix.nullsNotDistinct {
			continue
		}
		if k.seen[n][string(key)] {
			return pgerror.Newf(pgerror.UniqueViolation, "could not create unique index \"%s\"", ix.name).
				WithDetail("Key (%s) is duplicated.", k.keys[n])
		}
		k.seen[n][string(key)] = true
	}
	return nil
}

// unqualified returns ix with the column references of its predicate and
// expressions that name t (t.col, schema.t.col) reduced to the column's
// name: PostgreSQL keeps them as references to the table's columns, which
// a later ALTER TABLE ... RENAME does not break.
func (ix *indexDesc) unqualified(t *tableDesc) *indexDesc {
	return ix.rewriteColumnRefs(func(fields []*pg_query.Node) []*pg_query.Node {
		switch {
		case len(fields) == 2 && fields[0].GetString_().GetSval() == t.name,
			len(fields) == 3 && fields[0].GetString_().GetSval() == t.schema && fields[1].GetString_().GetSval() == t.name:
			return fields[len(fields)-1:]
		}
		return fields
	})
}

// renamedIndexColumn returns ix with the column references to from in its
// predicate and expressions renamed to to, ix itself when it has neither.
func (ix *indexDesc) renamedIndexColumn(from, to string) *indexDesc {
	return ix.rewriteColumnRefs(func(fields []*pg_query.Node) []*pg_query.Node {
		if s := fields[len(fields)-1].GetString_(); s != nil && s.Sval == from {
			s.Sval = to
		}
		return fields
	})
}

// rewriteColumnRefs returns a copy of ix whose predicate and expressions
// have the fields of every column reference replaced by what fix makes of
// them (in a copy of the tree); ix itself when it has neither.
func (ix *indexDesc) rewriteColumnRefs(fix func(fields []*pg_query.Node) []*pg_query.Node) *indexDesc {
	if ix.onColumnsOnly() {
		return ix
	}
	rewrite := func(n *pg_query.Node) *pg_query.Node {
		if n == nil {
			return nil
		}
		n = proto.Clone(n).(*pg_query.Node)
		walk(n, func(c *pg_query.Node) bool {
			if cr := c.GetColumnRef(); cr != nil {
				cr.Fields = fix(cr.Fields)
			}
			return true
		})
		return n
	}
	return ix.withTrees(rewrite)
}
