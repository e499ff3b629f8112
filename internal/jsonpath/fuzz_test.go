package jsonpath

import (
	"errors"
	"testing"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// FuzzParse feeds arbitrary text (as a text datum can hold) to the parser: it must never panic, fail
// only with a PostgreSQL error, and print every path it accepts as text
// that parses back to the same print.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`$`, `strict $.a[*] ? (@ > 1 && @ like_regex "x" flag "i")`, `$.**{1 to last}.keyvalue()`,
		`-(1 + $x) * 2 % 3`, `$[last - 1, 0 to 2]`, `"\u{1F600}\ud83d\ude00"`, `exists($ ? ((@ == 1) is unknown))`,
		`$.a/*c*/`, `1.2e3a`, `$ ? (@ starts with $"p")`, `(1 == 1).type()`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if pgerror.CheckUTF8(s) != nil {
			return // text input never holds NUL bytes or invalid UTF-8
		}
		p, err := Parse(s, goRegex)
		if err != nil {
			var pe *pgerror.Error
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): %v is not a PostgreSQL error", s, err)
			}
			return
		}
		if chainedPredicate(p.Expr) {
			return
		}
		out := p.String()
		p2, err := Parse(out, goRegex)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which fails: %v", s, out, err)
		}
		if out2 := p2.String(); out2 != out {
			t.Fatalf("Parse(%q) printed %q, which prints as %q", s, out, out2)
		}
	})
}
