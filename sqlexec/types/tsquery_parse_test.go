package types

import (
	"strings"
	"testing"
)

// toyNormalizer stands in for a text search configuration: words split on
// spaces, each at the next position; "the", "a", "and" and "or" are stopwords
// (they take a position and give no lexeme); a hyphenated word gives
// itself and then its parts, at consecutive positions, as the default
// parser's hword and hword_part tokens do.
func toyNormalizer(operand string) ([]TSQueryWord, error) {
	var out []TSQueryWord
	pos := 0
	for _, w := range strings.Fields(strings.ToLower(operand)) {
		pos++
		switch w {
		case "the", "a", "and", "or":
			continue
		}
		out = append(out, TSQueryWord{Lexeme: w, Pos: pos})
		if parts := strings.Split(w, "-"); len(parts) > 1 {
			for _, p := range parts {
				pos++
				out = append(out, TSQueryWord{Lexeme: p, Pos: pos})
			}
		}
	}
	return out, nil
}

// TestParseTSQueryNormalized holds what PostgreSQL 15's to_tsquery,
// plainto_tsquery, phraseto_tsquery and websearch_to_tsquery answered for
// these inputs (english; simple for the hyphenated word), the words the
// toy normalizer gives being the configurations' lexemes for them.
func TestParseTSQueryNormalized(t *testing.T) {
	std := TSQueryOptions{Normalize: toyNormalizer, Phrase: true}
	plain := TSQueryOptions{Mode: TSQueryPlain, Normalize: toyNormalizer}
	phrase := TSQueryOptions{Mode: TSQueryPlain, Normalize: toyNormalizer, Phrase: true}
	web := TSQueryOptions{Mode: TSQueryWeb, Normalize: toyNormalizer, Phrase: true}
	const stopNotice = "text-search query contains only stop words or doesn't contain lexemes, ignored"
	for _, c := range []struct {
		in     string
		opts   TSQueryOptions
		want   string
		notice string
	}{
		{"the & cat", std, "'cat'", ""},
		{"cat <-> the <-> dog", std, "'cat' <2> 'dog'", ""},
		{"!the", std, "", stopNotice},
		{"(the | a) & dog", std, "'dog'", ""},
		{"dog <-> (the | a) <-> cat", std, "'dog' <2> 'cat'", ""},
		{"dog <-> (the & cat)", std, "'dog' <-> 'cat'", ""},
		{"dog:AB* & the:A", std, "'dog':*AB", ""},
		{"the dog and a cat", plain, "'dog' & 'cat'", ""},
		{"the dog and a cat", phrase, "'dog' <3> 'cat'", ""},
		{`"the dog" or -cat`, web, "'dog' | !'cat'", ""},
		{"dog or or cat -", web, "'dog' | 'cat'", ""},
		{"the", web, "", stopNotice},
		{"foo-bar & baz", std, "'foo-bar' <-> 'foo' <-> 'bar' & 'baz'", ""},
		{"(dog | the) <-> (a <-> cat)", std, "'dog' <2> 'cat'", ""},
		{"cat & !(the <-> a)", std, "'cat'", ""},
		{"", std, "", `text-search query doesn't contain lexemes: ""`},
	} {
		q, notices, err := ParseTSQuery(c.in, c.opts)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		notice := strings.Join(notices, "; ")
		if got := FormatTSQuery(q); got != c.want || notice != c.notice {
			t.Errorf("%q (mode %d): %q, notices %q; want %q, %q", c.in, c.opts.Mode, got, notice, c.want, c.notice)
		}
	}
}
