package integration

import (
	"path/filepath"
	"testing"
	"time"
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
	dir, err := filepath.Abs(filepath.Join("testdata", "sqlalchemy"))
	if err != nil {
		t.Fatal(err)
	}
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	pg := stackRun{dir: dir, host: "127.0.0.1", port: port, user: "postgres", env: []string{"PGDATABASE=" + db}}
	wantSchema := pg.stdout(t, 2*time.Minute, python, "library.py", "schema")
	wantApp := pg.stdout(t, 2*time.Minute, python, "library.py", "app")
	for _, mode := range fickleModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := startFickle(t, mode.args...)
			r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "app", env: []string{"PGDATABASE=fickle"}}
			if got := r.stdout(t, 2*time.Minute, python, "library.py", "schema"); got != wantSchema {
				t.Errorf("create_all and reflection differ from PostgreSQL's:\n%s", lineDiff(wantSchema, got))
			}
			checkpoint(t, srv, "fickle")
			if got := r.stdout(t, 2*time.Minute, python, "library.py", "app"); got != wantApp {
				t.Errorf("the application prints differently than on PostgreSQL:\n%s", lineDiff(wantApp, got))
			}
		})
	}
}
