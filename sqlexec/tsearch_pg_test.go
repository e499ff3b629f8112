package sqlexec

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/isolation"
)

// TestTextSearchFunctionsAgainstPostgres runs to_tsvector and the functions
// that make a tsquery of text over a corpus, under both configurations, on
// fickle and on PostgreSQL 15, and requires the same answers: the
// project's testdata/tsearch_corpus.txt, and when the regression suite is
// at FICKLE_PG_REGRESS (default /tmp/pgsrc/src/test/regress) its tsearch
// corpus too.
func TestTextSearchFunctionsAgainstPostgres(t *testing.T) {
	dsn := testPostgres(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Strategy: isolation.StrategyLatest, Seed: 1})})
	if err != nil {
		t.Fatal(err)
	}
	ss := &scriptSession{s: eng.NewSession(SessionInfo{User: "postgres"})}
	for _, set := range []string{"SET client_min_messages = warning", "SET standard_conforming_strings = on"} {
		runSQL(ss, set, "")
		pgOutput(ctx, conn, set)
	}
	lines := corpusLines(t, "testdata/tsearch_corpus.txt")
	dir := os.Getenv("FICKLE_PG_REGRESS")
	if dir == "" {
		dir = "/tmp/pgsrc/src/test/regress"
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "tsearch.data")); err == nil {
		more := corpusLines(t, filepath.Join(dir, "data", "tsearch.data"))
		lines = append(lines, more[:min(len(more), 400)]...)
	} else {
		t.Logf("no regression suite at %s: the project's corpus only", dir)
	}
	funcs := []string{"to_tsvector", "plainto_tsquery", "phraseto_tsquery", "websearch_to_tsquery", "to_tsquery"}
	compared, bad := 0, 0
	for _, cfg := range []string{"english", "simple"} {
		for _, line := range lines {
			lit := "'" + strings.ReplaceAll(line, "'", "''") + "'"
			for _, fn := range funcs {
				sql := "SELECT " + fn + "('" + cfg + "', " + lit + ")::text"
				mine, theirs := runSQL(ss, sql, ""), pgOutput(ctx, conn, sql)
				compared++
				if !sameAnswer(mine, theirs) {
					bad++
					if bad <= 10 {
						t.Errorf("%s\n  fickle:   %s\n  postgres: %s", sql, oneLine(mine), oneLine(theirs))
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d calls differ", bad, compared)
	}
	t.Logf("%d calls compared", compared)
}

// corpusLines reads the non-empty lines of a text file that PostgreSQL's
// text can hold (valid UTF-8, no NUL).
func corpusLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" && utf8.ValidString(l) && !strings.ContainsRune(l, 0) {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
