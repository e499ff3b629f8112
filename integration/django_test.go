package integration

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDjangoProjectMigratesAndPassesItsTests runs the Django 3.2 project
// of testdata/django (customers, tags, products with a JSONField and a
// many-to-many and an HStoreField (the hstore extension, queried with
// has_key, contains and key transforms), orders with an aware
// DateTimeField, order lines unique_together) as its developers would
// against PostgreSQL, with only
// the port changed: manage.py migrate, then manage.py test (TestCase and
// TransactionTestCase: atomic blocks and savepoints, select_for_update
// with NOWAIT and SKIP LOCKED from a second connection, annotate and
// aggregate, .iterator() on server-side cursors with and without HOLD,
// deferred foreign keys, time zones), also with --parallel, which clones
// the test database from a template. Then a migration that fails half-way
// (it creates a table, adds and drops columns, inserts a row and an index
// before dividing by zero) must leave the schema and data exactly as they
// were, and the schema Django's introspection reads must equal the one it
// reads on PostgreSQL 15 after the same steps.
//
// Under the adversarial default without --realtime a new connection may
// read the tables as they were before earlier commits (read committed
// allows it), so the run follows docs/clients.md: SELECT
// fickle_checkpoint() once migrate has built the schema, and only the
// TestCase classes: TransactionTestCase reconnects before every test after
// a TRUNCATE, which breaks Django's own post_migrate handler unless
// --realtime is given.
func TestDjangoProjectMigratesAndPassesItsTests(t *testing.T) {
	python := requirePython(t, "django", "psycopg2")
	dir, err := filepath.Abs(filepath.Join("testdata", "django"))
	if err != nil {
		t.Fatal(err)
	}
	manage := func(r stackRun, args ...string) (string, error) {
		return r.run(t, 5*time.Minute, python, append([]string{"manage.py"}, args...)...)
	}
	// steps runs the project's lifecycle and returns the schema before and
	// after the failed migration; migrated runs after the first migrate.
	steps := func(t *testing.T, r stackRun, migrated func(), tests ...string) (before, after string) {
		if out, err := manage(r, "migrate"); err != nil || !strings.Contains(out, "Applying shop.0002_default_tags... OK") ||
			!strings.Contains(out, "Applying shop.0004_product_specs... OK") {
			t.Fatalf("migrate: %v\n%s", err, out)
		}
		migrated()
		if out, err := manage(r, append([]string{"test", "-v", "2"}, tests...)...); err != nil || !strings.Contains(out, "\nOK") {
			t.Fatalf("manage.py test: %v\n%s", err, out)
		}
		before = r.mustRun(t, time.Minute, python, "manage.py", "describe_schema")
		broken := r
		broken.env = append(broken.env, "SHOP_WITH_BROKEN_APP=1")
		if out, err := manage(broken, "migrate"); err == nil || !strings.Contains(out, "division by zero") {
			t.Fatalf("the broken migration: %v, want division by zero\n%s", err, out)
		}
		after = r.mustRun(t, time.Minute, python, "manage.py", "describe_schema")
		if before != after {
			t.Errorf("the failed migration left a trace:\n%s", lineDiff(before, after))
		}
		return before, after
	}

	var fickleSchema string
	for _, mode := range fickleModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := startFickle(t, append(mode.args, "--database", "shop")...)
			r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "postgres"}
			var tests []string
			migrated := func() {}
			if mode.name == "adversarial" {
				tests = []string{"shop.tests.ShopTests"}
				// The guide's recipe: once migrate has built the schema,
				// a checkpoint makes every later connection see it.
				migrated = func() { checkpoint(t, srv, "shop") }
			}
			schema, _ := steps(t, r, migrated, tests...)
			if mode.name == "realtime" {
				// The parallel runner clones the test database with CREATE
				// DATABASE ... TEMPLATE, one copy per worker.
				if out, err := manage(r, "test", "--parallel", "2"); err != nil || !strings.Contains(out, "\nOK") {
					t.Fatalf("manage.py test --parallel 2: %v\n%s", err, out)
				}
			}
			if fickleSchema != "" && schema != fickleSchema {
				t.Errorf("the schema differs between modes:\n%s", lineDiff(fickleSchema, schema))
			}
			fickleSchema = schema
		})
	}

	t.Run("postgres", func(t *testing.T) {
		port := startPostgres(t)
		recreatePostgresDB(t, port, "shop")
		schema, _ := steps(t, stackRun{dir: dir, host: "127.0.0.1", port: port, user: "postgres"}, func() {})
		if fickleSchema != "" && schema != fickleSchema {
			t.Errorf("Django sees a different schema on fickle than on PostgreSQL:\n%s", lineDiff(schema, fickleSchema))
		}
	})
}
