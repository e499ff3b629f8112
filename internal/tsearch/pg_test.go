package tsearch

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/fickle-db/fickle/internal/testpg"
)

// These tests compare the package with a PostgreSQL 15 (FICKLE_TEST_PG, a
// UTF-8 database with LC_CTYPE C) on real text: the regression suite's
// tsearch corpus and SQL files, and random strings over the characters the
// parser's states turn on.

func connectPG(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn := testpg.Connect(t)
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
			got, err := Parse(context.Background(), text)
			if err != nil {
				t.Fatalf("Parse(context.Background(), %q): %v", text, err)
			}
			same := len(got) == len(want[i])
			for j := 0; same && j < len(got); j++ {
				same = int(got[j].Type) == want[i][j].typ && got[j].Text == want[i][j].text
			}
			if !same {
				bad++
				if bad <= 10 {
					t.Errorf("Parse(context.Background(), %q):\n got %v\nwant %v", text, got, want[i])
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
	texts = append(texts, "<script>x</script>y", "<STYLE type=x>a b</style >c", "<script>a<b>c</script >d",
		"<!DOCTYPE html><!-- x -- y -->z", "<?xml v='1'?>", "a.b.c@d.e.f:8080/x", "http://1.2.3.4:5/", "x_y-z.com",
		"-1.5e-3 +.5 ..//a/./b ~user/x", "&#x1F; &#12; &a-b.c;", "\u0301é", "1.2.3.4.5", "v1.2-beta", "e.g. i.e.",
		"pg_catalog.pg_ts_config", "foo--bar---baz", "12-abc-3d", "über-ß1-ж", strings.Repeat("a-", 50)+"b")
	compareParse(t, conn, texts)
}

// corpusWords returns every distinct word token (any of the word and
// hyphenated-word types) of the corpus.
func corpusWords(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var words []string
	for _, l := range corpusLines(t) {
		toks, err := Parse(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range toks {
			switch tok.Type {
			case ASCIIWord, Word, NumWord, HWordPart, HWordASCIIPart, HWordNumPart, ASCIIHWord, HWord, NumHWord:
				for _, w := range []string{tok.Text, Lower(tok.Text)} {
					if !seen[w] {
						seen[w] = true
						words = append(words, w)
					}
				}
			}
		}
	}
	return words
}

// goSourceWords returns the distinct lower-case words of the Go
// distribution's sources and documentation: some tens of thousands of
// English words, from comments, beyond the regression suite's.
func goSourceWords(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var words []string
	root := filepath.Join(runtime.GOROOT(), "src")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, f := range strings.FieldsFunc(strings.ToLower(string(data)), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if !seen[f] {
				seen[f] = true
				words = append(words, f)
			}
		}
		return nil
	})
	t.Logf("%d words from %s", len(words), root)
	return words
}

// frenchWords are made-up French words for french_stem: stems ending in
// each letter, accented or not, with each suffix its steps know, and
// random strings of French letters with and without a suffix.
func frenchWords() []string {
	letters := []rune("aeiouyâàëéêèïîôûùbcdfghjklmnpqrstvwxzç")
	suffixes := []string{"", "s", "e", "es", "x", "er", "ez", "é", "ée", "ées", "és", "ait", "aient", "ions", "ons", "ant", "ante",
		"ement", "ements", "ment", "ments", "issement", "ité", "ités", "if", "ive", "ifs", "ives", "ation", "ations", "ateur",
		"atrice", "ique", "iques", "isme", "iste", "able", "ance", "ence", "euse", "euses", "eux", "aux", "eaux", "logie",
		"usion", "ution", "amment", "emment", "ir", "irent", "issant", "issons", "ière", "ier", "ion", "sion", "tion", "èrent",
		"asse", "âmes", "ât", "îmes", "ît", "ativement", "icité", "abilité", "ivement", "ennes", "onne", "ette", "eille", "çons"}
	stems := []string{"chant", "fin", "parl", "aim", "beau", "heur", "nation", "grand", "gentil", "natur", "fabric", "constru",
		"qu", "gu", "paï", "noë", "cré", "lou", "ennuy", "pay", "tapi", "coli", "pari", "oui", "ai", "y", "tr", "a"}
	var out []string
	for _, st := range stems {
		for _, suf := range suffixes {
			out = append(out, st+suf)
		}
	}
	r := rand.New(rand.NewSource(15))
	for range 20000 {
		w := make([]rune, 1+r.Intn(8))
		for i := range w {
			w[i] = letters[r.Intn(len(letters))]
		}
		if r.Intn(10) < 7 {
			w = append(w, []rune(suffixes[r.Intn(len(suffixes))])...)
		}
		out = append(out, string(w))
	}
	return out
}

func TestLexizeAgainstPostgres(t *testing.T) {
	conn := connectPG(t)
	words := corpusWords(t)
	// Every English word of two letters or fewer, and the stopword list's
	// neighbourhood: a stopword missing from the list shows up here.
	for c1 := 'a'; c1 <= 'z'; c1++ {
		words = append(words, string(c1))
		for c2 := 'a'; c2 <= 'z'; c2++ {
			words = append(words, string([]rune{c1, c2}))
		}
	}
	words = append(words, goSourceWords(t)...)
	words = append(words, frenchWords()...)
	words = append(words, "", "'tis", "it's", "dogs'", "'s", "Ünïcödé", strings.Repeat("running", 150))
	ctx := context.Background()
	for _, dict := range Dictionaries {
		rows, err := conn.Query(ctx, `select coalesce(ts_lexize($1::regdictionary, w), '{NULL}') from unnest($2::text[]) as u(w)`, dict.Name, words)
		if err != nil {
			t.Fatal(err)
		}
		bad, i := 0, 0
		for rows.Next() {
			var want []*string
			if err := rows.Scan(&want); err != nil {
				t.Fatal(err)
			}
			got := dict.Lexize(words[i])
			same := len(got) == len(want)
			for j := 0; same && j < len(got); j++ {
				same = want[j] != nil && got[j] == *want[j]
			}
			if !same {
				bad++
				if bad <= 30 {
					var w []string
					for _, s := range want {
						if s == nil {
							w = append(w, "NULL")
						} else {
							w = append(w, *s)
						}
					}
					t.Errorf("%s: ts_lexize(%q) = %q, PostgreSQL %q", dict.Name, words[i], got, w)
				}
			}
			i++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d words differ", dict.Name, bad, len(words))
		}
	}
}

func TestDocumentAgainstPostgres(t *testing.T) {
	conn := connectPG(t)
	lines := corpusLines(t)
	ctx := context.Background()
	for _, cfg := range Configs {
		rows, err := conn.Query(ctx, `select i, coalesce((select array_agg(l.lexeme || ':' || array_to_string(l.positions, ',') order by l.lexeme collate "C")
			from unnest(to_tsvector($1::regconfig, txt)) l), '{}')
			from unnest($2::text[]) with ordinality as u(txt, i) order by i`, cfg.Name, lines)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for rows.Next() {
			var i int
			var want []string
			if err := rows.Scan(&i, &want); err != nil {
				t.Fatal(err)
			}
			lex, _, err := Document(context.Background(), cfg, lines[i-1])
			if err != nil {
				t.Fatal(err)
			}
			byWord := map[string][]string{}
			last := map[string]int{}
			for _, l := range lex {
				if p, ok := last[l.Word]; ok && p == l.Pos {
					continue
				}
				last[l.Word] = l.Pos
				byWord[l.Word] = append(byWord[l.Word], fmt.Sprint(l.Pos))
			}
			words := make([]string, 0, len(byWord))
			for w := range byWord {
				words = append(words, w)
			}
			sort.Strings(words)
			var got []string
			for _, w := range words {
				ps := byWord[w]
				if len(ps) >= 255 {
					ps = ps[:255]
				}
				got = append(got, w+":"+strings.Join(ps, ","))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				bad++
				if bad <= 5 {
					t.Errorf("%s: to_tsvector(%q):\n got %q\nwant %q", cfg.Name, lines[i-1], got, want)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d texts differ", cfg.Name, bad, len(lines))
		}
	}
}

func TestDebugAgainstPostgres(t *testing.T) {
	conn := connectPG(t)
	lines := corpusLines(t)
	ctx := context.Background()
	for _, cfg := range Configs {
		rows, err := conn.Query(ctx, `select i, d.alias, d.token, d.dictionaries::text[], d.dictionary::text, d.lexemes
			from unnest($2::text[]) with ordinality as u(txt, i), ts_debug($1::regconfig, u.txt) with ordinality as d
			order by i, d.ordinality`, cfg.Name, lines)
		if err != nil {
			t.Fatal(err)
		}
		want := make([][]string, len(lines))
		for rows.Next() {
			var i int
			var alias, token string
			var dicts []string
			var dict *string
			var lexemes []string
			if err := rows.Scan(&i, &alias, &token, &dicts, &dict, &lexemes); err != nil {
				t.Fatal(err)
			}
			d := "NULL"
			if dict != nil {
				d = *dict
			}
			lex := "NULL"
			if lexemes != nil {
				lex = "{" + strings.Join(lexemes, ",") + "}"
			}
			want[i-1] = append(want[i-1], fmt.Sprintf("%s|%s|%v|%s|%s", alias, token, dicts, d, lex))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, l := range lines {
			debug, err := Debug(context.Background(), cfg, l)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range debug {
				dicts := []string{}
				for _, d := range r.Dictionaries {
					dicts = append(dicts, d.Name)
				}
				d, lex := "NULL", "NULL"
				if r.Dictionary != nil {
					d, lex = r.Dictionary.Name, "{"+strings.Join(r.Lexemes, ",")+"}"
				}
				got = append(got, fmt.Sprintf("%s|%s|%v|%s|%s", r.Type.Alias(), r.Token, dicts, d, lex))
			}
			if strings.Join(got, "\n") != strings.Join(want[i], "\n") {
				bad++
				if bad <= 5 {
					t.Errorf("%s: ts_debug(%q):\n got %q\nwant %q", cfg.Name, l, got, want[i])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d texts differ", cfg.Name, bad, len(lines))
		}
	}
}
