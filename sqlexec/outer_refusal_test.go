package sqlexec

import (
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestOuterReferencesFickleCannotEvaluateAreRefused pins the refusals that
// replaced wrong answers bench/pgregress found: an aggregate of an outer
// query's columns alone, in its arguments, ORDER BY or FILTER (PostgreSQL
// aggregates it in the outer query). Each answers 0A000; PostgreSQL
// answers them, so they are not in the differential corpus (which has the
// forms fickle answers, testdata/scripts/outer_refs.txt; a WITH query
// naming an outer query's columns read from a nested subquery, once
// refused here, is in with_correlated_nested.txt).
func TestOuterReferencesFickleCannotEvaluateAreRefused(t *testing.T) {
	cases := []string{
		"SELECT (SELECT max(o.x)) FROM (VALUES (1),(2),(3)) o(x)",
		"SELECT (SELECT max(o.x) + count(*) FROM (VALUES (5)) i(y)) FROM (VALUES (1),(2),(3)) o(x)",
		// A FILTER or ORDER BY of outer columns alone places the aggregate
		// in the outer query too.
		"SELECT (SELECT count(*) FILTER (WHERE o.x <> 0) FROM (VALUES (5)) i(y)) FROM (VALUES (1),(2),(3)) o(x)",
		"SELECT (SELECT max(0) FILTER (WHERE o.x > 1)) FROM (VALUES (1),(2),(3)) o(x)",
		"SELECT (SELECT string_agg('a', ',' ORDER BY o.x)) FROM (VALUES (1),(2),(3)) o(x)",
	}
	s := newCopyTestSession(t)
	for _, sql := range cases {
		_, err := runResult(s, sql)
		var pgErr *pgerror.Error
		if !errors.As(err, &pgErr) || pgErr.Code != pgerror.FeatureNotSupported {
			t.Errorf("%s: %v, want 0A000", sql, err)
		}
	}
}
