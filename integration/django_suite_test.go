package integration

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// djangoSuiteSHA256 is the checksum of Debian's python-django_3.2.25.orig.tar.gz
// (Django 3.2.25, the version Debian 12's python3-django installs), whose
// tests/ directory is Django's own test suite.
const djangoSuiteSHA256 = "7ca38a78654aee72378594d63e51636c04b8e28574f5505dff630895b5472777"

// djangoSuiteGroups are the Django test apps run against fickle, one
// runtests.py per group: the apps that exercise the database most (the
// ORM's queries, expressions and aggregates, schema editing, migrations,
// introspection, transactions and row locks, field types, relations). The
// groups are run two at a time, each in its own test databases.
// postgres_tests covers django.contrib.postgres (array, JSON, hstore and
// range fields, full-text search, exclusion constraints, the indexes of
// every access method, the postgres aggregates) after a migration that
// creates the extensions bloom, btree_gin, btree_gist, citext, hstore,
// pg_trgm, unaccent and uuid-ossp; it adds about 550 tests and a few
// seconds.
var djangoSuiteGroups = [][]string{
	{"migrations"},
	{"postgres_tests"},
	{"schema", "inspectdb", "introspection", "indexes", "constraints"},
	{"queries", "basic", "transactions", "transaction_hooks"},
	{"model_fields", "serializers", "fixtures", "raw_query"},
	{"select_for_update", "delete", "get_or_create", "bulk_create", "update"},
	{"expressions", "expressions_window", "aggregation", "aggregation_regress", "annotations"},
	{"backends", "lookup", "custom_lookups", "db_functions", "timezones"},
	{"many_to_one", "many_to_many", "one_to_one", "model_inheritance", "ordering", "null_fk", "distinct_on_fields", "dates", "datetimes"},
	{"prefetch_related", "select_related", "select_related_onetoone", "select_related_regress", "defer", "defer_regress"},
	{"generic_relations", "generic_relations_regress", "m2m_through", "m2m_through_regress", "m2m_regress", "m2m_recursive", "m2o_recursive"},
	{"custom_pk", "custom_managers", "model_regress", "foreign_object", "filtered_relation", "expressions_case", "proxy_models"},
	{"multiple_database", "queryset_pickle", "or_lookups", "known_related_objects", "get_earliest_or_latest", "update_only_fields", "null_queries", "model_formsets", "model_forms"},
	{"contenttypes_tests", "sessions_tests", "signals", "save_delete_hooks", "force_insert_update", "order_with_respect_to", "custom_columns", "extra_regress", "string_lookup", "reverse_lookup", "from_db_value", "field_defaults"},
	{"admin_views", "admin_changelist", "admin_inlines", "generic_views", "sitemaps_tests"},
	{"auth_tests", "cache", "sites_tests", "pagination", "get_object_or_404", "validation", "properties", "str", "empty", "db_typecasts"},
	{"m2m_and_m2o", "m2m_intermediary", "m2m_multiple", "m2m_signals", "many_to_one_null", "max_lengths", "mutually_referential", "nested_foreign_keys", "null_fk_ordering", "model_indexes", "model_meta", "model_options", "model_package"},
}

// djangoSuiteNotPassing maps the tests of djangoSuiteGroups that pass on
// PostgreSQL 15 but fail on fickle to the reason. Besides these, the tests
// that need the ICU collation sv-x-icu skip (fickle_settings.py says why).
var djangoSuiteNotPassing = map[string]string{
	"schema.tests.SchemaTests.test_ci_cs_db_collation":                                             "CREATE COLLATION is not supported by fickle (0A000)",
	"inspectdb.tests.InspectDBTransactionalTests.test_foreign_data_wrapper":                        "the file_fdw extension (foreign tables) is not supported by fickle (0A000)",
	"postgres_tests.test_operations.CreateCollationTests.test_create_collation_alternate_provider": "CREATE COLLATION is not supported by fickle (0A000)",
	"postgres_tests.test_operations.CreateCollationTests.test_create_non_deterministic_collation":  "CREATE COLLATION is not supported by fickle (0A000)",
	"postgres_tests.test_operations.CreateExtensionTests.test_allow_migrate":                       "the tablefunc extension is not supported by fickle (0A000)",
}

// TestDjangoSuite runs Django's own test suite (tests/runtests.py of the
// source tarball FICKLE_DJANGO_SRC names, which .ci/run fetches from
// Debian's pool and checks) for the apps of djangoSuiteGroups against a
// fickle, with Django imported from that same source: every test passes
// or skips but those djangoSuiteNotPassing gives with a reason. A listed
// test that passes is logged, so that the list can shrink.
func TestDjangoSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("Django's suite takes minutes")
	}
	tarball := os.Getenv("FICKLE_DJANGO_SRC")
	if tarball == "" {
		missing(t, "FICKLE_DJANGO_SRC does not name python-django_3.2.25.orig.tar.gz, Django's source with its test suite (.ci/run fetches it)")
		return
	}
	python := requirePython(t, "psycopg2", "asgiref", "sqlparse", "pytz")
	root := unpackDjangoSource(t, tarball)
	srv := startFickle(t)
	settings, err := filepath.Abs(filepath.Join("testdata", "django_suite"))
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu      sync.Mutex
		results = map[string]string{}
		wg      sync.WaitGroup
	)
	groups := make(chan []string)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := stackRun{dir: filepath.Join(root, "tests"), host: srv.Host, port: srv.Port, user: "postgres", env: []string{
				"PYTHONPATH=" + settings + string(os.PathListSeparator) + root,
				"DJSUITE_HOST=" + srv.Host, "DJSUITE_PORT=" + strconv.Itoa(srv.Port),
				"DJSUITE_WORKER=" + strconv.Itoa(w), "DJSUITE_NO_ICU=1",
			}}
			for apps := range groups {
				args := append([]string{"runtests.py", "--settings", "fickle_settings", "--parallel", "1", "-v", "2", "--noinput"}, apps...)
				out, _ := r.run(t, 10*time.Minute, python, args...)
				got, err := parseDjangoTestOutput(out, filepath.Join(root, "django"))
				mu.Lock()
				if err != nil {
					t.Errorf("runtests.py %s: %v\n%s", strings.Join(apps, " "), err, tail(out, 60))
				}
				for k, v := range got {
					results[k] = v
				}
				mu.Unlock()
			}
		}()
	}
	for _, g := range djangoSuiteGroups {
		groups <- g
	}
	close(groups)
	wg.Wait()

	counts := map[string]int{}
	var failed []string
	for name, status := range results {
		counts[status]++
		_, expected := djangoSuiteNotPassing[name]
		switch {
		case status == "ok" || status == "skipped" || status == "expected failure":
			if expected {
				t.Logf("%s passes on fickle now (%s); remove it from djangoSuiteNotPassing", name, status)
			}
		case !expected:
			failed = append(failed, name+": "+status)
		}
	}
	sort.Strings(failed)
	for _, f := range failed {
		t.Errorf("Django test fails on fickle: %s", f)
	}
	t.Logf("Django's suite on fickle: %d tests, %d passed, %d skipped, %d expected failures, %d failed or errored (%d listed as not passing)",
		len(results), counts["ok"], counts["skipped"], counts["expected failure"], counts["FAIL"]+counts["ERROR"]+counts["unexpected success"], len(djangoSuiteNotPassing))
	if len(results) < 7000 {
		t.Errorf("only %d Django tests ran; the apps of djangoSuiteGroups hold over 7,000", len(results))
	}
}

// unpackDjangoSource checks tarball against djangoSuiteSHA256 and unpacks
// its Django-3.2.25 directory into a temporary directory, returning the
// path of that directory.
func unpackDjangoSource(t *testing.T, tarball string) string {
	t.Helper()
	data, err := os.ReadFile(tarball)
	if err != nil {
		t.Fatalf("FICKLE_DJANGO_SRC: %v", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != djangoSuiteSHA256 {
		t.Fatalf("FICKLE_DJANGO_SRC %s has SHA-256 %x, want %s (python-django_3.2.25.orig.tar.gz)", tarball, sum, djangoSuiteSHA256)
	}
	dir := t.TempDir()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	const top = "Django-3.2.25/"
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", tarball, err)
		}
		name, ok := strings.CutPrefix(h.Name, top)
		if !ok || name == "" || strings.Contains(name, "..") {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o755)
		case tar.TypeReg:
			err = writeFileFrom(path, tr, os.FileMode(h.Mode).Perm()|0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeFileFrom writes r to path, making its directory first.
func writeFileFrom(path string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var (
	// djangoTestLine starts the verbose report of one test: its method
	// and, in parentheses, its dotted path (module.Class.method under
	// Python 3.11, module.Class before).
	djangoTestLine = regexp.MustCompile(`^(test\w*) \(([\w.]+)\)`)
	// djangoStatus ends it.
	djangoStatus = regexp.MustCompile(` \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)\b`)
	// djangoFailure heads the report of a failed test or subtest.
	djangoFailure = regexp.MustCompile(`^(FAIL|ERROR): (test\w*) \(([\w.]+)\)`)
)

// parseDjangoTestOutput reads the output of runtests.py -v 2 and returns
// the status of every test by its dotted name (ok, skipped, expected
// failure, FAIL, ERROR or unexpected success; a test with a failed subtest
// counts as failed). It fails when the run did not end with unittest's
// summary or imported Django from elsewhere than djangoDir.
func parseDjangoTestOutput(out, djangoDir string) (map[string]string, error) {
	if !strings.Contains(out, "Testing against Django installed in '"+djangoDir+"'") {
		return nil, fmt.Errorf("runtests.py did not import Django from %s", djangoDir)
	}
	fullName := func(method, path string) string {
		if strings.HasSuffix(path, "."+method) {
			return path
		}
		return path + "." + method
	}
	results := map[string]string{}
	current := ""
	ran := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if m := djangoFailure.FindStringSubmatch(line); m != nil {
			results[fullName(m[2], m[3])] = m[1]
			continue
		}
		if m := djangoTestLine.FindStringSubmatch(line); m != nil {
			current = fullName(m[1], m[2])
		}
		if m := djangoStatus.FindStringSubmatch(line); m != nil && current != "" {
			if results[current] != "FAIL" && results[current] != "ERROR" {
				results[current] = m[1]
			}
			current = ""
		}
		if strings.HasPrefix(line, "Ran ") && strings.Contains(line, " test") {
			ran = true
		}
	}
	if !ran {
		return results, fmt.Errorf("runtests.py ended without unittest's summary")
	}
	return results, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
