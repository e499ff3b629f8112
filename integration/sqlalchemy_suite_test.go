package integration

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// sqlalchemySuiteNotPassing lists the tests of SQLAlchemy's and Alembic's
// dialect suites that do not pass on fickle although they pass on
// PostgreSQL 15, keyed "DRIVER FILE::CLASS::TEST" (DRIVER * for every
// driver, CLASS without the suffix naming the backend), with the reason.
// Every other test the suites run must pass; none is listed now, as every
// test that passes on PostgreSQL passes on fickle.
var sqlalchemySuiteNotPassing = map[string]string{}

// sqlalchemySuiteDrivers are the DBAPI drivers Debian has that SQLAlchemy
// 1.4 takes. Debian 12's pg8000 (1.10.6) is older than the 1.16.6
// SQLAlchemy requires, so the suites cannot run with it, on PostgreSQL
// either.
var sqlalchemySuiteDrivers = []string{"psycopg2", "asyncpg"}

// TestSQLAlchemyAndAlembicSuites runs the dialect compliance suites that
// Debian's python3-sqlalchemy (sqlalchemy.testing.suite) and
// python3-alembic (alembic.testing.suite) ship, as a third-party dialect
// runs them (testdata/sqlalchemy_suite: SQLAlchemy's pytest plugin, a
// requirements class opening what PostgreSQL 15 supports), against fickle
// with each driver, and fails on every test that fails or errors there and
// is not listed in sqlalchemySuiteNotPassing.
func TestSQLAlchemyAndAlembicSuites(t *testing.T) {
	for _, driver := range sqlalchemySuiteDrivers {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			python := requirePython(t, "sqlalchemy", "alembic", "pytest", driver)
			dir := t.TempDir()
			copySuiteFiles(t, filepath.Join("testdata", "sqlalchemy_suite"), dir)
			srv := startFickle(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, srv.DSN())
			if err != nil {
				t.Fatal(err)
			}
			// The schemas the suites' cross-schema tests use.
			for _, sql := range []string{"CREATE SCHEMA test_schema", "CREATE SCHEMA test_schema_2"} {
				if _, err := conn.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			conn.Close(ctx)
			report := filepath.Join(dir, "report.xml")
			r := stackRun{dir: dir, host: srv.Host, port: srv.Port, user: "postgres"}
			dburi := fmt.Sprintf("postgresql+%s://postgres@%s:%d/fickle", driver, srv.Host, srv.Port)
			out, runErr := r.run(t, 4*time.Minute, python, "-m", "pytest", "-q", "--dburi", dburi, "--junitxml", report)
			cases, err := readJUnit(report)
			if err != nil {
				t.Fatalf("pytest left no report (%v; %v):\n%s", err, runErr, out)
			}
			checkPytestCases(t, driver, cases, out)
		})
	}
}

// copySuiteFiles copies the scaffolding into dir, where pytest and
// Alembic's environment tests write their files.
func copySuiteFiles(t *testing.T, from, dir string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// junitCase is a test case of pytest's JUnit XML report.
type junitCase struct {
	Classname string    `xml:"classname,attr"`
	Name      string    `xml:"name,attr"`
	Failure   *junitMsg `xml:"failure"`
	Error     *junitMsg `xml:"error"`
	Skipped   *junitMsg `xml:"skipped"`
}

type junitMsg struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// readJUnit reads the test cases of a pytest --junitxml report.
func readJUnit(path string) ([]junitCase, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Suites []struct {
			Cases []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var cases []junitCase
	for _, s := range doc.Suites {
		cases = append(cases, s.Cases...)
	}
	return cases, nil
}

// backendSuffix is what SQLAlchemy's plugin appends to the name of a test
// class that runs per backend (_postgresql+psycopg2_15_0).
var backendSuffix = regexp.MustCompile(`_postgresql\+\w+_[0-9_]+$`)

// pytestCaseKey names a case FILE::CLASS::TEST, its class without the
// backend suffix.
func pytestCaseKey(c junitCase) string {
	file, class, _ := strings.Cut(c.Classname, ".")
	return file + ".py::" + backendSuffix.ReplaceAllString(class, "") + "::" + c.Name
}

// checkPytestCases fails the test on every case that failed or errored
// and is not listed for the driver, and logs the counts and the listed
// cases that pass now.
func checkPytestCases(t *testing.T, driver string, cases []junitCase, out string) {
	t.Helper()
	passed, skipped, expected := 0, 0, 0
	var unexpected []string
	for _, c := range cases {
		key := pytestCaseKey(c)
		why, listed := sqlalchemySuiteNotPassing[driver+" "+key]
		if !listed {
			why, listed = sqlalchemySuiteNotPassing["* "+key]
		}
		bad := c.Failure
		if bad == nil {
			bad = c.Error
		}
		switch {
		case c.Skipped != nil:
			skipped++
		case bad == nil:
			passed++
			if listed {
				t.Logf("%s passes on fickle now: remove it from the list (%s)", key, why)
			}
		case listed:
			expected++
		default:
			unexpected = append(unexpected, fmt.Sprintf("%s fails on fickle with %s:\n%s", key, driver, bad.Text))
		}
	}
	t.Logf("%s: %d passed, %d skipped, %d failed as listed", driver, passed, skipped, expected)
	// A run that passed far fewer than the 694 tests that pass on
	// PostgreSQL did not get to run the suites.
	if passed < 600 {
		t.Errorf("only %d tests passed with %s; pytest said:\n%s", passed, driver, out)
	}
	sort.Strings(unexpected)
	for _, u := range unexpected {
		t.Error(u)
	}
}
