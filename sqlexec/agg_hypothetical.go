package sqlexec

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

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
// direct arguments (over the aggregation row) and ORDER BY expressions are
// compiled, as many of each: each direct
// argument and its ordering column are resolved to their common type
// (PostgreSQL's unify_hypothetical_args).
func (b *binder) hypotheticalSetAggregate(agg *aggScope, fc *pg_query.FuncCall, key, name string, direct, orderBy []*scalar, order []sortKey, filter *scalar) (*scalar, error) {
	n := len(direct)
	keys := make([]sortKey, n)
	args := make([]*scalar, n)
	hypo := make([]*scalar, n)
	for i := range direct {
		pair := []*scalar{orderBy[i], direct[i]}
		t, err := b.unify("WITHIN GROUP", pair)
		if err != nil {
			return nil, b.withPos(err, exprLocation(fc.Args[i]))
		}
		args[i], hypo[i] = pair[0], pair[1]
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
	for _, a := range append(args, hypo...) {
		fn.Args = append(fn.Args, a.typ)
	}
	agg.aggs = append(agg.aggs, &aggEntry{key: key, fn: fn, args: args, direct: hypo, filter: filter})
	return aggSlot(len(agg.groups)+len(agg.aggs)-1, result, name), nil
}

// hypotheticalAgg accumulates one group of a hypothetical-set aggregate:
// each row's arguments are its ordering values; the hypothetical row is
// the group's direct arguments.
type hypotheticalAgg struct {
	name string
	keys []sortKey // col i is the i-th ordering value

	all    [][]any // the group's rows
	before [][]any // the rows sorting before the hypothetical row
	peers  int     // the rows sorting as its peers
	rows   int
}

func (a *hypotheticalAgg) Add(args []any) error {
	a.all = append(a.all, slices.Clone(args))
	return nil
}

// setDirect places the hypothetical row among the group's rows.
func (a *hypotheticalAgg) setDirect(hypo []any) {
	a.rows = len(a.all)
	for _, row := range a.all {
		switch c := compareKeys(row, hypo, a.keys); {
		case c < 0:
			a.before = append(a.before, row)
		case c == 0:
			a.peers++
		}
	}
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
