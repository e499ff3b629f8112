package integration

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestGoApplicationStacksMatchPostgres builds testdata/goapps, one module
// (so that CI builds it once) holding four Go stacks beyond GORM, and
// requires each to print on fickle what it prints on PostgreSQL 15:
//   - migrate: golang-migrate under its advisory lock, with its pgx/v5
//     driver (Up, Version, Steps(-1), a transactional migration, one
//     failing halfway that leaves the database dirty, Force, Down, a
//     search_path startup parameter, two migrators at once) and its lib/pq
//     postgres driver;
//   - goose: SQL migrations with a PL/pgSQL function between StatementBegin
//     and StatementEnd and one outside a transaction (Up, Status, Down,
//     Redo, DownTo, UpByOne, Reset), and its Provider with a Go migration
//     and both lockers (advisory lock, lock table);
//   - bun: pgdialect over bun's own wire driver (CreateTable with foreign
//     keys, CreateIndex, RETURNING, bulk insert and update, ON CONFLICT,
//     has-many, belongs-to and many-to-many relations, RunInTx committed,
//     rolled back, read-only and nested, FOR UPDATE, soft delete, arrays,
//     JSONB, ranges, partitions, MERGE, maps, COPY, LISTEN/NOTIFY,
//     bun/migrate and its AutoMigrator);
//   - ent: its schema migration, which is Atlas reading the live schema
//     from the catalog (pg_index_column_has_property, pg_constraint's
//     operator arrays, information_schema) and applying the difference,
//     through three revisions; Atlas's inspection printed as HCL; queries
//     through ent's SQL builder (RETURNING, an upsert, joins with
//     aggregates, a jsonb ? parameter, a rollback, a unique violation, ON
//     DELETE SET NULL and CASCADE).
//
// Each stack runs on a database of its own, on fickle in real time with the
// adversary and with --profile postgres, as the GORM test does (the pools
// spread statements over several connections).
func TestGoApplicationStacksMatchPostgres(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the Go applications")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "goapps"))
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(t.TempDir(), "goapps")
	if out, err := runTool(t, 5*time.Minute, nil, goBin, "build", "-C", dir, "-o", app, "."); err != nil {
		t.Fatalf("building %s: %v\n%s", dir, err, out)
	}
	port := startPostgres(t)
	modes := []struct {
		name string
		args []string
	}{
		{"realtime", []string{"--realtime", "--strategy", "adversarial"}},
		{"postgres", []string{"--profile", "postgres"}},
	}
	for _, stack := range []string{"migrate", "goose", "bun", "ent"} {
		t.Run(stack, func(t *testing.T) {
			run := func(t *testing.T, port int, user, db string) string {
				t.Helper()
				out, err := runTool(t, 2*time.Minute, nil, app, stack, fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, port, db))
				if err != nil {
					t.Fatalf("goapps %s on port %d: %v\n%s", stack, port, err, out)
				}
				return out
			}
			want := run(t, port, "postgres", freshPostgresDB(t, port))
			for _, mode := range modes {
				t.Run(mode.name, func(t *testing.T) {
					srv := startFickle(t, mode.args...)
					if got := run(t, srv.Port, "app", "fickle"); got != want {
						t.Errorf("goapps %s prints differently than on PostgreSQL:\n%s", stack, lineDiff(want, got))
					}
				})
			}
		})
	}
}
