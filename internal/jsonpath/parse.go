package jsonpath

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// RegexCompiler compiles the pattern of a like_regex predicate under its
// flags; the parser calls it to reject invalid patterns at input, as
// PostgreSQL does, and the evaluator to match.
type RegexCompiler func(pattern string, flags uint8) (func(string) bool, error)

// parser is a recursive-descent parser of PostgreSQL's jsonpath grammar
// (jsonpath_gram.y). Every parse function returns the item and whether it
// is a predicate (a boolean expression) rather than a value expression:
// the grammar keeps the two apart, and a misplaced one is a syntax error at
// the token where PostgreSQL's parser would stop.
type parser struct {
	lx    lexer
	tok   token
	regex RegexCompiler
}

// Parse parses a jsonpath text (jsonpath_in). Syntax errors are 42601 with
// PostgreSQL's message; the empty path is 22P02.
func Parse(s string, regex RegexCompiler) (*Path, error) {
	p := &parser{lx: lexer{s: s}, regex: regex}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokEOF {
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type jsonpath: \"%s\"", s)
	}
	path := &Path{Lax: true}
	switch p.tok.kind {
	case tokKwStrict, tokKwLax:
		path.Lax = p.tok.kind == tokKwLax
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	expr, _, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.syntaxError()
	}
	if err := check(expr, 0, false); err != nil {
		return nil, err
	}
	path.Expr = expr
	return path, nil
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) syntaxError() error { return syntaxErr("syntax error", p.tok) }

func (p *parser) expect(k tokKind) error {
	if p.tok.kind != k {
		return p.syntaxError()
	}
	return p.advance()
}

// need checks that an operand is of the wanted sort (predicate or value).
func (p *parser) need(isPred, wantPred bool) error {
	if isPred != wantPred {
		return p.syntaxError()
	}
	return nil
}

func (p *parser) parseOr() (*Item, bool, error) {
	return p.parseBinary(map[tokKind]Kind{tokOr: KindOr}, true, p.parseAnd)
}

func (p *parser) parseAnd() (*Item, bool, error) {
	return p.parseBinary(map[tokKind]Kind{tokAnd: KindAnd}, true, p.parseComparison)
}

// parseBinary parses left-associative chains of the operators in ops over
// operand; their operands are predicates (&&, ||) or values (arithmetic),
// as preds says, and anything else is a syntax error.
func (p *parser) parseBinary(ops map[tokKind]Kind, preds bool, operand func() (*Item, bool, error)) (*Item, bool, error) {
	left, isPred, err := operand()
	if err != nil {
		return nil, false, err
	}
	for {
		kind, ok := ops[p.tok.kind]
		if !ok {
			return left, isPred, nil
		}
		if err := p.need(isPred, preds); err != nil {
			return nil, false, err
		}
		if err := p.advance(); err != nil {
			return nil, false, err
		}
		right, rp, err := operand()
		if err != nil {
			return nil, false, err
		}
		if err := p.need(rp, preds); err != nil {
			return nil, false, err
		}
		left = &Item{Kind: kind, Left: left, Right: right}
	}
}

var comparisons = map[tokKind]Kind{
	tokEqual: KindEqual, tokNotEqual: KindNotEqual, tokLess: KindLess, tokGreater: KindGreater,
	tokLessEq: KindLessOrEqual, tokGreaterEq: KindGreaterOrEqual,
}

// parseComparison parses a comparison, starts with, like_regex, a negation
// or a plain expression.
func (p *parser) parseComparison() (*Item, bool, error) {
	if p.tok.kind == tokNot {
		if err := p.advance(); err != nil {
			return nil, false, err
		}
		arg, err := p.parseDelimited()
		if err != nil {
			return nil, false, err
		}
		return &Item{Kind: KindNot, Left: arg}, true, nil
	}
	left, isPred, err := p.parseAdditive()
	if err != nil {
		return nil, false, err
	}
	kind, isCmp := comparisons[p.tok.kind]
	if !isCmp && p.tok.kind != tokKwStarts && p.tok.kind != tokKwLikeRe {
		return left, isPred, nil
	}
	if err := p.need(isPred, false); err != nil {
		return nil, false, err
	}
	switch {
	case isCmp:
		if err := p.advance(); err != nil {
			return nil, false, err
		}
		right, rp, err := p.parseAdditive()
		if err != nil {
			return nil, false, err
		}
		if err := p.need(rp, false); err != nil {
			return nil, false, err
		}
		return &Item{Kind: kind, Left: left, Right: right}, true, nil
	case p.tok.kind == tokKwStarts:
		if err := p.advance(); err != nil {
			return nil, false, err
		}
		if err := p.expect(tokKwWith); err != nil {
			return nil, false, err
		}
		var right *Item
		switch p.tok.kind {
		case tokString:
			right = &Item{Kind: KindString, Str: p.tok.text}
		case tokVariable:
			right = &Item{Kind: KindVariable, Str: p.tok.text}
		default:
			return nil, false, p.syntaxError()
		}
		if err := p.advance(); err != nil {
			return nil, false, err
		}
		return &Item{Kind: KindStartsWith, Left: left, Right: right}, true, nil
	}
	return p.parseLikeRegex(left)
}

func (p *parser) parseLikeRegex(subject *Item) (*Item, bool, error) {
	if err := p.advance(); err != nil {
		return nil, false, err
	}
	if p.tok.kind != tokString {
		return nil, false, p.syntaxError()
	}
	it := &Item{Kind: KindLikeRegex, Left: subject, Str: p.tok.text}
	if err := p.advance(); err != nil {
		return nil, false, err
	}
	if p.tok.kind == tokKwFlag {
		if err := p.advance(); err != nil {
			return nil, false, err
		}
		if p.tok.kind != tokString {
			return nil, false, p.syntaxError()
		}
		for _, c := range p.tok.text {
			switch c {
			case 'i':
				it.Flags |= FlagICase
			case 's':
				it.Flags |= FlagDotAll
			case 'm':
				it.Flags |= FlagMLine
			case 'x':
				it.Flags |= FlagWSpace
			case 'q':
				it.Flags |= FlagQuote
			default:
				return nil, false, pgerror.New(pgerror.SyntaxError, "invalid input syntax for type jsonpath").
					WithDetail("Unrecognized flag character \"%c\" in LIKE_REGEX predicate.", c)
			}
		}
		if err := p.advance(); err != nil {
			return nil, false, err
		}
	}
	if it.Flags&FlagWSpace != 0 && it.Flags&FlagQuote == 0 {
		return nil, false, pgerror.New(pgerror.FeatureNotSupported, `XQuery "x" flag (expanded regular expressions) is not implemented`)
	}
	if _, err := p.regex(it.Str, it.Flags); err != nil {
		return nil, false, err
	}
	return it, true, nil
}

// parseDelimited parses what may follow "!": a parenthesized predicate
// or exists(...).
func (p *parser) parseDelimited() (*Item, error) {
	switch p.tok.kind {
	case tokKwExists:
		return p.parseExists()
	case '(':
		if err := p.advance(); err != nil {
			return nil, err
		}
		arg, isPred, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if err := p.need(isPred, true); err != nil {
			return nil, err
		}
		return arg, p.expect(')')
	}
	return nil, p.syntaxError()
}

func (p *parser) parseExists() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expect('('); err != nil {
		return nil, err
	}
	arg, isPred, err := p.parseAdditive()
	if err != nil {
		return nil, err
	}
	if err := p.need(isPred, false); err != nil {
		return nil, err
	}
	return &Item{Kind: KindExists, Left: arg}, p.expect(')')
}

func (p *parser) parseAdditive() (*Item, bool, error) {
	return p.parseBinary(map[tokKind]Kind{'+': KindAdd, '-': KindSub}, false, p.parseMultiplicative)
}

func (p *parser) parseMultiplicative() (*Item, bool, error) {
	return p.parseBinary(map[tokKind]Kind{'*': KindMul, '/': KindDiv, '%': KindMod}, false, p.parseUnary)
}

// parseUnary parses unary plus and minus, which fold into a numeric
// literal they apply to directly.
func (p *parser) parseUnary() (*Item, bool, error) {
	if p.tok.kind != '+' && p.tok.kind != '-' {
		return p.parseAccessorExpr()
	}
	minus := p.tok.kind == '-'
	if err := p.advance(); err != nil {
		return nil, false, err
	}
	arg, isPred, err := p.parseUnary()
	if err != nil {
		return nil, false, err
	}
	if err := p.need(isPred, false); err != nil {
		return nil, false, err
	}
	if arg.Kind == KindNumeric && arg.Next == nil {
		if minus {
			n := new(apd.Decimal).Neg(arg.Num)
			if n.IsZero() {
				n.Negative = false
			}
			arg = &Item{Kind: KindNumeric, Num: n}
		}
		return arg, false, nil
	}
	if minus {
		return &Item{Kind: KindMinus, Left: arg}, false, nil
	}
	return &Item{Kind: KindPlus, Left: arg}, false, nil
}

// parseAccessorExpr parses a primary followed by accessors and methods.
func (p *parser) parseAccessorExpr() (*Item, bool, error) {
	head, isPred, closed, err := p.parsePrimary()
	if err != nil || closed {
		return head, isPred, err
	}
	tail := head
	for tail.Next != nil {
		tail = tail.Next
	}
	for {
		acc, err := p.parseAccessor()
		if err != nil {
			return nil, false, err
		}
		if acc == nil {
			return head, isPred, nil
		}
		isPred = false
		tail.Next = acc
		tail = acc
	}
}

// parsePrimary parses a path primary; closed reports a predicate that no
// accessor may follow (exists(...), "(...) is unknown").
func (p *parser) parsePrimary() (it *Item, isPred, closed bool, err error) {
	t := p.tok
	switch t.kind {
	case tokString:
		it = &Item{Kind: KindString, Str: t.text}
	case tokInt, tokNumeric:
		d, err := numericLiteral(t.text)
		if err != nil {
			return nil, false, false, err
		}
		it = &Item{Kind: KindNumeric, Num: d}
	case tokKwNull:
		it = &Item{Kind: KindNull}
	case tokKwTrue, tokKwFalse:
		it = &Item{Kind: KindBool, Bool: t.kind == tokKwTrue}
	case tokVariable:
		it = &Item{Kind: KindVariable, Str: t.text}
	case '$':
		it = &Item{Kind: KindRoot}
	case '@':
		it = &Item{Kind: KindCurrent}
	case tokKwLast:
		it = &Item{Kind: KindLast}
	case tokKwExists:
		it, err = p.parseExists()
		return it, true, true, err
	case '(':
		return p.parseParenthesized()
	default:
		return nil, false, false, p.syntaxError()
	}
	return it, false, false, p.advance()
}

// parseParenthesized parses "(expr)", "(predicate)" and "(predicate) is
// unknown"; the last is closed.
func (p *parser) parseParenthesized() (it *Item, isPred, closed bool, err error) {
	if err := p.advance(); err != nil {
		return nil, false, false, err
	}
	inner, isPred, err := p.parseOr()
	if err != nil {
		return nil, false, false, err
	}
	if err := p.expect(')'); err != nil {
		return nil, false, false, err
	}
	if p.tok.kind == tokKwIs && isPred {
		if err := p.advance(); err != nil {
			return nil, false, false, err
		}
		return &Item{Kind: KindIsUnknown, Left: inner}, true, true, p.expect(tokKwUnknown)
	}
	return inner, isPred, false, nil
}

var methods = map[tokKind]Kind{
	tokKwAbs: KindAbs, tokKwSize: KindSize, tokKwType: KindType, tokKwFloor: KindFloor,
	tokKwDouble: KindDouble, tokKwCeiling: KindCeiling, tokKwKeyValue: KindKeyValue, tokKwDatetime: KindDatetime,
}

// parseAccessor parses one accessor, method or filter, or returns nil when
// none follows.
func (p *parser) parseAccessor() (*Item, error) {
	switch p.tok.kind {
	case '[':
		return p.parseArrayAccessor()
	case '?':
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expect('('); err != nil {
			return nil, err
		}
		pred, isPred, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if err := p.need(isPred, true); err != nil {
			return nil, err
		}
		return &Item{Kind: KindFilter, Left: pred}, p.expect(')')
	case '.':
	default:
		return nil, nil
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	t := p.tok
	switch {
	case t.kind == '*':
		return &Item{Kind: KindAnyKey}, p.advance()
	case t.kind == tokAny:
		return p.parseAny()
	case t.kind == tokString || t.kind == tokIdent || (t.kind >= tokKwTo && t.kind <= tokKwDatetime):
		if err := p.advance(); err != nil {
			return nil, err
		}
		kind, isMethod := methods[t.kind]
		if !isMethod || p.tok.kind != '(' {
			return &Item{Kind: KindKey, Str: t.text}, nil
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		it := &Item{Kind: kind}
		if kind == KindDatetime && p.tok.kind == tokString {
			it.Left = &Item{Kind: KindString, Str: p.tok.text}
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		return it, p.expect(')')
	}
	return nil, p.syntaxError()
}

func (p *parser) parseArrayAccessor() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == '*' {
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &Item{Kind: KindAnyArray}, p.expect(']')
	}
	it := &Item{Kind: KindIndexArray}
	for {
		from, err := p.parseSubscriptExpr()
		if err != nil {
			return nil, err
		}
		sub := Subscript{From: from}
		if p.tok.kind == tokKwTo {
			if err := p.advance(); err != nil {
				return nil, err
			}
			if sub.To, err = p.parseSubscriptExpr(); err != nil {
				return nil, err
			}
		}
		it.Subscripts = append(it.Subscripts, sub)
		if p.tok.kind != ',' {
			return it, p.expect(']')
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
}

func (p *parser) parseSubscriptExpr() (*Item, error) {
	e, isPred, err := p.parseAdditive()
	if err != nil {
		return nil, err
	}
	return e, p.need(isPred, false)
}

// parseAny parses .** and .**{m}, .**{m to n} (bounds a number or last).
func (p *parser) parseAny() (*Item, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	it := &Item{Kind: KindAny, First: 0, Last: AnyLast}
	if p.tok.kind != '{' {
		return it, nil
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	level := func() (uint32, error) {
		t := p.tok
		var v uint32
		switch t.kind {
		case tokKwLast:
			v = AnyLast
		case tokInt:
			n, err := strconv.ParseInt(t.text, 10, 32)
			if err != nil {
				return 0, pgerror.Newf(pgerror.NumericValueOutOfRange, "value \"%s\" is out of range for type integer", t.text)
			}
			v = uint32(n)
		default:
			return 0, p.syntaxError()
		}
		return v, p.advance()
	}
	var err error
	if it.First, err = level(); err != nil {
		return nil, err
	}
	it.Last = it.First
	if p.tok.kind == tokKwTo {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if it.Last, err = level(); err != nil {
			return nil, err
		}
	}
	return it, p.expect('}')
}

// check enforces what PostgreSQL checks after parsing: @ only inside a
// filter, last only inside an array subscript.
func check(it *Item, nesting int, inSubscript bool) error {
	for ; it != nil; it = it.Next {
		switch it.Kind {
		case KindCurrent:
			if nesting <= 0 {
				return pgerror.New(pgerror.SyntaxError, "@ is not allowed in root expressions")
			}
		case KindLast:
			if !inSubscript {
				return pgerror.New(pgerror.SyntaxError, "LAST is allowed only in array subscripts")
			}
		case KindIndexArray:
			for _, s := range it.Subscripts {
				if err := check(s.From, nesting, true); err != nil {
					return err
				}
				if err := check(s.To, nesting, true); err != nil {
					return err
				}
			}
		}
		argNesting := nesting
		if it.Kind == KindFilter {
			argNesting++
		}
		if err := check(it.Left, argNesting, inSubscript); err != nil {
			return err
		}
		if err := check(it.Right, nesting, inSubscript); err != nil {
			return err
		}
	}
	return nil
}

// numericLiteral reads a number as numeric_in does: an exponent is applied
// (1e3 is 1000, 0e10 is 0), and a value beyond numeric's range fails.
func numericLiteral(s string) (*apd.Decimal, error) {
	d, _, err := apd.NewFromString(s)
	overflow := pgerror.New(pgerror.NumericValueOutOfRange, "value overflows numeric format")
	if err != nil {
		return nil, overflow
	}
	if -int64(d.Exponent) > maxDisplayScale || int64(d.NumDigits())+int64(d.Exponent) > maxIntegerDigits {
		return nil, overflow
	}
	if d.Exponent > 0 {
		var r apd.Decimal
		c := apd.BaseContext.WithPrecision(uint32(d.NumDigits()) + uint32(d.Exponent))
		if _, err := c.Quantize(&r, d, 0); err != nil {
			return nil, overflow
		}
		d = &r
	}
	return d, nil
}

// Numeric's limits: digits before the decimal point and the display
// scale.
const (
	maxIntegerDigits = 131072
	maxDisplayScale  = 16383
)
