package sqlexec

import (
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestRuleActionsTheRewriteCannotRunAsOneQueryAreRefused pins the rules
// fickle refuses because it runs an action once per NEW or OLD row where
// PostgreSQL joins them all into one query: an action whose query
// aggregates, groups, removes duplicates, limits or combines the rows of
// NEW or OLD, and one that reads the relation it writes (each run would
// see the runs before it). PostgreSQL answers the valid ones, so they are
// not in the differential script (testdata/scripts/rules.txt).
func TestRuleActionsTheRewriteCannotRunAsOneQueryAreRefused(t *testing.T) {
	s := newCopyTestSession(t)
	for _, sql := range []string{
		"CREATE TABLE rt (id int, v text)",
		"CREATE TABLE rlog (what text, id int, v text, n bigint)",
	} {
		if _, err := runResult(s, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	cases := []string{
		"CREATE RULE bad AS ON INSERT TO rt DO ALSO INSERT INTO rlog SELECT 'n', max(id), NULL, count(*) FROM rt WHERE id <> new.id",
		"CREATE RULE bad AS ON INSERT TO rt DO ALSO INSERT INTO rlog SELECT 'n', new.id, NULL, count(*) FROM rt GROUP BY new.id",
		"CREATE RULE bad AS ON INSERT TO rt DO ALSO INSERT INTO rlog SELECT DISTINCT 'n', new.id, v, 0 FROM rt",
		"CREATE RULE bad AS ON INSERT TO rt DO ALSO INSERT INTO rlog SELECT 'n', new.id, v, 0 FROM rt LIMIT 1",
		"CREATE RULE bad AS ON INSERT TO rt DO ALSO INSERT INTO rlog SELECT 'n', new.id, v, 0 FROM rt UNION SELECT 'm', 1, 'x', 0",
		"CREATE RULE bad AS ON INSERT TO rt DO ALSO INSERT INTO rlog SELECT 'n', new.id, v, row_number() OVER () FROM rt",
		"CREATE RULE bad AS ON UPDATE TO rt DO ALSO INSERT INTO rlog SELECT 'n', old.id, v, n FROM rlog",
		"CREATE RULE bad AS ON DELETE TO rt DO ALSO DELETE FROM rlog WHERE id IN (SELECT id FROM rlog WHERE v = old.v)",
	}
	for _, sql := range cases {
		_, err := runResult(s, sql)
		var pgErr *pgerror.Error
		if !errors.As(err, &pgErr) || pgErr.Code != pgerror.FeatureNotSupported {
			t.Errorf("%s: %v, want 0A000", sql, err)
		}
	}
}
