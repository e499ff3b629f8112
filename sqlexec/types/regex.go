package types

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// PostgreSQL's advanced regular expressions (AREs) are compiled by an
// engine of fickle's own (regex_are_*.go), which follows PostgreSQL's
// syntax, errors and match rules, and, where they mean the same, also
// translated for Go's RE2, which is faster: by default '.' and negated
// brackets match a newline and ^ $ anchor the whole string; the 'n' (or
// 'm') flag makes them newline-sensitive. RE2 answers whether an RE
// matches whenever the translation exists, and where a match extends when
// the RE has no subexpressions and no non-greedy quantifier (then both
// find the leftmost-longest match). Everything else (back references,
// lookaround, \m \M, PostgreSQL's \b and \B, expanded syntax, non-greedy
// or mixed greediness, what subexpressions capture) runs on fickle's own
// engine.

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
	expanded     bool // x: white space and comments are ignored
}

// parseRegexFlags reads a flags argument; global reports 'g'. Unknown
// options fail with 22023; options fickle cannot honour with 0A000.
func parseRegexFlags(flags string) (f regexFlags, global bool, err error) {
	for _, c := range flags {
		if c == 'g' {
			global = true
		} else if err := f.set(c); err != nil {
			return f, false, err
		}
	}
	return f, global, nil
}

// set applies option c, of a flags argument or of the options embedded at
// the start of a pattern.
func (f *regexFlags) set(c rune) error {
	switch c {
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
	case 'p':
		f.dotNoNewline, f.lineAnchors = true, false
	case 'w':
		f.dotNoNewline, f.lineAnchors = false, true
	case 'x':
		f.expanded = true
	case 't':
		f.expanded = false
	case 'b', 'e':
		// BREs; PostgreSQL 15's regexp functions read 'e' as BREs too.
		return pgerror.Unsupported("regular expression option \"" + string(c) + "\"")
	default:
		return pgerror.Newf(pgerror.InvalidParameterValue, "invalid regular expression option: \"%c\"", c)
	}
	return nil
}

// regexCache keeps compiled regular expressions; it stops growing at
// maxCachedRegexes entries.
var regexCache struct {
	mu sync.Mutex
	m  map[regexKey]*pgRegex
}

// pgRegex is a compiled regular expression: are always, re2 when RE2
// can run it with the same meaning (nil otherwise).
type pgRegex struct {
	are *areRegex
	re2 *regexp.Regexp
	// longest records an RE2 translation without non-greedy quantifiers:
	// RE2's leftmost-longest match is PostgreSQL's.
	longest bool
	// later holds the forms that search from a later start (searchAt).
	later    sync.Once
	laterErr error
	startRe  *regexp.Regexp
	extentRe *regexp.Regexp
}

// NumSubexp is the number of parenthesized subexpressions.
func (re *pgRegex) NumSubexp() int { return re.are.nsub }

// MatchString reports whether re matches somewhere in s, for callers
// without a statement to interrupt.
func (re *pgRegex) MatchString(s string) bool {
	m, _ := re.matches(nil, s)
	return m
}

// re2Extents reports whether RE2 finds the matches: it can run the RE,
// finds the same leftmost-longest extent, and no subexpression asks for
// PostgreSQL's dissection.
func (re *pgRegex) re2Extents() bool {
	return re.re2 != nil && re.longest && re.are.nsub == 0
}

type regexKey struct {
	pattern string
	flags   regexFlags
}

const maxCachedRegexes = 1024

// compileRegex compiles a PostgreSQL regular expression with default
// options, or case-insensitive when fold is set, for the ~ operators, which
// only ask whether it matches.
func compileRegex(p string, fold bool) (*pgRegex, error) {
	return compileRegexFlags(p, regexFlags{fold: fold})
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
	are, err := compileARE(p, f)
	if err != nil {
		return nil, err
	}
	re = &pgRegex{are: are}
	if !f.expanded {
		if tr, err := translateRegex(p, f); err == nil {
			re.re2, re.longest = tr.re2, tr.longest
		}
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

// translateRegex translates an ARE for RE2, or fails where RE2 cannot
// mean the same.
func translateRegex(p string, f regexFlags) (*pgRegex, error) {
	// An ARE may start with the director ***: (or ***= for a literal)
	// and then with embedded options, (?letters).
	switch {
	case f.literal:
	case strings.HasPrefix(p, "***="):
		p, f.literal = p[4:], true
	case strings.HasPrefix(p, "***:"):
		p = p[4:]
	}
	if end := strings.IndexByte(p, ')'); !f.literal && strings.HasPrefix(p, "(?") && end > 2 && strings.Trim(p[2:end], "bceimnpqstwx") == "" {
		for _, c := range p[2:end] {
			if err := f.set(c); err != nil {
				return nil, err
			}
		}
		p = p[end+1:]
	}
	if f.expanded {
		return nil, pgerror.Unsupported("expanded regular expressions in RE2")
	}
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
		return &pgRegex{re2: re, longest: true}, nil
	}
	if f.lineAnchors {
		sb.WriteString("(?m)")
	}
	if !f.dotNoNewline {
		sb.WriteString("(?s)")
	}
	lazy := false
	inBracket := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		// Case-insensitive matching folds ASCII letters only (ctype_c.go):
		// a letter matches its two cases, a bracket expression also the
		// counterparts of the letters its characters and ranges hold.
		if f.fold && !inBracket && isASCIILetter(rune(c)) {
			sb.WriteString("[" + p[i:i+1] + string(c^0x20) + "]")
			continue
		}
		if f.fold && inBracket {
			if n, ok := foldBracketItem(&sb, p[i:]); ok {
				i += n - 1
				continue
			}
		}
		switch {
		case c == '\\' && i+1 < len(p):
			n, err := translateEscape(&sb, p[i+1:], inBracket, f.fold)
			if err != nil {
				return nil, err
			}
			i += n
			continue
		case inBracket:
			if c == ']' {
				inBracket = false
			}
			if c == '[' && i+1 < len(p) && (p[i+1] == '.' || p[i+1] == '=') {
				return nil, pgerror.Unsupported("collating elements and equivalence classes in RE2")
			}
			if c == '[' && i+1 < len(p) && p[i+1] == ':' {
				// A class name [:alpha:] inside a bracket; folding case,
				// [:upper:] and [:lower:] are [:alpha:], as in PostgreSQL.
				end := strings.Index(p[i+2:], string(p[i+1])+"]")
				if end >= 0 {
					class := p[i : i+2+end+2]
					if f.fold && (class == "[:upper:]" || class == "[:lower:]") {
						class = "[:alpha:]"
					}
					if class == "[:cntrl:]" {
						class = `\x00-\x1f\x7f-\x{9f}` // C1 controls too, as PostgreSQL lists them
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
		case c == '{' && leadingZeroBound(p[i+1:]):
			return nil, pgerror.Unsupported("repetition counts with leading zeros in RE2")
		case c == '*' || c == '+' || c == '?' || c == '}':
			if c == '?' && i > 0 && (p[i-1] == '(') {
				if rest := p[i+1:]; strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!") {
					return nil, pgerror.Unsupported("lookahead and lookbehind constraints in RE2")
				}
				break // (?: and kin
			}
			if i+1 < len(p) && p[i+1] == '?' {
				lazy = true
				sb.WriteString(p[i : i+2])
				i++
				continue
			}
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
	return &pgRegex{re2: re, longest: !lazy}, nil
}

// translateEscape writes the Go form of the escape after a backslash at
// the start of rest and returns how many bytes of rest it used; fold
// matches a letter a code escape gives in both ASCII cases. Escapes RE2
// cannot express (back references, \m and \M, PostgreSQL's \b and \B,
// which are not word boundaries there) fail the translation, leaving the
// RE to the ARE engine.
func translateEscape(sb *strings.Builder, rest string, inBracket, fold bool) (int, error) {
	c := rest[0]
	switch {
	case c >= '1' && c <= '9' && !inBracket:
		return 0, pgerror.Unsupported("back references in regular expressions")
	case (c == 'm' || c == 'M' || c == 'b' || c == 'B') && !inBracket:
		return 0, pgerror.Unsupported("regular expression escape \\" + string(c))
	case c == 's':
		// isspace in the C locale holds \v, which RE2's \s does not.
		if inBracket {
			sb.WriteString(`\t-\r `)
		} else {
			sb.WriteString(`[\t-\r ]`)
		}
		return 1, nil
	case c == 'S' && !inBracket:
		sb.WriteString(`[^\t-\r ]`)
		return 1, nil
	case c == 'S':
		return 0, pgerror.Unsupported("\\S in a bracket expression in RE2")
	case c == 'y' && !inBracket:
		sb.WriteString(`\b`) // a word boundary; words are ASCII in the C ctype, as in RE2
		return 1, nil
	case c == 'Y' && !inBracket:
		sb.WriteString(`\B`)
		return 1, nil
	case c == 'Z' && !inBracket:
		sb.WriteString(`\z`)
		return 1, nil
	case c == 'e':
		sb.WriteString(`\x1B`)
		return 1, nil
	case c == 'x' || c == 'u' || c == 'U':
		// \xhhh takes any number of hex digits, \uwxyz four, \Ustuvwxyz eight.
		limit := map[byte]int{'x': len(rest), 'u': 4, 'U': 8}[c]
		n := 1
		for n < len(rest) && n <= limit && isHexDigit(rest[n]) {
			n++
		}
		if n == 1 || c != 'x' && n != limit+1 {
			break
		}
		code := `\x{` + rest[1:n] + `}`
		if v, err := strconv.ParseUint(rest[1:n], 16, 32); err == nil && fold && isASCIILetter(rune(v)) {
			code = string(rune(v)) + string(rune(v^0x20))
			if !inBracket {
				code = "[" + code + "]"
			}
		}
		sb.WriteString(code)
		return n, nil
	}
	if c >= utf8.RuneSelf {
		// A backslash before any other character is that character.
		_, n := utf8.DecodeRuneInString(rest)
		sb.WriteString(regexp.QuoteMeta(rest[:n]))
		return n, nil
	}
	sb.WriteString(`\` + rest[:1])
	return 1, nil
}

// leadingZeroBound reports a bound (after its '{') with a number written
// with a leading zero, which RE2 does not read as PostgreSQL does.
func leadingZeroBound(rest string) bool {
	for i := 0; i+1 < len(rest) && rest[i] != '}'; i++ {
		if rest[i] == '0' && (i == 0 || rest[i-1] == ',') && rest[i+1] >= '0' && rest[i+1] <= '9' {
			return true
		}
	}
	return false
}

func isHexDigit(c byte) bool {
	_, ok := unhex(c)
	return ok
}

// bracketChar reads the character at the start of p inside a bracket
// expression, written as itself or as an escape that gives one character;
// n is its length, ok false for anything else (a class, the bracket's end).
func bracketChar(p string) (r rune, n int, ok bool) {
	switch {
	case p == "" || p[0] == ']' || p[0] == '[':
		return 0, 0, false
	case p[0] != '\\':
		r, n = utf8.DecodeRuneInString(p)
		return r, n, true
	case len(p) < 2:
		return 0, 0, false
	case p[1] == 'e':
		return 0x1B, 2, true
	case p[1] == 'x' || p[1] == 'u' || p[1] == 'U':
		limit := map[byte]int{'x': len(p), 'u': 4, 'U': 8}[p[1]]
		n = 2
		for n < len(p) && n-1 <= limit && isHexDigit(p[n]) {
			n++
		}
		if n == 2 || p[1] != 'x' && n != limit+2 {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(p[2:n], 16, 32)
		return rune(v), n, err == nil
	case p[1] < utf8.RuneSelf && !isASCIIAlnum(p[1]):
		return rune(p[1]), 2, true
	}
	return 0, 0, false
}

// foldBracketItem writes the character or range at the start of p, inside
// a case-insensitive bracket expression, followed by the ASCII case
// counterparts of the letters it covers; n is how many bytes of p it
// used, ok false when p does not start with a character.
func foldBracketItem(sb *strings.Builder, p string) (n int, ok bool) {
	lo, n, ok := bracketChar(p)
	if !ok {
		return 0, false
	}
	hi := lo
	if n+1 < len(p) && p[n] == '-' && p[n+1] != ']' {
		h, m, ok := bracketChar(p[n+1:])
		if !ok {
			return 0, false
		}
		hi, n = h, n+1+m
	}
	if hi < lo {
		return 0, false // PostgreSQL's error, from RE2 below
	}
	sb.WriteString(bracketText(lo))
	if hi != lo {
		sb.WriteString("-" + bracketText(hi))
	}
	for _, r := range asciiFoldRange(lo, hi) {
		sb.WriteString(r)
	}
	return n, true
}

// bracketText writes r for a Go bracket expression.
func bracketText(r rune) string {
	return fmt.Sprintf(`\x{%x}`, r)
}
