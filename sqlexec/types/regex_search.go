package types

import (
	"io"
	"regexp"
	"sort"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL's regexp functions search again and again, each search starting
// where the last match ended (one character further after an empty match),
// with the whole string as context: ^ does not match at a later start, and
// in newline-sensitive mode matches there only after a newline. The ARE
// engine searches from any start with the whole string as context, and
// checks the statement's interruption as it counts its steps. Go's regexp
// searches only from the start of what it is given, so a search from a
// later start runs on the string from the character before it, through two
// companions of the RE that step over that character: one finds where the
// first match begins, the other how far it extends.
//
// A search is linear in the text (RE2) or quadratic (the ARE engine) but
// can be slow: the leftmost-longest rule makes each match scan on to the
// end of the text, so finding every match of 'a(.*b)?' in 20,000 a's
// takes 12 s. The functions therefore find the matches one at a time,
// checking the statement's interruption between matches, and RE2 searches
// a long text through a reader that checks it as the search advances.

// readerSearchFrom is the length of text from which one search goes
// through an interruptible reader (slower than searching the string).
const readerSearchFrom = 8 << 10

// matchesBetweenChecks is how many matches are found between two checks
// of the interruption (each search of a long text checks on its own).
const matchesBetweenChecks = 16

// interruptibleText is the text of one search read rune by rune; it ends
// early, recording the interruption, when the statement is interrupted.
type interruptibleText struct {
	s     string
	pos   int
	runes int
	env   *Env
	err   error
}

func (r *interruptibleText) ReadRune() (rune, int, error) {
	if r.runes++; r.runes%interruptEvery == 0 {
		if r.err = r.env.Interrupt(); r.err != nil {
			return 0, 0, r.err
		}
	}
	if r.pos >= len(r.s) {
		return 0, 0, io.EOF
	}
	c, size := utf8.DecodeRuneInString(r.s[r.pos:])
	r.pos += size
	return c, size, nil
}

// searchesReader says whether a search of text goes through an
// interruptible reader.
func searchesReader(env *Env, text string) bool {
	return len(text) >= readerSearchFrom && env != nil && env.Interrupter != nil
}

// find is x.FindStringSubmatchIndex(text), through an interruptible reader
// when text is long.
func find(env *Env, x *regexp.Regexp, text string) ([]int, error) {
	if !searchesReader(env, text) {
		return x.FindStringSubmatchIndex(text), nil
	}
	r := &interruptibleText{s: text, env: env}
	m := x.FindReaderSubmatchIndex(r)
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}

// matches reports whether re matches somewhere in s.
func (re *pgRegex) matches(env *Env, s string) (bool, error) {
	return matchRegexp(env, re, s)
}

// matchRegexp reports whether re matches somewhere in s (the ~ operators,
// SIMILAR TO and regexp_like): through RE2 when it can, through an
// interruptible reader when s is long, else through the ARE engine.
func matchRegexp(env *Env, re *pgRegex, s string) (bool, error) {
	if re.re2 == nil {
		m, err := newARESearch(env, re.are, s).from(0)
		return m != nil, err
	}
	x := re.re2
	if !searchesReader(env, s) {
		return x.MatchString(s), nil
	}
	r := &interruptibleText{s: s, env: env}
	ok := x.MatchReader(r)
	return ok && r.err == nil, r.err
}

// areSearch is a string prepared for the ARE engine: its characters and
// the byte offset of each (and of its end).
type areSearch struct {
	x    *areExec
	offs []int
}

func newARESearch(env *Env, re *areRegex, s string) *areSearch {
	runes := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i, r := range s {
		runes = append(runes, r)
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	return &areSearch{x: newAREExec(env, re, runes), offs: offs}
}

// from returns the first match at or after byte offset pos (a character
// boundary), as FindStringSubmatchIndex numbers it, or nil.
func (a *areSearch) from(pos int) (m []int, err error) {
	start := sort.SearchInts(a.offs, pos)
	found := false
	if err := areMatch(func() { found = a.x.find(start) }); err != nil || !found {
		return nil, err
	}
	m = make([]int, len(a.x.caps))
	for i, c := range a.x.caps {
		m[i] = -1
		if c >= 0 {
			m[i] = a.offs[c]
		}
	}
	return m, nil
}

// searchAt returns the first match at or after byte offset pos (a
// character boundary), as FindStringSubmatchIndex numbers it, or nil.
func (re *pgRegex) searchAt(env *Env, s string, pos int) ([]int, error) {
	if pos == 0 {
		return find(env, re.re2, s)
	}
	re.later.Do(re.compileLater)
	if re.laterErr != nil {
		return nil, re.laterErr
	}
	_, w := utf8.DecodeLastRuneInString(s[:pos])
	from := pos - w
	sm, err := find(env, re.startRe, s[from:])
	if sm == nil || err != nil {
		return nil, err
	}
	start := from + sm[3]
	_, w = utf8.DecodeLastRuneInString(s[:start])
	from = start - w
	em, err := find(env, re.extentRe, s[from:])
	if err != nil {
		return nil, err
	}
	if em == nil {
		return nil, pgerror.New(pgerror.InternalError, "regular expression match found without its extent")
	}
	m := em[2:]
	for i := range m {
		if m[i] >= 0 {
			m[i] += from
		}
	}
	return m, nil
}

// compileLater compiles the companions of searchAt: startRe captures,
// after the character before the search start, the shortest text that
// precedes a match (in leftmost-first mode, whatever the RE's); extentRe
// captures, after the character before the match, the match itself in the
// RE's own mode.
func (re *pgRegex) compileLater() {
	src := re.re2.String()
	start, err := regexp.Compile(`\A(?s:.)((?s:.*?))(?:` + src + `)`)
	if err != nil {
		re.laterErr = pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %v", err)
		return
	}
	extent, err := regexp.Compile(`\A(?s:.)(` + src + `)`)
	if err != nil {
		re.laterErr = pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %v", err)
		return
	}
	if re.longest {
		extent.Longest()
	}
	re.startRe, re.extentRe = start, extent
}

// firstFrom returns the first match at or after byte offset pos.
func (re *pgRegex) firstFrom(env *Env, s string, pos int) ([]int, error) {
	if re.re2Extents() {
		return re.searchAt(env, s, pos)
	}
	return newARESearch(env, re.are, s).from(pos)
}

// allFrom returns every match at or after byte offset pos, as PostgreSQL's
// setup_regexp_matches finds them: each search starts where the last match
// ended, one character further after an empty match. With
// ignoreDegenerate (regexp_split_*), empty matches at the end of s or
// right where the last match (or s) began or ended are left out.
func (re *pgRegex) allFrom(env *Env, s string, pos int, ignoreDegenerate bool) ([][]int, error) {
	search := func(pos int) ([]int, error) { return re.searchAt(env, s, pos) }
	if !re.re2Extents() {
		search = newARESearch(env, re.are, s).from
	}
	var ms [][]int
	prevEnd := 0
	for searches := 0; pos <= len(s); searches++ {
		if searches%matchesBetweenChecks == 0 {
			if err := env.Interrupt(); err != nil {
				return nil, err
			}
		}
		m, err := search(pos)
		if err != nil || m == nil {
			return ms, err
		}
		if !ignoreDegenerate || m[0] < len(s) && m[1] > prevEnd {
			ms = append(ms, m)
		}
		prevEnd = m[1]
		pos = m[1]
		if m[0] == m[1] {
			if pos == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
		}
	}
	return ms, nil
}
