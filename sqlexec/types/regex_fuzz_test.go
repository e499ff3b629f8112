package types

import (
	"testing"
	"unicode/utf8"
)

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

// FuzzAREAgreesWithRE2 runs every RE that both engines accept on both:
// fickle's ARE engine and RE2 (through the translation) must agree on
// whether it matches, and, for an RE without non-greedy quantifiers (where
// RE2's leftmost-longest rule is PostgreSQL's), on where the first match
// begins and ends.
func FuzzAREAgreesWithRE2(f *testing.F) {
	for _, s := range [][2]string{{"Hello World", "o w"}, {"abcd", "(a|ab)(c|bcd)(d*)"}, {"xyz", "^[X-c]+$"},
		{"a\nb", "^b$"}, {"foo bar", `\ybar\y`}, {"aaa", "a*?"}, {"abab", "(ab)+$"}, {"x y", `\w\s\W?`},
		{"abc", "[^b]{1,2}"}, {"ABC", `[[:upper:]]{2}`}, {"a.b", `a\.b|.`}, {"", "x*"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, pattern string) {
		if len(text) > 256 || len(pattern) > 64 || !utf8.ValidString(text) || !utf8.ValidString(pattern) {
			return
		}
		for _, flags := range []regexFlags{{}, {fold: true}, {lineAnchors: true, dotNoNewline: true}} {
			re, err := compileRegexFlags(pattern, flags)
			if err != nil || re.re2 == nil {
				continue
			}
			m, err := newARESearch(nil, re.are, text).from(0)
			if err != nil {
				t.Fatal(err)
			}
			if want := re.re2.MatchString(text); (m != nil) != want {
				t.Fatalf("%q ~ %q (%+v): ARE says %v, RE2 %v", text, pattern, flags, m != nil, want)
			}
			if !re.longest || m == nil {
				continue
			}
			if want := re.re2.FindStringIndex(text); m[0] != want[0] || m[1] != want[1] {
				t.Fatalf("%q ~ %q (%+v): ARE matches %v, RE2 %v", text, pattern, flags, m[:2], want)
			}
		}
	})
}
