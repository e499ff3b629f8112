package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fickleBin is the path of the fickle binary built by TestMain.
var fickleBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fickle-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	fickleBin = filepath.Join(dir, "fickle")
	build := exec.Command("go", "build", "-o", fickleBin, "github.com/fickle-db/fickle/cmd/fickle")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fickle:", err)
		return 1
	}
	code := m.Run()
	stopPostgres()
	return code
}

// fickleServer is a running `fickle serve` process.
type fickleServer struct {
	Host string
	Port int
	cmd  *exec.Cmd
	logs *lockedBuffer
}

// DSN returns a libpq-style URL for the server.
func (s *fickleServer) DSN() string {
	return fmt.Sprintf("postgres://fickle@%s:%d/fickle?sslmode=disable", s.Host, s.Port)
}

// startFickle starts `fickle serve --listen 127.0.0.1:0 --strategy latest
// args...` and stops it when the test ends. The server's output is logged if
// the test fails. These tests pin what clients and SQL do, not isolation, so
// reads serve the latest committed version (as PostgreSQL's would across a
// connection pool) unless args give another --strategy.
func startFickle(t testing.TB, args ...string) *fickleServer {
	t.Helper()
	return startFickleUnder(t, nil, args...)
}

// startFickleUnder is startFickle run through the command wrapper (for
// example a shell that lowers a limit first, then runs "$0" "$@").
func startFickleUnder(t testing.TB, wrapper []string, args ...string) *fickleServer {
	t.Helper()
	argv := append(append(wrapper[:len(wrapper):len(wrapper)], fickleBin, "serve", "--listen", "127.0.0.1:0", "--strategy", "latest"), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting fickle: %v", err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			logs.Write([]byte(line + "\n"))
			if a, ok := strings.CutPrefix(line, "listening on "); ok && !sent {
				addr <- strings.TrimSpace(a)
				sent = true
			}
		}
		if !sent {
			close(addr)
		}
	}()
	srv := &fickleServer{cmd: cmd, logs: logs}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("fickle did not stop within 10s of SIGINT")
		}
		if t.Failed() {
			t.Logf("fickle output:\n%s", logs.String())
		}
	})
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("fickle exited without printing its address:\n%s", logs.String())
		}
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatalf("fickle printed a bad address %q: %v", a, err)
		}
		srv.Host = host
		srv.Port, _ = strconv.Atoi(port)
	case <-time.After(30 * time.Second):
		t.Fatalf("fickle did not print its address within 30s:\n%s", logs.String())
	}
	return srv
}

// lockedBuffer collects a process's output from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// requirePG reports whether missing PostgreSQL tools are a failure rather
// than a reason to skip.
func requirePG() bool { return os.Getenv("FICKLE_REQUIRE_PG") == "1" }

// pgTool returns the path of a PostgreSQL client or server program, or skips
// (fails under FICKLE_REQUIRE_PG=1) when it is not installed.
func pgTool(t testing.TB, name string) string {
	t.Helper()
	candidates := []string{}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(out)), name))
	}
	candidates = append(candidates, filepath.Join("/usr/lib/postgresql/15/bin", name))
	if p, err := exec.LookPath(name); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	if requirePG() {
		t.Fatalf("%s is not installed (FICKLE_REQUIRE_PG=1)", name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}

// postgres is the real PostgreSQL 15 shared by the differential tests.
var postgres struct {
	once sync.Once
	err  error
	dir  string
	port int
	ctl  string
	asPG bool
}

// startPostgres starts (once per test binary) a throwaway PostgreSQL cluster on
// a free port, with fsync off so that it works in memory like fickle, and
// returns its port.
func startPostgres(t testing.TB) int {
	t.Helper()
	initdb := pgTool(t, "initdb")
	pgctl := pgTool(t, "pg_ctl")
	postgres.once.Do(func() { postgres.err = bootPostgres(initdb, pgctl) })
	if postgres.err != nil {
		if requirePG() {
			t.Fatalf("starting PostgreSQL: %v", postgres.err)
		}
		t.Skipf("cannot start PostgreSQL: %v", postgres.err)
	}
	return postgres.port
}

func bootPostgres(initdb, pgctl string) error {
	dir, err := os.MkdirTemp("", "fickle-pg-")
	if err != nil {
		return err
	}
	postgres.dir, postgres.ctl = dir, pgctl
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		postgres.asPG = true
		if err := exec.Command("chown", "postgres:postgres", dir).Run(); err != nil {
			return fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	// The C locale: fickle compares text by code point, and its databases
	// report collation C, as this cluster's then do.
	if out, err := asPostgres(initdb, "-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	postgres.port = port
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50", port, dir)
	if out, err := asPostgres(pgctl, "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	return nil
}

func stopPostgres() {
	if postgres.dir == "" {
		return
	}
	if postgres.port != 0 {
		_ = asPostgres(postgres.ctl, "-D", filepath.Join(postgres.dir, "data"), "-m", "immediate", "-w", "stop").Run()
	}
	os.RemoveAll(postgres.dir)
}

// asPostgres runs a PostgreSQL server program, as user postgres when we are
// root (the server refuses to run as root).
func asPostgres(prog string, args ...string) *exec.Cmd {
	if postgres.asPG {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", prog}, args...)...)
	}
	return exec.Command(prog, args...)
}

// postgresDSN returns a URL for the shared PostgreSQL, database postgres.
func postgresDSN(port int) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
}

// freshPostgresDB creates an empty database in the shared PostgreSQL, dropped
// at the end of the test, and returns its name.
func freshPostgresDB(t testing.TB, port int) string {
	t.Helper()
	name := fmt.Sprintf("t_%d", time.Now().UnixNano())
	psql := pgTool(t, "psql")
	run := func(sql string) error {
		out, err := exec.Command(psql, "-X", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", "postgres", "-c", sql).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	if err := run("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() { _ = run("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	return name
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// runTool runs a client program with a deadline and returns its combined
// output.
func runTool(t testing.TB, timeout time.Duration, stdin io.Reader, prog string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin = stdin
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10", "PGOPTIONS=", "PGPASSWORD=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// parallelism is how many clients the load tests run: enough to interleave,
// few enough for a 2-core CI machine.
var parallelism = max(2, runtime.NumCPU())
