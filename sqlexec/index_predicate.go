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
}

// onColumnsOnly reports whether ix is a plain index: every row is in it and
// every key position is a column. Only plain indexes answer queries,
// foreign keys, partition index matching and FOR KEY SHARE's key columns,
// as in PostgreSQL (whose planner may use a partial index only where the
// query implies its predicate: fickle never does, the simplest correct
// choice).
func (ix *indexDesc) onColumnsOnly() bool {
	return ix.pred == nil && ix.exprs == nil
}

// compileIndexRows compiles ix's predicate and expressions over t's
// columns, nil for a plain index. The predicate must be boolean; neither
// may use subqueries, aggregates, window or set-returning functions, or
// functions that are not immutable, with PostgreSQL's errors.
func (b *binder) compileIndexRows(t *tableDesc, ix *indexDesc) (*indexRowEval, error) {
	if ix.onColumnsOnly() {
		return nil, nil
	}
	ev := &indexRowEval{cols: ix.cols, exprs: make([]*scalar, len(ix.cols)), typs: make([]types.Type, len(ix.cols))}
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
	calls := b.mutableCalls
	e, err := b.expr(sc, n)
	if err != nil {
		return nil, err
	}
	if e.volatile || b.mutableCalls != calls {
		return nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
	}
	return e, nil
}

// values computes row's key values in the index: in is false when the
// predicate leaves the row out, err an error evaluating the predicate or
// an expression. The evaluation has no session: predicates and index
// expressions are immutable, so none of its state may matter.
func (ev *indexRowEval) values(row []any) (vals []any, in bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			vals, in = nil, false
			err = pgerror.Newf(pgerror.FeatureNotSupported, "index expression cannot be evaluated without a session: %v", r)
		}
	}()
	x := &execCtx{ctx: context.Background(), env: &types.Env{}, caches: &stmtCaches{}, row: row}
	if ev.pred != nil {
		v, err := ev.pred.eval(x)
		if err != nil || v != true {
			return nil, false, err
		}
	}
	vals = make([]any, len(ev.cols))
	for i, c := range ev.cols {
		if e := ev.exprs[i]; e != nil {
			if vals[i], err = e.eval(x); err != nil {
				return nil, false, err
			}
		} else {
			vals[i] = row[c]
		}
	}
	return vals, true, nil
}

// The OIDs of types castIsMutable needs that package types does not name.
const (
	oidMoney  types.Oid = 790
	oidTimetz types.Oid = 1266
)

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
	case from.Oid == oidMoney || to.Oid == oidMoney || to.Oid == types.OidRegclass:
		return true
	case from.Oid == types.OidTime && to.Oid == oidTimetz:
		return true
	case from.IsEnum() && textual(to) || to.IsEnum() && textual(from):
		return true
	case textual(from):
		switch to.Oid {
		case types.OidDate, types.OidTime, oidTimetz, types.OidTimestamp, types.OidInterval:
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

// key computes row's key in the index, with values' in and err; hasNull
// reports a NULL key value.
func (ev *indexRowEval) key(row []any) (key []byte, hasNull, in bool, err error) {
	vals, in, err := ev.values(row)
	if err != nil || !in {
		return nil, false, in, err
	}
	key = make([]byte, 0, 16)
	for i, v := range vals {
		if v == nil {
			hasNull = true
		}
		key = types.AppendKey(key, ev.typs[i], v)
	}
	return key, hasNull, true, nil
}

// storeKey is the store's IndexSpec.Key of a partial or expression index:
// a row the predicate leaves out, or whose key fails to evaluate (the
// write path reports that error first, see checkIndexRows), is listed
// under the empty key and never conflicts.
func (ev *indexRowEval) storeKey(row []any) ([]byte, bool) {
	key, hasNull, in, err := ev.key(row)
	if err != nil || !in {
		return nil, true
	}
	return key, hasNull
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

// refuseIndexRowsChange refuses ALTER COLUMN TYPE of column i of t when a
// partial or expression index uses it: PostgreSQL rebuilds such an index
// over the converted column, re-resolving its expressions, which fickle
// does not.
func refuseIndexRowsChange(t *tableDesc, i int) error {
	for _, ix := range t.indexes {
		if !ix.onColumnsOnly() && (slices.Contains(ix.cols, i) || ix.readsIndexColumn(t.cols[i].name)) {
			return pgerror.Unsupported("ALTER COLUMN TYPE of a column that a partial or expression index uses")
		}
	}
	return nil
}

// renamedIndexColumn returns ix with the column references to from in its
// predicate and expressions renamed to to, ix itself when it has neither.
func (ix *indexDesc) renamedIndexColumn(from, to string) *indexDesc {
	if ix.onColumnsOnly() {
		return ix
	}
	rename := func(n *pg_query.Node) *pg_query.Node {
		if n == nil {
			return nil
		}
		n = proto.Clone(n).(*pg_query.Node)
		walk(n, func(c *pg_query.Node) bool {
			if cr := c.GetColumnRef(); cr != nil {
				if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil && s.Sval == from {
					s.Sval = to
				}
			}
			return true
		})
		return n
	}
	nix := *ix
	nix.pred = rename(ix.pred)
	if ix.exprs != nil {
		nix.exprs = make([]*pg_query.Node, len(ix.exprs))
		for i, e := range ix.exprs {
			nix.exprs[i] = rename(e)
		}
	}
	return &nix
}
