package sqlexec

import (
	"testing"

	"github.com/fickle-db/fickle/isolation"
)

// TestFlattenedViewReadsOnlyTheLookedUpKeys pins, through the keys the
// history records, that a condition on a simple view or subquery in FROM
// reaches the table's key or index, as PostgreSQL's pull-up lets it: one
// key for id = 3 through a view, a view of a view and a subquery, one per
// row of a join on the key, one per table of a view's join; and that what PostgreSQL does not flatten (a
// security_barrier view, GROUP BY, LIMIT) still reads all 20 rows.
func TestFlattenedViewReadsOnlyTheLookedUpKeys(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sql      string
		wantKeys int
		wantIDs  []int64
	}{
		{"view on the key", "SELECT id FROM tv WHERE id = 3", 1, []int64{3}},
		{"view on the index", "SELECT id FROM tv WHERE grp = 4 ORDER BY id", 4, []int64{4, 9, 14, 19}},
		{"view of a view, renamed", "SELECT k FROM tvv WHERE k = 3", 1, []int64{3}},
		{"view's own condition filters", "SELECT id FROM tv WHERE id = 10", 1, nil},
		{"subquery on the key", "SELECT s.id FROM (SELECT id, v FROM t WHERE v <> 'x') s WHERE s.id = 7", 1, []int64{7}},
		{"join of a view on the key", "SELECT a.id FROM h a JOIN tv ON tv.id = a.id WHERE a.id = 6", 2, []int64{6}},
		{"left join of a subquery on the key", "SELECT a.id FROM h a LEFT JOIN (SELECT id FROM t) s ON s.id = a.id WHERE a.id = 5", 2, []int64{5}},
		{"view of a join on the key", "SELECT id FROM tj WHERE id = 4", 2, []int64{4}},
		{"security barrier view scans", "SELECT id FROM tsb WHERE id = 3", 20, []int64{3}},
		{"grouping subquery scans", "SELECT id FROM (SELECT id FROM t GROUP BY id) s WHERE id = 3", 20, []int64{3}},
		{"limited subquery scans", "SELECT id FROM (SELECT id FROM t LIMIT 50) s WHERE id = 3", 20, []int64{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng, store := anyLookupEngine(t, isolation.StrategyLatest, 0, 20)
			setup := eng.NewSession(SessionInfo{User: "setup"})
			for _, sql := range []string{
				"CREATE VIEW tv AS SELECT id, grp, v FROM t WHERE grp <> 0",
				"CREATE VIEW tvv AS SELECT id AS k, v FROM tv WHERE id > 0",
				"CREATE VIEW tsb WITH (security_barrier) AS SELECT id FROM t WHERE grp >= 0",
				"CREATE VIEW tj AS SELECT t.id, h.id AS hid, h.v FROM t JOIN h ON h.id = t.id",
			} {
				if _, err := execOne(setup, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			s := eng.NewSession(SessionInfo{User: "reader"})
			res, err := execOne(s, tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, r := range res.Rows {
				ids = append(ids, r[0].(int64))
			}
			if len(ids) != len(tc.wantIDs) {
				t.Fatalf("rows %v, want %v", ids, tc.wantIDs)
			}
			for i := range ids {
				if ids[i] != tc.wantIDs[i] {
					t.Fatalf("rows %v, want %v", ids, tc.wantIDs)
				}
			}
			if got := keysReadBy(store.History(), tc.sql); got != tc.wantKeys {
				t.Errorf("the statement read %d keys, want %d", got, tc.wantKeys)
			}
		})
	}
}
