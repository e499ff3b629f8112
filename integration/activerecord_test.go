package integration

import (
	"path/filepath"
	"testing"
)

// TestActiveRecordMigratesAndRunsAsOnPostgres runs the ActiveRecord 6.1
// application of testdata/rails (Debian's ruby-activerecord and ruby-pg)
// on PostgreSQL 15 and on fickle: its migrations (tables with references
// and foreign keys, unique and plain indexes, defaults, jsonb, decimal,
// timestamps, a column added later, enable_extension "pgcrypto" and a
// uuid key defaulting to gen_random_uuid(), enable_extension "citext" and a
// citext email with a unique index) under ActiveRecord's advisory
// migration lock, then the schema dump, which must equal PostgreSQL's,
// and the SQL structure dump (DatabaseTasks.structure_dump, pg_dump -s),
// which must too;
// then the dump loaded back as db:schema:load prepares a test database
// (enable_extension "plpgsql" and "pgcrypto", create_table ... force:
// :cascade); then models with associations and validations, nested
// transactions with savepoints, insert_all against a unique index, lock!
// (SELECT ... FOR UPDATE), optimistic locking, dependent destroys,
// find_each, and passwords hashed and checked with crypt() and
// gen_salt('bf'), emails found and kept unique whatever their case,
// which must print what they print on PostgreSQL. Under
// the adversarial default the migration is followed by
// fickle_checkpoint(), as docs/clients.md says.
func TestActiveRecordMigratesAndRunsAsOnPostgres(t *testing.T) {
	ruby := requireRuby(t, "active_record", "pg")
	stepsMatchPostgres(t, filepath.Join("testdata", "rails"), ruby, "library.rb", "migrate", "structure", "load", "app")
}
