package types

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL's advanced regular expressions run on Go's RE2 engine after a
// translation that keeps their meaning: by default '.' and negated
// brackets match a newline and ^ $ anchor the whole string; the 'n' (or
// 'm') flag makes them newline-sensitive. An RE whose quantifiers are all
// greedy matches the longest string at the leftmost position (Go's
// leftmost-longest mode), one whose quantifiers are all non-greedy the
// shortest (Go's leftmost-first with lazy quantifiers). What RE2 cannot
// express the same way is refused: back references and lookaround fail to
// compile (2201B), and an RE mixing greedy and non-greedy quantifiers, or
// using \b or \B (backspace and backslash in PostgreSQL, word boundaries in
// RE2), is refused with 0A000 (a mixed RE only where what it matches
// matters, not whether).

// regexFlags are the options of the regexp_* functions' flags argument
// that change how the RE is compiled.
type regexFlags struct {
	fold bool // i
	// dotNoNewline keeps '.' and negated brackets from matching a
	// newline; lineAnchors makes ^ and $ match at newlines. The n (m)
	// flag sets both, like_regex's defaults and flags each on its own.
	dotNoNewline bool
	lineAnchors  bool
	literal      bool // q: the pattern is a literal string
}

// parseRegexFlags reads a flags argument; global reports 'g'. Unknown
// options fail with 22023; options fickle cannot honour with 0A000.
func parseRegexFlags(flags string) (f regexFlags, global bool, err error) {
	for _, c := range flags {
		switch c {
		case 'g':
			global = true
		case 'i':
			f.fold = true
		case 'c':
			f.fold = false
		case 'n', 'm':
			f.dotNoNewline, f.lineAnchors = true, true
		case 's':
			f.dotNoNewline, f.lineAnchors = false, false
		case 'q':
			f.literal = true
		case 'b', 'e', 'p', 'w', 'x', 't':
			return f, false, pgerror.Unsupported("regular expression option \"" + string(c) + "\"")
		default:
			return f, false, pgerror.Newf(pgerror.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
		}
	}
	return f, global, nil
}

// regexCache keeps compiled regular expressions; it stops growing at
// maxCachedRegexes entries.
var regexCache struct {
	mu sync.Mutex
	m  map[regexKey]*pgRegex
}

// pgRegex is a translated regular expression. anchored records a ^ or \A
// outside brackets, whose meaning depends on what precedes the search
// start.
type pgRegex struct {
	*regexp.Regexp
	anchored bool
	// mixed records greedy and non-greedy quantifiers in one RE: whether
	// it matches is the same in RE2, but not what it matches.
	mixed bool
	// longest records Go's leftmost-longest mode.
	longest bool
	// later holds the forms that search from a later start (searchAt).
	later    sync.Once
	laterErr error
	startRe  *regexp.Regexp
	extentRe *regexp.Regexp
}

// checkExtents refuses to say what an RE mixing greedy and non-greedy
// quantifiers matches: PostgreSQL gives the whole RE one greediness, RE2
// each quantifier its own.
func (re *pgRegex) checkExtents() error {
	if re.mixed {
		return pgerror.Unsupported("regular expressions mixing greedy and non-greedy quantifiers")
	}
	return nil
}

type regexKey struct {
	pattern string
	flags   regexFlags
}

const maxCachedRegexes = 1024

// compileRegex compiles a PostgreSQL regular expression with default
// options, or case-insensitive when fold is set, for the ~ operators, which
// only ask whether it matches.
func compileRegex(p string, fold bool) (*regexp.Regexp, error) {
	re, err := compileRegexFlags(p, regexFlags{fold: fold})
	if err != nil {
		return nil, err
	}
	return re.Regexp, nil
}

// compileRegexFlags compiles a PostgreSQL regular expression under flags.
func compileRegexFlags(p string, f regexFlags) (*pgRegex, error) {
	key := regexKey{p, f}
	regexCache.mu.Lock()
	re, ok := regexCache.m[key]
	regexCache.mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := translateRegex(p, f)
	if err != nil {
		return nil, err
	}
	regexCache.mu.Lock()
	if regexCache.m == nil {
		regexCache.m = map[regexKey]*pgRegex{}
	}
	if len(regexCache.m) < maxCachedRegexes {
		regexCache.m[key] = re
	}
	regexCache.mu.Unlock()
	return re, nil
}

func translateRegex(p string, f regexFlags) (*pgRegex, error) {
	var sb strings.Builder
	if f.literal {
		for i := 0; i < len(p); i++ {
			if f.fold && isASCIILetter(rune(p[i])) {
				sb.WriteString("[" + p[i:i+1] + string(p[i]^0x20) + "]")
			} else {
				sb.WriteString(regexp.QuoteMeta(p[i : i+1]))
			}
		}
		re, err := regexp.Compile(sb.String())
		if err != nil {
			return nil, pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %v", err)
		}
		return &pgRegex{Regexp: re}, nil
	}
	if f.lineAnchors {
		sb.WriteString("(?m)")
	}
	if !f.dotNoNewline {
		sb.WriteString("(?s)")
	}
	greedy, lazy := false, false
	inBracket := false
	anchored := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if f.fold && isASCIILetter(rune(c)) {
			// Case-insensitive matching folds ASCII letters only
			// (ctype_c.go): a letter matches its two cases, a bracket
			// expression also the counterparts of its letters.
			if !inBracket {
				sb.WriteString("[" + p[i:i+1] + string(c^0x20) + "]")
				continue
			}
			if i+2 < len(p) && p[i+1] == '-' && p[i+2] < utf8.RuneSelf && p[i+2] != '\\' && p[i+2] != '[' && p[i+2] != ']' {
				sb.WriteString(p[i : i+3])
				sb.WriteString(strings.Join(asciiFoldRange(rune(c), rune(p[i+2])), ""))
				i += 2
				continue
			}
			sb.WriteString(p[i:i+1] + string(c^0x20))
			continue
		}
		switch {
		case c == '\\' && i+1 < len(p):
			if !inBracket && p[i+1] == 'A' {
				anchored = true
			}
			if !inBracket && (p[i+1] == 'b' || p[i+1] == 'B') {
				return nil, pgerror.Unsupported("regular expression escape \\" + string(p[i+1]))
			}
			sb.WriteString(p[i : i+2])
			i++
			continue
		case inBracket:
			if c == ']' {
				inBracket = false
			}
			if c == '[' && i+1 < len(p) && (p[i+1] == ':' || p[i+1] == '.' || p[i+1] == '=') {
				// A class name [:alpha:] inside a bracket; folding case,
				// [:upper:] and [:lower:] are [:alpha:], as in PostgreSQL.
				end := strings.Index(p[i+2:], string(p[i+1])+"]")
				if end >= 0 {
					class := p[i : i+2+end+2]
					if f.fold && (class == "[:upper:]" || class == "[:lower:]") {
						class = "[:alpha:]"
					}
					sb.WriteString(class)
					i += 2 + end + 1
					continue
				}
			}
		case c == '[':
			inBracket = true
			sb.WriteByte(c)
			j := i + 1
			if j < len(p) && p[j] == '^' {
				sb.WriteByte('^')
				if f.dotNoNewline {
					sb.WriteString(`\n`)
				}
				j++
			}
			if j < len(p) && p[j] == ']' {
				sb.WriteString(`\]`)
				j++
			}
			i = j - 1
			continue
		case c == '^':
			anchored = true
		case c == '*' || c == '+' || c == '?' || c == '}':
			if c == '?' && i > 0 && (p[i-1] == '(') {
				break // (?: and kin
			}
			if i+1 < len(p) && p[i+1] == '?' {
				lazy = true
				sb.WriteString(p[i : i+2])
				i++
				continue
			}
			greedy = true
		}
		sb.WriteByte(c)
	}
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil, pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %v", err)
	}
	if !lazy {
		re.Longest()
	}
	return &pgRegex{Regexp: re, anchored: anchored, mixed: greedy && lazy, longest: !lazy}, nil
}
