package tsearch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func TestSerializeOptionsQuotesAsSerializeDeflist(t *testing.T) {
	tests := []struct {
		opts []Option
		want string
	}{
		{[]Option{{Name: "synonyms", Value: "synonym_sample"}}, "synonyms = 'synonym_sample'"},
		{[]Option{{Name: "casesensitive", Value: "1", Kind: OptionInteger}, {Name: "x", Value: "1.5", Kind: OptionFloat}},
			"casesensitive = 1, x = 1.5"},
		{[]Option{{Name: "Accept", Value: "it's"}}, `"Accept" = 'it''s'`},
		{[]Option{{Name: "rules", Value: `a\b`}}, `rules = E'a\\b'`},
	}
	for _, tt := range tests {
		got, err := SerializeOptions(tt.opts)
		if err != nil || got != tt.want {
			t.Errorf("SerializeOptions(%v) = %q, %v; want %q", tt.opts, got, err, tt.want)
		}
	}
	if _, err := SerializeOptions([]Option{{Name: "accept", NoValue: true}}); err == nil || err.Error() != "accept requires a parameter" {
		t.Errorf("an option without a value: %v", err)
	}
}

func TestBoolOptionReadsAsDefGetBoolean(t *testing.T) {
	tests := []struct {
		o    Option
		want bool
		ok   bool
	}{
		{Option{Value: "1", Kind: OptionInteger}, true, true},
		{Option{Value: "0", Kind: OptionInteger}, false, true},
		{Option{Value: "2", Kind: OptionInteger}, false, false},
		{Option{Value: "ON"}, true, true},
		{Option{Value: "false"}, false, true},
		{Option{Value: "1.0", Kind: OptionFloat}, false, false},
		{Option{Value: "yes"}, false, false},
		{Option{NoValue: true}, true, true},
	}
	for _, tt := range tests {
		got, err := boolOption(tt.o)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("boolOption(%+v) = %v, %v", tt.o, got, err)
		}
	}
}

// withDataDir points the dictionaries' files at a temporary directory
// holding files (name to content) for the test.
func withDataDir(t *testing.T, files map[string]string) {
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	SetDataDir(dir)
	t.Cleanup(func() { SetDataDir("") })
}

func TestSynonymDictionaryReadsFileAsDsynonymInit(t *testing.T) {
	withDataDir(t, map[string]string{"s.syn": "Postgres pgsql\nindices index*\n\nlonely\n  two\twords extra\nstar *\n"})
	d, err := NewDictionary("synonym", "s", 1, []Option{{Name: "synonyms", Value: "s"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		word   string
		want   []string
		prefix bool
	}{
		{"POSTGRES", []string{"pgsql"}, false},
		{"indices", []string{"index"}, true},
		{"lonely", nil, false},
		{"two", []string{"words"}, false},
		{"star", []string{""}, true},
		{"other", nil, false},
	}
	for _, tt := range tests {
		got, prefix := d.lexize(tt.word)
		if !reflect.DeepEqual(got, tt.want) || prefix != tt.prefix {
			t.Errorf("lexize(%q) = %q %v; want %q %v", tt.word, got, prefix, tt.want, tt.prefix)
		}
	}
	cs, err := NewDictionary("synonym", "s", 1, []Option{{Name: "synonyms", Value: "s"}, {Name: "casesensitive", Value: "true"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.Lexize("postgres"); got != nil {
		t.Errorf("case-sensitive lexize(postgres) = %q", got)
	}
	if got := cs.Lexize("Postgres"); !reflect.DeepEqual(got, []string{"pgsql"}) {
		t.Errorf("case-sensitive lexize(Postgres) = %q", got)
	}
}

func TestDictionaryFilesErrorsAsPostgres(t *testing.T) {
	withDataDir(t, nil)
	tests := []struct {
		template string
		opts     []Option
		code     pgerror.Code
		prefix   string
	}{
		{"simple", []Option{{Name: "stopwords", Value: "nofile"}}, pgerror.ConfigFileError, `could not open stop-word file "`},
		{"simple", []Option{{Name: "stopwords", Value: "../x"}}, pgerror.InvalidParameterValue, `invalid text search configuration file name "../x"`},
		{"synonym", []Option{{Name: "synonyms", Value: "nofile"}}, pgerror.ConfigFileError, `could not open synonym file "`},
		{"unaccent", []Option{{Name: "rules", Value: "nofile"}}, pgerror.ConfigFileError, `could not open unaccent file "`},
		{"ispell", nil, pgerror.FeatureNotSupported, `text search template "ispell" is not supported`},
	}
	for _, tt := range tests {
		_, err := NewDictionary(tt.template, "d", 1, tt.opts, nil)
		if pgerror.GetCode(err) != tt.code || err == nil || !strings.HasPrefix(err.Error(), tt.prefix) {
			t.Errorf("NewDictionary(%s, %v): %v", tt.template, tt.opts, err)
		}
	}
}

func TestSimpleDictionaryStopWordsAndAccept(t *testing.T) {
	withDataDir(t, map[string]string{"tiny.stop": "The\n an  trailing\n\n"})
	d, err := NewDictionary("simple", "d", 1, []Option{{Name: "stopwords", Value: "tiny"}, {Name: "accept", Value: "false"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Lexize("THE"); got == nil || len(got) != 0 {
		t.Errorf("stopword: %q", got)
	}
	if got := d.Lexize("an"); got != nil {
		t.Errorf("a line starting with a space holds no stopword: %q", got)
	}
	if got := d.Lexize("Fox"); got != nil {
		t.Errorf("Accept = false: %q", got)
	}
}

func TestFilteringDictionaryPassesItsLexemeOn(t *testing.T) {
	unaccent := NewFunc("unaccent", 1, "unaccent", true, func(w string) []string {
		if w == "Crème" {
			return []string{"Creme"}
		}
		return nil
	})
	cfg := &Config{Name: "c"}
	cfg.Map[Word] = []*Dictionary{unaccent, EnglishStem}
	cfg.Map[ASCIIWord] = []*Dictionary{unaccent}
	got, _, err := Document(context.Background(), cfg, "Crème plain Crème")
	if err != nil {
		t.Fatal(err)
	}
	// Crème goes on to english_stem as Creme; plain's only dictionary is
	// the filter, which does not recognize it, so it takes no position.
	want := []Lexeme{{Word: "creme", Pos: 1}, {Word: "creme", Pos: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Document = %v; want %v", got, want)
	}
}

func TestThesaurusReplacesTheLongestMatchingPhrase(t *testing.T) {
	withDataDir(t, map[string]string{"t.ths": "# rules\na b : x\na : y\nc ? d : *Z w\n"})
	th, err := NewDictionary("thesaurus", "t", 1, []Option{{Name: "dictfile", Value: "t"}, {Name: "dictionary", Value: "simple"}},
		func(string) (*Dictionary, error) { return Simple, nil })
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Name: "c"}
	cfg.Map[ASCIIWord] = []*Dictionary{th, Simple}
	tests := []struct {
		text string
		want []Lexeme
	}{
		// "a b" is a rule, "a" alone another; "e" is no rule's and goes
		// on to simple.
		{"a b a e", []Lexeme{{Word: "x", Pos: 1}, {Word: "y", Pos: 2}, {Word: "e", Pos: 3}}},
		// ? stands for a stopword, which simple has none of: "c q d"
		// matches no rule, and each word goes on alone.
		{"c q d", []Lexeme{{Word: "c", Pos: 1}, {Word: "q", Pos: 2}, {Word: "d", Pos: 3}}},
		// A rule's match cut by the end of the text falls back to the
		// shorter one.
		{"a", []Lexeme{{Word: "y", Pos: 1}}},
	}
	for _, tt := range tests {
		got, _, err := Document(context.Background(), cfg, tt.text)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Document(%q) = %v, %v; want %v", tt.text, got, err, tt.want)
		}
	}
	if got := th.Lexize("a"); !reflect.DeepEqual(got, []string{"y"}) {
		t.Errorf("ts_lexize(a) = %q", got)
	}
	_, err = NewDictionary("thesaurus", "t", 1, []Option{{Name: "dictfile", Value: "t"}, {Name: "dictionary", Value: "th"}},
		func(string) (*Dictionary, error) { return th, nil })
	if err == nil || err.Error() != "forbidden call of thesaurus or nested call" {
		t.Errorf("a thesaurus over a thesaurus: %v", err)
	}
}
