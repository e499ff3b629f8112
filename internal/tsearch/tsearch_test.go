package tsearch

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		text string
		want []Token
	}{
		{"", nil},
		{"foo-bar über", []Token{{ASCIIHWord, "foo-bar"}, {HWordASCIIPart, "foo"}, {Blank, "-"}, {HWordASCIIPart, "bar"},
			{Blank, " "}, {Word, "über"}}},
		{"http://x.com/a?b=1", []Token{{Protocol, "http://"}, {URL, "x.com/a?b=1"}, {Host, "x.com"}, {URLPath, "/a?b=1"}}},
		{"<b>x</b> &amp;", []Token{{Tag, "<b>"}, {ASCIIWord, "x"}, {Tag, "</b>"}, {Blank, " "}, {Entity, "&amp;"}}},
		{"1.2.3 2.5e3 -4 5", []Token{{Version, "1.2.3"}, {Blank, " "}, {SFloat, "2.5e3"}, {Blank, " "}, {Int, "-4"},
			{Blank, " "}, {UInt, "5"}}},
		{"a@b.com ~/f.txt", []Token{{Email, "a@b.com"}, {Blank, " ~"}, {File, "/f.txt"}}},
		{"<script>x</script>y", []Token{{Tag, "<script>"}, {Blank, "x"}, {Tag, "</script>"}, {ASCIIWord, "y"}}},
		{"abc123 1e", []Token{{NumWord, "abc123"}, {Blank, " "}, {NumWord, "1e"}}},
	}
	for _, tt := range tests {
		got, err := Parse(context.Background(), tt.text)
		if err != nil {
			t.Fatalf("Parse(context.Background(), %q): %v", tt.text, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(context.Background(), %q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestParseInvalid(t *testing.T) {
	for _, text := range []string{"a\x00b", "\xff", "ab\xc3"} {
		if _, err := Parse(context.Background(), text); !errors.Is(err, ErrInvalidText) {
			t.Errorf("Parse(context.Background(), %q): err %v, want ErrInvalidText", text, err)
		}
	}
}

func TestStemEnglish(t *testing.T) {
	tests := []struct{ in, want string }{
		{"running", "run"}, {"jumping", "jump"}, {"foxes", "fox"}, {"generously", "generous"},
		{"skies", "sky"}, {"dying", "die"}, {"innings", "inning"}, {"universal", "univers"},
		{"cries", "cri"}, {"ties", "tie"}, {"gas", "gas"}, {"caresses", "caress"}, {"hopping", "hop"},
		{"hoped", "hope"}, {"relational", "relat"}, {"agreed", "agre"}, {"by", "by"}, {"yes", "yes"},
		{"sayings", "say"}, {"controlled", "control"}, {"ab", "ab"}, {"straße", "straße"},
	}
	for _, tt := range tests {
		if got := StemEnglish(tt.in); got != tt.want {
			t.Errorf("StemEnglish(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLexize(t *testing.T) {
	tests := []struct {
		dict *Dictionary
		in   string
		want []string
	}{
		{Simple, "ÜBER Foo", []string{"Über foo"}},
		{Simple, "The", []string{"the"}},
		{Simple, "", []string{}},
		{EnglishStem, "The", []string{}},
		{EnglishStem, "Running", []string{"run"}},
		{EnglishStem, "", []string{}},
		{EnglishStem, strings.Repeat("Ab", 501), []string{strings.Repeat("ab", 501)}},
	}
	for _, tt := range tests {
		if got := tt.dict.Lexize(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s.Lexize(%q) = %q, want %q", tt.dict.Name, tt.in, got, tt.want)
		}
	}
}

func TestDocument(t *testing.T) {
	tests := []struct {
		cfg  *Config
		text string
		want []Lexeme
	}{
		{EnglishConfig, "The quick foxes", []Lexeme{{Word: "quick", Pos: 2}, {Word: "fox", Pos: 3}}},
		{SimpleConfig, "The quick foxes", []Lexeme{{Word: "the", Pos: 1}, {Word: "quick", Pos: 2}, {Word: "foxes", Pos: 3}}},
		{EnglishConfig, "well-known <b>x</b>", []Lexeme{{Word: "well-known", Pos: 1}, {Word: "well", Pos: 2}, {Word: "known", Pos: 3}, {Word: "x", Pos: 4}}},
	}
	for _, tt := range tests {
		got, notices, err := Document(context.Background(), tt.cfg, tt.text)
		if err != nil || len(notices) > 0 {
			t.Fatalf("Document(context.Background(), %q): %v %v", tt.text, notices, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Document(context.Background(), %s, %q) = %v, want %v", tt.cfg.Name, tt.text, got, tt.want)
		}
	}
}

func TestDocumentLimits(t *testing.T) {
	lex, _, err := Document(context.Background(), SimpleConfig, strings.Repeat("w ", MaxPos+10))
	if err != nil {
		t.Fatal(err)
	}
	if last := lex[len(lex)-1]; last.Pos != MaxPos || lex[MaxPos-2].Pos != MaxPos-1 {
		t.Errorf("positions past %d: last %v", MaxPos, last)
	}
	lex, notices, err := Document(context.Background(), SimpleConfig, "a "+strings.Repeat("x", MaxWordLen)+" b")
	if err != nil {
		t.Fatal(err)
	}
	want := []Lexeme{{Word: "a", Pos: 1}, {Word: "b", Pos: 2}}
	if !reflect.DeepEqual(lex, want) || len(notices) != 1 || notices[0].Message != "word is too long to be indexed" {
		t.Errorf("long word: %v %v", lex, notices)
	}
}

func TestDebug(t *testing.T) {
	rows, err := Debug(context.Background(), EnglishConfig, "The cats")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Dictionary != EnglishStem || len(rows[0].Lexemes) != 0 || rows[0].Lexemes == nil ||
		rows[1].Type != Blank || rows[1].Dictionary != nil || rows[1].Lexemes != nil || rows[2].Lexemes[0] != "cat" {
		t.Errorf("Debug: %+v", rows)
	}
}

func TestTokenTypes(t *testing.T) {
	for i := TokenType(1); i <= LastTokenType; i++ {
		if got, ok := TokenTypeByAlias(i.Alias()); !ok || got != i || i.Description() == "" {
			t.Errorf("token type %d: alias %q", i, i.Alias())
		}
	}
}

// FuzzParse checks that any text parses without a panic into tokens of
// the 23 types, and that the configurations normalize it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"foo-bar http://x.com:80/p?q <a href='x'>y</a>", "1.2.3e5 -1.5 a@b.c ~/x/../y",
		"<!-- c --> &#x1F; &amp; über-straße", "<script>x</script><style>", "a--b-1-c", "../x /. .."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		toks, err := Parse(context.Background(), text)
		if err != nil {
			if !errors.Is(err, ErrInvalidText) {
				t.Fatal(err)
			}
			return
		}
		for _, tok := range toks {
			if tok.Type < 1 || tok.Type > LastTokenType {
				t.Fatalf("token %v has no type", tok)
			}
		}
		for _, cfg := range Configs {
			if _, _, err := Document(context.Background(), cfg, text); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestParseCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Each "<!--" scans to the end of the text for its "-->": quadratic.
	if _, err := Parse(ctx, strings.Repeat("<!--", 100000)); !errors.Is(err, context.Canceled) {
		t.Errorf("Parse with a canceled context: %v", err)
	}
}
