package types

import (
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

func registerStringOperators() {
	concat := func(_ *Env, a, b any) (any, error) { return a.(string) + b.(string), nil }
	addBinary("||", Text, Text, Text, concat)
	addBinary("||", Text, anyNonArray, Text, concat)
	addBinary("||", anyNonArray, Text, Text, concat)
	addBinary("||", Bytea, Bytea, Bytea, func(_ *Env, a, b any) (any, error) {
		return append(append([]byte(nil), a.([]byte)...), b.([]byte)...), nil
	})
	for _, l := range []Type{Text, BpcharAny, Name} {
		for op, spec := range map[string]struct{ fold, negate bool }{
			"~~": {false, false}, "!~~": {false, true}, "~~*": {true, false}, "!~~*": {true, true},
		} {
			addBinary(op, l, Text, Bool, func(_ *Env, a, b any) (any, error) {
				m, err := like(a.(string), b.(string), spec.fold)
				return m != spec.negate, err
			})
		}
		for op, spec := range map[string]struct{ fold, negate bool }{
			"~": {false, false}, "!~": {false, true}, "~*": {true, false}, "!~*": {true, true},
		} {
			addBinary(op, l, Text, Bool, func(env *Env, a, b any) (any, error) {
				re, err := compileRegex(b.(string), spec.fold)
				if err != nil {
					return nil, err
				}
				m, err := matchRegexp(env, re, a.(string))
				return m != spec.negate, err
			})
		}
	}
	// text_pattern_ops' and bpchar_pattern_ops' operators: byte order,
	// a bpchar's trailing blanks ignored.
	for _, t := range []Type{Text, BpcharAny} {
		trim := t.Oid == OidBpchar
		for op, test := range map[string]func(int) bool{
			"~<~": func(c int) bool { return c < 0 }, "~<=~": func(c int) bool { return c <= 0 },
			"~>~": func(c int) bool { return c > 0 }, "~>=~": func(c int) bool { return c >= 0 },
		} {
			addBinary(op, t, t, Bool, func(_ *Env, a, b any) (any, error) {
				x, y := a.(string), b.(string)
				if trim {
					x, y = strings.TrimRight(x, " "), strings.TrimRight(y, " ")
				}
				return test(strings.Compare(x, y)), nil
			})
		}
	}
	addBinary("^@", Text, Text, Bool, func(_ *Env, a, b any) (any, error) { return strings.HasPrefix(a.(string), b.(string)), nil })
	addBinary("~~", Bytea, Bytea, Bool, func(_ *Env, a, b any) (any, error) { return like(string(a.([]byte)), string(b.([]byte)), false) })
	addBinary("!~~", Bytea, Bytea, Bool, func(_ *Env, a, b any) (any, error) {
		m, err := like(string(a.([]byte)), string(b.([]byte)), false)
		return !m, err
	})
}

// likeToken is one element of a compiled LIKE pattern.
type likeToken struct {
	kind byte // 'l' literal, '_' one character, '%' any run, 'e' a trailing escape
	r    rune
}

// compileLike splits a LIKE pattern with backslash escapes into tokens.
func compileLike(p string) []likeToken {
	var toks []likeToken
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch r {
		case '\\':
			if i >= len(p) {
				// An error only if the match gets here, as in MatchText.
				toks = append(toks, likeToken{kind: 'e'})
				continue
			}
			r, size = utf8.DecodeRuneInString(p[i:])
			i += size
			toks = append(toks, likeToken{'l', r})
		case '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeToken{kind: '%'})
			}
		case '_':
			toks = append(toks, likeToken{kind: '_'})
		default:
			toks = append(toks, likeToken{'l', r})
		}
	}
	return toks
}

// like reports whether s matches the LIKE pattern p (escape character
// backslash; like_escape rewrites other escapes to it). fold makes it ILIKE.
// The match is the classic backtracking to the last %, linear in practice.
func like(s, p string, fold bool) (bool, error) {
	if fold {
		s, p = asciiLower(s), asciiLower(p)
	}
	toks := compileLike(p)
	text := []rune(s)
	ti, pi := 0, 0
	starP, starT := -1, 0
	for ti < len(text) {
		switch {
		case pi < len(toks) && toks[pi].kind == 'e':
			return false, pgerror.New(pgerror.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
		case pi < len(toks) && toks[pi].kind == '%':
			starP, starT = pi, ti
			pi++
		case pi < len(toks) && (toks[pi].kind == '_' || toks[pi].r == text[ti]):
			pi++
			ti++
		case starP >= 0:
			starT++
			ti, pi = starT, starP+1
		default:
			return false, nil
		}
	}
	for pi < len(toks) && toks[pi].kind == '%' {
		pi++
	}
	return pi == len(toks), nil
}

// likeEscape is like_escape(pattern, escape): it rewrites a pattern with
// the escape character escape into one with backslash, or with no escape
// character when escape is empty.
func likeEscape(p, esc string) (string, error) {
	if utf8.RuneCountInString(esc) > 1 {
		return "", pgerror.New(pgerror.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	if esc == "\\" {
		return p, nil
	}
	var sb strings.Builder
	e, _ := utf8.DecodeRuneInString(esc)
	afterEscape := false
	for _, r := range p {
		switch {
		case afterEscape:
			if r == '\\' {
				sb.WriteString(`\\`)
			} else {
				sb.WriteByte('\\')
				sb.WriteRune(r)
			}
			afterEscape = false
		case esc != "" && r == e:
			afterEscape = true
		case r == '\\':
			sb.WriteString(`\\`)
		default:
			sb.WriteRune(r)
		}
	}
	if afterEscape {
		return "", pgerror.New(pgerror.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
	}
	return sb.String(), nil
}
