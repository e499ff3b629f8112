package types

import (
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The regexp_* functions. Positions and the start argument count
// characters; matches are searched as PostgreSQL's setup_regexp_matches
// does: from the start position, each next search where the last match
// ended.
func init() {
	t, i := Text, Int4
	textArray := Type{arrayTypes[OidText], -1}

	match := func(env *Env, a []any) (any, error) {
		re, err := regexArgs("regexp_match()", a, 2, "Use the regexp_matches function instead.")
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		m, err := re.firstFrom(env, s, 0)
		if m == nil || err != nil {
			return nil, err
		}
		return matchGroups(s, m), nil
	}
	addFunc("regexp_match", Immutable, textArray, match, t, t)
	addFunc("regexp_match", Immutable, textArray, match, t, t, t)

	like := func(env *Env, a []any) (any, error) {
		re, err := regexArgs("regexp_like()", a, 2, "")
		if err != nil {
			return nil, err
		}
		return re.matches(env, a[0].(string))
	}
	addFunc("regexp_like", Immutable, Bool, like, t, t)
	addFunc("regexp_like", Immutable, Bool, like, t, t, t)

	count := func(env *Env, a []any) (any, error) {
		re, err := regexArgs("regexp_count()", a, 3, "")
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		pos, ok, err := startArg(s, a, 2)
		if err != nil || !ok {
			return int64(0), err
		}
		ms, err := re.allFrom(env, s, pos, false)
		return int64(len(ms)), err
	}
	addFunc("regexp_count", Immutable, i, count, t, t)
	addFunc("regexp_count", Immutable, i, count, t, t, i)
	addFunc("regexp_count", Immutable, i, count, t, t, i, t)

	instr := func(env *Env, a []any) (any, error) {
		re, err := regexArgs("regexp_instr()", a, 5, "")
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		pos, ok, err := startArg(s, a, 2)
		if err != nil {
			return nil, err
		}
		n, err := intArg(a, 3, "n", 1, 1)
		if err != nil {
			return nil, err
		}
		end, err := intArg(a, 4, "endoption", 0, 0)
		if err != nil {
			return nil, err
		}
		if end > 1 {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"endoption\": %d", end)
		}
		sub, err := intArg(a, 6, "subexpr", 0, 0)
		if err != nil || !ok {
			return int64(0), err
		}
		m, err := re.nthFrom(env, s, pos, n)
		if m == nil || err != nil || int(sub) > re.NumSubexp() || m[2*sub] < 0 {
			return int64(0), err
		}
		at := m[2*sub]
		if end == 1 {
			at = m[2*sub+1]
		}
		return int64(utf8.RuneCountInString(s[:at]) + 1), nil
	}
	for n := 2; n <= 7; n++ {
		addFunc("regexp_instr", Immutable, i, instr, []Type{t, t, i, i, i, t, i}[:n]...)
	}

	substr := func(env *Env, a []any) (any, error) {
		re, err := regexArgs("regexp_substr()", a, 4, "")
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		pos, ok, err := startArg(s, a, 2)
		if err != nil {
			return nil, err
		}
		n, err := intArg(a, 3, "n", 1, 1)
		if err != nil {
			return nil, err
		}
		sub, err := intArg(a, 5, "subexpr", 0, 0)
		if err != nil || !ok {
			return nil, err
		}
		m, err := re.nthFrom(env, s, pos, n)
		if m == nil || err != nil || int(sub) > re.NumSubexp() || m[2*sub] < 0 {
			return nil, err
		}
		return s[m[2*sub]:m[2*sub+1]], nil
	}
	for n := 2; n <= 6; n++ {
		addFunc("regexp_substr", Immutable, t, substr, []Type{t, t, i, i, t, i}[:n]...)
	}

	replace := func(env *Env, a []any) (any, error) {
		flags, _ := a[len(a)-1].(string)
		if len(a) == 3 {
			flags = ""
		}
		f, global, err := parseRegexFlags(flags)
		if err != nil {
			return nil, err
		}
		re, err := compileRegexFlags(a[1].(string), f)
		if err != nil {
			return nil, err
		}
		s := a[0].(string)
		pos, ok := 0, true
		n := int64(1)
		if global {
			n = 0
		}
		if len(a) > 3 {
			if _, isInt := a[3].(int64); isInt {
				if pos, ok, err = startArg(s, a, 3); err != nil {
					return nil, err
				}
			}
		}
		if len(a) > 4 {
			if n, err = intArg(a, 4, "n", 0, 0); err != nil {
				return nil, err
			}
		}
		if !ok {
			return s, nil
		}
		return re.replace(env, s, a[2].(string), pos, n)
	}
	addFunc("regexp_replace", Immutable, t, replace, t, t, t)
	addFunc("regexp_replace", Immutable, t, replace, t, t, t, t)
	addFunc("regexp_replace", Immutable, t, replace, t, t, t, i)
	addFunc("regexp_replace", Immutable, t, replace, t, t, t, i, i)
	addFunc("regexp_replace", Immutable, t, replace, t, t, t, i, i, t)

	split := func(env *Env, a []any) (any, error) {
		parts, err := RegexpSplit(env, "regexp_split_to_array()", a)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out, nil
	}
	addFunc("regexp_split_to_array", Immutable, textArray, split, t, t)
	addFunc("regexp_split_to_array", Immutable, textArray, split, t, t, t)
}

// regexArgs compiles argument 1 under the flags at index flagsAt (if
// given) for a function that refuses the 'g' option.
func regexArgs(fn string, a []any, flagsAt int, hint string) (*pgRegex, error) {
	flags := ""
	if len(a) > flagsAt {
		flags = a[flagsAt].(string)
	}
	f, global, err := parseRegexFlags(flags)
	if err != nil {
		return nil, err
	}
	if global {
		e := pgerror.Newf(pgerror.InvalidParameterValue, "%s does not support the \"global\" option", fn)
		if hint != "" {
			e = e.WithHint("%s", hint)
		}
		return nil, e
	}
	return compileRegexFlags(a[1].(string), f)
}

// startArg reads the 1-based character start at index k (1 when absent) as
// a byte offset into s; ok is false when it lies past the end.
func startArg(s string, a []any, k int) (pos int, ok bool, err error) {
	start, err := intArg(a, k, "start", 1, 1)
	if err != nil {
		return 0, false, err
	}
	for start--; start > 0; start-- {
		if pos >= len(s) {
			return 0, false, nil
		}
		_, size := utf8.DecodeRuneInString(s[pos:])
		pos += size
	}
	return pos, true, nil
}

// intArg reads the integer argument at index k (dflt when absent), which
// must be at least least.
func intArg(a []any, k int, name string, dflt, least int64) (int64, error) {
	if len(a) <= k {
		return dflt, nil
	}
	v := a[k].(int64)
	if v < least {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"%s\": %d", name, v)
	}
	return v, nil
}

// matchGroups is the text[] of a match: its parenthesized subexpressions
// (NULL where one took no part), or the whole match when it has none.
func matchGroups(s string, m []int) []any {
	if len(m) == 2 {
		return []any{s[m[0]:m[1]]}
	}
	out := make([]any, 0, len(m)/2-1)
	for g := 2; g < len(m); g += 2 {
		if m[g] < 0 {
			out = append(out, nil)
			continue
		}
		out = append(out, s[m[g]:m[g+1]])
	}
	return out
}

// nthFrom returns the n-th match (1-based) at or after pos, or nil.
func (re *pgRegex) nthFrom(env *Env, s string, pos int, n int64) ([]int, error) {
	if n == 1 {
		return re.firstFrom(env, s, pos)
	}
	ms, err := re.allFrom(env, s, pos, false)
	if err != nil || int64(len(ms)) < n {
		return nil, err
	}
	return ms[n-1], nil
}

// replace is regexp_replace: the n-th match at or after pos replaced (all
// of them when n is 0), \1 to \9 in repl standing for subexpressions, \&
// for the whole match and \\ for a backslash.
func (re *pgRegex) replace(env *Env, s, repl string, pos int, n int64) (any, error) {
	var ms [][]int
	if n == 1 {
		m, err := re.firstFrom(env, s, pos)
		if err != nil {
			return nil, err
		}
		if m != nil {
			ms = [][]int{m}
		}
	} else {
		all, err := re.allFrom(env, s, pos, false)
		if err != nil {
			return nil, err
		}
		switch {
		case n == 0:
			ms = all
		case int64(len(all)) >= n:
			ms = all[n-1 : n]
		}
	}
	var sb strings.Builder
	last := 0
	for _, m := range ms {
		sb.WriteString(s[last:m[0]])
		expandReplacement(&sb, s, repl, m)
		last = m[1]
	}
	sb.WriteString(s[last:])
	return sb.String(), nil
}

func expandReplacement(sb *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			sb.WriteByte(c)
			continue
		}
		d := repl[i+1]
		switch {
		case d >= '1' && d <= '9':
			g := int(d-'0') * 2
			if g+1 < len(m) && m[g] >= 0 {
				sb.WriteString(s[m[g]:m[g+1]])
			}
			i++
		case d == '&':
			sb.WriteString(s[m[0]:m[1]])
			i++
		case d == '\\':
			sb.WriteByte('\\')
			i++
		default:
			sb.WriteByte(c)
		}
	}
}

// RegexpMatches is regexp_matches(s, pattern [, flags]): the text[] of
// each match, all of them with the 'g' option, else the first.
func RegexpMatches(env *Env, a []any) ([][]any, error) {
	flags := ""
	if len(a) > 2 {
		flags = a[2].(string)
	}
	f, global, err := parseRegexFlags(flags)
	if err != nil {
		return nil, err
	}
	re, err := compileRegexFlags(a[1].(string), f)
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	var ms [][]int
	if global {
		if ms, err = re.allFrom(env, s, 0, false); err != nil {
			return nil, err
		}
	} else if m, err := re.firstFrom(env, s, 0); err != nil {
		return nil, err
	} else if m != nil {
		ms = [][]int{m}
	}
	rows := make([][]any, len(ms))
	for i, m := range ms {
		rows[i] = matchGroups(s, m)
	}
	return rows, nil
}

// RegexpSplit is regexp_split_to_array and regexp_split_to_table (fn names
// it for errors): the pieces of s between the matches of the pattern.
func RegexpSplit(env *Env, fn string, a []any) ([]string, error) {
	re, err := regexArgs(fn, a, 2, "")
	if err != nil {
		return nil, err
	}
	s := a[0].(string)
	ms, err := re.allFrom(env, s, 0, true)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ms)+1)
	last := 0
	for _, m := range ms {
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:]), nil
}
