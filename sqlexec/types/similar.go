package types

import (
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// SQL's SIMILAR TO patterns become PostgreSQL regular expressions the way
// PostgreSQL's similar_to_escape does it: % is .*, _ is ., parentheses do not
// capture, ., ^, $ and \ are literal, bracket expressions pass through, and
// the whole is anchored as ^(?:...)$. Up to two escape-double-quote
// separators split the pattern into three parts, of which substring(s
// SIMILAR p ESCAPE e) returns the middle one.

func init() {
	t := Text
	addFunc("similar_to_escape", Immutable, t, func(_ *Env, a []any) (any, error) {
		sp, err := translateSimilar(a[0].(string), `\`)
		if err != nil {
			return nil, err
		}
		return sp.regex(), nil
	}, t)
	addFunc("similar_to_escape", Immutable, t, func(_ *Env, a []any) (any, error) {
		sp, err := translateSimilar(a[0].(string), a[1].(string))
		if err != nil {
			return nil, err
		}
		return sp.regex(), nil
	}, t, t)
	addFunc("substring", Immutable, t, func(_ *Env, a []any) (any, error) {
		return similarSubstring(a[0].(string), a[1].(string), a[2].(string))
	}, t, t, t)
}

// similarPattern is a translated SIMILAR TO pattern: parts holds the regular
// expressions of the parts between escape-double-quote separators (one part
// without a separator, at most three).
type similarPattern struct {
	parts []string
}

// regex returns the regular expression PostgreSQL's similar_to_escape gives:
// ^(?:part1){1,1}?(part2){1,1}(?:part3)$, where the non-greedy first part
// and the greedy capturing second part make SUBSTRING's extents.
func (sp similarPattern) regex() string {
	var sb strings.Builder
	sb.WriteString("^(?:")
	for i, p := range sp.parts {
		switch i {
		case 1:
			sb.WriteString("){1,1}?(")
		case 2:
			sb.WriteString("){1,1}(?:")
		}
		sb.WriteString(p)
	}
	sb.WriteString(")$")
	return sb.String()
}

// translateSimilar translates pattern with the escape character esc (empty
// for none). An escape of more than one character fails with 22025, a third
// separator with 2200C.
func translateSimilar(pattern, esc string) (similarPattern, error) {
	var escape rune = -1
	switch utf8.RuneCountInString(esc) {
	case 0:
	case 1:
		escape, _ = utf8.DecodeRuneInString(esc)
	default:
		return similarPattern{}, pgerror.New(pgerror.InvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var (
		parts        []string
		sb           strings.Builder
		afterEscape  bool
		bracketDepth int
		// classPos is where a bracket expression is: 1 right after '[',
		// 2 after a negating '^' there (']' is still literal), 3 or more
		// further in (']' ends the bracket).
		classPos int
	)
	for _, c := range pattern {
		switch {
		case afterEscape:
			afterEscape = false
			if c == '"' && bracketDepth < 1 {
				if len(parts) == 2 {
					return similarPattern{}, pgerror.New(pgerror.InvalidUseOfEscapeCharacter,
						"SQL regular expression may not contain more than two escape-double-quote separators")
				}
				parts = append(parts, sb.String())
				sb.Reset()
				continue
			}
			// Any character may be escaped, which also reaches the
			// regular expression escapes such as \d.
			sb.WriteByte('\\')
			sb.WriteRune(c)
			classPos = 3
		case c == escape:
			afterEscape = true
		case bracketDepth > 0:
			if c == '\\' {
				sb.WriteByte('\\')
			}
			sb.WriteRune(c)
			switch {
			case c == ']' && classPos > 2:
				bracketDepth--
			case c == '[':
				bracketDepth++
				classPos = 3
			case c == '^':
				classPos++
			default:
				classPos = 3
			}
		case c == '[':
			sb.WriteRune(c)
			bracketDepth, classPos = 1, 1
		case c == '%':
			sb.WriteString(".*")
		case c == '_':
			sb.WriteByte('.')
		case c == '(':
			sb.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			sb.WriteByte('\\')
			sb.WriteRune(c)
		default:
			sb.WriteRune(c)
		}
	}
	return similarPattern{parts: append(parts, sb.String())}, nil
}

// similarSubstring is substring(s SIMILAR pattern ESCAPE esc): NULL unless
// the whole of s matches; otherwise the text the middle part matches when
// the first part matches as little and the middle part as much as
// possible (the whole of s without separators, all after the first part
// with one).
func similarSubstring(s, pattern, esc string) (any, error) {
	sp, err := translateSimilar(pattern, esc)
	if err != nil {
		return nil, err
	}
	whole, err := compileRegexFlags(sp.regex(), regexFlags{})
	if err != nil {
		return nil, err
	}
	if !whole.MatchString(s) {
		return nil, nil
	}
	if len(sp.parts) == 1 {
		return s, nil
	}
	parts := make([]*pgRegex, 3)
	for i := range parts {
		p := ""
		if i < len(sp.parts) {
			p = sp.parts[i]
		}
		// Each part must stand as a regular expression of its own, which a
		// parenthesis opened in one part and closed in another does not.
		if parts[i], err = compileRegexFlags("^(?:"+p+")$", regexFlags{}); err != nil {
			return nil, pgerror.Unsupported("substring with a SIMILAR pattern whose parentheses span its \" separators")
		}
	}
	// bounds are the byte offsets of s's character boundaries.
	bounds := make([]int, 0, len(s)+1)
	for i := range s {
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(s))
	lastOK := make([]bool, len(bounds))
	for k, b := range bounds {
		lastOK[k] = parts[2].MatchString(s[b:])
	}
	for i, bi := range bounds {
		if !parts[0].MatchString(s[:bi]) {
			continue
		}
		for j := len(bounds) - 1; j >= i; j-- {
			if lastOK[j] && parts[1].MatchString(s[bi:bounds[j]]) {
				return s[bi:bounds[j]], nil
			}
		}
	}
	// The whole matched, so some split does; PostgreSQL's engine finds it.
	return nil, pgerror.New(pgerror.InternalError, "no split of a SIMILAR match found")
}
