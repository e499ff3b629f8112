package trgm

import (
	"strings"
	"testing"
)

// The expected values are PostgreSQL 15's (UTF8, C collation).
func TestTrigrams(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"(*&^$@%@", ""},
		{"a b C0*%^", "  a,  b,  c, a , b , c0,c0 "},
		{"Café naïve ÀB", "  b,  c,  n,  v, b , ca, na, ve,af ,caf,na ,ve "},
	} {
		var got []string
		for _, g := range Trigrams(c.in) {
			got = append(got, g.String())
		}
		if s := strings.Join(got, ","); s != c.want {
			t.Errorf("Trigrams(%q) = %q, want %q", c.in, s, c.want)
		}
	}
}

func TestSimilarities(t *testing.T) {
	for _, c := range []struct {
		a, b                 string
		sim, word, strictSim float32
	}{
		{"wow", "WOWa ", 0.5, 0.75, 0.5},
		{"word", "two words", 0.36363637, 0.8, 0.5714286},
		{"", "", 0, 0, 0},
		{"abc", "", 0, 0, 0},
		{"Kabankala", "Kabankalan City Public Plaza", 0.31034482, 0.9, 0.75},
	} {
		if got := Similarity(c.a, c.b); got != c.sim {
			t.Errorf("Similarity(%q, %q) = %v, want %v", c.a, c.b, got, c.sim)
		}
		if got := WordSimilarity(c.a, c.b); got != c.word {
			t.Errorf("WordSimilarity(%q, %q) = %v, want %v", c.a, c.b, got, c.word)
		}
		if got := StrictWordSimilarity(c.a, c.b); got != c.strictSim {
			t.Errorf("StrictWordSimilarity(%q, %q) = %v, want %v", c.a, c.b, got, c.strictSim)
		}
	}
}

func FuzzSimilarities(f *testing.F) {
	f.Add("word", "two words")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, v := range []float32{Similarity(a, b), WordSimilarity(a, b), StrictWordSimilarity(a, b)} {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("similarity of %q and %q out of range: %v", a, b, v)
			}
		}
	})
}
