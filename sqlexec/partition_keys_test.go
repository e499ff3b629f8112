package sqlexec

import (
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TestForeignKeysToPartitionedTablesAreRefused pins the refusal of a
// foreign key referencing a partitioned table: its rows live in the
// partitions, which fickle's foreign-key checks do not read, so accepting
// it would fail good rows and let deletes orphan others. PostgreSQL
// accepts it, so it is not in the differential corpus.
func TestForeignKeysToPartitionedTablesAreRefused(t *testing.T) {
	s := newCopyTestSession(t)
	for _, sql := range []string{
		"CREATE TABLE fk_parent (id int PRIMARY KEY) PARTITION BY RANGE (id)",
		"CREATE TABLE fk_parent_1 PARTITION OF fk_parent FOR VALUES FROM (0) TO (10)",
	} {
		if _, err := runResult(s, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, sql := range []string{
		"CREATE TABLE fk_child (p int REFERENCES fk_parent)",
		"CREATE TABLE fk_child2 (p int, FOREIGN KEY (p) REFERENCES fk_parent (id))",
	} {
		_, err := runResult(s, sql)
		var pgErr *pgerror.Error
		if !errors.As(err, &pgErr) || pgErr.Code != pgerror.FeatureNotSupported {
			t.Errorf("%s: %v, want 0A000", sql, err)
		}
	}
}
