package sqlexec

import (
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
// keeps such trees far below the depth that overflows.
func checkParseDepth(sql string) error {
	if len(sql) <= maxParseDepth {
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
