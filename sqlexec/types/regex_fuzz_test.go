package types

import "testing"

// FuzzCaseInsensitiveRegex compiles arbitrary patterns (untrusted input)
// under every flag set; a pattern that compiles matches without panicking,
// and, case-insensitively, a text matches exactly when the text with its
// ASCII letters' case swapped does: the C ctype folds ASCII only.
func FuzzCaseInsensitiveRegex(f *testing.F) {
	for _, s := range [][2]string{{"Hello World", "o w"}, {"abc", "[^a-c]"}, {"xyz", "^[X-c]+$"}, {"A", `\x41`},
		{"ÉcOLE", "e"}, {"k", "K"}, {"aB", "[[:upper:]]b"}, {"a.B", `.b`}, {"foo bar", `\ybar\y`}, {"x", `[\u0041-\x5a]`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, pattern string) {
		for _, flags := range []regexFlags{{}, {fold: true}, {fold: true, literal: true}, {fold: true, lineAnchors: true, dotNoNewline: true}} {
			re, err := compileRegexFlags(pattern, flags)
			if err != nil {
				continue
			}
			m := re.MatchString(text)
			if !flags.fold {
				continue
			}
			swapped := []byte(text)
			for i, c := range swapped {
				if isASCIILetter(rune(c)) {
					swapped[i] = c ^ 0x20
				}
			}
			if m2 := re.MatchString(string(swapped)); m != m2 {
				t.Fatalf("%q ~* %q is %v, but %v for %q (flags %+v)", text, pattern, m, m2, swapped, flags)
			}
		}
	})
}
