package integration

import (
	"path/filepath"
	"testing"
)

// TestSQLObjectMigratesAndRunsAsOnPostgres runs testdata/sqlobject/app.py,
// a SQLObject 3 application (createTable with a foreign key, a join table
// and indexes, the tables read back by SQLObject's own catalog
// introspection, then sqlbuilder queries, joins, aggregates, a rolled-back
// transaction, a duplicate alternate ID and cascading deletes) on
// PostgreSQL 15 and on fickle: both steps must print on fickle what they
// print on PostgreSQL.
func TestSQLObjectMigratesAndRunsAsOnPostgres(t *testing.T) {
	python := requirePython(t, "sqlobject", "psycopg2")
	stepsMatchPostgres(t, filepath.Join("testdata", "sqlobject"), python, "app.py", "schema", "app")
}
