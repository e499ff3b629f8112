package sqlexec

import (
	"math"
	"strconv"
	"strings"
)

// litKind is the type PostgreSQL's parser gives a literal, as the binder
// types the constant (binder.constant): int4 for an integer that fits 32
// bits, int8 for a larger one that fits 64, numeric for any other number.
type litKind byte

const (
	litInt4    litKind = 'i'
	litInt8    litKind = 'l'
	litNumeric litKind = 'n'
	// litString is a standard quoted string compared with a column in a
	// WHERE clause or assigned to one: unknown, typed by the comparison or
	// the column.
	litString litKind = 's'
)

// literal is a constant that normalizeLiterals replaced by a parameter.
type literal struct {
	kind litKind
	// text is the number as the parser reads it, with a folded unary minus,
	// or the string's value.
	text string
	// origStart and origEnd delimit it in the original text, normStart and
	// normEnd its $n in the normalized one.
	origStart, origEnd int
	normStart, normEnd int
	// assigned marks a string that is a whole value assigned to a column
	// (assignedValue).
	assigned bool
}

// normalizedQuery is a query text whose literals are parameters: statements
// that differ only in those literals share its parse and its plan.
type normalizedQuery struct {
	text  string
	kinds string // one litKind per parameter, in order: part of the plan's key
	lits  []literal
}

// origOffset maps a byte offset of the normalized text that falls outside
// every parameter to the original text.
func (q *normalizedQuery) origOffset(n int) int {
	shift := 0
	for _, l := range q.lits {
		if l.normStart >= n {
			break
		}
		shift += (l.origEnd - l.origStart) - (l.normEnd - l.normStart)
	}
	return n + shift
}

// tokKind classifies the tokens the literal scanner distinguishes.
type tokKind byte

const (
	tokNone      tokKind = iota
	tokWord              // unquoted identifier or keyword, lower-cased
	tokQuoted            // "quoted identifier"
	tokString            // any other string constant, left as it is
	tokStdString         // a standard 'string'
	tokNumber
	tokOp    // operator, after PostgreSQL's trimming of a trailing + or -
	tokPunct // ( ) [ ] , ; . : ::
)

type litToken struct {
	kind       tokKind
	text       string
	start, end int
}

// normalizeLiterals replaces the numeric constants of one SELECT, INSERT,
// UPDATE or DELETE statement, and the strings it compares with a column in
// WHERE, by $1, $2, ... with PostgreSQL's lexical rules
// (comments, quoted identifiers, every form of string, dollar quotes, a
// unary minus folded into the number). ok is false when the text is not such
// a statement, holds no literal that may become a parameter, or has anything
// the scanner is unsure of (parameters of its own, several statements, a
// number with trailing junk): the caller then parses the text as it is.
//
// A number stays in the text where PostgreSQL reads it as more than a value:
// ORDER BY and GROUP BY lists (column positions), type modifiers, array
// subscripts, window frame offsets and before a :: cast. A string constant
// is untyped, and resolves as a parameter does only as the right operand of
// a column (or another typed name) in a comparison in WHERE (col = 'x',
// col < 'x', col IN ('x', 'y')) or in + - * / anywhere (col + '5'),
// followed by the end of the operand, and as a whole value assigned to a column (an element of an
// INSERT's VALUES row, SET col = 'x'); every other string stays.
func normalizeLiterals(sql string) (q normalizedQuery, ok bool) {
	sc := litScanner{src: sql, noLitDepth: -1}
	if !sc.run() || len(sc.lits) == 0 {
		return normalizedQuery{}, false
	}
	sc.out.WriteString(sql[sc.copied:])
	return normalizedQuery{text: sc.out.String(), kinds: string(sc.kinds), lits: sc.lits}, true
}

type litScanner struct {
	src    string
	pos    int
	out    strings.Builder
	copied int // src[:copied] is in out
	lits   []literal
	kinds  []byte

	// hist holds the last three tokens, the latest first.
	hist [3]litToken
	// pending is a number (with its folded sign from signStart) whose fate
	// depends on the next token.
	pending   litToken
	signStart int
	stmtKind  string
	depth     int
	// noLit marks paren depths whose contents keep their literals (type
	// modifiers); noLitDepth >= 0 while inside an ORDER BY or GROUP BY list
	// opened at that depth.
	noLit      []bool
	noLitDepth int
	// inList marks paren depths that hold the list of a typed name's
	// IN (...) in WHERE: its strings are compared with the name.
	inList   []bool
	brackets int
	// where is set after WHERE until a SET (of ON CONFLICT DO UPDATE) or
	// the end of the parentheses it appeared in (a subquery in SET).
	where      bool
	whereDepth int
	ended      bool // after the terminating ;
	// values is set from an INSERT's VALUES to its ON CONFLICT or
	// RETURNING, valuesRow while inside one of its rows' parentheses;
	// setList from an UPDATE's (or ON CONFLICT DO UPDATE's) SET to the
	// WHERE, FROM or RETURNING after it. Their strings are assigned to
	// columns.
	values, valuesRow, setList bool
	// str is what a pending string may become.
	str pendingString
}

// pendingString is what the scanner knows of a pending standard string:
// the places it stands in, and how far a cast after it ('x'::date) has come.
type pendingString struct {
	// compared: the right operand of a typed name in a comparison in
	// WHERE or in + - * /; assigned: a whole value assigned to a column.
	compared, assigned bool
	// castStage counts the tokens of a cast seen after the string: 1 after
	// ::, 2 after a one-word type name.
	castStage int
}

func (sc *litScanner) run() bool {
	for {
		if !sc.skipSpace() {
			return false
		}
		if sc.pos >= len(sc.src) {
			sc.decide(litToken{})
			return sc.stmtKind != ""
		}
		t, ok := sc.next()
		if !ok {
			return false
		}
		if sc.ended {
			return false // a second statement
		}
		if !sc.decide(t) || !sc.take(t) {
			return false
		}
	}
}

// skipSpace skips whitespace and comments (nested /* */ as in PostgreSQL).
func (sc *litScanner) skipSpace() bool {
	s := sc.src
	for sc.pos < len(s) {
		switch c := s[sc.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			sc.pos++
		case strings.HasPrefix(s[sc.pos:], "--"):
			nl := strings.IndexAny(s[sc.pos:], "\r\n")
			if nl < 0 {
				sc.pos = len(s)
			} else {
				sc.pos += nl
			}
		case strings.HasPrefix(s[sc.pos:], "/*"):
			level := 0
			for {
				if sc.pos >= len(s)-1 {
					return false // unterminated: the parser reports it
				}
				switch {
				case strings.HasPrefix(s[sc.pos:], "/*"):
					level++
					sc.pos += 2
				case strings.HasPrefix(s[sc.pos:], "*/"):
					level--
					sc.pos += 2
				default:
					sc.pos++
				}
				if level == 0 {
					break
				}
			}
		default:
			return true
		}
	}
	return true
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

const opChars = "+-*/<>=~!@#%^&|`?"

// next reads the token at sc.pos.
func (sc *litScanner) next() (litToken, bool) {
	s, start := sc.src, sc.pos
	c := s[start]
	tok := func(k tokKind, end int) (litToken, bool) {
		sc.pos = end
		return litToken{kind: k, text: s[start:end], start: start, end: end}, true
	}
	switch {
	case isIdentStart(c):
		end := start + 1
		for end < len(s) && isIdentChar(s[end]) {
			end++
		}
		word := strings.ToLower(s[start:end])
		if end < len(s) && (s[end] == '\'' || s[end] == '&') {
			switch {
			case word == "u" && s[end] == '&':
				return litToken{}, false // Unicode escapes
			case s[end] == '\'' && (word == "e" || word == "x" || word == "b" || word == "n"):
				end, ok := scanQuoted(s, end, word == "e")
				if !ok {
					return litToken{}, false
				}
				return tok(tokString, end)
			}
		}
		if strings.IndexByte(word, '$') >= 0 {
			return litToken{}, false // keeps $n unambiguous in predicate templates
		}
		sc.pos = end
		return litToken{kind: tokWord, text: word, start: start, end: end}, true
	case isDigit(c) || c == '.' && start+1 < len(s) && isDigit(s[start+1]):
		end, ok := scanNumber(s, start)
		if !ok {
			return litToken{}, false
		}
		return tok(tokNumber, end)
	case c == '\'':
		end, ok := scanQuoted(s, start, false)
		if !ok {
			return litToken{}, false
		}
		return tok(tokStdString, end)
	case c == '"':
		end, ok := scanQuotedIdent(s, start)
		if !ok || strings.IndexByte(s[start:end], '$') >= 0 {
			return litToken{}, false
		}
		return tok(tokQuoted, end)
	case c == '$':
		end, ok := scanDollar(s, start)
		if !ok {
			return litToken{}, false // $n, or an unterminated dollar quote
		}
		return tok(tokString, end)
	case c == ':' && start+1 < len(s) && s[start+1] == ':':
		return tok(tokPunct, start+2)
	case strings.IndexByte(opChars, c) >= 0:
		return tok(tokOp, scanOperator(s, start))
	}
	return tok(tokPunct, start+1)
}

// scanQuoted returns the end of the string constant whose quote is at i;
// escapes says backslashes escape (E'...').
func scanQuoted(s string, i int, escapes bool) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if escapes {
				j++
			}
		case '\'':
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			// 'a' 'b' across a newline is one constant; leave it to the parser.
			rest := strings.TrimLeft(s[j+1:], " \t\f\v")
			if strings.HasPrefix(rest, "\n") || strings.HasPrefix(rest, "\r") {
				if strings.HasPrefix(strings.TrimLeft(rest, " \t\f\v\r\n"), "'") {
					return 0, false
				}
			}
			return j + 1, true
		}
	}
	return 0, false
}

func scanQuotedIdent(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		if s[j] == '"' {
			if j+1 < len(s) && s[j+1] == '"' {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// scanDollar returns the end of the dollar-quoted string at i.
func scanDollar(s string, i int) (int, bool) {
	j := i + 1
	if j < len(s) && isIdentStart(s[j]) {
		for j < len(s) && isIdentChar(s[j]) && s[j] != '$' {
			j++
		}
	}
	if j >= len(s) || s[j] != '$' {
		return 0, false
	}
	tag := s[i : j+1]
	end := strings.Index(s[j+1:], tag)
	if end < 0 {
		return 0, false
	}
	return j + 1 + end + len(tag), true
}

// scanNumber returns the end of the number at i; ok is false for forms the
// scanner leaves to the parser (trailing junk, 1..2, exponents without
// digits, PostgreSQL 16's 0x and 1_000).
func scanNumber(s string, i int) (int, bool) {
	j := decimalNumberEnd(s, i)
	if j < len(s) && (isIdentChar(s[j]) || s[j] == '.') {
		return 0, false
	}
	return j, true
}

// scanOperator returns the end of the operator at i, as PostgreSQL's lexer
// cuts it: never across a comment start, and without a trailing + or -
// unless the operator holds one of ~ ! @ # % ^ & | ` ?.
func scanOperator(s string, i int) int {
	j := i
	for j < len(s) && strings.IndexByte(opChars, s[j]) >= 0 {
		if j > i && (strings.HasPrefix(s[j:], "--") || strings.HasPrefix(s[j:], "/*")) {
			break
		}
		j++
	}
	if j-i > 1 && (s[j-1] == '+' || s[j-1] == '-') && !strings.ContainsAny(s[i:j], "~!@#^&|`?%") {
		for j-i > 1 && (s[j-1] == '+' || s[j-1] == '-') {
			j--
		}
	}
	return j
}

// operandKeywords are the keywords after which an expression starts, so
// that a minus after them is a sign.
var operandKeywords = map[string]bool{
	"select": true, "where": true, "and": true, "or": true, "not": true, "then": true, "else": true,
	"when": true, "case": true, "in": true, "between": true, "limit": true, "offset": true, "values": true,
	"returning": true, "having": true, "on": true, "like": true, "ilike": true, "similar": true, "is": true,
	"distinct": true, "all": true, "any": true, "some": true, "array": true, "by": true, "set": true,
	"using": true, "escape": true, "from": true, "for": true, "to": true, "as": true, "symmetric": true,
	"asymmetric": true, "first": true, "next": true, "return": true, "with": true, "do": true,
}

// typmodWords are type names whose parenthesized modifiers stay constants.
var typmodWords = map[string]bool{
	"varchar": true, "char": true, "character": true, "varying": true, "nchar": true, "bpchar": true,
	"numeric": true, "decimal": true, "dec": true, "timestamp": true, "timestamptz": true, "time": true,
	"timetz": true, "interval": true, "bit": true, "varbit": true, "float": true, "second": true,
}

// literalEnders are the keywords that end an ORDER BY or GROUP BY list.
var literalEnders = map[string]bool{
	"limit": true, "offset": true, "fetch": true, "having": true, "window": true, "for": true,
	"union": true, "intersect": true, "except": true, "returning": true,
}

// operand reports whether t ends an operand, so that a minus after it is
// the binary operator.
func operand(t litToken) bool {
	switch t.kind {
	case tokQuoted, tokString, tokStdString, tokNumber:
		return true
	case tokWord:
		return !operandKeywords[t.text]
	case tokPunct:
		return t.text == ")" || t.text == "]"
	}
	return false
}

// take records token t (after decide) and tracks the context.
func (sc *litScanner) take(t litToken) bool {
	prev := sc.hist[0]
	switch t.kind {
	case tokWord:
		if sc.stmtKind == "" {
			switch t.text {
			case "select", "insert", "update", "delete":
				sc.stmtKind = t.text
			default:
				return false
			}
		}
		if sc.depth == 0 {
			switch t.text {
			case "values":
				sc.values = sc.stmtKind == "insert"
			case "set":
				sc.setList = sc.stmtKind == "update" || sc.stmtKind == "insert" && prev.kind == tokWord && prev.text == "update"
			case "on", "returning", "where", "from":
				sc.values, sc.setList = false, false
			}
		}
		if sc.depth > 0 && sc.inList[sc.depth-1] && prev.kind == tokPunct && prev.text == "(" {
			switch t.text {
			case "select", "values", "with", "table":
				sc.inList[sc.depth-1] = false // IN (subquery)
			}
		}
		switch {
		case t.text == "into" && sc.stmtKind == "select":
			return false // SELECT INTO creates a table
		case t.text == "by" && prev.kind == tokWord && (prev.text == "order" || prev.text == "group" || prev.text == "partition"):
			if sc.noLitDepth < 0 {
				sc.noLitDepth = sc.depth
			}
		case t.text == "on" && prev.kind == tokWord && prev.text == "distinct":
			return false // DISTINCT ON lists take positions too
		case t.text == "where":
			sc.where, sc.whereDepth = true, sc.depth
		case t.text == "set":
			sc.where = false
		case literalEnders[t.text] && sc.depth == sc.noLitDepth:
			sc.noLitDepth = -1
		}
	case tokPunct:
		switch t.text {
		case "(":
			typmod := prev.kind == tokWord && (typmodWords[prev.text] || sc.hist[1].kind == tokPunct && sc.hist[1].text == "::")
			sc.noLit = append(sc.noLit, typmod)
			in := prev.kind == tokWord && prev.text == "in"
			sc.inList = append(sc.inList, sc.where && in && (typedOperand(sc.hist[1]) ||
				sc.hist[1].kind == tokWord && sc.hist[1].text == "not" && typedOperand(sc.hist[2])))
			sc.valuesRow = sc.values && sc.depth == 0
			sc.depth++
		case ")":
			if sc.depth == 0 {
				return false
			}
			sc.depth--
			sc.noLit, sc.inList = sc.noLit[:sc.depth], sc.inList[:sc.depth]
			if sc.depth == 0 {
				sc.valuesRow = false
			}
			if sc.depth < sc.whereDepth {
				sc.where = false
			}
			if sc.noLitDepth > sc.depth {
				sc.noLitDepth = -1
			}
		case "[":
			sc.brackets++
		case "]":
			sc.brackets--
		case ";":
			sc.ended = true
		}
	case tokNumber:
		if sc.stmtKind == "" {
			return false
		}
		sc.signStart = t.start
		if prev.kind == tokOp && prev.text == "-" && !operand(sc.hist[1]) {
			if p := sc.hist[1]; p.kind == tokOp && (p.text == "-" || p.text == "+") && !operand(sc.hist[2]) {
				return false // - -1: two signs, left to the parser
			}
			sc.signStart = prev.start
		}
		sc.pending = t
	case tokStdString:
		if sc.stmtKind != "" {
			sc.pending, sc.signStart = t, t.start
			sc.str = pendingString{
				compared: prev.kind == tokOp && typedOperand(sc.hist[1]) && (sc.where && comparisonOps[prev.text] || arithmeticOps[prev.text]) ||
					sc.depth > 0 && sc.inList[sc.depth-1] && prev.kind == tokPunct && (prev.text == "(" || prev.text == ","),
				assigned: sc.assignedValue(prev),
			}
		}
	}
	sc.hist[2], sc.hist[1], sc.hist[0] = sc.hist[1], sc.hist[0], t
	return true
}

// assignedValue reports whether a string after prev starts a value that is
// assigned to a column as it stands: an element of an INSERT's VALUES row,
// or the right side of col = in a SET list. PostgreSQL gives such an untyped
// string the column's type as it gives a parameter there (only an interval
// column's modifier also steers the string's input: PrepareLiterals checks).
func (sc *litScanner) assignedValue(prev litToken) bool {
	switch {
	case sc.valuesRow && sc.depth == 1:
		return prev.kind == tokPunct && (prev.text == "(" || prev.text == ",")
	case sc.setList && sc.depth == 0:
		before := sc.hist[2]
		return prev.kind == tokOp && prev.text == "=" && typedOperand(sc.hist[1]) &&
			(before.kind == tokWord && before.text == "set" || before.kind == tokPunct && before.text == ",")
	}
	return false
}

// comparisonOps are the operators a string operand of which the scanner
// makes a parameter.
var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true}

// arithmeticOps are the operators a string right operand of which (col +
// '5', as pgx's simple protocol sends a number) the scanner makes a
// parameter anywhere in the statement.
var arithmeticOps = map[string]bool{"+": true, "-": true, "*": true, "/": true}

// conditionEnders are the keywords that may follow such a string.
var conditionEnders = map[string]bool{
	"and": true, "or": true, "then": true, "limit": true, "offset": true, "order": true, "group": true,
	"having": true, "returning": true, "for": true, "union": true, "intersect": true, "except": true,
	"window": true, "fetch": true,
}

// typedOperand reports whether t is a name that ends a typed operand (a
// column, current_date): not a keyword, NULL or a constant.
func typedOperand(t litToken) bool {
	switch t.kind {
	case tokQuoted:
		return true
	case tokWord:
		return !operandKeywords[t.text] && t.text != "null" && t.text != "true" && t.text != "false"
	}
	return false
}

// decide settles the pending literal now that next follows it.
func (sc *litScanner) decide(next litToken) bool {
	t := sc.pending
	if t.kind == tokNone {
		return true
	}
	if t.kind == tokStdString {
		sc.decideString(t, next)
		return true
	}
	sc.pending = litToken{}
	switch {
	case sc.brackets > 0 || sc.noLitDepth >= 0 || sc.depth > 0 && sc.noLit[sc.depth-1]:
		return true
	case next.kind == tokPunct && (next.text == "::" || next.text == "[" || next.text == "."):
		return true
	case next.kind == tokWord && (next.text == "preceding" || next.text == "following" || next.text == "collate"):
		return true
	}
	text := t.text
	if sc.signStart < t.start {
		text = "-" + text
	}
	kind := litNumeric
	if !strings.ContainsAny(t.text, ".eE") {
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			kind = litInt8
			if i >= math.MinInt32 && i <= math.MaxInt32 {
				kind = litInt4
			}
		}
	}
	sc.replace(t, kind, text)
	return true
}

// decideString settles (or keeps pending) the string t now that next
// follows it. A string becomes a parameter where its own value ends with
// it: as a compared or assigned value (see normalizeLiterals), or with a
// cast to a type named by one word ('2020-01-01'::date, as psycopg2 sends
// dates), anywhere a number would: PostgreSQL reads such a constant with
// the type's input function, as Bind reads a parameter of that type.
func (sc *litScanner) decideString(t, next litToken) {
	str := &sc.str
	if str.castStage == 0 && next.kind == tokPunct && next.text == "::" ||
		str.castStage == 1 && (next.kind == tokWord && next.text != "unknown" || next.kind == tokQuoted && next.text != `"unknown"`) {
		str.castStage++
		return // still pending
	}
	sc.pending = litToken{}
	if sc.brackets > 0 || sc.depth > 0 && sc.noLit[sc.depth-1] {
		return
	}
	value := strings.ReplaceAll(t.text[1:len(t.text)-1], "''", "'")
	ends := next.kind == tokNone || next.kind == tokPunct && (next.text == ")" || next.text == ";" || next.text == ",")
	switch {
	case str.castStage == 1:
	case str.assigned && (ends || sc.setList && next.kind == tokWord && (next.text == "where" || next.text == "from" || next.text == "returning")):
		sc.replace(t, litString, value)
		sc.lits[len(sc.lits)-1].assigned = true
	case str.castStage == 2:
		if sc.noLitDepth < 0 && (ends || next.kind == tokOp ||
			next.kind == tokWord && (conditionEnders[next.text] || castEnders[next.text])) {
			sc.replace(t, litString, value)
		}
	case str.compared:
		if ends || next.kind == tokWord && (conditionEnders[next.text] || next.text == "where" || next.text == "from") {
			sc.replace(t, litString, value)
		}
	}
}

// castEnders are keywords besides conditionEnders that may follow a cast
// to a one-word type without making the type longer (as with varying,
// precision, with time zone or an interval's fields).
var castEnders = map[string]bool{
	"where": true, "from": true, "as": true, "else": true, "end": true, "when": true, "is": true, "at": true,
}

// replace writes the text up to literal t (from its sign) and the
// parameter that takes its place.
func (sc *litScanner) replace(t litToken, kind litKind, text string) {
	if sc.lits == nil {
		// The first literal: size the text and the list once, for the
		// statements of a few literals that make most of them.
		sc.out.Grow(len(sc.src) + 8)
		sc.lits = make([]literal, 0, 4)
	}
	sc.out.WriteString(sc.src[sc.copied:sc.signStart])
	normStart := sc.out.Len()
	sc.out.WriteByte('$')
	sc.out.WriteString(strconv.Itoa(len(sc.lits) + 1))
	sc.lits = append(sc.lits, literal{kind: kind, text: text, origStart: sc.signStart, origEnd: t.end,
		normStart: normStart, normEnd: sc.out.Len()})
	sc.kinds = append(sc.kinds, byte(kind))
	sc.copied = t.end
}
