package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestLargeObjectClients runs the large-object clients against PostgreSQL
// 15 and fickle and compares what they print: pgjdbc's LargeObjectManager
// and setBlob/getBlob on an oid column (testdata/largeobject/
// LargeObjectCheck.java), and psql's \lo_import, \lo_export, \lo_list and
// \lo_unlink (testdata/largeobject/psql_lo.sql), which reach the server's
// lo_* functions through the FunctionCall message.
func TestLargeObjectClients(t *testing.T) {
	port := startPostgres(t)
	t.Run("jdbc", func(t *testing.T) {
		java, javac := clientTool(t, "java"), clientTool(t, "javac")
		jar := clientFile(t, pgjdbcJar)
		classes := t.TempDir()
		if out, err := runTool(t, 2*time.Minute, nil, javac, "-d", classes, "-cp", jar, filepath.Join("testdata", "largeobject", "LargeObjectCheck.java")); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		run := func(port int, db string) string {
			t.Helper()
			url := fmt.Sprintf("jdbc:postgresql://127.0.0.1:%d/%s?user=postgres", port, db)
			out, err := runTool(t, 2*time.Minute, nil, java, "-cp", jar+":"+classes, "LargeObjectCheck", url)
			if err != nil {
				t.Fatalf("LargeObjectCheck on port %d: %v\n%s", port, err, out)
			}
			return out
		}
		db := freshPostgresDB(t, port)
		want := run(port, db)
		srv := startFickle(t, "--database", db)
		if got := run(srv.Port, db); got != want {
			t.Errorf("LargeObjectCheck: fickle and PostgreSQL differ:\n%s", lineDiff(want, got))
		}
	})
	t.Run("psql", func(t *testing.T) {
		psql := pgTool(t, "psql")
		script := filepath.Join("testdata", "largeobject", "psql_lo.sql")
		oids := regexp.MustCompile(`\b\d{5,}\b`)
		run := func(port int, db string) string {
			t.Helper()
			dst := filepath.Join(t.TempDir(), "exported")
			out, err := runTool(t, time.Minute, nil, psql, "-X", "-v", "ON_ERROR_STOP=1", "-v", "src="+script, "-v", "dst="+dst,
				"-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "-d", db, "-f", script)
			if err != nil {
				t.Fatalf("psql on port %d: %v\n%s", port, err, out)
			}
			src, _ := os.ReadFile(script)
			if exported, err := os.ReadFile(dst); err != nil || string(exported) != string(src) {
				t.Errorf("\\lo_export on port %d did not write back the imported file: %v", port, err)
			}
			return oids.ReplaceAllString(out, "<oid>")
		}
		db := freshPostgresDB(t, port)
		want := run(port, db)
		srv := startFickle(t, "--database", db)
		if got := run(srv.Port, db); got != want {
			t.Errorf("psql's large-object commands: fickle and PostgreSQL differ:\n%s", lineDiff(want, got))
		}
	})
}
