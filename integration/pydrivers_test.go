package integration

import (
	"path/filepath"
	"testing"
	"time"
)

// TestPythonDriversPrintWhatTheyPrintOnPostgres runs the applications of
// testdata/pydrivers, each written against one Python driver as an
// application uses it, on PostgreSQL 15 and on fickle, and requires the
// same output, line for line:
//
//   - psycopg3_app.py (psycopg 3): parameters of a dozen types in text
//     and binary, prepared statements, transactions and savepoints (and
//     the DEALLOCATE ALL psycopg sends after a rollback), named cursors
//     with and without HOLD and scrolling, COPY in and out in text and
//     binary, pipeline mode with an error half-way, executemany;
//   - asyncpg_app.py (asyncpg, binary protocol throughout): parameters
//     and records, prepared statements and their description,
//     transactions and savepoints, cursors over named portals with MOVE
//     FORWARD, copy_records_to_table, copy_from_query and
//     copy_from_table, executemany, error fields;
//   - pg8000_app.py (pg8000, pure Python): parameters typed from Python
//     values, results in the binary format, DB-API transactions, errors
//     and the rollback after them, executemany.
//
// Each application works on one connection, so the adversarial default
// changes nothing it can see: its reads see its own earlier commits.
func TestPythonDriversPrintWhatTheyPrintOnPostgres(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "pydrivers"))
	if err != nil {
		t.Fatal(err)
	}
	apps := []struct {
		script string
		module string
	}{
		{"psycopg3_app.py", "psycopg"},
		{"asyncpg_app.py", "asyncpg"},
		{"pg8000_app.py", "pg8000"},
	}
	for _, app := range apps {
		t.Run(app.module, func(t *testing.T) {
			python := requirePython(t, app.module)
			port := startPostgres(t)
			db := freshPostgresDB(t, port)
			pg := stackRun{dir: dir, host: "127.0.0.1", port: port, user: "postgres", env: []string{"PGDATABASE=" + db}}
			want := pg.stdout(t, 2*time.Minute, python, app.script)
			for _, mode := range fickleModes {
				t.Run(mode.name, func(t *testing.T) {
					srv := startFickle(t, mode.args...)
					r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "fickle", env: []string{"PGDATABASE=fickle"}}
					got := r.stdout(t, 2*time.Minute, python, app.script)
					if got != want {
						t.Errorf("%s prints differently on fickle than on PostgreSQL:\n%s", app.script, lineDiff(want, got))
					}
				})
			}
		})
	}
}
