package integration

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// pgjdbcJar is the PostgreSQL JDBC driver of Debian's
// libpostgresql-jdbc-java (pgjdbc 42.5).
const pgjdbcJar = "/usr/share/java/postgresql.jar"

// TestJdbcMatchesPostgres compiles testdata/jdbc/JdbcCheck.java against
// pgjdbc and runs it on testdata/jdbc/schema.sql, against PostgreSQL 15
// and against fickle in each of fickleConfigs: the DatabaseMetaData calls
// DBeaver and Hibernate make on startup (getTables, getColumns,
// getPrimaryKeys, getImportedKeys, getExportedKeys, getIndexInfo,
// getCrossReference, getTypeInfo, ...) and an application's prepared
// statements past prepareThreshold, batches, generated keys,
// ResultSetMetaData and savepoints must print the same.
func TestJdbcMatchesPostgres(t *testing.T) {
	java, javac := clientTool(t, "java"), clientTool(t, "javac")
	jar := clientFile(t, pgjdbcJar)
	classes := t.TempDir()
	if out, err := runTool(t, 2*time.Minute, nil, javac, "-d", classes, "-cp", jar, filepath.Join("testdata", "jdbc", "JdbcCheck.java")); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	schema := filepath.Join("testdata", "jdbc", "schema.sql")
	psql := pgTool(t, "psql")
	createSchema := func(t *testing.T, port int, db string) {
		t.Helper()
		if out, err := runTool(t, time.Minute, nil, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(port),
			"-U", "postgres", "-d", db, "-f", schema); err != nil {
			t.Fatalf("creating %s: %v\n%s", schema, err, out)
		}
	}
	run := func(t *testing.T, mode string, port int, db string) string {
		t.Helper()
		url := fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/%s?user=postgres", port, db)
		out, err := runTool(t, 2*time.Minute, nil, java, "-Duser.timezone=UTC", "-cp", jar+":"+classes, "JdbcCheck", mode, url)
		if err != nil {
			t.Fatalf("JdbcCheck %s on port %d: %v\n%s", mode, port, err, out)
		}
		return out
	}

	port := startPostgres(t)
	db := freshPostgresDB(t, port)
	createSchema(t, port, db)
	want := map[string]string{"meta": run(t, "meta", port, db), "app": run(t, "app", port, db)}
	for _, cfg := range fickleConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			srv := startFickle(t, append([]string{"--database", db}, cfg.args(schema)...)...)
			if !cfg.load {
				createSchema(t, srv.Port, db)
			}
			for _, mode := range []string{"meta", "app"} {
				if got := run(t, mode, srv.Port, db); got != want[mode] {
					t.Errorf("JdbcCheck %s: fickle and PostgreSQL differ:\n%s", mode, lineDiff(want[mode], got))
				}
			}
		})
	}
}
