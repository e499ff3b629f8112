package types

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// The full-text search types tsvector and tsquery, as PostgreSQL 15's
// tsvector.c, tsvector_parser.c and tsquery.c define them.
const (
	OidTSVector Oid = 3614
	OidTSQuery  Oid = 3615
)

// The full-text search types.
var (
	TSVectorType = Type{OidTSVector, -1}
	TSQueryType  = Type{OidTSQuery, -1}
)

// PostgreSQL's limits on tsvector values (ts_type.h).
const (
	tsMaxStrLen   = 1<<11 - 1 // MAXSTRLEN - 1: the longest lexeme in bytes
	tsMaxStrPos   = 1<<20 - 1 // MAXSTRPOS: the most bytes of lexemes
	tsMaxEntryPos = 1 << 14   // MAXENTRYPOS: positions are below it
	tsMaxNumPos   = 256       // MAXNUMPOS: the most positions a lexeme keeps
)

// TSVector is a tsvector datum: its lexemes in tsCompareString order
// (bytes, then length), each once.
type TSVector []TSLexeme

// TSLexeme is one lexeme of a tsvector and its positions, in increasing
// order, each a WordEntryPos: the position in the low 14 bits, the weight
// (3 for A down to 0 for D) in the top two. Pos is nil for a lexeme
// without positions (a stripped one).
type TSLexeme struct {
	Word string
	Pos  []uint16
}

// wepPos and wepWeight are WEP_GETPOS and WEP_GETWEIGHT.
func wepPos(p uint16) int    { return int(p & 0x3fff) }
func wepWeight(p uint16) int { return int(p >> 14) }

// makeWEP is a WordEntryPos of position pos (already limited) and weight w.
func makeWEP(pos, w int) uint16 { return uint16(w)<<14 | uint16(pos&0x3fff) }

// tsvParser is PostgreSQL's gettoken_tsvector: it reads the words of a
// tsvector and the operands of a tsquery.
type tsvParser struct {
	in  string
	pos int
	// oprIsDelim makes ! & | ( ) < end a word (tsquery operands).
	oprIsDelim bool
	// isTSQuery says "tsquery" in the syntax error.
	isTSQuery bool
	// isWeb reads websearch_to_tsquery's operands: no quotes or
	// escapes, and " ends a word.
	isWeb bool
}

func (p *tsvParser) syntaxError() error {
	if p.isTSQuery {
		return pgerror.Newf(pgerror.SyntaxError, "syntax error in tsquery: \"%s\"", p.in)
	}
	return pgerror.Newf(pgerror.SyntaxError, "syntax error in tsvector: \"%s\"", p.in)
}

// charLen is pg_mblen over UTF-8: the length of the character at i.
func charLen(s string, i int) int {
	if i >= len(s) || s[i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// isCSpace is isspace in the C locale, which t_isspace uses for
// single-byte characters (and a "C" database for every character).
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isTSOperator is ISOPERATOR: the characters that end a tsquery operand.
func isTSOperator(c byte) bool {
	return c == '!' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<'
}

// The states of gettoken_tsvector.
const (
	tsWaitWord = iota + 1
	tsWaitEndWord
	tsWaitNextChar
	tsWaitEndCmplx
	tsWaitPosInfo
	tsInPosInfo
	tsWaitPosDelim
	tsWaitCharCmplx
)

// next reads the next word from p.pos: its text and its positions. ok is false at the end of the input. p.pos is left where the
// word ends (a tsquery operand's modifiers start there).
func (p *tsvParser) next() (word string, pos []uint16, ok bool, err error) {
	var buf strings.Builder
	state, oldState := tsWaitWord, 0
	at := func() byte {
		if p.pos < len(p.in) {
			return p.in[p.pos]
		}
		return 0
	}
	copyChar := func() {
		n := charLen(p.in, p.pos)
		buf.WriteString(p.in[p.pos:min(p.pos+n, len(p.in))])
	}
	for {
		c := at()
		switch state {
		case tsWaitWord:
			switch {
			case c == 0:
				return "", nil, false, nil
			case !p.isWeb && c == '\'':
				state = tsWaitEndCmplx
			case !p.isWeb && c == '\\':
				state, oldState = tsWaitNextChar, tsWaitEndWord
			case (p.oprIsDelim && isTSOperator(c)) || (p.isWeb && c == '"'):
				return "", nil, false, p.syntaxError()
			case !isCSpace(c):
				copyChar()
				state = tsWaitEndWord
			}
		case tsWaitNextChar:
			if c == 0 {
				return "", nil, false, pgerror.Newf(pgerror.SyntaxError, "there is no escaped character: \"%s\"", p.in)
			}
			copyChar()
			state = oldState
		case tsWaitEndWord:
			switch {
			case !p.isWeb && c == '\\':
				state, oldState = tsWaitNextChar, tsWaitEndWord
			case isCSpace(c) || c == 0 || (p.oprIsDelim && isTSOperator(c)) || (p.isWeb && c == '"'):
				if buf.Len() == 0 {
					return "", nil, false, p.syntaxError()
				}
				return buf.String(), pos, true, nil
			case c == ':':
				if buf.Len() == 0 {
					return "", nil, false, p.syntaxError()
				}
				if p.oprIsDelim {
					return buf.String(), pos, true, nil
				}
				state = tsInPosInfo
			default:
				copyChar()
			}
		case tsWaitEndCmplx:
			switch {
			case c == '\'':
				state = tsWaitCharCmplx
			case c == '\\':
				state, oldState = tsWaitNextChar, tsWaitEndCmplx
			case c == 0:
				return "", nil, false, p.syntaxError()
			default:
				copyChar()
			}
		case tsWaitCharCmplx:
			if c == '\'' {
				copyChar()
				state = tsWaitEndCmplx
				break
			}
			if buf.Len() == 0 {
				return "", nil, false, p.syntaxError()
			}
			if p.oprIsDelim {
				return buf.String(), pos, true, nil
			}
			state = tsWaitPosInfo
			continue // recheck the current character
		case tsWaitPosInfo:
			if c != ':' {
				return buf.String(), pos, true, nil
			}
			state = tsInPosInfo
		case tsInPosInfo:
			if !isDigit(c) {
				return "", nil, false, p.syntaxError()
			}
			n := limitPos(atoiC(p.in[p.pos:]))
			if n&0x3fff == 0 {
				return "", nil, false, pgerror.Newf(pgerror.SyntaxError, "wrong position info in tsvector: \"%s\"", p.in)
			}
			pos = append(pos, makeWEP(n, 0))
			state = tsWaitPosDelim
		case tsWaitPosDelim:
			w := -1
			switch c {
			case ',':
				state = tsInPosInfo
			case 'a', 'A', '*':
				w = 3
			case 'b', 'B':
				w = 2
			case 'c', 'C':
				w = 1
			case 'd', 'D':
				w = 0
			default:
				if isCSpace(c) || c == 0 {
					return buf.String(), pos, true, nil
				}
				if !isDigit(c) {
					return "", nil, false, p.syntaxError()
				}
			}
			if w >= 0 {
				last := &pos[len(pos)-1]
				if wepWeight(*last) != 0 {
					return "", nil, false, p.syntaxError()
				}
				*last = makeWEP(wepPos(*last), w)
			}
		}
		p.pos += charLen(p.in, p.pos)
	}
}

// atoiC is C's atoi on a string of digits as glibc computes it: strtol's
// long, saturated, truncated to int.
func atoiC(s string) int32 {
	var v int64
	for i := 0; i < len(s) && isDigit(s[i]); i++ {
		if v > (1<<63-1-9)/10 {
			v = 1<<63 - 1
			continue
		}
		v = v*10 + int64(s[i]-'0')
	}
	return int32(v)
}

// limitPos is LIMITPOS: positions past the largest become the largest.
func limitPos(n int32) int {
	if n >= tsMaxEntryPos {
		return tsMaxEntryPos - 1
	}
	return int(n)
}

// compareLexemes is tsCompareString without prefix matching: bytes, then
// length.
func compareLexemes(a, b string) int { return strings.Compare(a, b) }

// uniquePos sorts positions, keeps the highest weight of equal ones and at
// most tsMaxNumPos of them, as uniquePos does.
func uniquePos(a []uint16) []uint16 {
	if len(a) <= 1 {
		return a
	}
	slices.SortStableFunc(a, func(x, y uint16) int { return wepPos(x) - wepPos(y) })
	res := 0
	for i := 1; i < len(a); i++ {
		if wepPos(a[i]) != wepPos(a[res]) {
			res++
			a[res] = a[i]
			if res >= tsMaxNumPos-1 || wepPos(a[res]) == tsMaxEntryPos-1 {
				break
			}
		} else if wepWeight(a[i]) > wepWeight(a[res]) {
			a[res] = makeWEP(wepPos(a[res]), wepWeight(a[i]))
		}
	}
	return a[:res+1]
}

// normalizeTSVector sorts lexemes, merges equal ones and their positions,
// as uniqueentry does.
func normalizeTSVector(v TSVector) TSVector {
	if len(v) == 0 {
		return TSVector{}
	}
	slices.SortStableFunc(v, func(a, b TSLexeme) int { return compareLexemes(a.Word, b.Word) })
	out := v[:1]
	for _, e := range v[1:] {
		last := &out[len(out)-1]
		if e.Word != last.Word {
			out = append(out, e)
			continue
		}
		if e.Pos != nil {
			last.Pos = append(slices.Clip(last.Pos), e.Pos...)
		}
	}
	for i := range out {
		if out[i].Pos != nil {
			out[i].Pos = uniquePos(out[i].Pos)
		}
	}
	return out
}

// tsvectorDataLen is the bytes of lexemes and positions a tsvector's
// varlena holds after its entries (the SHORTALIGN padding included).
func tsvectorDataLen(v TSVector) int {
	n := 0
	for _, e := range v {
		n += len(e.Word)
		if e.Pos != nil {
			n = (n + 1) &^ 1
			n += 2 + 2*len(e.Pos)
		}
	}
	return n
}

// tsvectorSize is VARSIZE of a tsvector: the header, 4 bytes an entry and
// the data.
func tsvectorSize(v TSVector) int { return 8 + 4*len(v) + tsvectorDataLen(v) }

// ParseTSVector is tsvector_in.
func ParseTSVector(s string) (TSVector, error) {
	p := &tsvParser{in: s}
	var v TSVector
	total := 0
	for {
		word, pos, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(word) > tsMaxStrLen {
			return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "word is too long (%d bytes, max %d bytes)", len(word), tsMaxStrLen)
		}
		if total > tsMaxStrPos {
			return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "string is too long for tsvector (%d bytes, max %d bytes)", total, tsMaxStrPos)
		}
		total += len(word)
		v = append(v, TSLexeme{Word: word, Pos: pos})
	}
	v = normalizeTSVector(v)
	if n := tsvectorDataLen(v); n > tsMaxStrPos {
		return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "string is too long for tsvector (%d bytes, max %d bytes)", n, tsMaxStrPos)
	}
	return v, nil
}

// TSWord is a normalized word of a text and its position (from 1, at most
// 16383), as to_tsvector's parsetext gives them.
type TSWord struct {
	Word string
	Pos  int
}

// TSVectorFromWords is make_tsvector: the tsvector of a text's words, each
// lexeme once with its positions, as uniqueWORD merges them (no position
// twice, at most 255, none after 16383) — to_tsvector keeps one position
// fewer than tsvector input.
func TSVectorFromWords(words []TSWord) (TSVector, error) {
	words = slices.Clone(words)
	slices.SortStableFunc(words, func(a, b TSWord) int {
		if c := compareLexemes(a.Word, b.Word); c != 0 {
			return c
		}
		return a.Pos - b.Pos
	})
	v := TSVector{}
	for _, w := range words {
		pos := uint16(min(w.Pos, tsMaxEntryPos-1))
		if len(v) == 0 || v[len(v)-1].Word != w.Word {
			v = append(v, TSLexeme{Word: w.Word, Pos: []uint16{pos}})
			continue
		}
		last := &v[len(v)-1]
		if p := last.Pos[len(last.Pos)-1]; len(last.Pos) < tsMaxNumPos-1 && p != tsMaxEntryPos-1 && p != pos {
			last.Pos = append(last.Pos, pos)
		}
	}
	if n := tsvectorDataLen(v); n > tsMaxStrPos {
		return nil, pgerror.Newf(pgerror.ProgramLimitExceeded, "string is too long for tsvector (%d bytes, max %d bytes)", n, tsMaxStrPos)
	}
	return v, nil
}

// appendTSQuoted appends a lexeme quoted as tsvector_out and tsquery_out
// print it: between single quotes, with ' and \ doubled.
func appendTSQuoted(b []byte, w string) []byte {
	b = append(b, '\'')
	for i := 0; i < len(w); i++ {
		if w[i] == '\'' || w[i] == '\\' {
			b = append(b, w[i])
		}
		b = append(b, w[i])
	}
	return append(b, '\'')
}

// FormatTSVector is tsvector_out.
func FormatTSVector(v TSVector) string {
	var b []byte
	for i, e := range v {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendTSQuoted(b, e.Word)
		if len(e.Pos) > 0 {
			b = append(b, ':')
			for j, p := range e.Pos {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(wepPos(p)), 10)
				if w := wepWeight(p); w > 0 {
					b = append(b, "DCBA"[w])
				}
			}
		}
	}
	return string(b)
}

// compareTSVector is tsvector_cmp (silly_cmp_tsvector): by size, then
// number of lexemes, then lexeme by lexeme.
func compareTSVector(a, b TSVector) int {
	if sa, sb := tsvectorSize(a), tsvectorSize(b); sa != sb {
		return cmp3(int64(sa), int64(sb))
	}
	if len(a) != len(b) {
		return cmp3(int64(len(a)), int64(len(b)))
	}
	for i := range a {
		x, y := a[i], b[i]
		if (x.Pos != nil) != (y.Pos != nil) {
			if x.Pos != nil {
				return -1
			}
			return 1
		}
		if c := compareLexemes(x.Word, y.Word); c != 0 {
			return c
		}
		if x.Pos == nil {
			continue
		}
		if len(x.Pos) != len(y.Pos) {
			if len(x.Pos) > len(y.Pos) {
				return -1
			}
			return 1
		}
		for j := range x.Pos {
			if wepPos(x.Pos[j]) != wepPos(y.Pos[j]) {
				if wepPos(x.Pos[j]) > wepPos(y.Pos[j]) {
					return -1
				}
				return 1
			}
			if wepWeight(x.Pos[j]) != wepWeight(y.Pos[j]) {
				if wepWeight(x.Pos[j]) > wepWeight(y.Pos[j]) {
					return -1
				}
				return 1
			}
		}
	}
	return 0
}

// appendKeyTSVector encodes v in compareTSVector's order: the size and the
// count, then each lexeme with its positions; the comparisons that prefer
// the larger value are encoded negated.
func appendKeyTSVector(buf []byte, v TSVector) []byte {
	buf = appendKeyInt(buf, int64(tsvectorSize(v)))
	buf = appendKeyInt(buf, int64(len(v)))
	for _, e := range v {
		if e.Pos == nil {
			buf = append(buf, 1)
		} else {
			buf = append(buf, 0)
		}
		buf = appendKeyBytes(buf, e.Word)
		if e.Pos == nil {
			continue
		}
		buf = appendKeyInt(buf, -int64(len(e.Pos)))
		for _, p := range e.Pos {
			buf = appendKeyInt(buf, -int64(wepPos(p)))
			buf = appendKeyInt(buf, -int64(wepWeight(p)))
		}
	}
	return buf
}

// decodeKeyTSVector reads what appendKeyTSVector wrote.
func decodeKeyTSVector(buf []byte) (any, []byte, error) {
	var err error
	var x any
	if _, buf, err = decodeKeyInt(buf); err != nil {
		return nil, nil, err
	}
	if x, buf, err = decodeKeyInt(buf); err != nil {
		return nil, nil, err
	}
	n := x.(int64)
	if n < 0 || n > int64(len(buf)) {
		return nil, nil, errBadKey
	}
	v := make(TSVector, 0, n)
	for range n {
		if len(buf) < 1 {
			return nil, nil, errBadKey
		}
		hasPos := buf[0] == 0
		var w string
		if w, buf, err = decodeKeyBytes(buf[1:]); err != nil {
			return nil, nil, err
		}
		e := TSLexeme{Word: w}
		if hasPos {
			if x, buf, err = decodeKeyInt(buf); err != nil {
				return nil, nil, err
			}
			np := -x.(int64)
			if np < 0 || np > int64(len(buf)) {
				return nil, nil, errBadKey
			}
			e.Pos = make([]uint16, 0, np)
			for range np {
				var p, wt any
				if p, buf, err = decodeKeyInt(buf); err != nil {
					return nil, nil, err
				}
				if wt, buf, err = decodeKeyInt(buf); err != nil {
					return nil, nil, err
				}
				e.Pos = append(e.Pos, makeWEP(int(-p.(int64)), int(-wt.(int64))))
			}
		}
		v = append(v, e)
	}
	return v, buf, nil
}
