package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestCtidRecheckSeesTheNewVersion pins what a write by ctid does when
// another transaction holds the row: under READ COMMITTED the recheck
// reads the newest version's ctid, so a row updated meanwhile no longer
// matches (PostgreSQL's EvalPlanQual, TidRecheck), a row only locked
// meanwhile keeps its place and is written, and a locking subquery that
// waited returns the new version's ctid, which the statement's snapshot
// does not see (PostgreSQL deletes nothing either).
func TestCtidRecheckSeesTheNewVersion(t *testing.T) {
	const setup = "INSERT INTO target VALUES (1, 'setup', 's1')"
	for _, c := range []struct {
		stmt string
		mergeCase
	}{
		{"UPDATE target SET val = 'b' WHERE ctid = '(0,1)'",
			mergeCase{"updated meanwhile", setup, "READ COMMITTED", "UPDATE target SET status = 's2' WHERE key = 1", "UPDATE 0 [[1 setup s2]]"}},
		{"UPDATE target SET val = 'b' WHERE ctid = '(0,1)'",
			mergeCase{"locked meanwhile", setup, "READ COMMITTED", "SELECT * FROM target WHERE key = 1 FOR UPDATE", "UPDATE 1 [[1 b s1]]"}},
		{"DELETE FROM target WHERE ctid IN (SELECT ctid FROM target WHERE key = 1 FOR UPDATE) RETURNING ctid",
			mergeCase{"locked subquery's new place", setup, "READ COMMITTED", "UPDATE target SET status = 's2' WHERE key = 1", "DELETE 0 [[1 setup s2]]"}},
	} {
		for _, profile := range []struct {
			name string
			cfg  isolation.Config
		}{
			{"axiomatic", isolation.Config{Strategy: isolation.StrategyLatest}},
			{"postgres", isolation.Config{Strategy: isolation.StrategyLatest, RealTime: true, StatementSnapshots: true, PostgresConcurrency: true}},
		} {
			t.Run(c.name+"/"+profile.name, func(t *testing.T) { c.run(t, profile.cfg, c.stmt) })
		}
	}
}
