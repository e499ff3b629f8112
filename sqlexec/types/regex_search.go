package types

import (
	"regexp"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL's regexp functions search again and again, each search starting
// where the last match ended (one character further after an empty match),
// with the whole string as context: ^ does not match at a later start, and
// in newline-sensitive mode matches there only after a newline. Go's regexp
// searches only from the start of what it is given, so a search from a
// later start runs on the string from the character before it, through two
// companions of the RE that step over that character: one finds where the
// first match begins, the other how far it extends.

// searchAt returns the first match at or after byte offset pos (a
// character boundary), as FindStringSubmatchIndex numbers it, or nil.
func (re *pgRegex) searchAt(s string, pos int) ([]int, error) {
	if pos == 0 {
		return re.FindStringSubmatchIndex(s), nil
	}
	re.later.Do(re.compileLater)
	if re.laterErr != nil {
		return nil, re.laterErr
	}
	_, w := utf8.DecodeLastRuneInString(s[:pos])
	from := pos - w
	sm := re.startRe.FindStringSubmatchIndex(s[from:])
	if sm == nil {
		return nil, nil
	}
	start := from + sm[3]
	_, w = utf8.DecodeLastRuneInString(s[:start])
	from = start - w
	em := re.extentRe.FindStringSubmatchIndex(s[from:])
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
	src := re.String()
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
func (re *pgRegex) firstFrom(s string, pos int) ([]int, error) {
	if err := re.checkExtents(); err != nil {
		return nil, err
	}
	return re.searchAt(s, pos)
}

// allFrom returns every match at or after byte offset pos, as PostgreSQL's
// setup_regexp_matches finds them: each search starts where the last match
// ended, one character further after an empty match. With
// ignoreDegenerate (regexp_split_*), empty matches at the end of s or
// right where the last match (or s) began or ended are left out.
func (re *pgRegex) allFrom(s string, pos int, ignoreDegenerate bool) ([][]int, error) {
	if err := re.checkExtents(); err != nil {
		return nil, err
	}
	var ms [][]int
	prevEnd := 0
	for pos <= len(s) {
		m, err := re.searchAt(s, pos)
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
