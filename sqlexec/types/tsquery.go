package types

import (
	"hash/crc32"
	"slices"
	"strconv"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// TSQuery is a tsquery datum: its tree, nil for the empty query. Nodes
// are never changed once a datum holds them.
type TSQuery struct {
	root *tsqNode
}

// The node kinds and operators, with PostgreSQL's numbers (QI_VAL,
// QI_OPR, QI_VALSTOP; OP_NOT, OP_AND, OP_OR, OP_PHRASE): comparisons
// order by them.
const (
	qiVal     = 1
	qiOpr     = 2
	qiValStop = 3

	opNot    = 1
	opAnd    = 2
	opOr     = 3
	opPhrase = 4
)

// tsOpPriority is tsearch_op_priority.
var tsOpPriority = [...]int{opNot: 4, opAnd: 2, opOr: 1, opPhrase: 3}

// tsqNode is a QueryItem of a tsquery: an operand (qiVal), a stopword
// placeholder (qiValStop, only while parsing) or an operator. Like
// PostgreSQL's QTNode, an operator's first child is its right operand
// (the only one of NOT), the second its left.
type tsqNode struct {
	kind     uint8
	op       uint8
	distance int16 // of a phrase operator
	right    *tsqNode
	left     *tsqNode
	word     string
	weight   uint8 // bits 3..0 for weights A..D
	prefix   bool
	crc      int32 // valcrc: legacy CRC-32 of word
}

// tsLegacyCRC is PostgreSQL's legacy CRC-32 (INIT/COMP/FIN_LEGACY_CRC32),
// which tsquery operands carry and comparisons order by: the reflected
// table driven most significant byte first.
func tsLegacyCRC(s string) int32 {
	crc := uint32(0xffffffff)
	for i := 0; i < len(s); i++ {
		crc = crc32.IEEETable[byte(crc>>24)^s[i]] ^ crc<<8
	}
	return int32(crc ^ 0xffffffff)
}

func newOperand(word string, weight uint8, prefix bool) *tsqNode {
	return &tsqNode{kind: qiVal, word: word, weight: weight, prefix: prefix, crc: tsLegacyCRC(word)}
}

// size is the number of QueryItems of the tree under n.
func (n *tsqNode) size() int {
	if n == nil {
		return 0
	}
	if n.kind != qiOpr {
		return 1
	}
	return 1 + n.right.size() + n.left.size()
}

// operandBytes is the length of the operand strings with their
// terminators, the part of VARSIZE that differs between equal sizes.
func (n *tsqNode) operandBytes() int {
	if n == nil {
		return 0
	}
	if n.kind == qiVal {
		return len(n.word) + 1
	}
	return n.right.operandBytes() + n.left.operandBytes()
}

// TSQueryMode is the syntax ParseTSQuery reads.
type TSQueryMode int

// The syntaxes of parse_tsquery.
const (
	// TSQueryStandard is tsquery_in's and to_tsquery's: operands, & | !
	// <-> <N>, parentheses, :weights and :* prefixes.
	TSQueryStandard TSQueryMode = iota
	// TSQueryPlain is plainto_tsquery's and phraseto_tsquery's: the whole
	// input is one operand.
	TSQueryPlain
	// TSQueryWeb is websearch_to_tsquery's: words, "quoted phrases", or
	// and - (not); every other operator character is skipped.
	TSQueryWeb
)

// TSQueryWord is one lexeme a normalizer makes of an operand, as
// parsetext's ParsedWord: its text, the position (from 1, non-decreasing)
// of the token of the operand it comes from, the variant among a token's
// alternatives (lexemes of one variant are ANDed, variants ORed), and
// whether it matches as a prefix (TSL_PREFIX).
type TSQueryWord struct {
	Lexeme  string
	Pos     int
	Variant int
	Prefix  bool
}

// TSQueryNormalizer turns an operand's text into lexemes: to_tsquery and
// its kin pass a text search configuration's. No words means the operand
// was a stopword (or had no lexeme) and is removed from the query with
// tsquery_cleanup.c's rules.
type TSQueryNormalizer func(operand string) ([]TSQueryWord, error)

// TSQueryOptions configure ParseTSQuery.
type TSQueryOptions struct {
	Mode TSQueryMode
	// Normalize, when set, replaces each operand by its words as
	// pushval_morph does; nil keeps operands as written (tsquery_in).
	Normalize TSQueryNormalizer
	// Phrase joins the lexemes of one operand's different tokens with
	// <-> (to_tsquery, phraseto_tsquery, websearch_to_tsquery) instead of
	// & (plainto_tsquery).
	Phrase bool
}

// ParseTSQuery is PostgreSQL's parse_tsquery: it reads input in the mode
// given, passing each operand through the normalizer, and returns the
// tsquery datum (a TSQuery). notices are the NOTICE messages PostgreSQL
// raises on the way (a query without lexemes, one of only stopwords),
// for the caller to send.
//
// tsquery input is ParseTSQuery(s, TSQueryOptions{}); to_tsquery(cfg, s)
// is ParseTSQuery(s, TSQueryOptions{Normalize: cfg's, Phrase: true});
// plainto_tsquery uses Mode TSQueryPlain without Phrase, phraseto_tsquery
// TSQueryPlain with Phrase, websearch_to_tsquery TSQueryWeb with Phrase.
// Weights and :* of an operand apply to every lexeme made of it.
func ParseTSQuery(input string, opts TSQueryOptions) (q TSQuery, notices []string, err error) {
	st := &tsqParser{in: input, opts: opts, state: tsqWaitFirstOperand}
	st.val = tsvParser{in: input, oprIsDelim: true, isTSQuery: true, isWeb: opts.Mode == TSQueryWeb}
	if err := st.makepol(0); err != nil {
		return TSQuery{}, nil, err
	}
	if len(st.items) == 0 {
		return TSQuery{}, []string{"text-search query doesn't contain lexemes: \"" + input + "\""}, nil
	}
	// st.items is in push order; PostgreSQL's polish list is its reverse.
	slices.Reverse(st.items)
	pos, stops := 0, false
	root, err := buildTSQueryTree(st.items, &pos, &stops)
	if err != nil {
		return TSQuery{}, nil, err
	}
	if pos != len(st.items) {
		return TSQuery{}, nil, pgerror.New(pgerror.InternalError, "malformed tsquery: extra nodes")
	}
	if stops {
		var ladd, radd int
		root = cleanStopwords(root, &ladd, &radd)
		if root == nil {
			notices = append(notices, "text-search query contains only stop words or doesn't contain lexemes, ignored")
			return TSQuery{}, notices, nil
		}
	}
	return TSQuery{root: root}, notices, nil
}

// parseTSQueryText is tsquery_in.
func parseTSQueryText(s string) (any, error) {
	q, _, err := ParseTSQuery(s, TSQueryOptions{})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// buildTSQueryTree is findoprnd over a polish list: an operator, its
// right operand, its left operand.
func buildTSQueryTree(items []*tsqNode, pos *int, stops *bool) (*tsqNode, error) {
	if *pos >= len(items) {
		return nil, pgerror.New(pgerror.InternalError, "malformed tsquery: operand not found")
	}
	n := items[*pos]
	*pos++
	switch n.kind {
	case qiValStop:
		*stops = true
		return n, nil
	case qiVal:
		return n, nil
	}
	var err error
	if n.right, err = buildTSQueryTree(items, pos, stops); err != nil {
		return nil, err
	}
	if n.op != opNot {
		if n.left, err = buildTSQueryTree(items, pos, stops); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// The states of the tsquery parser.
const (
	tsqWaitOperand = iota + 1
	tsqWaitOperator
	tsqWaitFirstOperand
)

// The tokens of the tsquery parser.
const (
	ptEnd = iota
	ptErr
	ptVal
	ptOpr
	ptOpen
	ptClose
)

// tsqStackDepth is STACKDEPTH: the most operators pending at one level.
const tsqStackDepth = 32

// tsqMaxNesting bounds parentheses: PostgreSQL's limit is its stack's
// depth, which fickle does not reproduce, so deeper queries are refused.
const tsqMaxNesting = 1000

type tsqParser struct {
	in    string
	pos   int
	state int
	count int // open parentheses
	opts  TSQueryOptions
	val   tsvParser
	items []*tsqNode // in push order
	// sumLen is the operand bytes pushed so far, with terminators.
	sumLen int
}

type tsqToken struct {
	kind     int
	op       uint8
	distance int16
	word     string
	weight   uint8
	prefix   bool
}

func (st *tsqParser) syntaxError() error {
	return pgerror.Newf(pgerror.SyntaxError, "syntax error in tsquery: \"%s\"", st.in)
}

func (st *tsqParser) at() byte {
	if st.pos < len(st.in) {
		return st.in[st.pos]
	}
	return 0
}

// modifiers is get_modifiers: the :ABCD* after an operand.
func (st *tsqParser) modifiers(t *tsqToken) {
	if st.at() != ':' {
		return
	}
	st.pos++
	for st.pos < len(st.in) {
		switch st.in[st.pos] {
		case 'a', 'A':
			t.weight |= 1 << 3
		case 'b', 'B':
			t.weight |= 1 << 2
		case 'c', 'C':
			t.weight |= 1 << 1
		case 'd', 'D':
			t.weight |= 1
		case '*':
			t.prefix = true
		default:
			return
		}
		st.pos++
	}
}

// phraseOperator is parse_phrase_operator at '<': <-> or <N>. ok is false
// on a syntax error.
func (st *tsqParser) phraseOperator() (int16, bool, error) {
	p := st.pos + 1
	dist := int64(1)
	if p < len(st.in) && st.in[p] == '-' {
		p++
	} else {
		if p >= len(st.in) || !isDigit(st.in[p]) {
			return 0, false, nil
		}
		q := p
		for q < len(st.in) && isDigit(st.in[q]) {
			q++
		}
		n, err := strconv.ParseInt(st.in[p:q], 10, 64)
		if err != nil || n > tsMaxEntryPos {
			return 0, false, pgerror.Newf(pgerror.InvalidParameterValue, "distance in phrase operator must be an integer value between zero and %d inclusive", tsMaxEntryPos)
		}
		dist, p = n, q
	}
	if p >= len(st.in) || st.in[p] != '>' {
		return 0, false, nil
	}
	p++
	if p >= len(st.in) {
		// PHRASE_FINISH is only reached with a character after '>'.
		return 0, false, nil
	}
	st.pos = p
	return int16(dist), true, nil
}

// gettoken is gettoken_query_standard, gettoken_query_plain or
// gettoken_query_websearch.
func (st *tsqParser) gettoken() (tsqToken, error) {
	switch st.opts.Mode {
	case TSQueryPlain:
		if st.pos >= len(st.in) {
			return tsqToken{kind: ptEnd}, nil
		}
		w := st.in[st.pos:]
		st.pos = len(st.in)
		st.count++
		return tsqToken{kind: ptVal, word: w}, nil
	case TSQueryWeb:
		return st.gettokenWeb()
	}
	for {
		c := st.at()
		switch st.state {
		case tsqWaitFirstOperand, tsqWaitOperand:
			switch {
			case c == '!':
				st.pos++
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opNot}, nil
			case c == '(':
				st.pos++
				st.state = tsqWaitOperand
				st.count++
				return tsqToken{kind: ptOpen}, nil
			case c == ':':
				return tsqToken{kind: ptErr}, nil
			case c == 0 || !isCSpace(c):
				w, ok, err := st.operand()
				if err != nil {
					return tsqToken{}, err
				}
				if ok {
					t := tsqToken{kind: ptVal, word: w}
					st.modifiers(&t)
					st.state = tsqWaitOperator
					return t, nil
				}
				if st.state == tsqWaitFirstOperand {
					return tsqToken{kind: ptEnd}, nil
				}
				return tsqToken{}, pgerror.Newf(pgerror.SyntaxError, "no operand in tsquery: \"%s\"", st.in)
			}
		case tsqWaitOperator:
			switch {
			case c == '&':
				st.pos++
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opAnd}, nil
			case c == '|':
				st.pos++
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opOr}, nil
			case c == '<':
				d, ok, err := st.phraseOperator()
				if err != nil {
					return tsqToken{}, err
				}
				if !ok {
					return tsqToken{kind: ptErr}, nil
				}
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opPhrase, distance: d}, nil
			case c == ')':
				st.pos++
				st.count--
				if st.count < 0 {
					return tsqToken{kind: ptErr}, nil
				}
				return tsqToken{kind: ptClose}, nil
			case c == 0:
				if st.count != 0 {
					return tsqToken{kind: ptErr}, nil
				}
				return tsqToken{kind: ptEnd}, nil
			case !isCSpace(c):
				return tsqToken{kind: ptErr}, nil
			}
		}
		st.pos += charLen(st.in, st.pos)
	}
}

// isCAlnum is isalnum in the C locale.
func isCAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// orOperator is parse_or_operator: "or" (any case) not part of a word and
// followed, after spaces, by something.
func (st *tsqParser) orOperator() bool {
	s := st.in[st.pos:]
	if len(s) < 2 || (s[0] != 'o' && s[0] != 'O') || (s[1] != 'r' && s[1] != 'R') {
		return false
	}
	p := 2
	if p >= len(s) {
		return false
	}
	if s[p] == '-' || s[p] == '_' || isCAlnum(s[p]) {
		return false
	}
	for {
		p += charLen(s, p)
		if p >= len(s) {
			return false
		}
		if !isCSpace(s[p]) {
			break
		}
	}
	st.pos += 2
	return true
}

// operand reads an operand at the parser's position with the tsvector
// parser (gettoken_tsvector), moving past it when there is one.
func (st *tsqParser) operand() (string, bool, error) {
	st.val.pos = st.pos
	w, _, ok, err := st.val.next()
	if ok && err == nil {
		st.pos = st.val.pos
	}
	return w, ok, err
}

// gettokenWeb is gettoken_query_websearch.
func (st *tsqParser) gettokenWeb() (tsqToken, error) {
	for {
		c := st.at()
		switch st.state {
		case tsqWaitFirstOperand, tsqWaitOperand:
			switch {
			case c == '-':
				st.pos++
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opNot}, nil
			case c == '"':
				st.pos++
				start := st.pos
				for st.pos < len(st.in) && st.in[st.pos] != '"' {
					st.pos++
				}
				w := st.in[start:st.pos]
				if st.pos < len(st.in) {
					st.pos++
				}
				st.state = tsqWaitOperator
				st.count++
				return tsqToken{kind: ptVal, word: w}, nil
			case c != 0 && isTSOperator(c):
				st.pos++
				st.state = tsqWaitOperand
				continue
			case c == 0 || !isCSpace(c):
				w, ok, err := st.operand()
				if err != nil {
					return tsqToken{}, err
				}
				if ok {
					st.state = tsqWaitOperator
					return tsqToken{kind: ptVal, word: w}, nil
				}
				if st.state == tsqWaitFirstOperand {
					return tsqToken{kind: ptEnd}, nil
				}
				st.pushStop()
				return tsqToken{kind: ptEnd}, nil
			}
		case tsqWaitOperator:
			switch {
			case c == '"':
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opAnd}, nil
			case st.orOperator():
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opOr}, nil
			case c == 0:
				return tsqToken{kind: ptEnd}, nil
			case isTSOperator(c):
				// An operator character after an operand is skipped, so
				// "a (or b" and "a & or b" are a | b, as in PostgreSQL 15.
				st.pos++
				continue
			case !isCSpace(c):
				st.state = tsqWaitOperand
				return tsqToken{kind: ptOpr, op: opAnd}, nil
			}
		}
		st.pos += charLen(st.in, st.pos)
	}
}

// pushValue is pushValue: an operand.
func (st *tsqParser) pushValue(word string, weight uint8, prefix bool) error {
	if len(word) > tsMaxStrLen {
		return pgerror.Newf(pgerror.ProgramLimitExceeded, "word is too long in tsquery: \"%s\"", st.in)
	}
	if st.sumLen >= tsMaxStrPos+1 {
		return pgerror.Newf(pgerror.ProgramLimitExceeded, "value is too big in tsquery: \"%s\"", st.in)
	}
	st.items = append(st.items, newOperand(word, weight, prefix))
	st.sumLen += len(word) + 1
	return nil
}

func (st *tsqParser) pushOperator(op uint8, distance int16) {
	n := &tsqNode{kind: qiOpr, op: op}
	if op == opPhrase {
		n.distance = distance
	}
	st.items = append(st.items, n)
}

func (st *tsqParser) pushStop() { st.items = append(st.items, &tsqNode{kind: qiValStop}) }

// pushval is pushval_asis, or pushval_morph with a normalizer.
func (st *tsqParser) pushval(t tsqToken) error {
	if st.opts.Normalize == nil {
		return st.pushValue(t.word, t.weight, t.prefix)
	}
	words, err := st.opts.Normalize(t.word)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		st.pushStop()
		return nil
	}
	join := uint8(opAnd)
	if st.opts.Phrase {
		join = opPhrase
	}
	pos, cntpos := 0, 0
	for i := 0; i < len(words); {
		if pos > 0 && pos+1 < words[i].Pos {
			for pos+1 < words[i].Pos {
				st.pushStop()
				if cntpos > 0 {
					st.pushOperator(join, 1)
				}
				cntpos++
				pos++
			}
		}
		pos = words[i].Pos
		cntvar := 0
		for i < len(words) && words[i].Pos == pos {
			variant := words[i].Variant
			cnt := 0
			for i < len(words) && words[i].Pos == pos && words[i].Variant == variant {
				if err := st.pushValue(words[i].Lexeme, t.weight, words[i].Prefix || t.prefix); err != nil {
					return err
				}
				if cnt > 0 {
					st.pushOperator(opAnd, 0)
				}
				cnt++
				i++
			}
			if cntvar > 0 {
				st.pushOperator(opOr, 0)
			}
			cntvar++
		}
		if cntpos > 0 {
			st.pushOperator(join, 1)
		}
		cntpos++
	}
	return nil
}

type tsqPending struct {
	op       uint8
	distance int16
}

// cleanOpStack pops the pending operators that bind at least as tightly
// as op (NOT is right-associative).
func (st *tsqParser) cleanOpStack(stack *[]tsqPending, op uint8) {
	pri := tsOpPriority[op]
	for len(*stack) > 0 {
		top := (*stack)[len(*stack)-1]
		if (op != opNot && pri > tsOpPriority[top.op]) || (op == opNot && pri >= tsOpPriority[top.op]) {
			break
		}
		*stack = (*stack)[:len(*stack)-1]
		st.pushOperator(top.op, top.distance)
	}
}

// makepol reads one parenthesised level into polish notation.
func (st *tsqParser) makepol(depth int) error {
	if depth > tsqMaxNesting {
		return pgerror.Unsupported("tsquery nested more than 1000 parentheses deep")
	}
	var stack []tsqPending
	for {
		t, err := st.gettoken()
		if err != nil {
			return err
		}
		switch t.kind {
		case ptEnd:
			st.cleanOpStack(&stack, opOr)
			return nil
		case ptVal:
			if err := st.pushval(t); err != nil {
				return err
			}
		case ptOpr:
			st.cleanOpStack(&stack, t.op)
			if len(stack) == tsqStackDepth {
				return pgerror.New(pgerror.InternalError, "tsquery stack too small")
			}
			stack = append(stack, tsqPending{t.op, t.distance})
		case ptOpen:
			if err := st.makepol(depth + 1); err != nil {
				return err
			}
		case ptClose:
			st.cleanOpStack(&stack, opOr)
			return nil
		default:
			return st.syntaxError()
		}
	}
}

// cleanStopwords is clean_stopword_intree: it removes stopword
// placeholders and the operators left without operands, adding the
// removed phrase distances to the surviving phrase operators. ladd and
// radd are what a parent phrase operator must add on each side.
func cleanStopwords(n *tsqNode, ladd, radd *int) *tsqNode {
	*ladd, *radd = 0, 0
	switch n.kind {
	case qiVal:
		return n
	case qiValStop:
		return nil
	}
	if n.op == opNot {
		r := cleanStopwords(n.right, ladd, radd)
		if r == nil {
			return nil
		}
		c := *n
		c.right = r
		return &c
	}
	var lladd, lradd, rladd, rradd int
	l := cleanStopwords(n.left, &lladd, &lradd)
	r := cleanStopwords(n.right, &rladd, &rradd)
	isPhrase := n.op == opPhrase
	nd := 0
	if isPhrase {
		nd = int(n.distance)
	}
	switch {
	case l == nil && r == nil:
		if isPhrase {
			*ladd = lladd + nd + rladd
		} else {
			*ladd = max(lladd, rladd)
		}
		*radd = *ladd
		return nil
	case l == nil:
		if isPhrase {
			*ladd = lladd + nd + rladd
		} else {
			*ladd = rladd
		}
		*radd = rradd
		return r
	case r == nil:
		*ladd = lladd
		if isPhrase {
			*radd = lradd + nd + rradd
		} else {
			*radd = lradd
		}
		return l
	}
	c := *n
	c.left, c.right = l, r
	if isPhrase {
		c.distance += int16(lradd + rladd)
		*ladd, *radd = lladd, rradd
	}
	return &c
}

// FormatTSQuery is tsquery_out.
func FormatTSQuery(q TSQuery) string {
	if q.root == nil {
		return ""
	}
	return string(appendTSQueryInfix(nil, q.root, -1, false))
}

// appendTSQueryInfix is infix: operators parenthesised where their
// priority is below their parent's, and a phrase operator on the right of
// another.
func appendTSQueryInfix(b []byte, n *tsqNode, parentPriority int, rightPhrase bool) []byte {
	if n.kind == qiVal {
		b = appendTSQuoted(b, n.word)
		if n.weight != 0 || n.prefix {
			b = append(b, ':')
			if n.prefix {
				b = append(b, '*')
			}
			for i, c := range "ABCD" {
				if n.weight&(1<<(3-i)) != 0 {
					b = append(b, byte(c))
				}
			}
		}
		return b
	}
	pri := tsOpPriority[n.op]
	if n.op == opNot {
		if pri < parentPriority {
			b = append(b, "( "...)
		}
		b = append(b, '!')
		b = appendTSQueryInfix(b, n.right, pri, false)
		if pri < parentPriority {
			b = append(b, " )"...)
		}
		return b
	}
	paren := pri < parentPriority || (n.op == opPhrase && rightPhrase)
	if paren {
		b = append(b, "( "...)
	}
	b = appendTSQueryInfix(b, n.left, pri, false)
	switch n.op {
	case opOr:
		b = append(b, " | "...)
	case opAnd:
		b = append(b, " & "...)
	case opPhrase:
		if n.distance != 1 {
			b = append(b, " <"...)
			b = strconv.AppendInt(b, int64(n.distance), 10)
			b = append(b, "> "...)
		} else {
			b = append(b, " <-> "...)
		}
	}
	b = appendTSQueryInfix(b, n.right, pri, n.op == opPhrase)
	if paren {
		b = append(b, " )"...)
	}
	return b
}

// compareTSQuery is tsquery_cmp (CompareTSQ): by number of items, then
// size, then the trees.
func compareTSQuery(a, b TSQuery) int {
	if sa, sb := a.root.size(), b.root.size(); sa != sb {
		return cmp3(int64(sa), int64(sb))
	}
	if la, lb := a.root.operandBytes(), b.root.operandBytes(); la != lb {
		return cmp3(int64(la), int64(lb))
	}
	if a.root == nil {
		return 0
	}
	return compareTSQNodes(a.root, b.root)
}

// compareTSQNodes is QTNodeCompare.
func compareTSQNodes(a, b *tsqNode) int {
	if a.kind != b.kind {
		return descending(int(a.kind), int(b.kind))
	}
	if a.kind == qiVal {
		if a.crc != b.crc {
			return descending(int(a.crc), int(b.crc))
		}
		return compareLexemes(a.word, b.word)
	}
	if a.op != b.op {
		return descending(int(a.op), int(b.op))
	}
	if c := compareTSQNodes(a.right, b.right); c != 0 {
		return c
	}
	if a.op != opNot {
		if c := compareTSQNodes(a.left, b.left); c != 0 {
			return c
		}
	}
	if a.op == opPhrase && a.distance != b.distance {
		return descending(int(a.distance), int(b.distance))
	}
	return 0
}

// descending orders the larger first: -1 when a > b.
func descending(a, b int) int {
	if a > b {
		return -1
	}
	return 1
}

// appendKeyTSQuery encodes q in compareTSQuery's order.
func appendKeyTSQuery(buf []byte, q TSQuery) []byte {
	buf = appendKeyInt(buf, int64(q.root.size()))
	buf = appendKeyInt(buf, int64(q.root.operandBytes()))
	if q.root == nil {
		return buf
	}
	return appendKeyTSQNode(buf, q.root)
}

func appendKeyTSQNode(buf []byte, n *tsqNode) []byte {
	buf = append(buf, 0xff-n.kind)
	if n.kind == qiVal {
		buf = appendKeyInt(buf, -int64(n.crc))
		// Weights and prefix marks are not part of the order: equal
		// values encode alike, and decode without them.
		return appendKeyBytes(buf, n.word)
	}
	buf = append(buf, 0xff-n.op)
	buf = appendKeyTSQNode(buf, n.right)
	if n.op != opNot {
		buf = appendKeyTSQNode(buf, n.left)
	}
	if n.op == opPhrase {
		buf = appendKeyInt(buf, -int64(n.distance))
	}
	return buf
}

// decodeKeyTSQuery reads what appendKeyTSQuery wrote.
func decodeKeyTSQuery(buf []byte) (any, []byte, error) {
	var err error
	var size any
	if size, buf, err = decodeKeyInt(buf); err != nil {
		return nil, nil, err
	}
	if _, buf, err = decodeKeyInt(buf); err != nil {
		return nil, nil, err
	}
	if size.(int64) == 0 {
		return TSQuery{}, buf, nil
	}
	root, rest, err := decodeKeyTSQNode(buf, 0)
	if err != nil {
		return nil, nil, err
	}
	return TSQuery{root: root}, rest, nil
}

func decodeKeyTSQNode(buf []byte, depth int) (*tsqNode, []byte, error) {
	if len(buf) < 2 || depth > 1<<16 {
		return nil, nil, errBadKey
	}
	kind := 0xff - buf[0]
	if kind == qiVal {
		if _, rest, err := decodeKeyInt(buf[1:]); err == nil {
			w, rest, err := decodeKeyBytes(rest)
			if err != nil {
				return nil, nil, errBadKey
			}
			return newOperand(w, 0, false), rest, nil
		}
		return nil, nil, errBadKey
	}
	n := &tsqNode{kind: qiOpr, op: 0xff - buf[1]}
	var err error
	rest := buf[2:]
	if n.right, rest, err = decodeKeyTSQNode(rest, depth+1); err != nil {
		return nil, nil, err
	}
	if n.op != opNot {
		if n.left, rest, err = decodeKeyTSQNode(rest, depth+1); err != nil {
			return nil, nil, err
		}
	}
	if n.op == opPhrase {
		var d any
		if d, rest, err = decodeKeyInt(rest); err != nil {
			return nil, nil, err
		}
		n.distance = int16(-d.(int64))
	}
	return n, rest, nil
}

// TSQueryItem is one QueryItem of a tsquery in PostgreSQL's polish order
// (an operator, its right operand, its left operand), as tsquerysend and
// tsqueryrecv carry it: an operand (Operator 0) with its weights bitmap
// and prefix mark, or an operator (1 NOT, 2 AND, 3 OR, 4 PHRASE with its
// distance).
type TSQueryItem struct {
	Operator uint8
	Distance int16
	Operand  string
	Weight   uint8
	Prefix   bool
}

// Items returns q's items in polish order.
func (q TSQuery) Items() []TSQueryItem {
	var out []TSQueryItem
	for _, n := range tsqueryItems(q) {
		if n.kind == qiVal {
			out = append(out, TSQueryItem{Operand: n.word, Weight: n.weight, Prefix: n.prefix})
		} else {
			out = append(out, TSQueryItem{Operator: n.op, Distance: n.distance})
		}
	}
	return out
}

// TSQueryFromItems is tsqueryrecv's check and assembly of polish-order
// items into a tsquery; malformed lists fail as PostgreSQL's do.
func TSQueryFromItems(items []TSQueryItem) (TSQuery, error) {
	nodes := make([]*tsqNode, len(items))
	for i, it := range items {
		switch it.Operator {
		case 0:
			if it.Weight > 0xf {
				return TSQuery{}, pgerror.New(pgerror.InternalError, "invalid tsquery: invalid weight bitmap")
			}
			if len(it.Operand) > tsMaxStrLen+1 {
				return TSQuery{}, pgerror.New(pgerror.InternalError, "invalid tsquery: operand too long")
			}
			nodes[i] = newOperand(it.Operand, it.Weight, it.Prefix)
		case opNot, opAnd, opOr, opPhrase:
			if i == len(items)-1 {
				return TSQuery{}, pgerror.New(pgerror.InternalError, "invalid pointer to right operand")
			}
			nodes[i] = &tsqNode{kind: qiOpr, op: it.Operator}
			if it.Operator == opPhrase {
				nodes[i].distance = it.Distance
			}
		default:
			return TSQuery{}, pgerror.Newf(pgerror.InternalError, "invalid tsquery: unrecognized operator type %d", it.Operator)
		}
	}
	// No items fails as findoprnd does: PostgreSQL cannot read back the
	// empty query it sends.
	pos, stops := 0, false
	root, err := buildTSQueryTree(nodes, &pos, &stops)
	if err != nil {
		return TSQuery{}, err
	}
	if pos != len(nodes) {
		return TSQuery{}, pgerror.New(pgerror.InternalError, "malformed tsquery: extra nodes")
	}
	return TSQuery{root: root}, nil
}
