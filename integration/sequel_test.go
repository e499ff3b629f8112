package integration

import (
	"path/filepath"
	"testing"
	"time"
)

// TestSequelApplicationPrintsWhatItPrintsOnPostgres runs the Sequel
// application of testdata/sequel (Debian's ruby-sequel and ruby-pg) on
// PostgreSQL 15 and on fickle, and requires the same output, line for
// line: its schema methods and the catalog queries behind its
// introspection, models with associations and eager loading, a rolled
// back transaction, a unique violation, an upsert, arrays and jsonb, FOR
// UPDATE SKIP LOCKED. The application works on one connection, so the
// adversarial default changes nothing it can see.
func TestSequelApplicationPrintsWhatItPrintsOnPostgres(t *testing.T) {
	ruby := requireRuby(t, "sequel", "pg")
	dir, err := filepath.Abs(filepath.Join("testdata", "sequel"))
	if err != nil {
		t.Fatal(err)
	}
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	pg := stackRun{dir: dir, host: "127.0.0.1", port: port, user: "postgres", env: []string{"PGDATABASE=" + db}}
	want := pg.stdout(t, 2*time.Minute, ruby, "bookshop.rb")
	for _, mode := range fickleModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := startFickle(t, mode.args...)
			r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "fickle", env: []string{"PGDATABASE=fickle"}}
			if got := r.stdout(t, 2*time.Minute, ruby, "bookshop.rb"); got != want {
				t.Errorf("bookshop.rb prints differently on fickle than on PostgreSQL:\n%s", lineDiff(want, got))
			}
		})
	}
}
