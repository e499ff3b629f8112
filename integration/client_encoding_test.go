package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
)

// latin1Script is what TestPsqlClientEncodingMatchesPostgres runs, written
// here in UTF-8 and sent in LATIN1: names and values with accents, COPY in
// both directions, an error naming a LATIN1 relation, a notice, a character
// LATIN1 lacks, psql's \d, and a switch to UTF8.
const latin1Script = `SHOW client_encoding;
CREATE TABLE café (nom text PRIMARY KEY, prix numeric);
INSERT INTO café VALUES ('crème brûlée', 6.5), ('thé', 2), ('çà', 1);
SELECT nom, upper(nom), length(nom), octet_length(nom), prix FROM café ORDER BY nom;
SELECT * FROM café WHERE nom LIKE 'th%';
COPY café FROM STDIN;
à la carte	9
\.
COPY café TO STDOUT (FORMAT csv, HEADER);
SELECT * FROM "thé";
SELECT nom || chr(8364) FROM café;
DO $$BEGIN RAISE NOTICE 'prêt: %', (SELECT count(*) FROM café); END$$;
\d café
SET client_encoding = 'UTF8';
SELECT nom FROM café ORDER BY nom;
`

// TestPsqlClientEncodingMatchesPostgres runs latin1Script with psql as a
// client whose encoding is LATIN1 (PGCLIENTENCODING, as a terminal in a
// LATIN1 locale sets it), against fickle and PostgreSQL 15, and requires
// the same bytes out.
func TestPsqlClientEncodingMatchesPostgres(t *testing.T) {
	psql := pgTool(t, "psql")
	script, err := charmap.ISO8859_1.NewEncoder().String(latin1Script)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "latin1.sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(port int, db, user string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, psql, "-X", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", user, "-d", db, "-f", path)
		cmd.Env = append(os.Environ(), "PGCLIENTENCODING=LATIN1", "PGOPTIONS=", "PGPASSWORD=", "PGCONNECT_TIMEOUT=10")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	srv := startFickle(t)
	got := run(srv.Port, "fickle", "postgres")
	port := startPostgres(t)
	want := run(port, freshPostgresDB(t, port), "postgres")
	if got != want {
		t.Errorf("psql in LATIN1 prints differently on fickle:\n%s", lineDiff(want, got))
	}
}
