package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	fkParents     = 6
	fkWorkers     = 6
	fkRoundsEach  = 15
	fkOrphanQuery = "(SELECT id, pid FROM fk_child FOR SHARE) UNION ALL (SELECT id, pid FROM fk_archive FOR SHARE)"
)

// TestForeignKeysHoldUnderConcurrency: connections insert children of a
// partitioned parent table, archive children under another parent with a
// data-modifying WITH query, and delete a parent's children, then the
// parent, and re-create it, at once, at every level in every profile. A
// key is only as good as its locks: the referenced row's KEY SHARE lock,
// taken in the partition the row lives in, must keep a concurrent delete
// from leaving a child without its parent. Aborts a client retries (40001,
// 40P01) and the 23503 of a parent that is gone are expected, but a retry
// must get through (retryTxn gives up after 1,000); at the end no child is
// an orphan (one archived before the run stays, with its parent) and the
// history checks at every transaction's level.
func TestForeignKeysHoldUnderConcurrency(t *testing.T) {
	for _, p := range lockingProfiles() {
		for _, level := range p.levels {
			t.Run(p.name+"/"+level.String(), func(t *testing.T) {
				f := lockingServer(t, p.cfg,
					"CREATE TABLE fk_parent (id int PRIMARY KEY, name text) PARTITION BY RANGE (id)",
					"CREATE TABLE fk_parent_low PARTITION OF fk_parent FOR VALUES FROM (0) TO (3)",
					"CREATE TABLE fk_parent_high PARTITION OF fk_parent FOR VALUES FROM (3) TO (100)",
					"CREATE TABLE fk_child (id int PRIMARY KEY, pid int NOT NULL REFERENCES fk_parent)",
					"CREATE TABLE fk_archive (id int PRIMARY KEY, pid int NOT NULL REFERENCES fk_parent)",
					fmt.Sprintf("INSERT INTO fk_parent SELECT g, 'p' || g FROM generate_series(0, %d) g", fkParents-1),
					// An archived child from the start: the workers' deletes of its
					// parent must fail, and the final check always has a child to
					// look at (the workload alone may leave none).
					fmt.Sprintf("INSERT INTO fk_archive VALUES (-1, %d)", fkParents-1))
				workers(t, f.dsn, fkWorkers, func(ctx context.Context, w int, conn *pgx.Conn) error {
					for i := range fkRoundsEach {
						pid, other := (w+i)%fkParents, (w+i+1)%fkParents
						var body func() error
						switch w % 3 {
						case 0:
							body = func() error {
								_, err := conn.Exec(ctx, "INSERT INTO fk_child VALUES ($1, $2)", w*1000+i, pid)
								return err
							}
						case 1:
							body = func() error {
								_, err := conn.Exec(ctx, `WITH moved AS (DELETE FROM fk_child WHERE pid = $1 RETURNING id)
									INSERT INTO fk_archive SELECT id, $2 FROM moved ON CONFLICT (id) DO NOTHING`, pid, other)
								return err
							}
						default:
							body = func() error {
								if _, err := conn.Exec(ctx, "DELETE FROM fk_child WHERE pid = $1", pid); err != nil {
									return err
								}
								if _, err := conn.Exec(ctx, "DELETE FROM fk_parent WHERE id = $1", pid); err != nil {
									return err
								}
								_, err := conn.Exec(ctx, "INSERT INTO fk_parent SELECT $1::int, 'again' WHERE NOT EXISTS (SELECT FROM fk_parent WHERE id = $1)", pid)
								return err
							}
						}
						if _, err := retryTxn(ctx, conn, level, body); err != nil && !isSQLState(err, "23503", "23505") {
							return err
						}
					}
					return nil
				})
				assertNoOrphans(t, f.dsn)
				checkWithFickleCheck(t, f, p.cfg.RealTime)
			})
		}
	}
}

// assertNoOrphans reads every child and its parent with locking reads,
// which see the latest versions whatever the strategy (in the parent's
// partitions: fickle does not lock rows through a partitioned table).
func assertNoOrphans(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t, dsn)
	rows, err := conn.Query(ctx, fkOrphanQuery)
	if err != nil {
		t.Fatal(err)
	}
	type child struct{ id, pid int }
	children, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (child, error) {
		var c child
		return c, r.Scan(&c.id, &c.pid)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(children) == 0 {
		t.Error("no child left to check")
	}
	for _, c := range children {
		n := 0
		for _, leaf := range []string{"fk_parent_low", "fk_parent_high"} {
			var k int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+leaf+" WHERE id = $1 FOR KEY SHARE) p", c.pid).Scan(&k); err != nil {
				t.Fatal(err)
			}
			n += k
		}
		if n != 1 {
			t.Errorf("child %d references parent %d, which does not exist", c.id, c.pid)
		}
	}
}

// isSQLState reports whether err is a PostgreSQL error with one of codes.
func isSQLState(err error, codes ...string) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	for _, c := range codes {
		if pe.Code == c {
			return true
		}
	}
	return false
}
