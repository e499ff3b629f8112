package integration

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestNodeORMsMatchPostgres runs testdata/node's Sequelize 6, knex,
// TypeORM, Drizzle, node-pg-migrate, Kysely, MikroORM and postgres.js checks, applications that find fixtures.sql's table in place, against
// PostgreSQL 15 and against fickle in each of fickleConfigs, and requires
// the same output: Sequelize's sync() of models with hasMany, belongsTo and
// belongsToMany, describeTable and showIndex, includes, counts, updates,
// increments, managed transactions committed and rolled back, ON DELETE
// CASCADE; knex's migrations with their lock table (latest, status,
// rollback), hasTable, hasColumn, columnInfo, inserts with RETURNING,
// joins, aggregates, transactions and raw queries over
// information_schema; TypeORM's schema synchronization (which reads
// information_schema and pg_catalog to find nothing left to change) with
// an enum, arrays, jsonb and uuid-ossp, relations, the query builder and
// a managed transaction; Drizzle Kit's push (created, then found up to
// date, reading pg_stat_user_indexes among the catalogs) and Drizzle ORM's
// query builder with an upsert, joins, aggregates and transactions;
// node-pg-migrate's migrations up, down one at a time and up again (an
// enum, a view, a trigger and its function replaced, a column renamed and
// retyped) and the schema they leave; Kysely's Migrator (its lock table,
// migrations to the latest, down and up again, a trigger function in raw
// sql) and its typed queries with upserts, joins, subqueries,
// jsonArrayFrom/jsonObjectFrom, transactions, FOR UPDATE and
// db.introspection; MikroORM 6's schema generator (create, then an update
// that must find nothing to change, reading the catalogs), entities with
// many-to-one, one-to-many and many-to-many relations flushed as one unit
// of work, em.transactional, optimistic locking on a version property
// (a stale flush raises OptimisticLockError), populate, the QueryBuilder
// and clearDatabase (under session_replication_role = replica), and its
// schema generator taking a schema from one version to another and back,
// and its reads: joined populate under LIMIT, relation filters, a virtual
// entity, formula properties and collection queries, and its migrations
// generated from the schema diff, run up and down, and its types read
// back; postgres.js (its own driver: array types read from pg_type at
// connect, named prepared statements pipelined on one connection) with its
// dynamic helpers, savepoints, a cursor (portals with a row limit), COPY
// streams, describe() and concurrent queries.
func TestNodeORMsMatchPostgres(t *testing.T) {
	fixtures := filepath.Join(nodeDir, "fixtures.sql")
	psql := pgTool(t, "psql")
	load := func(t *testing.T, port int, db string) {
		t.Helper()
		if out, err := runTool(t, time.Minute, nil, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(port),
			"-U", "postgres", "-d", db, "-f", fixtures); err != nil {
			t.Fatalf("loading %s: %v\n%s", fixtures, err, out)
		}
	}
	checks := []struct {
		script string
		args   func(t *testing.T) []string
	}{
		{"sequelize_check.js", func(*testing.T) []string { return nil }},
		{"knex_check.js", func(t *testing.T) []string { return []string{t.TempDir()} }},
		{"typeorm_check.js", func(*testing.T) []string { return nil }},
		{"drizzle_check.js", func(*testing.T) []string { return nil }},
		{"pgmigrate_check.mjs", func(*testing.T) []string { return nil }},
		{"kysely_check.js", func(*testing.T) []string { return nil }},
		{"mikroorm_check.js", func(*testing.T) []string { return nil }},
		{"mikroorm_schema_check.js", func(*testing.T) []string { return nil }},
		{"mikroorm_queries_check.js", func(*testing.T) []string { return nil }},
		{"mikroorm_migrations_check.js", func(*testing.T) []string { return nil }},
		{"mikroorm_types_check.js", func(*testing.T) []string { return nil }},
		{"postgresjs_check.js", func(*testing.T) []string { return nil }},
	}
	// The scripts print dates as the process's zone shows them.
	t.Setenv("TZ", "UTC")
	run := func(t *testing.T, script string, port int, db string, args []string) string {
		t.Helper()
		cmd := nodeScript(t, script)
		url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s", port, db)
		out, err := runTool(t, 3*time.Minute, nil, cmd.Path, append(cmd.Args[1:], append([]string{url}, args...)...)...)
		if err != nil {
			t.Fatalf("node %s on port %d: %v\n%s", script, port, err, out)
		}
		return out
	}

	port := startPostgres(t)
	want := map[string]string{}
	for _, c := range checks {
		db := freshPostgresDB(t, port)
		load(t, port, db)
		want[c.script] = run(t, c.script, port, db, c.args(t))
	}
	for _, cfg := range fickleConfigs {
		for _, c := range checks {
			t.Run(cfg.name+"/"+c.script, func(t *testing.T) {
				const db = "app"
				srv := startFickle(t, append([]string{"--database", db}, cfg.args(fixtures)...)...)
				if !cfg.load {
					load(t, srv.Port, db)
				}
				if got := run(t, c.script, srv.Port, db, c.args(t)); got != want[c.script] {
					t.Errorf("%s: fickle and PostgreSQL differ:\n%s", c.script, lineDiff(want[c.script], got))
				}
			})
		}
	}
}
