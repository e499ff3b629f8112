package integration

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// describeCommands are the psql 15 meta-commands whose output fickle pins in
// testdata/psql_describe.out and which must print the same as on
// PostgreSQL for the same schema (testdata/describe_schema.sql).
var describeCommands = []string{
	`\d`, `\d authors`, `\d+ authors`, `\d app.books`, `\d+ app.books`, `\d app.books_title_idx`, `\d authors_pkey`, `\d authors_name_ci`,
	`\d app.ticket_seq`, `\d authors_id_seq`, `\d app.book_titles`, `\d+ app.book_titles`, `\d+ author_names`,
	`\dt`, `\dt app.*`, `\di`, `\di app.*`, `\dv`, `\dv app.*`, `\ds`, `\ds app.*`,
	`\dn`, `\dn+`, `\du`, `\dg`, `\l`, `\dx`, `\df`, `\df app.*`, `\dT`, `\dp`, `\dD`,
	`\df+ app.*`, `\sf app.book_count`, `\sf+ trim_name`, `\sf app.transfer`, `\sf app.priced`,
	`\d app.keys`, `\df public.gen_*`, `\df+ digest`, `\df public.gen_random_uuid`, `\sf public.crypt`, `\dx+ pgcrypto`,
	`\dD+ app.*`, `\dT+ app.*`, `\d app.address`, `\df+ upper`, `\sf pg_catalog.upper(text)`, `\df+ generate_series`,
	`\dconfig+ work_mem`, `\dconfig+ search_path`, `\dconfig *float*`, `\d app.stays`, `\d app.stays_nights_excl`,
}

// TestPsqlDescribeCommandsMatchPostgres creates testdata/describe_schema.sql
// on fickle (in each of fickleConfigs) and on PostgreSQL 15, as user
// postgres in a database of the same name, runs each describe command
// through `psql -X -A` (unaligned, so names of different lengths do not
// change column widths) and requires
// fickle's output to equal the golden file and PostgreSQL's. PostgreSQL's
// \l lists the cluster's other databases too: only the test database's
// line is compared. The roles the schema creates are dropped from the
// shared cluster when the test ends.
func TestPsqlDescribeCommandsMatchPostgres(t *testing.T) {
	psql := pgTool(t, "psql")
	schema := filepath.Join("testdata", "describe_schema.sql")
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	conn := func(port int) []string {
		return []string{"-X", "-A", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", db}
	}
	createSchema := func(port int) {
		if out, err := runTool(t, 60*time.Second, nil, psql, append(conn(port), "-q", "-f", schema)...); err != nil {
			t.Fatalf("creating %s: %v\n%s", schema, err, out)
		}
	}
	describeAll := func(port int) map[string]string {
		outs := map[string]string{}
		for _, cmd := range describeCommands {
			out, err := runTool(t, 60*time.Second, nil, psql, append(conn(port), "-c", cmd)...)
			if err != nil {
				t.Errorf("psql %s: %v\n%s", cmd, err, out)
			}
			switch cmd {
			case `\l`:
				out = onlyLines(out, db+"|")
			}
			outs[cmd] = out
		}
		return outs
	}

	fickleOuts := map[string]map[string]string{}
	for _, cfg := range fickleConfigs {
		srv := startFickle(t, append([]string{"--database", db}, cfg.args(schema)...)...)
		if !cfg.load {
			createSchema(srv.Port)
		}
		fickleOuts[cfg.name] = describeAll(srv.Port)
	}
	got := fickleOuts[fickleConfigs[0].name]
	var all strings.Builder
	for _, cmd := range describeCommands {
		all.WriteString("=== " + cmd + "\n" + strings.ReplaceAll(got[cmd], db, "DB"))
	}
	golden := filepath.Join("testdata", "psql_describe.out")
	if os.Getenv("FICKLE_REWRITE") == "1" {
		if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden output (FICKLE_REWRITE=1 writes it): %v", err)
	}
	if all.String() != string(want) {
		t.Errorf("describe output against fickle differs from %s:\n%s", golden, lineDiff(string(want), all.String()))
	}

	t.Cleanup(func() {
		_, _ = runTool(t, time.Minute, nil, psql, append(conn(port), "-c", "DROP OWNED BY describe_app, describe_reader",
			"-c", "DROP ROLE IF EXISTS describe_app, describe_reader")...)
	})
	createSchema(port)
	pgOuts := describeAll(port)
	for _, cfg := range fickleConfigs {
		for _, cmd := range describeCommands {
			if got := fickleOuts[cfg.name][cmd]; pgOuts[cmd] != got {
				t.Errorf("%s (%s): fickle and PostgreSQL differ:\n%s", cmd, cfg.name, lineDiff(pgOuts[cmd], got))
			}
		}
	}
}

// onlyLines keeps, of a list's unaligned output, the title, the header
// and the lines that start with prefix.
func onlyLines(out string, prefix string) string {
	lines := strings.Split(out, "\n")
	var keep []string
	for i, l := range lines {
		if i < 2 || strings.HasPrefix(l, prefix) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n") + "\n"
}
