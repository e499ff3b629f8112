package sqlexec

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// maxParseDepth bounds how deeply a statement may nest before it is parsed.
// PostgreSQL's parser builds left-deep trees for chains of operators,
// casts, set operations and joins without bound, then fails with 54001
// when analysing them deeper than max_stack_depth allows (a chain of about
// 4,500 "+1" terms). The parser fickle embeds recurses on the C stack when
// it hands the tree over, and a chain of about 25,000 terms overflows it
// and kills the process; so fickle refuses such statements first, with
// PostgreSQL's error, at a depth well below that. Structures that nest to
// the right (parentheses, subqueries, function calls) are bounded by the
// parser's own stack, which reports them as a syntax error in time.
const maxParseDepth = 5000

// checkParseDepth fails with 54001 when sql may nest deeper than
// maxParseDepth. A tree is never deeper than the statement has tokens, so
// a statement shorter than the limit passes unscanned; a longer one is
// scanned (the scanner does not recurse) and the depth of its chains
// bounded from above: every token but a name, a constant or punctuation
// that lists (",", ";", AND, OR, WHEN, THEN, ELSE) may add a level to the
// chain it extends, and a chain inside brackets ("(", "[", CASE) continues
// from the depth of the one around it. Brackets themselves add nothing:
// nesting by brackets alone is bounded by the parser's stack (about
// 10,000 entries, "memory exhausted" beyond, as in PostgreSQL), which
// keeps such trees far below the depth that overflows. quickDepthBound
// first bounds the depth without the scanner (a cgo call that cost a
// 100,000-item IN list most of a second), which settles most long
// statements.
func checkParseDepth(sql string) error {
	if len(sql) <= maxParseDepth {
		return nil
	}
	if bound, ok := quickDepthBound(sql); ok && bound <= maxParseDepth {
		return nil
	}
	res, err := pg_query.Scan(sql)
	if err != nil {
		return nil // the parser reports the syntax error
	}
	if estimatedDepth(res.Tokens) > maxParseDepth {
		return pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded").
			WithHint("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.")
	}
	return nil
}

// estimatedDepth bounds from above the depth of the parse tree of the
// scanned tokens (see checkParseDepth).
func estimatedDepth(tokens []*pg_query.ScanToken) int {
	type chain struct{ base, length int }
	stack := []chain{{}}
	deepest := 0
	for _, tok := range tokens {
		cur := &stack[len(stack)-1]
		switch tok.Token {
		case pg_query.Token_ASCII_40, pg_query.Token_ASCII_91, pg_query.Token_CASE:
			stack = append(stack, chain{base: cur.base + cur.length})
		case pg_query.Token_ASCII_41, pg_query.Token_ASCII_93, pg_query.Token_END_P:
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case pg_query.Token_ASCII_44, pg_query.Token_AND, pg_query.Token_OR,
			pg_query.Token_WHEN, pg_query.Token_THEN, pg_query.Token_ELSE:
			cur.length = 0
		case pg_query.Token_ASCII_59:
			stack = stack[:1]
			stack[0] = chain{}
		case pg_query.Token_IDENT, pg_query.Token_UIDENT, pg_query.Token_ICONST, pg_query.Token_FCONST,
			pg_query.Token_SCONST, pg_query.Token_USCONST, pg_query.Token_BCONST, pg_query.Token_XCONST,
			pg_query.Token_PARAM, pg_query.Token_ASCII_46, pg_query.Token_SQL_COMMENT, pg_query.Token_C_COMMENT:
		default:
			cur.length++
		}
		top := stack[len(stack)-1]
		deepest = max(deepest, top.base+top.length)
	}
	return deepest
}

// quickDepthBound bounds from above what estimatedDepth computes from the
// scanner's tokens, reading the bytes of sql in Go: it follows the same
// chains, but counts every name and constant as a level (estimatedDepth
// counts none) and every operator character as one (an operator token may
// have several). It reports false where its reading of the text could
// differ from the scanner's in where tokens begin and end: a backslash in
// a quoted string or identifier, a dollar-quoted string, an unterminated
// quote or comment.
func quickDepthBound(sql string) (int, bool) {
	type chain struct{ base, length int }
	stack := []chain{{}}
	deepest := 0
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; i < len(sql); {
		cur := &stack[len(stack)-1]
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			// PostgreSQL's lexer ends a comment at a carriage return too.
			for i < len(sql) && sql[i] != '\n' && sql[i] != '\r' {
				i++
			}
			continue
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			nest := 0
			for {
				if i+1 >= len(sql) {
					return 0, false
				}
				switch sql[i : i+2] {
				case "/*":
					nest++
					i += 2
				case "*/":
					nest--
					i += 2
				default:
					i++
				}
				if nest == 0 {
					break
				}
			}
			continue
		case c == '\'' || c == '"':
			for i++; ; i++ {
				if i >= len(sql) || sql[i] == '\\' {
					return 0, false
				}
				if sql[i] == c {
					if i+1 < len(sql) && sql[i+1] == c {
						i++
						continue
					}
					break
				}
			}
			i++
			cur.length++
		case c == '$':
			if i+1 >= len(sql) || sql[i+1] < '0' || sql[i+1] > '9' {
				return 0, false
			}
			for i++; i < len(sql) && sql[i] >= '0' && sql[i] <= '9'; i++ {
			}
			cur.length++
		case isWord(c):
			start := i
			for i < len(sql) && (isWord(sql[i]) || sql[i] == '$') {
				i++
			}
			switch word := sql[start:i]; {
			case len(word) > 4:
				cur.length++
			case strings.EqualFold(word, "case"):
				stack = append(stack, chain{base: cur.base + cur.length})
			case strings.EqualFold(word, "end"):
				if len(stack) > 1 {
					stack = stack[:len(stack)-1]
				}
			case strings.EqualFold(word, "and"), strings.EqualFold(word, "or"), strings.EqualFold(word, "when"),
				strings.EqualFold(word, "then"), strings.EqualFold(word, "else"):
				cur.length = 0
			default:
				cur.length++
			}
		default:
			i++
			switch c {
			case '(', '[':
				stack = append(stack, chain{base: cur.base + cur.length})
			case ')', ']':
				if len(stack) > 1 {
					stack = stack[:len(stack)-1]
				}
			case ',':
				cur.length = 0
			case ';':
				stack = stack[:1]
				stack[0] = chain{}
			default:
				cur.length++
			}
		}
		top := stack[len(stack)-1]
		deepest = max(deepest, top.base+top.length)
	}
	return deepest, true
}
