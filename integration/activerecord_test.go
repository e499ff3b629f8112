package integration

import (
	"path/filepath"
	"testing"
	"time"
)

// TestActiveRecordMigratesAndRunsAsOnPostgres runs the ActiveRecord 6.1
// application of testdata/rails (Debian's ruby-activerecord and ruby-pg)
// on PostgreSQL 15 and on fickle: its migrations (tables with references
// and foreign keys, unique and plain indexes, defaults, jsonb, decimal,
// timestamps, a column added later) under ActiveRecord's advisory
// migration lock, then the schema dump, which must equal PostgreSQL's;
// then models with associations and validations, nested transactions with
// savepoints, insert_all against a unique index, lock! (SELECT ... FOR
// UPDATE), optimistic locking, dependent destroys and find_each, which
// must print what they print on PostgreSQL. Under the adversarial default
// the migration is followed by fickle_checkpoint(), as docs/clients.md
// says.
func TestActiveRecordMigratesAndRunsAsOnPostgres(t *testing.T) {
	ruby := requireRuby(t, "active_record", "pg")
	dir, err := filepath.Abs(filepath.Join("testdata", "rails"))
	if err != nil {
		t.Fatal(err)
	}
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	pg := stackRun{dir: dir, host: "127.0.0.1", port: port, user: "postgres", env: []string{"PGDATABASE=" + db}}
	wantSchema := pg.stdout(t, 2*time.Minute, ruby, "library.rb", "migrate")
	wantApp := pg.stdout(t, 2*time.Minute, ruby, "library.rb", "app")
	for _, mode := range fickleModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := startFickle(t, mode.args...)
			r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "app", env: []string{"PGDATABASE=fickle"}}
			if got := r.stdout(t, 2*time.Minute, ruby, "library.rb", "migrate"); got != wantSchema {
				t.Errorf("the schema dump differs from PostgreSQL's:\n%s", lineDiff(wantSchema, got))
			}
			checkpoint(t, srv, "fickle")
			if got := r.stdout(t, 2*time.Minute, ruby, "library.rb", "app"); got != wantApp {
				t.Errorf("the application prints differently than on PostgreSQL:\n%s", lineDiff(wantApp, got))
			}
		})
	}
}
