package integration

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// railsTarball is the Rails source Debian 12's ruby-activerecord is built
// from; .ci/run fetches it (with this checksum) into railsTarballPath.
const (
	railsTarballName   = "rails_6.1.7.10+dfsg.orig.tar.xz"
	railsTarballSHA256 = "54f0c056757697e2fd6887e622c23fac5eb862a65ac497e9e3a5081a3dc57f66"
	railsVersionDir    = "rails-6.1.7.10"
)

// railsTarballPath is where the tarball is looked for: FICKLE_RAILS_TARBALL,
// else the cache file .ci/run downloads.
func railsTarballPath() string {
	if p := os.Getenv("FICKLE_RAILS_TARBALL"); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fickle", railsTarballName)
}

// activeRecordSuiteFiles are the files of ActiveRecord's own test suite
// (activerecord/test/cases) the test runs: the PostgreSQL adapter's and
// the general ones closest to what applications do.
var activeRecordSuiteFiles = []string{
	"adapters/postgresql/*_test.rb",
	"base_test.rb",
	"transactions_test.rb",
	"locking_test.rb",
	"calculations_test.rb",
	"validations/uniqueness_validation_test.rb",
}

// activeRecordNotPassing maps "Class#test" to why that test of
// activeRecordSuiteFiles fails or errors on fickle while it passes on
// PostgreSQL 15 (or fails there only for want of what the suite's CI sets
// up besides, as the foreign tables' server).
var activeRecordNotPassing = map[string]string{
	"ActiveRecord::ConnectionAdapters::PostgreSQLAdapterTest#test_only_reload_type_map_once_for_every_unrecognized_type": "SELECT NULL::anyarray: type anyarray is not supported by fickle (0A000)",
	"ActiveRecord::ConnectionAdapters::PostgreSQLAdapterTest#test_pk_and_sequence_for_with_collision_pg_class_oid":       "the test deletes rows of pg_depend: writing to the system catalogs is not supported by fickle (0A000)",
	"DefaultsUsingMultipleSchemasAndDomainTest#test_text_defaults_after_updating_column_default":                         "pg_get_expr of a default cast to a domain named text shows fickle's casts, (('some text'::text)::text)::text, not PostgreSQL's ('some text'::pg_catalog.text)::text, which ActiveRecord parses",
	"ForeignTableTest#test_attribute_names":                       whyFDW,
	"ForeignTableTest#test_attributes":                            whyFDW,
	"ForeignTableTest#test_delete_record":                         whyFDW,
	"ForeignTableTest#test_does_not_have_a_primary_key":           whyFDW,
	"ForeignTableTest#test_foreign_table_exists":                  whyFDW,
	"ForeignTableTest#test_foreign_tables":                        whyFDW,
	"ForeignTableTest#test_foreign_tables_are_valid_data_sources": whyFDW,
	"ForeignTableTest#test_insert_record":                         whyFDW,
	"ForeignTableTest#test_table_exists":                          whyFDW,
	"ForeignTableTest#test_update_record":                         whyFDW,
	"PostgresqlLtreeTest#test_column":                             whyLtree,
	"PostgresqlLtreeTest#test_schema_dump_with_shorthand":         whyLtree,
	"PostgresqlLtreeTest#test_select":                             whyLtree,
	"PostgresqlLtreeTest#test_write":                              whyLtree,
}

// Reasons shared by several entries of activeRecordNotPassing.
const (
	whyFDW   = "the postgres_fdw extension is not supported by fickle (0A000); its insert, update, delete and attributes tests also need the loopback foreign server the suite's CI has"
	whyLtree = "the ltree extension is not supported by fickle (0A000)"
)

// TestActiveRecordSuite runs files of ActiveRecord 6.1's own test suite
// (the Rails source tarball Debian 12's ruby-activerecord comes from, its
// activesupport, activemodel and activerecord libraries, run as its
// test:postgresql task runs them) against a fickle: every test passes but
// those activeRecordNotPassing lists with a reason. A listed test that
// passes is logged, so that the list can shrink.
func TestActiveRecordSuite(t *testing.T) {
	tarball := railsTarballPath()
	if _, err := os.Stat(tarball); err != nil {
		missing(t, fmt.Sprintf("the Rails source %s is not at %s (FICKLE_RAILS_TARBALL; .ci/run fetches it)", railsTarballName, tarball))
		return
	}
	ruby := requireRuby(t, "minitest", "pg", "concurrent", "i18n", "tzinfo", "zeitwerk")
	data, err := os.ReadFile(tarball)
	if err != nil {
		t.Fatal(err)
	}
	if sum := fmt.Sprintf("%x", sha256.Sum256(data)); sum != railsTarballSHA256 {
		t.Fatalf("%s has SHA-256 %s, want %s", tarball, sum, railsTarballSHA256)
	}
	dir := t.TempDir()
	members := []string{railsVersionDir + "/activesupport/lib", railsVersionDir + "/activemodel/lib", railsVersionDir + "/activerecord"}
	if out, err := exec.Command("tar", append([]string{"-xJf", tarball, "-C", dir}, members...)...).CombinedOutput(); err != nil {
		t.Fatalf("unpacking %s: %v\n%s", tarball, err, out)
	}
	root := filepath.Join(dir, railsVersionDir)
	ar := filepath.Join(root, "activerecord")

	srv := startFickle(t)
	createActiveRecordDatabases(t, srv)
	if err := os.WriteFile(filepath.Join(ar, "test", "config.yml"), []byte(activeRecordConfig(srv)), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, pattern := range activeRecordSuiteFiles {
		matches, err := filepath.Glob(filepath.Join(ar, "test", "cases", pattern))
		if err != nil || len(matches) == 0 {
			t.Fatalf("no test file %s in the Rails source", pattern)
		}
		files = append(files, matches...)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// One process for every file, as Rake's test task runs them; -v
	// prints each test's result on a line of its own.
	args := []string{"-I" + filepath.Join(ar, "test"), "-I" + filepath.Join(ar, "lib"),
		"-I" + filepath.Join(root, "activesupport", "lib"), "-I" + filepath.Join(root, "activemodel", "lib"),
		"-e", `files = ARGV.dup; ARGV.replace(["-v", "--seed", "1"]); files.each { |f| require f }`}
	cmd := exec.CommandContext(ctx, ruby, append(args, files...)...)
	cmd.Dir = ar
	// A test that connects with libpq's defaults (database_exists? of a
	// missing database) reaches the same server.
	cmd.Env = append(os.Environ(), "ARCONN=postgresql", "PGHOST="+srv.Host, fmt.Sprintf("PGPORT=%d", srv.Port), "PGUSER=postgres")
	out, err := cmd.CombinedOutput()
	results := parseMinitestVerbose(string(out))
	summary := minitestSummary.FindStringSubmatch(string(out))
	if summary == nil {
		t.Fatalf("the suite did not run to its end (%v):\n%s", err, lastChars(string(out), 8000))
	}
	var unexpected []string
	for _, name := range minitestFailed(string(out)) {
		if _, listed := activeRecordNotPassing[name]; !listed {
			unexpected = append(unexpected, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(activeRecordNotPassing)) {
		if results[name] == "." {
			t.Logf("%s passes on fickle now; its entry (%s) can go", name, activeRecordNotPassing[name])
		}
	}
	t.Logf("ActiveRecord suite on fickle: %s", summary[0])
	for _, name := range unexpected {
		t.Errorf("%s fails on fickle:\n%s", name, minitestReport(string(out), name))
	}
	if len(unexpected) > 0 {
		t.Logf("suite output (end):\n%s", lastChars(string(out), 4000))
	}
}

// createActiveRecordDatabases makes the suite's two databases, as its
// db:postgresql:build task does.
func createActiveRecordDatabases(t *testing.T, srv *fickleServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, db := range []string{"activerecord_unittest", "activerecord_unittest2"} {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+db+" ENCODING 'UTF8' TEMPLATE template0"); err != nil {
			t.Fatalf("creating %s: %v", db, err)
		}
	}
}

// activeRecordConfig is the suite's test/config.yml: its example's
// postgresql connections, pointed at srv.
func activeRecordConfig(srv *fickleServer) string {
	conn := func(extra string) string {
		return fmt.Sprintf("      min_messages: warning\n      host: %s\n      port: %d\n      username: postgres\n%s", srv.Host, srv.Port, extra)
	}
	return "default_connection: postgresql\nconnections:\n  postgresql:\n" +
		"    arunit:\n" + conn("") +
		"    arunit_without_prepared_statements:\n" + conn("      prepared_statements: false\n") +
		"    arunit2:\n" + conn("")
}

// minitestLine is a test's result as minitest -v prints it:
// "Class#test_name = 0.01 s = ." with ., F, E or S.
var minitestLine = regexp.MustCompile(`(?m)^(\S+#\S+) = \d+\.\d+ s = ([.FES])$`)

// minitestSummary is minitest's last line: "N runs, N assertions, ...".
var minitestSummary = regexp.MustCompile(`(?m)^(\d+) runs, \d+ assertions, \d+ failures, \d+ errors, \d+ skips$`)

// minitestFailure heads a failed test's report in minitest's summary:
// "  1) Error:" or "  1) Failure:", then "Class#test:" or "Class#test [file:line]:".
var minitestFailure = regexp.MustCompile(`(?m)^\s*\d+\) (?:Error|Failure):\n(\S+#\S+?)(?::$| \[)`)

// minitestFailed returns the tests minitest's summary reports as failed.
func minitestFailed(out string) []string {
	var names []string
	for _, m := range minitestFailure.FindAllStringSubmatch(out, -1) {
		names = append(names, m[1])
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// parseMinitestVerbose maps each test minitest -v reported to its result.
func parseMinitestVerbose(out string) map[string]string {
	results := map[string]string{}
	for _, m := range minitestLine.FindAllStringSubmatch(out, -1) {
		results[m[1]] = m[2]
	}
	return results
}

// minitestReport returns minitest's report of a failed test: the
// paragraph of its summary that names it.
func minitestReport(out, name string) string {
	for _, para := range strings.Split(out, "\n\n") {
		if strings.Contains(para, name+" [") || strings.Contains(para, name+":") {
			return strings.TrimSpace(para)
		}
	}
	return "(no report)"
}

// lastChars returns the end of s, at most n bytes.
func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// TestMinitestOutputIsRead pins how the suite's output is read: each
// failed test once from the summary's reports (errors and failures, with
// or without a location), results from -v lines.
func TestMinitestOutputIsRead(t *testing.T) {
	out := "A#test_ok = 0.01 s = .\nB#test_x = 0.02 s = E\n\n  1) Error:\nB#test_x:\nRuntimeError: boom\n\n" +
		"  2) Failure:\nC::D#test_y [/x/c_test.rb:12]:\nExpected: 1\n\n  3) Error:\nB#test_x:\nagain\n\n3 runs, 2 assertions, 1 failures, 1 errors, 0 skips\n"
	if got := minitestFailed(out); !slices.Equal(got, []string{"B#test_x", "C::D#test_y"}) {
		t.Errorf("failed = %v", got)
	}
	if r := parseMinitestVerbose(out); r["A#test_ok"] != "." || r["B#test_x"] != "E" {
		t.Errorf("results = %v", r)
	}
	if minitestSummary.FindString(out) == "" {
		t.Error("no summary found")
	}
}
