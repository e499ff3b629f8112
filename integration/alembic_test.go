package integration

import (
	"path/filepath"
	"testing"
)

// TestAlembicMigratesAsOnPostgres runs Alembic's two jobs (testdata/alembic,
// on SQLAlchemy and psycopg2) on PostgreSQL 15 and on fickle: autogenerate
// against an empty database and again after creating the model (which must
// find nothing to do), then the operations of a typical revision (columns
// added, altered, renamed and dropped; partial, unique and expression
// indexes; a foreign key; a table rename; a bulk insert), autogenerate
// against the changed schema, and the downgrade. Both steps must print on
// fickle what they print on PostgreSQL.
func TestAlembicMigratesAsOnPostgres(t *testing.T) {
	python := requirePython(t, "alembic", "sqlalchemy", "psycopg2")
	stepsMatchPostgres(t, filepath.Join("testdata", "alembic"), python, "migrations.py", "schema", "migrate")
}
