package types

import (
	"sync"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// An engine of PostgreSQL's own for advanced regular expressions (AREs),
// for what RE2 cannot match the same way: lookahead and lookbehind, back
// references, the constraint escapes \m \M \y \Y, and the greediness
// rules that decide what a match and its subexpressions cover.
//
// The parser follows PostgreSQL's regcomp.c: its lexer (regc_lex.c) gives
// the same tokens and errors, and parse, parsebranch and parseqatom build
// the same tree of subexpressions (subre). Each node of the tree knows the
// language it matches (an areLang, compiled to a program run by a Pike
// machine in regex_are_exec.go, where PostgreSQL runs a DFA), and the
// matcher dissects a match through the tree as regexec.c does, so the
// parts of a match are PostgreSQL's.

// ARE error codes, with PostgreSQL's messages (regerrs.h).
const (
	regBadPat   = "invalid regexp (reg version 0.8)"
	regECollate = "invalid collating element"
	regECtype   = "invalid character class"
	regEEscape  = "invalid escape \\ sequence"
	regESubreg  = "invalid backreference number"
	regEBrack   = "brackets [] not balanced"
	regEParen   = "parentheses () not balanced"
	regEBrace   = "braces {} not balanced"
	regBadBr    = "invalid repetition count(s)"
	regERange   = "invalid character range"
	regBadRpt   = "quantifier operand invalid"
	regBadOpt   = "invalid embedded option"
	regETooBig  = "regular expression is too complex"
)

// subre flags, as regguts.h defines them.
const (
	srLonger  = 01
	srShorter = 02
	srMixed   = 04
	srCap     = 010
	srBackr   = 020
)

func srUp(f int) int {
	return f&(srMixed|srCap|srBackr) | (f<<2)&(f<<1)&srMixed
}
func srMessy(f int) bool { return f&(srMixed|srCap|srBackr) != 0 }
func srPref(f int) int   { return f & (srLonger | srShorter) }
func srCombine(f1, f2 int) int {
	p := srPref(f1)
	if p == 0 {
		p = srPref(f2)
	}
	return srUp(f1|f2) | p
}

// dupInf is an unbounded repetition count; dupMax the largest bound.
const (
	dupInf = -1
	dupMax = 255
)

// subre is a node of the subexpression tree: op '=' is a plain leaf (only
// its language matters), '.' a concatenation of two nodes, '|' an
// alternation, '*' an iteration of its child, '(' a capture of a node that
// already captures, 'b' a back reference.
type subre struct {
	op       byte
	flags    int
	capno    int
	backno   int
	min, max int
	children []*subre
	// items are the concatenated pieces of a leaf's language.
	items []*areLang
	// prog is the compiled language, made when a match first needs it.
	once sync.Once
	prog *areProg
}

// lang is the language the node matches; a back reference stands for what
// its subexpression could match, repeated (the matcher checks the text).
func (t *subre) lang(subs map[int]*subre) *areLang {
	switch t.op {
	case '=':
		return &areLang{kind: langCat, subs: t.items}
	case '.':
		return &areLang{kind: langCat, subs: []*areLang{t.children[0].lang(subs), t.children[1].lang(subs)}}
	case '|':
		alt := &areLang{kind: langAlt}
		for _, c := range t.children {
			alt.subs = append(alt.subs, c.lang(subs))
		}
		return alt
	case '*':
		return &areLang{kind: langRep, subs: []*areLang{t.children[0].lang(subs)}, min: t.min, max: t.max}
	case '(':
		return t.children[0].lang(subs)
	default: // 'b'
		ref := subs[t.backno].lang(subs).withoutConstraints()
		return &areLang{kind: langRep, subs: []*areLang{ref}, min: t.min, max: t.max}
	}
}

// langKind is the kind of an areLang node.
type langKind uint8

const (
	langSet    langKind = iota // one character of set
	langCat                    // subs in sequence
	langAlt                    // one of subs
	langRep                    // subs[0] repeated min to max times
	langAssert                 // a zero-width constraint
	langLook                   // a lookaround constraint
)

// assertKind is a constraint a position satisfies or not.
type assertKind uint8

const (
	assertBOL        assertKind = iota // ^
	assertEOL                          // $
	assertBOS                          // \A
	assertEOS                          // \Z
	assertWordStart                    // \m
	assertWordEnd                      // \M
	assertWordBound                    // \y
	assertNotWordBnd                   // \Y
)

// areLang is the language of a piece of an RE, without its captures.
type areLang struct {
	kind     langKind
	set      *charSet
	subs     []*areLang
	min, max int
	assert   assertKind
	look     int // index into areRegex.looks
}

// withoutConstraints is the language with its constraints matching
// everywhere: the approximation of a back reference that PostgreSQL's
// DFAs use too.
func (l *areLang) withoutConstraints() *areLang {
	switch l.kind {
	case langAssert, langLook:
		return &areLang{kind: langCat}
	case langSet:
		return l
	}
	c := *l
	c.subs = make([]*areLang, len(l.subs))
	for i, s := range l.subs {
		c.subs[i] = s.withoutConstraints()
	}
	return &c
}

// areOptions are the compile options of an ARE.
type areOptions struct {
	icase, expanded, nlstop, nlanch, quote bool
	// ere reads POSIX extended syntax (the embedded option e): no escapes
	// but literal ones, no non-greedy quantifiers, no (? forms, and a stray
	// ')' is literal.
	ere bool
}

// lookaround is a lookahead or lookbehind constraint.
type lookaround struct {
	ahead, neg bool
	prog       *areProg
}

// areRegex is a compiled ARE.
type areRegex struct {
	tree  *subre
	nsub  int
	opts  areOptions
	looks []*lookaround
	// needsDissect records captures or back references: a match must be
	// dissected through the tree.
	needsDissect bool
	// subs are the capturing subexpressions, which back references name.
	subs map[int]*subre
}

// Lexer token types (PostgreSQL's, where punctuation stands for itself).
const (
	tkEmpty   = 'n'
	tkEOS     = 'e'
	tkPlain   = 'p'
	tkDigit   = 'd'
	tkBackref = 'b'
	tkCollel  = 'I'
	tkEclass  = 'E'
	tkCclass  = 'C'
	tkEnd     = 'X'
	tkCclassS = 's'
	tkCclassC = 'c'
	tkRange   = 'R'
	tkLacon   = 'L'
	tkWbdry   = 'w'
	tkNwbdry  = 'W'
	tkSbegin  = 'A'
	tkSend    = 'Z'
)

// lexer contexts
const (
	lcERE = iota
	lcQ
	lcEBND
	lcBRACK
	lcCEL
	lcECL
	lcCCL
)

// lookaround types
const (
	laAheadPos = iota
	laAheadNeg
	laBehindPos
	laBehindNeg
)

// areParser holds the state of one compilation, as regcomp.c's vars.
type areParser struct {
	pat       []rune
	now       int
	lexcon    int
	opts      areOptions
	nexttype  rune
	nextvalue int
	lasttype  rune
	err       error
	nsubexp   int
	subs      map[int]*subre
	looks     []*lookaround
	progSize  int
}

func (v *areParser) fail(msg string) {
	if v.err == nil {
		v.err = pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %s", msg)
	}
	v.nexttype = tkEOS
}

func (v *areParser) unsupported(what string) {
	if v.err == nil {
		v.err = pgerror.Unsupported(what)
	}
	v.nexttype = tkEOS
}

func (v *areParser) ateos() bool        { return v.now >= len(v.pat) }
func (v *areParser) next1(c rune) bool  { return v.now < len(v.pat) && v.pat[v.now] == c }
func (v *areParser) see(t rune) bool    { return v.nexttype == t }
func (v *areParser) ret(t rune)         { v.nexttype = t }
func (v *areParser) retv(t rune, x int) { v.nexttype, v.nextvalue = t, x }
func (v *areParser) eat(t rune) bool {
	if v.see(t) {
		v.next()
		return true
	}
	return false
}

// compileARE compiles pattern p under the options of f.
func compileARE(p string, f regexFlags) (*areRegex, error) {
	v := &areParser{pat: []rune(p), subs: map[int]*subre{}}
	v.opts = areOptions{icase: f.fold, expanded: f.expanded, nlstop: f.dotNoNewline, nlanch: f.lineAnchors, quote: f.literal}
	v.prefixes()
	if v.err != nil {
		return nil, v.err
	}
	if v.opts.quote {
		v.lexcon = lcQ
	}
	v.nexttype = tkEmpty
	v.next()
	tree := v.parse(tkEOS, false)
	if v.err != nil {
		return nil, v.err
	}
	if err := checkComplexity(tree.lang(v.subs)); err != nil {
		return nil, err
	}
	re := &areRegex{tree: tree, nsub: v.nsubexp, opts: v.opts, looks: v.looks, subs: v.subs}
	re.needsDissect = tree.flags&(srCap|srBackr) != 0
	prog, err := v.compileLang(tree.lang(v.subs))
	if err != nil {
		return nil, err
	}
	tree.once.Do(func() { tree.prog = prog })
	return re, nil
}

// progOf is t's compiled language. The language of a node is part of the
// whole RE's, which compiled within the size limit, so it compiles too.
func (re *areRegex) progOf(t *subre) *areProg {
	t.once.Do(func() {
		size := 0
		p := &areProg{}
		p.emit(t.lang(re.subs), &size)
		p.insts = append(p.insts, areInst{op: iMatch})
		t.prog = p
	})
	return t.prog
}

// PostgreSQL's compiler gives up on an RE whose automaton grows too large,
// which a long run of optional atoms does (each state reaching every later
// one): 'x*' repeated 1,600 times or more is "too complex", 1,500 times
// not, and repeated bounds such as x{0,3} fail sooner. fickle gives the
// same error where PostgreSQL's is certain (runs of 2,000 optional atoms)
// and refuses the uncertain middle (runs weighing more than 900).
const (
	optionalRunRefused  = 900
	optionalRunTooLarge = 2000
)

// checkComplexity measures the runs of optional atoms of l.
func checkComplexity(l *areLang) error {
	maxCount, maxWeight := 0, 0
	var walk func(l *areLang)
	walk = func(l *areLang) {
		count, weight := 0, 0
		for _, s := range l.subs {
			walk(s)
			if l.kind != langCat {
				continue
			}
			if s.kind == langRep && s.min == 0 {
				count++
				weight += max(s.max, 1)
			} else {
				count, weight = 0, 0
			}
			maxCount, maxWeight = max(maxCount, count), max(maxWeight, weight)
		}
	}
	walk(l)
	switch {
	case maxCount >= optionalRunTooLarge:
		return pgerror.Newf(pgerror.InvalidRegularExpression, "invalid regular expression: %s", regETooBig)
	case maxWeight > optionalRunRefused:
		return pgerror.Unsupported("regular expressions with this many optional atoms in a row (PostgreSQL may find them too complex)")
	}
	return nil
}

// prefixes reads the director ***= or ***: and the embedded options.
func (v *areParser) prefixes() {
	if v.opts.quote {
		return
	}
	if len(v.pat) >= 4 && v.pat[0] == '*' && v.pat[1] == '*' && v.pat[2] == '*' {
		switch v.pat[3] {
		case '?':
			v.fail(regBadPat)
			return
		case '=':
			v.opts.quote, v.opts.expanded, v.opts.nlstop, v.opts.nlanch = true, false, false, false
			v.now = 4
			return
		case ':':
			v.now = 4
		default:
			v.fail(regBadRpt)
			return
		}
	}
	if len(v.pat)-v.now >= 3 && v.pat[v.now] == '(' && v.pat[v.now+1] == '?' && isASCIILetter(v.pat[v.now+2]) {
		v.now += 2
		notARE := rune(0)
		for ; !v.ateos() && isASCIILetter(v.pat[v.now]); v.now++ {
			switch v.pat[v.now] {
			case 'b':
				notARE = v.pat[v.now]
			case 'e':
				v.opts.ere, v.opts.quote = true, false
			case 'c':
				v.opts.icase = false
			case 'i':
				v.opts.icase = true
			case 'm', 'n':
				v.opts.nlstop, v.opts.nlanch = true, true
			case 'p':
				v.opts.nlstop, v.opts.nlanch = true, false
			case 'q':
				v.opts.quote = true
			case 's':
				v.opts.nlstop, v.opts.nlanch = false, false
			case 't':
				v.opts.expanded = false
			case 'w':
				v.opts.nlstop, v.opts.nlanch = false, true
			case 'x':
				v.opts.expanded = true
			default:
				v.fail(regBadOpt)
				return
			}
		}
		if !v.next1(')') {
			v.fail(regBadOpt)
			return
		}
		if notARE != 0 {
			v.unsupported("regular expression option \"" + string(notARE) + "\"")
			return
		}
		v.now++
		if v.opts.quote {
			v.opts.expanded, v.opts.nlstop, v.opts.nlanch = false, false, false
		}
	}
}

// skip passes white space and comments in expanded syntax.
func (v *areParser) skip() {
	for {
		for !v.ateos() && v.pat[v.now] < 0x80 && isCSpace(byte(v.pat[v.now])) {
			v.now++
		}
		if v.ateos() || v.pat[v.now] != '#' {
			return
		}
		for !v.ateos() && v.pat[v.now] != '\n' {
			v.now++
		}
	}
}

func isCDigit(c rune) bool { return c >= '0' && c <= '9' }

// next reads the next token into nexttype and nextvalue.
func (v *areParser) next() {
restart:
	if v.err != nil {
		v.nexttype = tkEOS
		return
	}
	v.lasttype = v.nexttype
	if v.opts.expanded && (v.lexcon == lcERE || v.lexcon == lcEBND) {
		v.skip()
	}
	if v.ateos() {
		switch v.lexcon {
		case lcERE, lcQ:
			v.ret(tkEOS)
		case lcEBND:
			v.fail(regEBrace)
		default:
			v.fail(regEBrack)
		}
		return
	}
	c := v.pat[v.now]
	v.now++
	switch v.lexcon {
	case lcQ:
		v.retv(tkPlain, int(c))
		return
	case lcEBND:
		switch {
		case isCDigit(c):
			v.retv(tkDigit, int(c-'0'))
		case c == ',':
			v.ret(',')
		case c == '}':
			v.lexcon = lcERE
			if !v.opts.ere && v.next1('?') {
				v.now++
				v.retv('}', 0)
			} else {
				v.retv('}', 1)
			}
		default:
			v.fail(regBadBr)
		}
		return
	case lcBRACK:
		switch c {
		case ']':
			if v.lasttype == '[' {
				v.retv(tkPlain, int(c))
			} else {
				v.lexcon = lcERE
				v.ret(']')
			}
		case '\\':
			if v.opts.ere {
				v.retv(tkPlain, int(c))
				return
			}
			if v.ateos() {
				v.fail(regEEscape)
				return
			}
			v.lexescape()
			switch v.nexttype {
			case tkPlain, tkCclassS, tkCclassC:
			default:
				v.fail(regEEscape)
			}
		case '-':
			if v.lasttype == '[' || v.next1(']') {
				v.retv(tkPlain, int(c))
			} else {
				v.retv(tkRange, int(c))
			}
		case '[':
			if v.ateos() {
				v.fail(regEBrack)
				return
			}
			switch v.pat[v.now] {
			case '.':
				v.now++
				v.lexcon = lcCEL
				v.ret(tkCollel)
			case '=':
				v.now++
				v.lexcon = lcECL
				v.ret(tkEclass)
			case ':':
				v.now++
				v.lexcon = lcCCL
				v.ret(tkCclass)
			default:
				v.retv(tkPlain, int(c))
			}
		default:
			v.retv(tkPlain, int(c))
		}
		return
	case lcCEL, lcECL, lcCCL:
		end := map[int]rune{lcCEL: '.', lcECL: '=', lcCCL: ':'}[v.lexcon]
		if c == end && v.next1(']') {
			v.now++
			v.lexcon = lcBRACK
			v.retv(tkEnd, int(end))
		} else {
			v.retv(tkPlain, int(c))
		}
		return
	}
	switch c {
	case '|':
		v.ret('|')
	case '*', '+', '?':
		if !v.opts.ere && v.next1('?') {
			v.now++
			v.retv(c, 0)
		} else {
			v.retv(c, 1)
		}
	case '{':
		if v.opts.expanded {
			v.skip()
		}
		if v.ateos() || !isCDigit(v.pat[v.now]) {
			v.retv(tkPlain, int(c))
		} else {
			v.lexcon = lcEBND
			v.ret('{')
		}
	case '(':
		if v.opts.ere || !v.next1('?') {
			v.retv('(', 1)
			return
		}
		v.now++
		if v.ateos() {
			v.fail(regBadRpt)
			return
		}
		d := v.pat[v.now]
		v.now++
		switch d {
		case ':':
			v.retv('(', 0)
		case '#':
			for !v.ateos() && v.pat[v.now] != ')' {
				v.now++
			}
			if !v.ateos() {
				v.now++
			}
			v.nexttype = v.lasttype
			goto restart
		case '=':
			v.retv(tkLacon, laAheadPos)
		case '!':
			v.retv(tkLacon, laAheadNeg)
		case '<':
			if v.ateos() {
				v.fail(regBadRpt)
				return
			}
			d = v.pat[v.now]
			v.now++
			switch d {
			case '=':
				v.retv(tkLacon, laBehindPos)
			case '!':
				v.retv(tkLacon, laBehindNeg)
			default:
				v.fail(regBadRpt)
			}
		default:
			v.fail(regBadRpt)
		}
	case ')':
		v.retv(')', int(c))
	case '[':
		if len(v.pat)-v.now >= 6 && v.pat[v.now] == '[' && v.pat[v.now+1] == ':' &&
			(v.pat[v.now+2] == '<' || v.pat[v.now+2] == '>') && v.pat[v.now+3] == ':' &&
			v.pat[v.now+4] == ']' && v.pat[v.now+5] == ']' {
			d := v.pat[v.now+2]
			v.now += 6
			v.ret(d)
			return
		}
		v.lexcon = lcBRACK
		if v.next1('^') {
			v.now++
			v.retv('[', 0)
		} else {
			v.retv('[', 1)
		}
	case '.', '^', '$':
		v.ret(c)
	case '\\':
		if v.ateos() {
			v.fail(regEEscape)
			return
		}
		if v.opts.ere {
			v.retv(tkPlain, int(v.pat[v.now]))
			v.now++
			return
		}
		v.lexescape()
	default:
		v.retv(tkPlain, int(c))
	}
}

// Character classes, in the C locale's ASCII ctype.
const (
	ccAlnum = iota
	ccAlpha
	ccASCII
	ccBlank
	ccCntrl
	ccDigit
	ccGraph
	ccLower
	ccPrint
	ccPunct
	ccSpace
	ccUpper
	ccXdigit
	ccWord
)

var classNames = map[string]int{"alnum": ccAlnum, "alpha": ccAlpha, "ascii": ccASCII, "blank": ccBlank,
	"cntrl": ccCntrl, "digit": ccDigit, "graph": ccGraph, "lower": ccLower, "print": ccPrint,
	"punct": ccPunct, "space": ccSpace, "upper": ccUpper, "xdigit": ccXdigit, "word": ccWord}

// lexescape reads an escape after a backslash.
func (v *areParser) lexescape() {
	c := v.pat[v.now]
	v.now++
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		v.retv(tkPlain, int(c))
		return
	}
	switch c {
	case 'a':
		v.retv(tkPlain, 7)
	case 'A':
		v.ret(tkSbegin)
	case 'b':
		v.retv(tkPlain, '\b')
	case 'B':
		v.retv(tkPlain, '\\')
	case 'c':
		if v.ateos() {
			v.fail(regEEscape)
			return
		}
		v.retv(tkPlain, int(v.pat[v.now]&037))
		v.now++
	case 'd':
		v.retv(tkCclassS, ccDigit)
	case 'D':
		v.retv(tkCclassC, ccDigit)
	case 'e':
		v.retv(tkPlain, 033)
	case 'f':
		v.retv(tkPlain, '\f')
	case 'm':
		v.ret('<')
	case 'M':
		v.ret('>')
	case 'n':
		v.retv(tkPlain, '\n')
	case 'r':
		v.retv(tkPlain, '\r')
	case 's':
		v.retv(tkCclassS, ccSpace)
	case 'S':
		v.retv(tkCclassC, ccSpace)
	case 't':
		v.retv(tkPlain, '\t')
	case 'u', 'U', 'x':
		minlen, maxlen := 4, 4
		if c == 'U' {
			minlen, maxlen = 8, 8
		} else if c == 'x' {
			minlen, maxlen = 1, 255
		}
		n, ok := v.lexdigits(16, minlen, maxlen)
		if !ok || n > 0x7ffffffe {
			v.fail(regEEscape)
			return
		}
		v.retv(tkPlain, int(n))
	case 'v':
		v.retv(tkPlain, '\v')
	case 'w':
		v.retv(tkCclassS, ccWord)
	case 'W':
		v.retv(tkCclassC, ccWord)
	case 'y':
		v.ret(tkWbdry)
	case 'Y':
		v.ret(tkNwbdry)
	case 'Z':
		v.ret(tkSend)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9', '0':
		if c != '0' {
			save := v.now
			v.now--
			n, ok := v.lexdigits(10, 1, 255)
			if !ok {
				v.fail(regEEscape)
				return
			}
			if v.now == save || n > 0 && n <= uint64(v.nsubexp) {
				v.retv(tkBackref, int(n))
				return
			}
			v.now = save
		}
		v.now--
		n, ok := v.lexdigits(8, 1, 3)
		if !ok {
			v.fail(regEEscape)
			return
		}
		if n > 0xff {
			v.now--
			n >>= 3
		}
		v.retv(tkPlain, int(n))
	default:
		v.fail(regEEscape)
	}
}

// lexdigits reads up to maxlen digits of base; ok is false for fewer than
// minlen or a value past any character.
func (v *areParser) lexdigits(base uint64, minlen, maxlen int) (uint64, bool) {
	var n uint64
	length := 0
	for ; length < maxlen && !v.ateos(); length++ {
		c := v.pat[v.now]
		d := uint64(99)
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		}
		if d >= base {
			break
		}
		v.now++
		if n < 1<<40 {
			n = n*base + d
		}
	}
	return n, length >= minlen
}

// parse parses branches separated by '|' up to stopper (EOS or ')').
func (v *areParser) parse(stopper rune, lacon bool) *subre {
	branches := &subre{op: '|', flags: srLonger}
	for {
		branch := v.parsebranch(stopper, lacon)
		if v.err != nil {
			return nil
		}
		branches.children = append(branches.children, branch)
		branches.flags |= srUp(branches.flags | branch.flags)
		if !v.eat('|') {
			break
		}
	}
	if !v.see(stopper) {
		v.fail(regEParen)
		return nil
	}
	if len(branches.children) == 1 {
		return branches.children[0]
	}
	if !srMessy(branches.flags) {
		alt := &areLang{kind: langAlt}
		for _, b := range branches.children {
			alt.subs = append(alt.subs, b.lang(v.subs))
		}
		return &subre{op: '=', flags: branches.flags, items: []*areLang{alt}}
	}
	return branches
}

// parsebranch parses one branch: a concatenation of quantified atoms.
func (v *areParser) parsebranch(stopper rune, lacon bool) *subre {
	t := &subre{op: '='}
	seen := false
	for !v.see('|') && !v.see(stopper) && !v.see(tkEOS) {
		first := !seen
		seen = true
		t = v.parseqatom(stopper, lacon, t, first)
		if v.err != nil {
			return nil
		}
	}
	return t
}

// parseqatom parses a quantified atom or constraint and adds it to top (a
// leaf); a messy atom (capturing, a back reference, or a greediness clash)
// makes top a concatenation, and the rest of the branch is parsed here.
func (v *areParser) parseqatom(stopper rune, lacon bool, top *subre, first bool) *subre {
	var item *areLang
	var atom *subre
	subno := 0
	atomtype := v.nexttype
	addAssert := func(k assertKind) *subre {
		top.items = append(top.items, &areLang{kind: langAssert, assert: k})
		v.next()
		return top
	}
	switch atomtype {
	case '^':
		return addAssert(assertBOL)
	case '$':
		return addAssert(assertEOL)
	case tkSbegin:
		return addAssert(assertBOS)
	case tkSend:
		return addAssert(assertEOS)
	case '<':
		return addAssert(assertWordStart)
	case '>':
		return addAssert(assertWordEnd)
	case tkWbdry:
		return addAssert(assertWordBound)
	case tkNwbdry:
		return addAssert(assertNotWordBnd)
	case tkLacon:
		latype := v.nextvalue
		v.next()
		t := v.parse(')', true)
		if v.err != nil {
			return top
		}
		v.next()
		prog, err := v.compileLang(t.lang(v.subs))
		if err != nil {
			v.err = err
			return top
		}
		v.looks = append(v.looks, &lookaround{ahead: latype == laAheadPos || latype == laAheadNeg,
			neg: latype == laAheadNeg || latype == laBehindNeg, prog: prog})
		top.items = append(top.items, &areLang{kind: langLook, look: len(v.looks) - 1})
		return top
	case '*', '+', '?', '{':
		v.fail(regBadRpt)
		return top
	case ')':
		if !v.opts.ere {
			v.fail(regEParen)
			return top
		}
		item = v.onechr(')') // legal in EREs, as a specification botch
		v.next()
	case tkPlain:
		item = v.onechr(rune(v.nextvalue))
		v.next()
	case '[':
		item = v.bracket()
		v.next()
	case tkCclassS, tkCclassC:
		cs := &charSet{}
		cs.addClass(v.nextvalue, v.opts.icase, atomtype == tkCclassC)
		item = &areLang{kind: langSet, set: cs}
		v.next()
	case '.':
		item = &areLang{kind: langSet, set: &charSet{neg: true, noNL: v.opts.nlstop}}
		v.next()
	case '(':
		capture := !lacon && v.nextvalue == 1
		if capture {
			v.nsubexp++
			subno = v.nsubexp
		} else {
			atomtype = tkPlain
		}
		v.next()
		atom = v.parse(')', lacon)
		if v.err != nil {
			return top
		}
		v.next()
		if capture {
			if atom.capno == 0 {
				atom.flags |= srCap
				atom.capno = subno
			} else {
				atom = &subre{op: '(', flags: atom.flags | srCap, capno: subno, children: []*subre{atom}}
			}
			v.subs[subno] = atom
		}
	case tkBackref:
		if lacon || v.subs[v.nextvalue] == nil {
			v.fail(regESubreg)
			return top
		}
		atom = &subre{op: 'b', flags: srBackr, backno: v.nextvalue, min: 1, max: 1}
		subno = v.nextvalue
		v.next()
	default:
		v.fail(regBadRpt)
		return top
	}

	// a quantifier
	m, n, qprefer := 1, 1, 0
	pref := func() int {
		if v.nextvalue != 0 {
			return srLonger
		}
		return srShorter
	}
	switch v.nexttype {
	case '*':
		m, n, qprefer = 0, dupInf, pref()
		v.next()
	case '+':
		m, n, qprefer = 1, dupInf, pref()
		v.next()
	case '?':
		m, n, qprefer = 0, 1, pref()
		v.next()
	case '{':
		v.next()
		m = v.scannum()
		if v.eat(',') {
			if v.see(tkDigit) {
				n = v.scannum()
			} else {
				n = dupInf
			}
			if n != dupInf && m > n {
				v.fail(regBadBr)
				return top
			}
			if !v.see('}') {
				v.fail(regBadBr)
				return top
			}
			qprefer = pref()
		} else {
			n = m
			if !v.see('}') {
				v.fail(regBadBr)
				return top
			}
		}
		v.next()
	}
	if v.err != nil {
		return top
	}

	// {0} cancels everything; a back reference to a subexpression inside
	// stays valid and matches nothing, as in PostgreSQL 15.
	if m == 0 && n == 0 {
		return top
	}

	f := top.flags | qprefer
	if atom != nil {
		f |= atom.flags
	}
	if atomtype != '(' && atomtype != tkBackref && !srMessy(srUp(f)) {
		if item == nil {
			item = atom.lang(v.subs)
		}
		top.items = append(top.items, repeatLang(item, m, n))
		top.flags = f
		return top
	}

	// the hard part: something messy
	if atom == nil {
		atom = &subre{op: '=', items: []*areLang{item}}
	}
	t := &subre{op: '.', flags: srCombine(qprefer, atom.flags)}
	prefix := &subre{op: '=', flags: top.flags, items: top.items}
	var quant *subre
	switch {
	case atomtype == tkBackref:
		atom.min, atom.max = m, n
		atom.flags |= srCombine(qprefer, atom.flags)
		quant = atom
	case m == 1 && n == 1 && (qprefer == 0 || atom.flags&(srLonger|srShorter|srMixed) == 0 ||
		qprefer == atom.flags&(srLonger|srShorter|srMixed)):
		quant = atom
	case atom.flags&(srCap|srBackr) == 0:
		quant = &subre{op: '=', flags: srCombine(qprefer, atom.flags), items: []*areLang{repeatLang(atom.lang(v.subs), m, n)}}
	case m > 0 && atom.flags&srBackr == 0:
		f := srCombine(qprefer, atom.flags)
		rn := n
		if n != dupInf {
			rn = n - 1
		}
		pre := &subre{op: '=', flags: srPref(f), items: []*areLang{repeatLang(atom.lang(v.subs), m-1, rn)}}
		quant = &subre{op: '.', flags: f, children: []*subre{pre, atom}}
	default:
		quant = &subre{op: '*', flags: srCombine(qprefer, atom.flags), min: m, max: n, children: []*subre{atom}}
	}

	if !(v.see('|') || v.see(stopper) || v.see(tkEOS)) {
		rest := v.parsebranch(stopper, lacon)
		if v.err != nil {
			return top
		}
		t.children = []*subre{quant, rest}
		t.flags |= srCombine(t.flags, rest.flags)
		top = &subre{op: '.', flags: top.flags}
		top.flags |= srCombine(top.flags, t.flags)
		if first {
			top.children = t.children
			return top
		}
		if quant.op == '=' && rest.op == '=' && !srMessy(srUp(quant.flags|rest.flags)) {
			t = &subre{op: '=', flags: srCombine(quant.flags, rest.flags), items: append(append([]*areLang{}, quant.items...), rest.items...)}
		}
		top.children = []*subre{prefix, t}
		return top
	}
	top = &subre{op: '.', flags: top.flags}
	top.flags |= srCombine(top.flags, quant.flags)
	if first {
		return quant
	}
	top.children = []*subre{prefix, quant}
	return top
}

// repeatLang is l repeated m to n times.
func repeatLang(l *areLang, m, n int) *areLang {
	if m == 1 && n == 1 {
		return l
	}
	return &areLang{kind: langRep, subs: []*areLang{l}, min: m, max: n}
}

// scannum reads a bound's number.
func (v *areParser) scannum() int {
	n := 0
	for v.see(tkDigit) && n < dupMax {
		n = n*10 + v.nextvalue
		v.next()
	}
	if v.see(tkDigit) || n > dupMax {
		v.fail(regBadBr)
		return 0
	}
	return n
}

// onechr is the language of character c (and its other case, folding).
func (v *areParser) onechr(c rune) *areLang {
	cs := &charSet{}
	cs.addRange(c, c, v.opts.icase)
	return &areLang{kind: langSet, set: cs}
}

// bracket parses a bracket expression; the current token is '['.
func (v *areParser) bracket() *areLang {
	cs := &charSet{neg: v.nextvalue == 0}
	cs.noNL = cs.neg && v.opts.nlstop
	v.next()
	for !v.see(']') && !v.see(tkEOS) {
		v.brackpart(cs)
	}
	if v.err == nil && !v.see(']') {
		v.fail(regEBrack)
	}
	return &areLang{kind: langSet, set: cs}
}

// brackpart parses one item or range of a bracket expression.
func (v *areParser) brackpart(cs *charSet) {
	var startc, endc rune
	switch v.nexttype {
	case tkRange:
		v.fail(regERange)
		return
	case tkPlain:
		startc = rune(v.nextvalue)
		v.next()
		if !v.see(tkRange) {
			cs.addRange(startc, startc, v.opts.icase)
			return
		}
	case tkCollel:
		c, ok := v.element()
		if !ok {
			return
		}
		startc = c
	case tkEclass:
		c, ok := v.element()
		if !ok {
			return
		}
		cs.addRange(c, c, v.opts.icase)
		return
	case tkCclass:
		v.next()
		var name []rune
		for v.see(tkPlain) {
			name = append(name, rune(v.nextvalue))
			v.next()
		}
		v.next() // the END token
		if v.err != nil {
			return
		}
		cls, ok := classNames[string(name)]
		if !ok {
			v.fail(regECtype)
			return
		}
		cs.addClass(cls, v.opts.icase, false)
		return
	case tkCclassS, tkCclassC:
		cs.addClass(v.nextvalue, v.opts.icase, v.nexttype == tkCclassC)
		v.next()
		return
	default:
		v.fail(regERange)
		return
	}
	if v.see(tkRange) {
		v.next()
		switch v.nexttype {
		case tkPlain, tkRange:
			endc = rune(v.nextvalue)
			v.next()
		case tkCollel:
			c, ok := v.element()
			if !ok {
				return
			}
			endc = c
		default:
			v.fail(regERange)
			return
		}
	} else {
		endc = startc
	}
	if endc < startc {
		v.fail(regERange)
		return
	}
	cs.addRange(startc, endc, v.opts.icase)
}

// element reads the contents of [. .] or [= =]: one character, or the
// name of one in PostgreSQL's table.
func (v *areParser) element() (rune, bool) {
	v.next()
	var name []rune
	for v.see(tkPlain) {
		name = append(name, rune(v.nextvalue))
		v.next()
	}
	v.next() // the END token
	if v.err != nil {
		return 0, false
	}
	if len(name) == 1 {
		return name[0], true
	}
	if c, ok := collatingNames[string(name)]; ok {
		return c, true
	}
	v.fail(regECollate)
	return 0, false
}

// collatingNames are the character names of regc_locale.c's cnames.
var collatingNames = map[string]rune{
	"NUL": 0, "SOH": 1, "STX": 2, "ETX": 3, "EOT": 4, "ENQ": 5, "ACK": 6, "BEL": 7, "alert": 7,
	"BS": 8, "backspace": 8, "HT": 9, "tab": 9, "LF": 10, "newline": 10, "VT": 11, "vertical-tab": 11,
	"FF": 12, "form-feed": 12, "CR": 13, "carriage-return": 13, "SO": 14, "SI": 15, "DLE": 16,
	"DC1": 17, "DC2": 18, "DC3": 19, "DC4": 20, "NAK": 21, "SYN": 22, "ETB": 23, "CAN": 24, "EM": 25,
	"SUB": 26, "ESC": 27, "IS4": 28, "FS": 28, "IS3": 29, "GS": 29, "IS2": 30, "RS": 30, "IS1": 31,
	"US": 31, "space": ' ', "exclamation-mark": '!', "quotation-mark": '"', "number-sign": '#',
	"dollar-sign": '$', "percent-sign": '%', "ampersand": '&', "apostrophe": '\'', "left-parenthesis": '(',
	"right-parenthesis": ')', "asterisk": '*', "plus-sign": '+', "comma": ',', "hyphen": '-',
	"hyphen-minus": '-', "period": '.', "full-stop": '.', "slash": '/', "solidus": '/', "zero": '0',
	"one": '1', "two": '2', "three": '3', "four": '4', "five": '5', "six": '6', "seven": '7', "eight": '8',
	"nine": '9', "colon": ':', "semicolon": ';', "less-than-sign": '<', "equals-sign": '=',
	"greater-than-sign": '>', "question-mark": '?', "commercial-at": '@', "left-square-bracket": '[',
	"backslash": '\\', "reverse-solidus": '\\', "right-square-bracket": ']', "circumflex": '^',
	"circumflex-accent": '^', "underscore": '_', "low-line": '_', "grave-accent": '`', "left-brace": '{',
	"left-curly-bracket": '{', "vertical-line": '|', "right-brace": '}', "right-curly-bracket": '}',
	"tilde": '~', "DEL": 0x7f,
}

// charSet is the set of characters of an atom: its ranges, every
// character outside one of the classes in notIn (\D \S \W in a bracket),
// complemented when neg (minus the newline when noNL).
type charSet struct {
	ranges []runeRange
	notIn  [][]runeRange
	neg    bool
	noNL   bool
}

type runeRange struct{ lo, hi rune }

// addRange adds lo through hi, with the other ASCII case of its letters
// when folding (the C ctype's case folding).
func (cs *charSet) addRange(lo, hi rune, fold bool) {
	cs.ranges = append(cs.ranges, runeRange{lo, hi})
	if !fold {
		return
	}
	for _, r := range [][2]rune{{'a', 'z'}, {'A', 'Z'}} {
		l, h := max(lo, r[0]), min(hi, r[1])
		if l <= h {
			cs.ranges = append(cs.ranges, runeRange{l ^ 0x20, h ^ 0x20})
		}
	}
}

// classRanges are the ranges of a class in the C locale: ASCII, and the
// C1 controls for cntrl, which PostgreSQL lists itself.
func classRanges(cls int, fold bool) []runeRange {
	if fold && (cls == ccUpper || cls == ccLower) {
		cls = ccAlpha
	}
	switch cls {
	case ccAlnum:
		return []runeRange{{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}
	case ccAlpha:
		return []runeRange{{'A', 'Z'}, {'a', 'z'}}
	case ccASCII:
		return []runeRange{{0, 0x7f}}
	case ccBlank:
		return []runeRange{{'\t', '\t'}, {' ', ' '}}
	case ccCntrl:
		return []runeRange{{0, 0x1f}, {0x7f, 0x9f}}
	case ccDigit:
		return []runeRange{{'0', '9'}}
	case ccGraph:
		return []runeRange{{0x21, 0x7e}}
	case ccLower:
		return []runeRange{{'a', 'z'}}
	case ccPrint:
		return []runeRange{{0x20, 0x7e}}
	case ccPunct:
		return []runeRange{{0x21, 0x2f}, {0x3a, 0x40}, {0x5b, 0x60}, {0x7b, 0x7e}}
	case ccSpace:
		return []runeRange{{'\t', '\r'}, {' ', ' '}}
	case ccUpper:
		return []runeRange{{'A', 'Z'}}
	case ccXdigit:
		return []runeRange{{'0', '9'}, {'A', 'F'}, {'a', 'f'}}
	default: // ccWord
		return []runeRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	}
}

func (cs *charSet) addClass(cls int, fold, complement bool) {
	if complement {
		cs.notIn = append(cs.notIn, classRanges(cls, fold))
		return
	}
	cs.ranges = append(cs.ranges, classRanges(cls, fold)...)
}

func inRanges(rs []runeRange, c rune) bool {
	for _, r := range rs {
		if c >= r.lo && c <= r.hi {
			return true
		}
	}
	return false
}

// has reports whether c is in the set.
func (cs *charSet) has(c rune) bool {
	in := inRanges(cs.ranges, c)
	for _, n := range cs.notIn {
		in = in || !inRanges(n, c)
	}
	if cs.neg {
		return !in && !(cs.noNL && c == '\n')
	}
	return in
}

func isWordChar(c rune) bool {
	return c < utf8.RuneSelf && (c == '_' || isASCIIAlnum(byte(c)))
}
