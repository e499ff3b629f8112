package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The application-stack tests (Django, SQLAlchemy, psycopg, asyncpg,
// ActiveRecord) run a real client library against a server the test
// starts. .ci/run installs the Debian packages they need; elsewhere a
// missing one skips the test, unless FICKLE_REQUIRE_PG=1 makes it fail.

// systemPython is the interpreter the Debian python3-* packages install
// into.
const systemPython = "/usr/bin/python3"

// requirePython returns systemPython after checking that it can import
// every module, skipping (failing under FICKLE_REQUIRE_PG=1) otherwise.
func requirePython(t testing.TB, modules ...string) string {
	t.Helper()
	script := "import " + strings.Join(modules, ", ")
	if out, err := exec.Command(systemPython, "-c", script).CombinedOutput(); err != nil {
		missing(t, fmt.Sprintf("python3 cannot import %s: %v\n%s", strings.Join(modules, ", "), err, out))
	}
	return systemPython
}

// requireRuby checks that ruby can require every library, like
// requirePython.
func requireRuby(t testing.TB, libs ...string) string {
	t.Helper()
	ruby, err := exec.LookPath("ruby")
	if err != nil {
		missing(t, "ruby is not installed")
		return ""
	}
	var script strings.Builder
	for _, l := range libs {
		fmt.Fprintf(&script, "require %q;", l)
	}
	if out, err := exec.Command(ruby, "-e", script.String()).CombinedOutput(); err != nil {
		missing(t, fmt.Sprintf("ruby cannot require %s: %v\n%s", strings.Join(libs, ", "), err, out))
	}
	return ruby
}

func missing(t testing.TB, why string) {
	t.Helper()
	if requirePG() {
		t.Fatalf("%s (FICKLE_REQUIRE_PG=1)", why)
	}
	t.Skip(why)
}

// stackRun runs a client program in dir with PGHOST/PGPORT/PGUSER naming
// the server (and env added) and returns its combined output.
type stackRun struct {
	dir  string
	host string
	port int
	user string
	env  []string
}

func (r stackRun) run(t testing.TB, timeout time.Duration, prog string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := r.command(ctx, prog, args...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%v (timed out after %s)", err, timeout)
	}
	return string(out), err
}

// command prepares prog to run in r.dir with r's environment.
func (r stackRun) command(ctx context.Context, prog string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "PGHOST="+r.host, "PGPORT="+strconv.Itoa(r.port), "PGUSER="+r.user,
		"PGOPTIONS=", "PGPASSWORD=", "PYTHONDONTWRITEBYTECODE=1")
	cmd.Env = append(cmd.Env, r.env...)
	return cmd
}

// stdout runs a client program like run and returns its standard output
// alone (drivers log warnings on stderr when they like), failing the test
// with both on error.
func (r stackRun) stdout(t testing.TB, timeout time.Duration, prog string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := r.command(ctx, prog, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", filepath.Base(prog), strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// mustRun is run that fails the test on error.
func (r stackRun) mustRun(t testing.TB, timeout time.Duration, prog string, args ...string) string {
	t.Helper()
	out, err := r.run(t, timeout, prog, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(prog), strings.Join(args, " "), err, out)
	}
	return out
}

// fickleModes are the server settings every stack runs under: real time
// added to the adversarial strategy, and the adversarial default alone,
// under which a new connection may see data as it was before earlier
// commits (docs/clients.md says what a suite does about it).
var fickleModes = []struct {
	name string
	args []string
}{
	{"realtime", []string{"--realtime", "--strategy", "adversarial"}},
	{"adversarial", []string{"--strategy", "adversarial"}},
}

// checkpoint runs SELECT fickle_checkpoint() in database db of srv, as
// docs/clients.md tells a suite to do once its schema and fixtures are
// loaded: every connection then sees them.
func checkpoint(t testing.TB, srv *fickleServer, db string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://fickle@%s:%d/%s?sslmode=disable", srv.Host, srv.Port, db))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "SELECT fickle_checkpoint()"); err != nil {
		t.Fatalf("fickle_checkpoint(): %v", err)
	}
}

// recreatePostgresDB drops and creates a database of the shared
// PostgreSQL under a fixed name, for projects whose settings name their
// database, and drops it when the test ends.
func recreatePostgresDB(t testing.TB, port int, name string) {
	t.Helper()
	psql := pgTool(t, "psql")
	run := func(sql string) error {
		out, err := exec.Command(psql, "-X", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", "postgres", "-c", sql).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	for _, db := range []string{name, "test_" + name} {
		if err := run("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"); err != nil {
			t.Fatalf("drop database: %v", err)
		}
	}
	if err := run("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() { _ = run("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
}

// stepsMatchPostgres runs `prog script STEP` in dir for each step, first
// against PostgreSQL 15 (a fresh database), then against fickle in each of
// fickleModes, with fickle_checkpoint() after the first step as
// docs/clients.md says, and requires each step to print on fickle what it
// printed on PostgreSQL.
func stepsMatchPostgres(t *testing.T, dir, prog, script string, steps ...string) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	port := startPostgres(t)
	pg := stackRun{dir: dir, host: "127.0.0.1", port: port, user: "postgres", env: []string{"PGDATABASE=" + freshPostgresDB(t, port)}}
	want := make([]string, len(steps))
	for i, step := range steps {
		want[i] = pg.stdout(t, 2*time.Minute, prog, script, step)
	}
	for _, mode := range fickleModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := startFickle(t, mode.args...)
			r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "app", env: []string{"PGDATABASE=fickle"}}
			for i, step := range steps {
				if i == 1 {
					checkpoint(t, srv, "fickle")
				}
				if got := r.stdout(t, 2*time.Minute, prog, script, step); got != want[i] {
					t.Errorf("%s %s prints differently than on PostgreSQL:\n%s", script, step, lineDiff(want[i], got))
				}
			}
		})
	}
}
