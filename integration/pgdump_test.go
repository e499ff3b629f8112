package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pgDumpVolatileLines are the lines of pg_dump's output that differ
// between any two runs or servers, whatever the database: the key of
// \restrict and \unrestrict, which pg_dump draws at random on each run
// (PostgreSQL 15.14 and later), and the server's version string, which
// fickle gives as 15.0 and a PostgreSQL build as its own.
var pgDumpVolatileLines = regexp.MustCompile(`(?m)^(\\restrict|\\unrestrict|-- Dumped from database version) .*$`)

// normalizeDump replaces pg_dump's volatile lines with their first word.
func normalizeDump(dump string) string {
	return pgDumpVolatileLines.ReplaceAllString(dump, "$1 ...")
}

// archiveListIDs are what starts each entry of pg_restore -l's list: the
// entry's dump ID, its catalog's OID and the object's OID. Object OIDs
// differ between servers (and dump IDs follow from them); the list's
// header comments name the archive's file and time.
var archiveListIDs = regexp.MustCompile(`(?m)^\d+; \d+ \d+ |^;.*\n`)

// TestPgDumpMatchesPostgres builds testdata/pgdump_schema.sql on PostgreSQL
// 15 and on fickle, runs PostgreSQL 15's pg_dump against both, schema only
// (-s), in full (schema and COPY data) and with CREATE DATABASE (-C -s),
// and requires the same output but for pgDumpVolatileLines, and the same
// pg_restore -l list of a custom-format archive (-Fc) but for
// archiveListIDs. fickle's full dump must then load with psql -f into a
// fresh fickle database and into a fresh PostgreSQL database, and its
// archive with pg_restore into a fresh fickle database, and each of them
// must dump as the original did.
func TestPgDumpMatchesPostgres(t *testing.T) {
	psql, pgDump := pgTool(t, "psql"), pgTool(t, "pg_dump")
	schema := filepath.Join("testdata", "pgdump_schema.sql")
	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	t.Cleanup(func() {
		_, _ = runTool(t, time.Minute, nil, psql, "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", db,
			"-c", "DROP OWNED BY pgdump_reader", "-c", "DROP ROLE IF EXISTS pgdump_reader")
	})
	connArgs := func(port int, db string) []string {
		return []string{"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", db}
	}
	load := func(port int, db, file string) {
		t.Helper()
		args := append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file}, connArgs(port, db)...)
		if out, err := runTool(t, time.Minute, nil, psql, args...); err != nil {
			t.Fatalf("psql -f %s on port %d: %v\n%s", file, port, err, out)
		}
	}
	dump := func(port int, db string, flags ...string) string {
		t.Helper()
		out, err := runTool(t, time.Minute, nil, pgDump, append(flags, connArgs(port, db)...)...)
		if err != nil {
			t.Fatalf("pg_dump %s on port %d: %v\n%s", strings.Join(flags, " "), port, err, out)
		}
		return out
	}
	createDB := func(port int, name string) {
		t.Helper()
		if out, err := runTool(t, time.Minute, nil, psql, append([]string{"-X", "-q", "-c", "CREATE DATABASE " + name},
			connArgs(port, "postgres")...)...); err != nil {
			t.Fatalf("creating database %s on port %d: %v\n%s", name, port, err, out)
		}
	}

	srv := startFickle(t, "--database", db)
	load(port, db, schema)
	load(srv.Port, db, schema)
	for _, flags := range [][]string{{"-s"}, nil, {"-C", "-s"}} {
		want, got := normalizeDump(dump(port, db, flags...)), normalizeDump(dump(srv.Port, db, flags...))
		if got != want {
			t.Errorf("pg_dump %s: fickle's output differs from PostgreSQL's:\n%s", strings.Join(flags, " "), lineDiff(want, got))
		}
	}

	raw := dump(srv.Port, db)
	full := normalizeDump(raw)
	file := filepath.Join(t.TempDir(), "dump.sql")
	if err := os.WriteFile(file, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	createDB(srv.Port, "restored")
	load(srv.Port, "restored", file)
	if again := normalizeDump(dump(srv.Port, "restored")); again != full {
		t.Errorf("fickle's dump loaded into fickle dumps differently:\n%s", lineDiff(full, again))
	}
	pgRestore := pgTool(t, "pg_restore")
	archives := map[int]string{}
	for _, p := range []int{port, srv.Port} {
		archives[p] = filepath.Join(t.TempDir(), "dump.custom")
		if out, err := runTool(t, time.Minute, nil, pgDump, append([]string{"-Fc", "-f", archives[p]}, connArgs(p, db)...)...); err != nil {
			t.Fatalf("pg_dump -Fc on port %d: %v\n%s", p, err, out)
		}
	}
	list := func(archive string) string {
		t.Helper()
		out, err := runTool(t, time.Minute, nil, pgRestore, "-l", archive)
		if err != nil {
			t.Fatalf("pg_restore -l %s: %v\n%s", archive, err, out)
		}
		return archiveListIDs.ReplaceAllString(out, "")
	}
	if want, got := list(archives[port]), list(archives[srv.Port]); got != want {
		t.Errorf("pg_restore -l of fickle's archive differs from PostgreSQL's:\n%s", lineDiff(want, got))
	}
	createDB(srv.Port, "from_archive")
	if out, err := runTool(t, time.Minute, nil, pgRestore, append([]string{"--exit-on-error", archives[srv.Port]},
		connArgs(srv.Port, "from_archive")...)...); err != nil {
		t.Fatalf("pg_restore into fickle: %v\n%s", err, out)
	}
	if again := normalizeDump(dump(srv.Port, "from_archive")); again != full {
		t.Errorf("fickle's archive restored into fickle dumps differently:\n%s", lineDiff(full, again))
	}

	restoredPG := freshPostgresDB(t, port)
	load(port, restoredPG, file)
	if again := normalizeDump(dump(port, restoredPG)); again != full {
		t.Errorf("fickle's dump loaded into PostgreSQL dumps differently:\n%s", lineDiff(full, again))
	}
}
