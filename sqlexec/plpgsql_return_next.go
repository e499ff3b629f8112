package sqlexec

import (
	"regexp"
	"strings"
)

// returnNextPattern matches RETURN NEXT and what follows up to its ";".
var returnNextPattern = regexp.MustCompile(`(?i)\breturn\s+next\s+([^;]+);`)

// returnNextVariable recovers the variable of RETURN NEXT variable on
// line: pg_query's parse tree leaves out the record or row variable
// (retvarno) it returns, so the reader reads its name from the line
// (scopeLayout puts one statement end on each line) and evaluates it as
// an expression. nil when the line holds no single RETURN NEXT.
func (r *plReader) returnNextVariable(line int) *plExpr {
	if line < 1 || line > len(r.lines) {
		return nil
	}
	m := returnNextPattern.FindAllStringSubmatch(r.lines[line-1], -1)
	if len(m) != 1 {
		return nil
	}
	return &plExpr{text: strings.TrimSpace(m[0][1]), mode: 2, scope: r.scope}
}
