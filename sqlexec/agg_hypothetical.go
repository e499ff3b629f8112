package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Hypothetical-set aggregates: rank, dense_rank, percent_rank and
// cume_dist(args) WITHIN GROUP (ORDER BY cols) place the hypothetical row
// args among the group's rows ordered by cols (NULLs included, where the
// ORDER BY's NULLS FIRST/LAST puts them) and answer the window function's
// value for it, as PostgreSQL's hypothetical_*_final do.

func isHypotheticalSet(name string) bool {
	switch name {
	case "rank", "dense_rank", "percent_rank", "cume_dist":
		return true
	}
	return false
}

// hypotheticalSetAggregate compiles a hypothetical-set aggregate call whose
// direct arguments and ORDER BY expressions are compiled: each direct
// argument and its ordering column are resolved to their common type
// (PostgreSQL's unify_hypothetical_args).
func (b *binder) hypotheticalSetAggregate(agg *aggScope, fc *pg_query.FuncCall, key, name string, direct, orderBy []*scalar, order []sortKey, filter *scalar, noSuchFunction func() *pgerror.Error) (*scalar, error) {
	if len(direct) != len(orderBy) {
		return nil, noSuchFunction().WithHint(
			"To use the hypothetical-set aggregate %s, the number of hypothetical direct arguments (here %d) must match the number of ordering columns (here %d).",
			name, len(direct), len(orderBy))
	}
	for i, d := range direct {
		if d.refs != 0 {
			return nil, b.errAt(pgerror.Unsupported("a direct argument of an ordered-set aggregate that names the query's columns"), exprLocation(fc.Args[i]))
		}
	}
	n := len(direct)
	keys := make([]sortKey, n)
	args := make([]*scalar, 2*n)
	for i := range direct {
		pair := []*scalar{orderBy[i], direct[i]}
		t, err := b.unify("WITHIN GROUP", pair)
		if err != nil {
			return nil, b.withPos(err, exprLocation(fc.Args[i]))
		}
		args[i], args[n+i] = pair[0], pair[1]
		keys[i] = order[i]
		keys[i].col = i
		keys[i].typ = t
	}
	result := types.Int8
	if name == "percent_rank" || name == "cume_dist" {
		result = types.Float8
	}
	fn := &types.Aggregate{Name: name, Result: result, New: func(*types.Env) types.Accumulator {
		return &hypotheticalAgg{name: name, keys: keys}
	}}
	for _, a := range args {
		fn.Args = append(fn.Args, a.typ)
	}
	agg.aggs = append(agg.aggs, &aggEntry{key: key, fn: fn, args: args, filter: filter})
	return aggSlot(len(agg.groups)+len(agg.aggs)-1, result, name), nil
}

// hypotheticalAgg accumulates one group of a hypothetical-set aggregate:
// each row's arguments are its ordering values then the hypothetical row.
type hypotheticalAgg struct {
	name string
	keys []sortKey // col i is the i-th ordering value

	rows   int     // the group's rows
	before [][]any // the rows sorting before the hypothetical row
	peers  int     // the rows sorting as its peers
}

func (a *hypotheticalAgg) Add(args []any) error {
	n := len(a.keys)
	row, hypo := args[:n], args[n:]
	a.rows++
	switch c := compareKeys(row, hypo, a.keys); {
	case c < 0:
		a.before = append(a.before, slices.Clone(row))
	case c == 0:
		a.peers++
	}
	return nil
}

func (a *hypotheticalAgg) Result() (any, error) {
	rank := int64(len(a.before)) + 1
	switch a.name {
	case "rank":
		return rank, nil
	case "dense_rank":
		slices.SortFunc(a.before, func(x, y []any) int { return compareKeys(x, y, a.keys) })
		groups := int64(1)
		for i := 1; i < len(a.before); i++ {
			if compareKeys(a.before[i-1], a.before[i], a.keys) != 0 {
				groups++
			}
		}
		if len(a.before) == 0 {
			groups = 0
		}
		return groups + 1, nil
	case "percent_rank":
		if a.rows == 0 {
			return 0.0, nil
		}
		return float64(rank-1) / float64(a.rows), nil
	}
	return float64(len(a.before)+a.peers+1) / float64(a.rows+1), nil
}
