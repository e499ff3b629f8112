package integration

import (
	"path/filepath"
	"testing"
)

// TestPeeweeMigratesAndRunsAsOnPostgres runs testdata/peewee/app.py, a
// peewee 3 application (create_tables, a playhouse migration, reflection
// of the schema, then queries with savepoints, jsonb, arrays and an xmax
// upsert) on PostgreSQL 15 and on fickle: both steps must print on fickle
// what they print on PostgreSQL.
func TestPeeweeMigratesAndRunsAsOnPostgres(t *testing.T) {
	python := requirePython(t, "peewee", "playhouse.postgres_ext", "psycopg2")
	stepsMatchPostgres(t, filepath.Join("testdata", "peewee"), python, "app.py", "schema", "app")
}
