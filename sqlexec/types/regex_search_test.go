package types

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestRegexpFunctionsStopWhenInterrupted: the regexp functions check the
// statement's interruption between matches and inside the search of a
// long text, so neither many matches that each scan to the end of the
// text (quadratic under leftmost-longest: 30 s for 20,000 characters)
// nor one long search outlives a timeout or a cancel.
func TestRegexpFunctionsStopWhenInterrupted(t *testing.T) {
	stop := errors.New("statement cancelled")
	many := strings.Repeat("a", 20000)
	long := strings.Repeat("a", 1<<20)
	cases := []struct {
		name string
		call func(env *Env) error
	}{
		{"regexp_replace, every match", func(env *Env) error {
			_, err := evalFunc("regexp_replace", env, many, "a(.*b)?", "x", "g")
			return err
		}},
		{"regexp_count", func(env *Env) error { _, err := evalFunc("regexp_count", env, many, "a(.*b)?"); return err }},
		{"regexp_substr, a late match", func(env *Env) error {
			_, err := evalFunc("regexp_substr", env, many, "a(.*b)?", int64(1), int64(20000))
			return err
		}},
		{"regexp_matches", func(env *Env) error { _, err := RegexpMatches(env, []any{many, "a(.*b)?", "g"}); return err }},
		{"regexp_split_to_table", func(env *Env) error {
			_, err := RegexpSplit(env, "regexp_split_to_table()", []any{many, "a(.*b)?"})
			return err
		}},
		{"regexp_like, one long search", func(env *Env) error {
			_, err := evalFunc("regexp_like", env, long, "(a|aa|aaa|aaaa)*b")
			return err
		}},
		{"regexp_match, one long search", func(env *Env) error {
			_, err := evalFunc("regexp_match", env, long, "(a|aa|aaa|aaaa)*b")
			return err
		}},
		{"substring, one long search", func(env *Env) error {
			_, err := evalFunc("substring", env, long, "(a|aa|aaa|aaaa)*b")
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			env := &Env{Interrupter: interruptFunc(func() error {
				calls++
				if calls > 2 {
					return stop
				}
				return nil
			})}
			if err := c.call(env); err != stop {
				t.Fatalf("got %v after %d checks, want the interruption", err, calls)
			}
		})
	}
}

// TestRegexpSearchOfALongTextFindsWhatTheStringSearchFinds: the matches
// found one by one, through the interruptible reader on long texts, are
// those of RE2's own iteration over the string.
func TestRegexpSearchOfALongTextFindsWhatTheStringSearchFinds(t *testing.T) {
	text := strings.Repeat("xx ab12 é cd345 \n", 2000)
	env := &Env{Interrupter: interruptFunc(func() error { return nil })}
	for _, pattern := range []string{`[a-z]+([0-9]+)`, `(é|cd)(3)?`, `b1|5 \n`, `\d+$`, `^xx`, `c(d)(9)?`} {
		for _, fl := range []regexFlags{{}, {lineAnchors: true}, {fold: true}} {
			re, err := compileRegexFlags(pattern, fl)
			if err != nil {
				t.Fatal(err)
			}
			want := re.re2.FindAllStringSubmatchIndex(text, -1)
			got, err := re.allFrom(env, text, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q %+v: %d matches, want %d", pattern, fl, len(got), len(want))
			}
			if ok, _ := re.matches(env, text); ok != (want != nil) {
				t.Fatalf("%q %+v: matches says %v", pattern, fl, ok)
			}
		}
	}
}

// evalFunc calls the built-in function name on text arguments and the
// integers among vals.
func evalFunc(name string, env *Env, vals ...any) (any, error) {
	args := make([]Type, len(vals))
	for i, v := range vals {
		args[i] = Text
		if _, ok := v.(int64); ok {
			args[i] = Int4
		}
	}
	f, err := ResolveFunc(name, args)
	if err != nil {
		return nil, err
	}
	return f.Eval(env, vals)
}
