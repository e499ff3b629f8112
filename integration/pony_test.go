package integration

import (
	"path/filepath"
	"testing"
)

// TestPonyMigratesAndRunsAsOnPostgres runs testdata/pony/app.py, a Pony ORM
// application (generate_mapping creating tables with many-to-many and
// composite keys, then generator queries, Pony's optimistic checks,
// get_for_update, an integrity error and cascading deletes) on PostgreSQL
// 15 and on fickle: both steps must print on fickle what they print on
// PostgreSQL.
func TestPonyMigratesAndRunsAsOnPostgres(t *testing.T) {
	python := requirePython(t, "pony.orm", "psycopg2")
	stepsMatchPostgres(t, filepath.Join("testdata", "pony"), python, "app.py", "schema", "app")
}
