package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// driverSuite is a Go driver whose own test suite runs against a live
// server: its module (at the version fickle's go.mod requires), the SQL
// that prepares the server as the driver's CI prepares PostgreSQL, the
// environment that points the suite at it, and the tests that do not pass
// on fickle, each with the reason.
type driverSuite struct {
	module string
	// server runs on fickle's main database before the suite (roles, the
	// suite's database), setup in the suite's database, dsnDB.
	server []string
	dsnDB  string
	setup  []string
	env    func(srv *fickleServer) []string
	// skip is the go test -skip pattern of the tests that cannot run
	// against the harness's server at all, said why in a comment.
	skip string
	// notPassing maps "PACKAGE TEST" (PACKAGE relative to the module,
	// "." for its root) to why the test fails or skips on fickle; an entry
	// covers the test's subtests too.
	notPassing map[string]string
}

// Reasons shared by several entries of the lists below.
const (
	whyNoTLS   = "the harness serves fickle without TLS; the test needs an SSL-enabled server"
	whyTrust   = "the harness serves trust authentication; the test expects password checks for particular roles"
	whyAnyUser = "fickle accepts any user name at startup (docs/clients.md); PostgreSQL refuses a role that does not exist with 28000"
)

var driverSuites = []driverSuite{
	{
		module: "github.com/jackc/pgx/v5",
		server: []string{"CREATE DATABASE pgx_test"},
		dsnDB:  "pgx_test",
		// pgx's testsetup/postgresql_setup.sql, less the ltree extension
		// (not supported by fickle) and the users of the TLS and password
		// tests, which skip without their PGX_TEST_* variables.
		setup: []string{
			"CREATE EXTENSION hstore",
			"CREATE DOMAIN uint64 AS numeric(20,0)",
			`CREATE USER " tricky, ' } "" \\ test user " SUPERUSER PASSWORD 'secret'`,
		},
		env: func(srv *fickleServer) []string {
			return []string{fmt.Sprintf("PGX_TEST_DATABASE=postgres://postgres@%s:%d/pgx_test?sslmode=disable", srv.Host, srv.Port)}
		},
		notPassing: map[string]string{
			". TestPrepareHandlesTimeoutBetweenParseAndDescribe":                 "statement_timeout runs from Execute to its end on fickle, not across a pipeline from its first message to Sync as in PostgreSQL",
			". TestPrepareWithDigestedNameHandlesTimeoutBetweenParseAndDescribe": "statement_timeout runs from Execute to its end on fickle, not across a pipeline from its first message to Sync as in PostgreSQL",
			". TestSendBatchHandlesTimeoutBetweenParseAndDescribe":               "statement_timeout runs from Execute to its end on fickle, not across a pipeline from its first message to Sync as in PostgreSQL",
			". TestTraceBatchErrorWhileReadingResults":                           "a simple-protocol SELECT whose rows fail gets no RowDescription first (PostgreSQL sends it when the executor starts; fickle folds constants while streaming, so it cannot tell which errors come before)",
			". TestTraceBatchErrorWhileReadingResultsWhileClosing":               "a simple-protocol SELECT whose rows fail gets no RowDescription first (PostgreSQL sends it when the executor starts; fickle folds constants while streaming, so it cannot tell which errors come before)",
			"pgconn TestConnExecPreparedTooManyParams":                           "a statement with more than 65535 parameters fails at Parse (42P02); PostgreSQL prepares it and refuses it at Bind",
			"pgtype TestLtreeCodec":                                              "the ltree extension is not supported by fickle (0A000)",
			"pgtype TestNumericCodec":                                            "numeric values of magnitude 1e100000 and beyond are not supported by fickle (0A000): apd's exponents stop at 100000, PostgreSQL's 131072 digits before the point go further",
			"pgtype TestNumericBinaryEncodeLargeDigitCount":                      "numeric values of magnitude 1e100000 and beyond are not supported by fickle (0A000): apd's exponents stop at 100000, PostgreSQL's 131072 digits before the point go further",
			"pgtype TestTextCodecACLItem":                                        "type aclitem is not supported by fickle (0A000)",
		},
	},
	{
		module: "github.com/lib/pq",
		// lib/pq's testdata/postgres/docker-entrypoint-initdb.d: its test
		// user and database, and the roles of its TLS and password tests.
		server: []string{
			"CREATE ROLE pqgo SUPERUSER LOGIN",
			"CREATE DATABASE pqgo OWNER pqgo",
			"CREATE ROLE pqgossl LOGIN",
			"CREATE ROLE pqgosslcert LOGIN",
			"CREATE ROLE pqgopassword LOGIN PASSWORD 'wordpass'",
			"CREATE ROLE pqgoscram LOGIN PASSWORD 'wordpass'",
			"CREATE ROLE pqgomd5 LOGIN PASSWORD 'wordpass'",
		},
		dsnDB: "pqgo",
		// These examples connect to localhost:5432 or to the host
		// "postgres" of lib/pq's compose file whatever the environment
		// says, and their log.Fatal ends the test binary.
		skip: "^(Example_openConfig|ExampleNewConnector|ExampleRegisterTLSConfig)$",
		env: func(srv *fickleServer) []string {
			return []string{"PGHOST=localhost", fmt.Sprintf("PGPORT=%d", srv.Port), "PGDATABASE=pqgo", "PGUSER=pqgo", "PGSSLMODE=disable"}
		},
		notPassing: map[string]string{
			". TestSSLClientCertificateIntermediate": whyNoTLS,
			". TestSSLClientCertificates":            whyNoTLS,
			". TestSSLDefaults":                      whyNoTLS,
			". TestSSLMode":                          whyNoTLS,
			". TestSSLRootCA":                        whyNoTLS,
			". TestSSLSNI":                           whyNoTLS,
			". TestSSLVersion":                       whyNoTLS,
			"internal/pqutil TestSSLKeyPermissions":  "run as root, a world-readable key is accepted (fails on PostgreSQL alike)",
			". TestAuth":                             whyTrust + "; and " + whyAnyUser,
			". TestErrorDuringStartup":               whyAnyUser,
			". TestErrorDuringStartupClosesConn":     whyAnyUser,
		},
	},
}

// TestDriverSuites runs the test suites of the pgx and lib/pq drivers,
// from the module proxy at the versions fickle's go.mod requires, against
// a fickle each, as their CI runs them against PostgreSQL: every test
// passes but those their suite's notPassing list gives with a reason. A
// listed test that passes is logged, so that the list can shrink.
func TestDriverSuites(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the drivers' suites")
	}
	for _, suite := range driverSuites {
		t.Run(filepath.Base(strings.TrimSuffix(suite.module, "/v5")), func(t *testing.T) {
			t.Parallel()
			dir := copyModule(t, goBin, suite.module)
			srv := startFickle(t)
			prepareSuiteDatabase(t, srv, suite)
			results := runGoTestJSON(t, goBin, dir, suite.module, suite.skip, "./...", suite.env(srv))
			failed := checkSuiteResults(t, suite, results)
			if len(failed) == 0 {
				return
			}
			// A test that failed is run again, alone, on a fresh server:
			// one that passes then failed intermittently, which the log
			// says with its first output; one that fails again fails here.
			srv = startFickle(t)
			prepareSuiteDatabase(t, srv, suite)
			for pkg, run := range rerunPatterns(failed) {
				again := runGoTestJSON(t, goBin, dir, suite.module, suite.skip, "-run="+run+" ./"+pkg, suite.env(srv))
				for _, k := range failed {
					if !strings.HasPrefix(k, pkg+" ") {
						continue
					}
					if r := again[k]; r != nil && r.action == "pass" {
						t.Logf("%s failed on fickle, then passed when run again alone (intermittent):\n%s", k, results[k].output.String())
						continue
					}
					t.Errorf("%s fails on fickle:\n%s", k, results[k].output.String())
				}
			}
		})
	}
}

// copyModule downloads module at the version fickle's go.mod requires and
// copies its source into a writable temporary directory (the module
// cache's copy is read-only), where its tests can run.
func copyModule(t *testing.T, goBin, module string) string {
	t.Helper()
	version, err := runTool(t, time.Minute, nil, goBin, "list", "-m", "-f", "{{.Version}}", module)
	if err != nil {
		t.Fatalf("go list -m %s: %v\n%s", module, err, version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goBin, "mod", "download", "-json", module+"@"+strings.TrimSpace(version)).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", module, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %v %s", module, err, info.Error)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(info.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(info.Dir, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", module, err)
	}
	return dst
}

// prepareSuiteDatabase runs the suite's server statements on srv's main
// database and its setup in the suite's database.
func prepareSuiteDatabase(t *testing.T, srv *fickleServer, suite driverSuite) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range suite.server {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	conn.Close(ctx)
	conn, err = pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@%s:%d/%s?sslmode=disable", srv.Host, srv.Port, suite.dsnDB))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range suite.setup {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// testOutcome is how one test of a suite ended, with its output.
type testOutcome struct {
	action string // pass, fail or skip
	output strings.Builder
}

// rerunPatterns groups failed tests ("PACKAGE TEST") by package: the
// -run pattern of their top-level tests.
func rerunPatterns(failed []string) map[string]string {
	tops := map[string][]string{}
	for _, k := range failed {
		pkg, test, _ := strings.Cut(k, " ")
		top, _, _ := strings.Cut(test, "/")
		if !slices.Contains(tops[pkg], top) {
			tops[pkg] = append(tops[pkg], top)
		}
	}
	out := map[string]string{}
	for pkg, names := range tops {
		out[pkg] = "^(" + strings.Join(names, "|") + ")$"
	}
	return out
}

// runGoTestJSON runs `go test -json` of what (the packages, with flags
// before them when it has a space) in dir, skipping the tests that match
// skip, with the environment's PG* variables replaced by env, and returns
// every test's outcome by "PACKAGE TEST", PACKAGE relative to module.
func runGoTestJSON(t *testing.T, goBin, dir, module, skip, what string, env []string) map[string]*testOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	args := []string{"test", "-count=1", "-short", "-json", "-timeout", "6m"}
	if skip != "" {
		args = append(args, "-skip", skip)
	}
	cmd := exec.CommandContext(ctx, goBin, append(args, strings.Fields(what)...)...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "GOWORK=off", "GOFLAGS=-mod=mod"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	results := map[string]*testOutcome{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev struct{ Action, Package, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(ev.Package, module), "/")
		if pkg == "" {
			pkg = "."
		}
		key := pkg + " " + ev.Test
		r := results[key]
		if r == nil {
			r = &testOutcome{}
			results[key] = r
		}
		switch ev.Action {
		case "output":
			r.output.WriteString(ev.Output)
		case "pass", "fail", "skip":
			r.action = ev.Action
		}
	}
	if len(results) == 0 {
		t.Fatalf("go test in %s ran no test: %v\n%s", dir, err, stderr.String())
	}
	if ctx.Err() != nil {
		t.Errorf("the suite did not finish within its time: %v\n%s", err, stderr.String())
	}
	return results
}

// checkSuiteResults returns every test that did not pass and is not listed
// (a failed test whose subtests failed is judged by them), and logs the
// listed tests that passed.
func checkSuiteResults(t *testing.T, suite driverSuite, results map[string]*testOutcome) (unexpected []string) {
	t.Helper()
	listed := func(key string) (string, bool) {
		for k := key; ; {
			if why, ok := suite.notPassing[k]; ok {
				return why, true
			}
			i := strings.LastIndex(k, "/")
			if i < strings.Index(k, " ") {
				return "", false
			}
			k = k[:i]
		}
	}
	var keys []string
	for k := range results {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	passed, failed := 0, 0
	for _, k := range keys {
		r := results[k]
		switch r.action {
		case "pass":
			passed++
			if why, ok := suite.notPassing[k]; ok {
				t.Logf("%s passes on fickle now: remove it from the list (%s)", k, why)
			}
			continue
		case "skip":
			continue
		}
		failed++
		if _, ok := listed(k); ok || failedSubtest(results, k) {
			continue
		}
		unexpected = append(unexpected, k)
	}
	t.Logf("%s: %d tests passed, %d did not", suite.module, passed, failed)
	return unexpected
}

// failedSubtest says a subtest of the test key failed: the test's own
// failure is then theirs.
func failedSubtest(results map[string]*testOutcome, key string) bool {
	for k, r := range results {
		if r.action != "pass" && r.action != "skip" && strings.HasPrefix(k, key+"/") {
			return true
		}
	}
	return false
}
