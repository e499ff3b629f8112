package integration

import (
	"path/filepath"
	"testing"
)

// TestSQLAlchemyReflectsAndRunsAsOnPostgres runs the SQLAlchemy 1.4
// application of testdata/sqlalchemy (psycopg2) on PostgreSQL 15 and on
// fickle: create_all of four tables (foreign keys with ON DELETE, unique
// and check constraints, indexes, server defaults, JSONB, numeric, aware
// timestamps), then reflection of every table (get_columns,
// get_pk_constraint, get_foreign_keys, get_indexes, get_unique_constraints,
// get_check_constraints, MetaData.reflect), then session CRUD with
// relationships, cascades, savepoints, yield_per and a streamed Core
// query. Both steps must print on fickle what they print on PostgreSQL.
// Under the adversarial default the schema step is followed by
// fickle_checkpoint(), as docs/clients.md says.
func TestSQLAlchemyReflectsAndRunsAsOnPostgres(t *testing.T) {
	python := requirePython(t, "sqlalchemy", "psycopg2")
	stepsMatchPostgres(t, filepath.Join("testdata", "sqlalchemy"), python, "library.py", "schema", "app")
}

// TestSQLAlchemyOptimisticLockOnXminAsOnPostgres runs testdata/sqlalchemy/
// versioned.py, SQLAlchemy's documented optimistic lock on PostgreSQL's
// system column xmin and an upsert reading xmax = 0, on PostgreSQL 15 and
// on fickle: the stale save must fail with StaleDataError (a lost update
// otherwise), and the upsert must tell its inserted row from its updated one.
func TestSQLAlchemyOptimisticLockOnXminAsOnPostgres(t *testing.T) {
	python := requirePython(t, "sqlalchemy", "psycopg2")
	stepsMatchPostgres(t, filepath.Join("testdata", "sqlalchemy"), python, "versioned.py", "schema", "app")
}
