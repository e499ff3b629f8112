package integration

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestGORMApplicationMatchesPostgres builds testdata/gorm, a GORM
// application (its own module), and requires it to print on fickle what it
// prints on PostgreSQL 15: AutoMigrate twice, preloaded has-many and
// many-to-many associations, soft deletes, an upsert, transactions
// committed and rolled back, a CHECK constraint, the migrator's column
// types and index checks. GORM's pool spreads the statements over several
// connections, so fickle runs in real time (with the adversary) and with
// --profile postgres, where a read sees what committed before it as on
// PostgreSQL.
func TestGORMApplicationMatchesPostgres(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the GORM application")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "gorm"))
	if err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(t.TempDir(), "gormapp")
	if out, err := runTool(t, 5*time.Minute, nil, goBin, "build", "-C", dir, "-o", app, "."); err != nil {
		t.Fatalf("building %s: %v\n%s", dir, err, out)
	}
	run := func(t *testing.T, port int, user, db string) string {
		t.Helper()
		out, err := runTool(t, 2*time.Minute, nil, app, fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, port, db))
		if err != nil {
			t.Fatalf("gormapp on port %d: %v\n%s", port, err, out)
		}
		return out
	}
	port := startPostgres(t)
	want := run(t, port, "postgres", freshPostgresDB(t, port))
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"realtime", []string{"--realtime", "--strategy", "adversarial"}},
		{"postgres", []string{"--profile", "postgres"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			srv := startFickle(t, mode.args...)
			if got := run(t, srv.Port, "app", "fickle"); got != want {
				t.Errorf("gormapp prints differently than on PostgreSQL:\n%s", lineDiff(want, got))
			}
		})
	}
}
