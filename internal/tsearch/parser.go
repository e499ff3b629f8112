package tsearch

import (
	"context"
	"errors"
	"unicode/utf8"
)

// TokenType is one of the default parser's 23 token types, numbered as
// PostgreSQL numbers them (ts_token_type('default')).
type TokenType int

// The default parser's token types.
const (
	ASCIIWord TokenType = iota + 1
	Word
	NumWord
	Email
	URL
	Host
	SFloat
	Version
	HWordNumPart
	HWordPart
	HWordASCIIPart
	Blank
	Tag
	Protocol
	NumHWord
	ASCIIHWord
	HWord
	URLPath
	File
	Float
	Int
	UInt
	Entity
)

// LastTokenType is the highest token type number.
const LastTokenType = Entity

var tokenAliases = [...]string{
	"", "asciiword", "word", "numword", "email", "url", "host", "sfloat",
	"version", "hword_numpart", "hword_part", "hword_asciipart", "blank",
	"tag", "protocol", "numhword", "asciihword", "hword", "url_path", "file",
	"float", "int", "uint", "entity",
}

var tokenDescriptions = [...]string{
	"",
	"Word, all ASCII",
	"Word, all letters",
	"Word, letters and digits",
	"Email address",
	"URL",
	"Host",
	"Scientific notation",
	"Version number",
	"Hyphenated word part, letters and digits",
	"Hyphenated word part, all letters",
	"Hyphenated word part, all ASCII",
	"Space symbols",
	"XML tag",
	"Protocol head",
	"Hyphenated word, letters and digits",
	"Hyphenated word, all ASCII",
	"Hyphenated word, all letters",
	"URL path",
	"File or path name",
	"Decimal notation",
	"Signed integer",
	"Unsigned integer",
	"XML entity",
}

// Alias is the token type's name (ts_token_type's alias column).
func (t TokenType) Alias() string {
	if t < 1 || t > LastTokenType {
		return ""
	}
	return tokenAliases[t]
}

// Description is the token type's description (ts_token_type's description
// column).
func (t TokenType) Description() string {
	if t < 1 || t > LastTokenType {
		return ""
	}
	return tokenDescriptions[t]
}

// TokenTypeByAlias returns the token type an alias names.
func TokenTypeByAlias(alias string) (TokenType, bool) {
	for i := 1; i <= int(LastTokenType); i++ {
		if tokenAliases[i] == alias {
			return TokenType(i), true
		}
	}
	return 0, false
}

// Token is one token of the default parser: its type and its text, a
// substring of the parsed text.
type Token struct {
	Type TokenType
	Text string
}

// ErrInvalidText is returned for text PostgreSQL could not hold in a
// UTF-8 database: invalid UTF-8 or a NUL byte.
var ErrInvalidText = errors.New("text is not valid UTF-8 without NUL bytes")

// Parse splits text into the default parser's tokens, exactly as
// PostgreSQL's ts_parse('default', text) does in a UTF-8 database whose
// LC_CTYPE is C. Some texts take the parser time quadratic in their
// length (as they take PostgreSQL's); it gives up with ctx's error when
// ctx ends.
func Parse(ctx context.Context, text string) ([]Token, error) {
	var out []Token
	err := EachToken(ctx, text, func(t Token) error {
		out = append(out, t)
		return nil
	})
	return out, err
}

// EachToken calls yield with each of text's tokens in order, stopping at
// the first error yield returns, or at ctx's end.
func EachToken(ctx context.Context, text string, yield func(Token) error) error {
	if !utf8.ValidString(text) {
		return ErrInvalidText
	}
	for i := 0; i < len(text); i++ {
		if text[i] == 0 {
			return ErrInvalidText
		}
	}
	src := newSource(ctx, text)
	p := newParser(src, 0, 0)
	for p.get() {
		if err := yield(Token{Type: p.typ, Text: text[p.tokenStart : p.tokenStart+p.lenByteToken]}); err != nil {
			return err
		}
	}
	return src.err
}

// source is the text under parse: its bytes and its characters (the
// pg_wchar array PostgreSQL builds in a C-locale multibyte database), with
// a terminating 0 character as pg_mb2wchar_with_len writes.
type source struct {
	str   string
	chars []rune
	// ctx ends the parse: every checkEvery steps of any parser on the
	// source look at it, and once it has ended (err set) no parser finds
	// another token.
	ctx   context.Context
	steps int
	err   error
}

const checkEvery = 1 << 12

func newSource(ctx context.Context, text string) *source {
	chars := make([]rune, 0, len(text)+1)
	for _, r := range text {
		chars = append(chars, r)
	}
	chars = append(chars, 0)
	return &source{str: text, chars: chars, ctx: ctx}
}

// position is PostgreSQL's TParserPosition, one entry of the parser's
// stack of states.
type position struct {
	posByte      int
	posChar      int
	charLen      int
	lenByteToken int
	lenCharToken int
	state        parserState
	// pushedAt is the index of the action that pushed the entry above
	// this one, -1 when none did.
	pushedAt int
}

// parser is PostgreSQL's TParser: the default parser's state machine over
// a source, starting at a byte and character offset (TParserCopyInit's
// copies share the source).
type parser struct {
	src      *source
	baseByte int
	baseChar int
	lenStr   int

	stack    []position
	ignore   bool
	wantHost bool
	c        byte

	tokenStart   int
	lenByteToken int
	lenCharToken int
	typ          TokenType
}

func newParser(src *source, baseByte, baseChar int) *parser {
	p := &parser{src: src, baseByte: baseByte, baseChar: baseChar, lenStr: len(src.str) - baseByte}
	p.stack = []position{{state: tpsBase, pushedAt: -1}}
	return p
}

func (p *parser) top() *position { return &p.stack[len(p.stack)-1] }

// push stores a copy of the top entry above it (newTParserPosition).
func (p *parser) push() {
	n := *p.top()
	n.pushedAt = -1
	p.stack = append(p.stack, n)
}

// cur is the current character as the C-locale wide string holds it.
func (p *parser) cur() rune {
	return p.src.chars[p.baseChar+p.top().posChar]
}

// curByte is the first byte of the current character.
func (p *parser) curByte() byte {
	i := p.baseByte + p.top().posByte
	if i >= len(p.src.str) {
		return 0
	}
	return p.src.str[i]
}

// get is TParserGet: it finds the next token, reporting whether there is
// one.
func (p *parser) get() bool {
	st := p.top()
	if st.posByte >= p.lenStr || p.src.err != nil {
		return false
	}
	p.tokenStart = p.baseByte + st.posByte
	st.pushedAt = -1
	var item *actionItem
	for p.top().posByte <= p.lenStr {
		if p.src.steps++; p.src.steps%checkEvery == 0 && p.src.err == nil {
			p.src.err = p.src.ctx.Err()
		}
		if p.src.err != nil {
			return false
		}
		st = p.top()
		if st.posByte == p.lenStr {
			st.charLen = 0
		} else {
			_, st.charLen = utf8.DecodeRuneInString(p.src.str[p.baseByte+st.posByte:])
		}
		items := actions[st.state]
		idx := 0
		if st.pushedAt >= 0 {
			idx = st.pushedAt + 1
			st.pushedAt = -1
		}
		for ; items[idx].class != classNone; idx++ {
			p.c = items[idx].c
			if p.test(items[idx].class) {
				break
			}
		}
		item = &items[idx]
		// The class test may have pushed or changed the top (p_ishost and
		// p_isURLPath move the position); take it again.
		st = p.top()
		if item.special != specialNone {
			p.special(item.special)
		}
		if item.flags&aBingo != 0 {
			p.lenByteToken = st.lenByteToken
			p.lenCharToken = st.lenCharToken
			st.lenByteToken, st.lenCharToken = 0, 0
			p.typ = item.typ
		}
		switch {
		case item.flags&aPop != 0:
			p.stack = p.stack[:len(p.stack)-1]
		case item.flags&aPush != 0:
			st.pushedAt = idx
			p.push()
		case item.flags&aClear != 0:
			n := len(p.stack)
			p.stack = append(p.stack[:n-2], p.stack[n-1])
		case item.flags&aClrAll != 0:
			p.stack = append(p.stack[:0], p.stack[len(p.stack)-1])
		case item.flags&aMerge != 0:
			n := len(p.stack)
			from := p.stack[n-1]
			p.stack = p.stack[:n-1]
			to := p.top()
			to.posByte, to.posChar, to.charLen = from.posByte, from.posChar, from.charLen
			to.lenByteToken, to.lenCharToken = from.lenByteToken, from.lenCharToken
		}
		st = p.top()
		if item.toState != tpsNull {
			st.state = item.toState
		}
		if item.flags&aBingo != 0 || (st.posByte >= p.lenStr && item.flags&aRerun == 0) {
			break
		}
		if item.flags&(aRerun|aPop) != 0 {
			continue
		}
		if st.charLen != 0 {
			st.posByte += st.charLen
			st.lenByteToken += st.charLen
			st.posChar++
			st.lenCharToken++
		}
	}
	return item != nil && item.flags&aBingo != 0
}

// Character classes in the C locale: PostgreSQL's p_iswhat takes every
// non-ASCII character as alpha and alnum, and as nothing else.
func cIsAlpha(c rune) bool { return c > 0x7f || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func cIsDigit(c rune) bool { return '0' <= c && c <= '9' }
func cIsAlnum(c rune) bool { return cIsAlpha(c) || cIsDigit(c) }
func cIsSpace(c rune) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
func cIsXDigit(c rune) bool {
	return cIsDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func (p *parser) test(cl charClass) bool {
	st := p.top()
	switch cl {
	case classEOF:
		return st.posByte == p.lenStr || st.charLen == 0
	case classEqC:
		return st.charLen == 1 && p.curByte() == p.c
	case classIgnore:
		return p.ignore
	case classAscLet:
		return st.charLen == 1 && p.curByte() < 0x80 && cIsAlpha(p.cur())
	case classAlpha:
		return cIsAlpha(p.cur())
	case classDigit:
		return cIsDigit(p.cur())
	case classAlnum:
		return cIsAlnum(p.cur())
	case classNotAlnum:
		return !cIsAlnum(p.cur())
	case classSpace:
		return cIsSpace(p.cur())
	case classXDigit:
		return cIsXDigit(p.cur())
	case classSpecial:
		return p.isSpecial()
	case classStopHost:
		if p.wantHost {
			p.wantHost = false
			return true
		}
		return false
	case classHost:
		return p.isHost()
	case classURLPath:
		return p.isURLPath()
	case classURLChar:
		if st.charLen != 1 {
			return false
		}
		switch ch := p.curByte(); {
		case ch <= 0x20 || ch >= 0x7f:
			return false
		case ch == '"' || ch == '<' || ch == '>' || ch == '\\' || ch == '^' || ch == '`' || ch == '{' || ch == '|' || ch == '}':
			return false
		}
		return true
	}
	panic("tsearch: unknown character class")
}

// isSpecial is p_isspecial: a character of zero display width, or a
// spacing combining mark of the scripts PostgreSQL lists. Every table
// entry that tests it comes after a p_isalpha or p_isalnum test, and in
// the C locale every non-ASCII character is alpha, so only an ASCII
// character reaches it, and no ASCII character
// has zero width (pg_dsplen is 0 for NUL alone, which text cannot hold) or
// is in the list. Every such table entry also follows a p_isEOF test.
func (p *parser) isSpecial() bool {
	return false
}

// isHost is p_ishost: a copy of the parser starting here, wanting a host,
// must find a host token, which the current token then swallows.
func (p *parser) isHost() bool {
	st := p.top()
	tmp := newParser(p.src, p.baseByte+st.posByte, p.baseChar+st.posChar)
	tmp.wantHost = true
	if tmp.get() && tmp.typ == Host {
		st.posByte += tmp.lenByteToken
		st.posChar += tmp.lenCharToken
		st.lenByteToken += tmp.lenByteToken
		st.lenCharToken += tmp.lenCharToken
		st.charLen = tmp.top().charLen
		return true
	}
	return false
}

// isURLPath is p_isURLPath: a copy of the parser starting here in
// TPS_InURLPathFirst must find a URL path.
func (p *parser) isURLPath() bool {
	st := p.top()
	tmp := newParser(p.src, p.baseByte+st.posByte, p.baseChar+st.posChar)
	tmp.push()
	tmp.top().state = tpsInURLPathFirst
	if tmp.get() && tmp.typ == URLPath {
		st.posByte += tmp.lenByteToken
		st.posChar += tmp.lenCharToken
		st.lenByteToken += tmp.lenByteToken
		st.lenCharToken += tmp.lenCharToken
		st.charLen = tmp.top().charLen
		return true
	}
	return false
}

func (p *parser) special(s specialFunc) {
	st := p.top()
	switch s {
	case specialTags:
		tok := p.src.str[p.tokenStart:]
		hasPrefix := func(prefix string) bool {
			if len(tok) < len(prefix) {
				return false
			}
			for i := 0; i < len(prefix); i++ {
				c := tok[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				if c != prefix[i] {
					return false
				}
			}
			return true
		}
		switch st.lenCharToken {
		case 8:
			if hasPrefix("</script") {
				p.ignore = false
			}
		case 7:
			if hasPrefix("</style") {
				p.ignore = false
			} else if hasPrefix("<script") {
				p.ignore = true
			}
		case 6:
			if hasPrefix("<style") {
				p.ignore = true
			}
		}
	case specialFURL:
		p.wantHost = true
		st.posByte -= st.lenByteToken
		st.posChar -= st.lenCharToken
	case specialHyphen:
		st.posByte -= st.lenByteToken
		st.posChar -= st.lenCharToken
	case specialVerVersion:
		st.posByte -= st.lenByteToken
		st.posChar -= st.lenCharToken
		st.lenByteToken = 0
		st.lenCharToken = 0
	}
}
