package types

import (
	"io"
	"unicode/utf8"
)

// A search of a regular expression is linear in the text but can be slow:
// the leftmost-longest rule makes each match scan on to the end of the
// text, so finding every match of 'a(.*b)?' in 20,000 a's took 30 s. The
// functions therefore find the matches one at a time, checking the
// statement's interruption between matches, and search a long text
// through a reader that checks it as the search advances.

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
	return len(text) >= readerSearchFrom && env != nil && env.Interrupted != nil
}

// matches reports whether re matches somewhere in s.
func (re *pgRegex) matches(env *Env, s string) (bool, error) {
	if !searchesReader(env, s) {
		return re.MatchString(s), nil
	}
	r := &interruptibleText{s: s, env: env}
	ok := re.MatchReader(r)
	return ok && r.err == nil, r.err
}

// findAt returns the first match at or after byte offset pos (indices
// into s), or nil, or the statement's interruption.
func (re *pgRegex) findAt(env *Env, s string, pos int) ([]int, error) {
	var m []int
	if text := s[pos:]; !searchesReader(env, text) {
		m = re.FindStringSubmatchIndex(text)
	} else {
		r := &interruptibleText{s: text, env: env}
		m = re.FindReaderSubmatchIndex(r)
		if r.err != nil {
			return nil, r.err
		}
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += pos
		}
	}
	return m, nil
}

// findAll returns every match at or after byte offset pos, each search
// starting where the last match ended (the caller refuses REs that can
// match the empty string, so each match moves on). An anchored RE is
// searched in one call: a search starting inside the text would let ^
// match there.
func (re *pgRegex) findAll(env *Env, s string, pos int) ([][]int, error) {
	if re.anchored {
		ms := re.FindAllStringSubmatchIndex(s[pos:], -1)
		for _, m := range ms {
			for i := range m {
				if m[i] >= 0 {
					m[i] += pos
				}
			}
		}
		return ms, nil
	}
	var ms [][]int
	for pos <= len(s) {
		if len(ms)%matchesBetweenChecks == 0 {
			if err := env.Interrupt(); err != nil {
				return nil, err
			}
		}
		m, err := re.findAt(env, s, pos)
		if m == nil || err != nil {
			return ms, err
		}
		ms = append(ms, m)
		pos = m[1]
	}
	return ms, nil
}
