package types

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// areCase is one regexp_match(text, pattern, flags) and PostgreSQL 15's
// answer: the captured texts ("<null>" for NULL), nil for no match.
type areCase struct {
	text, pattern, flags string
	want                 []string
}

// areMatchRules are the rules of PostgreSQL's matching that RE2 does not
// share, each answer checked against PostgreSQL 15.
var areMatchRules = []areCase{
	// The whole RE's greediness is that of its first quantified atom;
	// each subexpression then takes its own preference, earlier ones first.
	{"XY1234Z", "Y*([0-9]{1,3})", "", []string{"123"}},
	{"XY1234Z", "Y*?([0-9]{1,3})", "", []string{"1"}},
	{"abcd", "(a|ab)(c|bcd)(d*)", "", []string{"ab", "c", "d"}},
	{"abc", "a+?(bc|b)", "", []string{"b"}},
	{"xyy", "x*?y*(y*)", "", []string{""}},
	{"abbbbc", "a(b*?)(b*)c", "", []string{"", "bbbb"}},
	{"llmmmfff", "^(l*?){1,1}(.*)(f*)$", "", []string{"ll", "mmmfff", ""}},
	{"llmmmfff", "^(l*)(.*)(f*?)$", "", []string{"ll", "mmmfff", ""}},
	{"aaa", "(a*)+", "", []string{""}},
	{"foo bar baz", "(.*?) (.*)", "", []string{"foo", ""}},
	{"abc", "(a|b)*?c", "", []string{"b"}},
	{"abab", "(ab)*?$", "", []string{"ab"}},
	// An alternation of several branches is always greedy.
	{"aaa", "a*?|b", "", []string{"aaa"}},
	// Lookahead and lookbehind constraints.
	{"foobar", "foo(?=bar)", "", []string{"foo"}},
	{"foobaz", "foo(?!bar)...", "", []string{"foobaz"}},
	{"price: $42", "(?<=\\$)[0-9]+", "", []string{"42"}},
	{"a1b2", "(?<![a-z])[0-9]", "", nil},
	{"xab", "(?<=x(a|b)*)b", "", []string{"b"}},
	// Back references, case-insensitively too.
	{"abcabc", "(abc)\\1", "", []string{"abc"}},
	{"aAbB", "^(a)\\1(b)\\2$", "i", []string{"a", "b"}},
	{"xyyyz", "(y)\\1*z", "", []string{"y"}},
	{"a", "$()|^\\1", "", nil},
	{"xxx", "(.){0}(\\1)", "", nil},
	// Constraint escapes; \b is a backspace, \B a backslash.
	{"a cat", "\\mcat\\M", "", []string{"cat"}},
	{"concat", "\\mcat", "", nil},
	{"a-b", "\\y-", "", []string{"-"}},
	{"ab", "a\\Yb", "", []string{"ab"}},
	{"a\bc", "a\\bc", "", []string{"a\bc"}},
	{"a\\c", "a\\Bc", "", []string{"a\\c"}},
	// Options: expanded syntax, newline sensitivity, embedded options.
	{"abc", "a b # comment\n c", "x", []string{"abc"}},
	{"abc", "(?x)a b c", "", []string{"abc"}},
	{"a b", "(?x)a\\ b", "", []string{"a b"}},
	{"a\nb", "^b", "w", []string{"b"}},
	{"a\nb", "a.b", "p", nil},
	{"ABC", "(?i)b", "", []string{"B"}},
	// The embedded option e reads POSIX extended syntax.
	{"a)b", "(?e)a)b", "", []string{"a)b"}},
	{"adb", "(?e)a\\db", "", []string{"adb"}},
	{"a\\b", "(?e)[\\]b", "", []string{"\\b"}},
	{"abab", "(?e)(ab)\\1", "", nil},
	// Collating elements by name, and the C1 controls of [:cntrl:].
	{"a-b", "[[.hyphen.]][[=b=]]", "", []string{"-b"}},
	{"\u0085", "[[:cntrl:]]", "", []string{"\u0085"}},
	{"a\nb", "(?n)^b$", "", []string{"b"}},
}

func TestAREMatchRules(t *testing.T) {
	for _, c := range areMatchRules {
		var got []string
		args := []any{c.text, c.pattern}
		if c.flags != "" {
			args = append(args, c.flags)
		}
		v, err := evalFunc("regexp_match", nil, args...)
		if err != nil {
			t.Errorf("regexp_match(%q, %q, %q): %v", c.text, c.pattern, c.flags, err)
			continue
		}
		if v != nil {
			for _, g := range v.([]any) {
				if g == nil {
					got = append(got, "<null>")
				} else {
					got = append(got, g.(string))
				}
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("regexp_match(%q, %q, %q) = %q, want %q", c.text, c.pattern, c.flags, got, c.want)
		}
	}
}

// Bad REs fail with PostgreSQL's messages; what fickle cannot match
// exactly is refused.
func TestAREErrorsArePostgresOnes(t *testing.T) {
	for _, c := range []struct{ pattern, flags, want string }{
		{"a(b", "", "2201B invalid regular expression: parentheses () not balanced"},
		{"a)", "", "2201B invalid regular expression: parentheses () not balanced"},
		{"[a", "", "2201B invalid regular expression: brackets [] not balanced"},
		{"a{1", "", "2201B invalid regular expression: braces {} not balanced"},
		{"a{2,1}", "", "2201B invalid regular expression: invalid repetition count(s)"},
		{"a{256}", "", "2201B invalid regular expression: invalid repetition count(s)"},
		{"*a", "", "2201B invalid regular expression: quantifier operand invalid"},
		{"a**", "", "2201B invalid regular expression: quantifier operand invalid"},
		{"^*", "", "2201B invalid regular expression: quantifier operand invalid"},
		{"(?=a)*", "", "2201B invalid regular expression: quantifier operand invalid"},
		{"\\1(a)", "", "2201B invalid regular expression: invalid backreference number"},
		{"(a\\1)", "", "2201B invalid regular expression: invalid backreference number"},
		{"(a)(?=\\1)", "", "2201B invalid regular expression: invalid backreference number"},
		{"a\\", "", "2201B invalid regular expression: invalid escape \\ sequence"},
		{"\\q", "", "2201B invalid regular expression: invalid escape \\ sequence"},
		{"[\\y]", "", "2201B invalid regular expression: invalid escape \\ sequence"},
		{"[z-a]", "", "2201B invalid regular expression: invalid character range"},
		{"[[:foo:]]", "", "2201B invalid regular expression: invalid character class"},
		{"(?z)a", "", "2201B invalid regular expression: invalid embedded option"},
		{"***?", "", "2201B invalid regular expression: invalid regexp (reg version 0.8)"},
		{strings.Repeat("x*", 2500), "", "2201B invalid regular expression: regular expression is too complex"},
		{strings.Repeat("x*", 1200), "", "0A000 regular expressions with this many optional atoms in a row (PostgreSQL may find them too complex) is not supported by fickle"},
		{"a", "b", "0A000 regular expression option \"b\" is not supported by fickle"},
		{"a", "e", "0A000 regular expression option \"e\" is not supported by fickle"},
		{"(?b)a", "", "0A000 regular expression option \"b\" is not supported by fickle"},
		{"(?e)a*?", "", "2201B invalid regular expression: quantifier operand invalid"},
		{"(?e)a{1}?", "", "2201B invalid regular expression: quantifier operand invalid"},
		{"[[.spaces.]]", "", "2201B invalid regular expression: invalid collating element"},
	} {
		_, err := evalFunc("regexp_match", nil, "x", c.pattern, c.flags)
		var pe *pgerror.Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want %s", c.pattern, err, c.want)
			continue
		}
		if got := string(pe.Code) + " " + pe.Message; got != c.want {
			t.Errorf("%q: got %s, want %s", c.pattern, got, c.want)
		}
	}
}

// A long match (a lookahead scanning to the end of the text from each
// start, O(n²)) stops at the statement's interruption.
func TestAREMatchStopsAtTheInterruption(t *testing.T) {
	stop := errors.New("canceling statement due to statement timeout")
	deadline := time.Now().Add(50 * time.Millisecond)
	env := &Env{Interrupter: interruptFunc(func() error {
		if time.Now().After(deadline) {
			return stop
		}
		return nil
	})}
	text := strings.Repeat("a", 200000)
	start := time.Now()
	_, err := evalFunc("regexp_match", env, text, `(?=a*c)a`)
	if err != stop {
		t.Fatalf("got %v, want the interruption", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the interruption took %v", d)
	}
}

// The RE2 translation means what the ARE engine means, escape by escape
// and class by class, for every ASCII character (C ctype) and a few others:
// RE2's \s lacks \v, and [[.a.]] is a literal to RE2.
func TestRE2TranslationAgreesWithTheAREEngineOnEveryCharacter(t *testing.T) {
	var pats []string
	for _, e := range []string{`\s`, `\S`, `\d`, `\D`, `\w`, `\W`, `\b`, `\B`, `\e`, `\a`, `\f`, `\v`, `\t`, `\n`, `\r`, `\x41`, `\u00e9`, `\101`, `\0`, `\.`, `\[`, `\]`, `\-`, `\^`, `\$`, `\é`, `\/`} {
		pats = append(pats, e, "["+e+"]", "[^"+e+"]", "[a"+e+"]", "x"+e+"y")
	}
	for _, c := range []string{"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit", "word"} {
		pats = append(pats, "[[:"+c+":]]", "[^[:"+c+":]]")
	}
	pats = append(pats, ".", "[^a]", "^", "$", "a|", "[]a]", "[^]a]", "[a-]", "[-a]", "[.]", "[[.a.]]", "[[=a=]]", "[a-c]", "[A-c]", "[!-/]", "a{,2}", "{", "a{1}", "x*", "\\y", "\\Y", "\\A", "\\Z")
	var texts []string
	for c := 1; c < 0xa2; c++ {
		texts = append(texts, string(rune(c)), "x"+string(rune(c))+"y", string(rune(c))+"\n")
	}
	texts = append(texts, "é", "xéy", "ÿ", "\u00a0", "\u2028")
	for _, p := range pats {
		for _, fl := range []regexFlags{{}, {fold: true}, {dotNoNewline: true, lineAnchors: true}, {dotNoNewline: true}} {
			re, err := compileRegexFlags(p, fl)
			if err != nil || re.re2 == nil {
				continue
			}
			for _, s := range texts {
				m, _ := newARESearch(nil, re.are, s).from(0)
				if (m != nil) != re.re2.MatchString(s) {
					t.Errorf("%q ~ %q %+v: ARE %v, RE2 (%s) %v", s, p, fl, m != nil, re.re2, m == nil)
					break
				}
				if m != nil && re.longest {
					w := re.re2.FindStringIndex(s)
					if w[0] != m[0] || w[1] != m[1] {
						t.Errorf("%q ~ %q %+v: ARE %v RE2 %v", s, p, fl, m[:2], w)
						break
					}
				}
			}
		}
	}
}

// Each node of the subexpression tree compiles its language only when a
// match needs it: a long chain of captures, whose nodes' languages add up
// quadratically, is not "too complex" (PostgreSQL matches 3,000 of them).
func TestAREManyCapturesAreNotTooComplex(t *testing.T) {
	v, err := evalFunc("regexp_match", nil, strings.Repeat("x", 1005), strings.Repeat("(x)", 1000))
	if err != nil || v == nil || len(v.([]any)) != 1000 {
		t.Fatalf("got %v, %v", v != nil, err)
	}
}
