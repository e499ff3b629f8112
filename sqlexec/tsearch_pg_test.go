package sqlexec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/internal/testpg"
	"github.com/fickle-db/fickle/isolation"
)

// TestTextSearchFunctionsAgainstPostgres runs to_tsvector and the functions
// that make a tsquery of text over a corpus, under both configurations, on
// fickle and on PostgreSQL 15, and requires the same answers: the
// project's testdata/tsearch_corpus.txt, and when the regression suite is
// at FICKLE_PG_REGRESS (default /tmp/pgsrc/src/test/regress) its tsearch
// corpus too.
func TestTextSearchFunctionsAgainstPostgres(t *testing.T) {
	dsn := testpg.DSN(t)
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

// headlineOptions are the option texts the headline corpus tries: every
// option, alone and combined, and fragments; headlineOptionErrors the
// ones PostgreSQL refuses.
var (
	headlineOptions = []string{
		"",
		"MaxWords=10, MinWords=5",
		"MaxWords=5, MinWords=1, ShortWord=0",
		"MaxWords=3, MinWords=2, ShortWord=2",
		"MaxWords=60, MinWords=40",
		"MaxWords = ' 12 ', MinWords = +3",
		"StartSel=<em>, StopSel=</em>",
		`StartSel="[", StopSel="]", MaxWords=20, MinWords=10, ShortWord=5`,
		"HighlightAll=true",
		"highlightall=ON, StartSel='<<', StopSel='>>'",
		"HighlightAll=no, MaxWords=7, MinWords=3",
		"MaxFragments=1",
		"MaxFragments=2, MaxWords=8, MinWords=3",
		"MaxFragments=3, MaxWords=4, MinWords=1, FragmentDelimiter=' | '",
		"MaxFragments=5, MaxWords=6, MinWords=2, ShortWord=1",
		"MaxFragments=2, MaxWords=30, MinWords=15, ShortWord=0",
		"MaxFragments=4, MaxWords=3, MinWords=1, ShortWord=4, FragmentDelimiter=\"...\"",
		"MaxFragments=2, HighlightAll=1",
		"HighlightAll=yes, MinWords=0, MaxWords=0, MaxFragments=-1",
	}
	headlineOptionErrors = []string{
		"MinWords=0",
		"MaxWords=5, MinWords=5",
		"ShortWord=-1",
		"MaxFragments=-1",
		"Bogus=1",
		"MaxWords=abc",
		"MaxWords",
		"MaxWords=99999999999",
	}
)

// headlineOption draws an option text, a refused one now and then.
func headlineOption(rng *rand.Rand) string {
	if rng.IntN(8) == 0 {
		return headlineOptionErrors[rng.IntN(len(headlineOptionErrors))]
	}
	return headlineOptions[rng.IntN(len(headlineOptions))]
}

// corpusWords are the words (letters only) of a text.
func corpusWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	})
}

// headlineQuery builds a tsquery expression over words of a document
// (and now and then a word it lacks): operands, AND, OR, NOT, phrases with
// distances, prefixes, and the tsquery functions of text.
func headlineQuery(rng *rand.Rand, cfg string, words []string) string {
	if len(words) == 0 {
		words = []string{"nothing"}
	}
	w := func() string {
		if rng.IntN(8) == 0 {
			return []string{"zebra", "quantum", "the", "xylophone"}[rng.IntN(4)]
		}
		return strings.ToLower(words[rng.IntN(len(words))])
	}
	run := func(n int) string {
		i := rng.IntN(len(words))
		return strings.Join(words[i:min(i+n, len(words))], " ")
	}
	q := func(s string) string { return "to_tsquery('" + cfg + "', '" + s + "')" }
	switch rng.IntN(18) {
	case 14:
		return q("!" + w() + " <-> " + w())
	case 15:
		same := w()
		return q(same + ":* & " + same + " | " + w())
	case 16:
		return q(w() + ":A | " + w() + ":BC")
	case 17:
		return q("(" + w() + " <-> " + w() + ") <2> (" + w() + " | !" + w() + ")")
	case 0:
		return q(w())
	case 1:
		return q(w() + " & " + w())
	case 2:
		return q(w() + " | " + w() + " | " + w())
	case 3:
		return q(w() + " & !" + w())
	case 4:
		return q("!" + w())
	case 5:
		return q(w() + " <-> " + w())
	case 6:
		return q(fmt.Sprintf("%s <%d> %s", w(), rng.IntN(4), w()))
	case 7:
		p := w()
		return q(p[:min(len(p), 1+rng.IntN(4))] + ":*")
	case 8:
		return q("(" + w() + " | " + w() + ") & " + w())
	case 9:
		return "phraseto_tsquery('" + cfg + "', '" + run(2+rng.IntN(3)) + "')"
	case 10:
		return "plainto_tsquery('" + cfg + "', '" + run(2+rng.IntN(4)) + "')"
	case 11:
		return "websearch_to_tsquery('" + cfg + "', '\"" + run(2) + "\" or " + w() + " -" + w() + "')"
	case 12:
		return q("(" + w() + " <-> " + w() + ") | (" + w() + " & " + w() + ":*)")
	}
	return q(w() + " & " + w() + " & " + w() + " & " + w())
}

// TestTextSearchHeadlineAgainstPostgres runs ts_headline over the corpus
// (its lines and longer texts made of several of them) with queries and
// options drawn at random from a fixed seed, and the json forms of
// to_tsvector, json(b)_to_tsvector and ts_headline over documents made of
// the corpus, on fickle and on PostgreSQL 15, and requires the same
// answers.
func TestTextSearchHeadlineAgainstPostgres(t *testing.T) {
	dsn := testpg.DSN(t)
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
	rng := rand.New(rand.NewPCG(15, 4))
	docs := slices.Clone(lines)
	for range 40 {
		var parts []string
		for range 2 + rng.IntN(6) {
			parts = append(parts, lines[rng.IntN(len(lines))])
		}
		docs = append(docs, strings.Join(parts, []string{" ", "\n", ". "}[rng.IntN(3)]))
	}
	// Token soups: tags, entities, URLs, hosts, emails, hyphenated words,
	// numbers and versions among words and stop words, short and long.
	soup := []string{"<b>", "</b>", "<p class=\"x\">", "&amp;", "&#169;", "http://ex.com/a-b/c.html", "www.ex.org",
		"me@ex.com", "state-of-the-art", "co-op", "x86-64", "1.5", "-3", "42", "1e10", "v1.2.3", "/usr/bin/x", "the",
		"a", "of", "and", "is", "cat", "cats", "dog", "running", "runner", "paint", "painted", "ocean", "über", "café",
		"ab", "xyz", "supercalifragilistic", ",", ".", ";", "!", "(", ")", "\n", "  "}
	for range 60 {
		var sb strings.Builder
		for range 3 + rng.IntN(120) {
			sb.WriteString(soup[rng.IntN(len(soup))])
			if rng.IntN(4) > 0 {
				sb.WriteString(" ")
			}
		}
		docs = append(docs, sb.String())
	}
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	var calls []string
	for i := range 700 {
		doc := docs[i%len(docs)]
		cfg := []string{"english", "simple"}[rng.IntN(2)]
		query := headlineQuery(rng, cfg, corpusWords(doc))
		opts := headlineOption(rng)
		call := "ts_headline('" + cfg + "', " + lit(doc) + ", " + query
		if opts != "" || rng.IntN(2) == 0 {
			call += ", " + lit(opts)
		}
		calls = append(calls, "SELECT "+call+")")
	}
	// json and jsonb documents of corpus lines, numbers, booleans, nulls
	// and nested containers.
	jstr := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	var jdocs []string
	for range 60 {
		var members []string
		for k := range 1 + rng.IntN(4) {
			var v string
			switch rng.IntN(6) {
			case 0:
				v = fmt.Sprintf("%d.%de%d", rng.IntN(100), rng.IntN(100), rng.IntN(4))
			case 1:
				v = []string{"true", "false", "null"}[rng.IntN(3)]
			case 2:
				v = "[" + jstr(lines[rng.IntN(len(lines))]) + ", 7, " + jstr("the and of") + "]"
			case 3:
				v = `{"inner key": ` + jstr(lines[rng.IntN(len(lines))]) + `, "n": -0.50}`
			default:
				v = jstr(lines[rng.IntN(len(lines))])
			}
			members = append(members, fmt.Sprintf(`"key %d %s": %s`, k, corpusWords(lines[rng.IntN(len(lines))])[0], v))
		}
		jdocs = append(jdocs, "{"+strings.Join(members, ", ")+"}")
	}
	jdocs = append(jdocs, `"a lone string about cats"`, `[]`, `{}`, `[1, "two dogs", [true, "three cats"]]`, `42`, `null`)
	filters := []string{`"all"`, `["string"]`, `["numeric", "key"]`, `["boolean"]`, `["KEY", "String"]`, `[]`,
		`["string", "numeric", "boolean"]`, `{"a": "all"}`, `[1]`, `["everything"]`, `[["all"]]`, `null`}
	for i, d := range jdocs {
		for _, typ := range []string{"json", "jsonb"} {
			cfg := []string{"english", "simple"}[rng.IntN(2)]
			doc := lit(d) + "::" + typ
			calls = append(calls,
				"SELECT to_tsvector('"+cfg+"', "+doc+")",
				"SELECT "+typ+"_to_tsvector('"+cfg+"', "+doc+", "+lit(filters[(i+len(typ))%len(filters)])+")",
				"SELECT ts_headline('"+cfg+"', "+doc+", "+headlineQuery(rng, cfg, corpusWords(d))+", "+
					lit(headlineOption(rng))+")")
		}
	}
	compared, bad, refused := 0, 0, 0
	for _, sql := range calls {
		mine, theirs := dropNotices(runSQL(ss, sql, "")), pgOutput(ctx, conn, sql)
		compared++
		if strings.HasPrefix(theirs, "ERROR") {
			refused++
		}
		if !sameAnswer(mine, theirs) {
			bad++
			if bad <= 10 {
				t.Errorf("%s\n  fickle:   %s\n  postgres: %s", sql, oneLine(mine), oneLine(theirs))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d calls differ", bad, compared)
	}
	t.Logf("%d calls compared, %d of them errors", compared, refused)
}

// dropNotices drops the notices fickle's output shows first (PostgreSQL's
// session here has client_min_messages = warning).
func dropNotices(s string) string {
	for strings.HasPrefix(s, "NOTICE ") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}
