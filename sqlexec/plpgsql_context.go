package sqlexec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// An error raised in PL/pgSQL reaches the client with PostgreSQL's
// CONTEXT lines, innermost first: the SQL statement of the body that
// failed, then a line for each PL/pgSQL function on the way out naming
// the statement it was running ("PL/pgSQL function f(integer) line 3 at
// RAISE"). An expression that needs a query plan (a subquery, an
// aggregate) gets SPI's line too ("SQL expression", "PL/pgSQL
// assignment"); PostgreSQL also gives it to a plain expression whose
// constant part its planner folds and fails on, which fickle does not.

// plStmtName is PostgreSQL's name of a statement kind in CONTEXT lines
// (plpgsql_stmt_typename).
func plStmtName(st *plStmt) string {
	switch st.kind {
	case "block":
		return "statement block"
	case "assign":
		return "assignment"
	case "fori":
		return "FOR with integer loop variable"
	case "fors":
		return "FOR over SELECT rows"
	case "forc":
		return "FOR over cursor"
	case "foreach_a":
		return "FOREACH over array"
	case "exit":
		if st.isExit {
			return "EXIT"
		}
		return "CONTINUE"
	case "return_next":
		return "RETURN NEXT"
	case "return_query":
		return "RETURN QUERY"
	case "execsql":
		return "SQL statement"
	case "dynexecute":
		return "EXECUTE"
	case "dynfors":
		return "FOR over EXECUTE statement"
	case "getdiag":
		if st.stacked {
			return "GET STACKED DIAGNOSTICS"
		}
		return "GET DIAGNOSTICS"
	case "fetch":
		if st.cur != nil && st.cur.isMove {
			return "MOVE"
		}
		return "FETCH"
	}
	return strings.ToUpper(st.kind) // IF, CASE, LOOP, WHILE, RETURN, RAISE, ASSERT, OPEN, CLOSE, PERFORM, CALL, COMMIT, ROLLBACK
}

// withContext returns err with line added to its CONTEXT, innermost
// lines first; an error that is not a PostgreSQL error is returned as it
// is.
func withContext(err error, line string) error {
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		return err
	}
	ne := *pe
	if ne.Where == "" {
		ne.Where = line
	} else {
		ne.Where += "\n" + line
	}
	return &ne
}

// statementContext adds to err, raised while the frame ran st, the
// function's CONTEXT line, once: the innermost statement names it.
func (fr *plFrame) statementContext(err error, st *plStmt) error {
	return fr.functionContext(err, st.line, "at "+plStmtName(st))
}

// functionContext adds to err the frame's CONTEXT line for what it was
// doing at line (of the body's layout), unless the frame gave err its
// line already.
func (fr *plFrame) functionContext(err error, line int, doing string) error {
	var pe *pgerror.Error
	if !errors.As(err, &pe) || pe == fr.annotated {
		return err
	}
	err = withContext(err, fmt.Sprintf("PL/pgSQL function %s line %d %s", fr.pl.fn.contextName(), fr.pl.sourceLine(line), doing))
	errors.As(err, &fr.annotated)
	return err
}

// queryContext is the CONTEXT line PostgreSQL's SPI gives an error of a
// query of the body that it planned: a statement, an expression, or an
// assignment written whole.
func (e *plExpr) queryContext() string {
	switch {
	case e.mode == 2:
		return fmt.Sprintf("SQL expression \"%s\"", e.text)
	case e.mode >= 3:
		return fmt.Sprintf("PL/pgSQL assignment \"%s\"", e.text)
	}
	return fmt.Sprintf("SQL statement \"%s\"", e.text)
}

// contextName is the routine as PostgreSQL's CONTEXT lines name it: its
// signature as format_procedure prints it, or inline_code_block for DO.
func (f *funcDesc) contextName() string {
	if f.oid == 0 {
		return f.name
	}
	return f.objectSignature()
}
