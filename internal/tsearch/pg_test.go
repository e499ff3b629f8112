package tsearch

import (
	"bufio"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// These tests compare the package with a PostgreSQL 15 (FICKLE_TEST_PG, a
// UTF-8 database with LC_CTYPE C) on real text: the regression suite's
// tsearch corpus and SQL files, and random strings over the characters the
// parser's states turn on.

func connectPG(t *testing.T) *pgx.Conn {
	t.Helper()
	dsn := os.Getenv("FICKLE_TEST_PG")
	if dsn == "" {
		if os.Getenv("FICKLE_REQUIRE_PG") == "1" {
			t.Fatal("FICKLE_TEST_PG is not set (FICKLE_REQUIRE_PG=1)")
		}
		t.Skip("FICKLE_TEST_PG is not set: no PostgreSQL to compare with")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	var ctype, enc string
	if err := conn.QueryRow(ctx, "select current_setting('lc_ctype'), current_setting('server_encoding')").Scan(&ctype, &enc); err != nil {
		t.Fatal(err)
	}
	if ctype != "C" || enc != "UTF8" {
		t.Skipf("PostgreSQL's database is %s with LC_CTYPE %s; the package follows UTF8 with C", enc, ctype)
	}
	return conn
}

// regressDir is the regression suite's directory, "" when it is absent.
func regressDir() string {
	dir := "/tmp/pgsrc/src/test/regress"
	if d := os.Getenv("FICKLE_PG_REGRESS"); d != "" {
		dir = d
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "tsearch.data")); err != nil {
		return ""
	}
	return dir
}

// corpusLines returns the lines of the tsearch corpus and of the suite's
// SQL files (text search's own first), valid UTF-8 without NUL.
func corpusLines(t *testing.T) []string {
	t.Helper()
	dir := regressDir()
	if dir == "" {
		t.Skip("no PostgreSQL regression suite at /tmp/pgsrc/src/test/regress (FICKLE_PG_REGRESS)")
	}
	files := []string{filepath.Join(dir, "data", "tsearch.data")}
	sqls, _ := filepath.Glob(filepath.Join(dir, "sql", "*.sql"))
	files = append(files, sqls...)
	var lines []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			if l != "" && utf8.ValidString(l) && !strings.ContainsRune(l, 0) {
				lines = append(lines, l)
			}
		}
		fh.Close()
	}
	return lines
}

type pgToken struct {
	typ  int
	text string
}

func pgParse(t *testing.T, conn *pgx.Conn, texts []string) [][]pgToken {
	t.Helper()
	ctx := context.Background()
	rows, err := conn.Query(ctx, `select i, p.tokid, p.token
		from unnest($1::text[]) with ordinality as u(txt, i), ts_parse('default', u.txt) with ordinality as p(tokid, token, n)
		order by i, p.n`, texts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]pgToken, len(texts))
	for rows.Next() {
		var i int64
		var tok pgToken
		if err := rows.Scan(&i, &tok.typ, &tok.text); err != nil {
			t.Fatal(err)
		}
		out[i-1] = append(out[i-1], tok)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func compareParse(t *testing.T, conn *pgx.Conn, texts []string) {
	t.Helper()
	const batch = 500
	bad := 0
	for start := 0; start < len(texts); start += batch {
		chunk := texts[start:min(start+batch, len(texts))]
		want := pgParse(t, conn, chunk)
		for i, text := range chunk {
			got, err := Parse(text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", text, err)
			}
			same := len(got) == len(want[i])
			for j := 0; same && j < len(got); j++ {
				same = int(got[j].Type) == want[i][j].typ && got[j].Text == want[i][j].text
			}
			if !same {
				bad++
				if bad <= 10 {
					t.Errorf("Parse(%q):\n got %v\nwant %v", text, got, want[i])
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d texts parse differently", bad, len(texts))
	}
}

func TestParseCorpusAgainstPostgres(t *testing.T) {
	conn := connectPG(t)
	compareParse(t, conn, corpusLines(t))
}

// randomText draws n characters from an alphabet heavy in the characters
// the parser's states test for.
func randomText(r *rand.Rand, n int) string {
	alphabet := []string{"a", "b", "e", "E", "x", "X", "D", "d", "Z", "0", "1", "9", "-", "-", "+", ".", ".", "/", "/",
		":", "@", "_", "~", "&", "#", ";", "<", ">", "!", "?", "=", "'", "\"", "\\", " ", "\t", "\n", "%", "^",
		"é", "ü", "Ж", "中", "\u0301", "\u093e", "s", "c", "r", "i", "p", "t", "y", "l", "h", "w", "f"}
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString(alphabet[r.Intn(len(alphabet))])
	}
	return sb.String()
}

func TestParseRandomAgainstPostgres(t *testing.T) {
	conn := connectPG(t)
	r := rand.New(rand.NewSource(1))
	texts := make([]string, 20000)
	for i := range texts {
		texts[i] = randomText(r, 1+r.Intn(24))
	}
	compareParse(t, conn, texts)
}
