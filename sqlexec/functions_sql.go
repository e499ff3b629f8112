package sqlexec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// LANGUAGE sql bodies. Each statement of the body is planned like a
// client's statement, with the routine's arguments as its $n parameters
// (a parameter's name reads it too, where no column has the name), and
// runs in the caller's execution context: the same store transaction, so
// that its reads and writes belong to the calling statement in the
// history. The last statement's rows are the result. Plans are made at
// the first call in a session and kept while the catalog is the one they
// were made against.

// compiledRoutine is a routine body planned against one catalog version
// under one search path and one set of the settings its constants are
// read in.
type compiledRoutine struct {
	version uint64
	env     string
	// stmts are the plans of a LANGUAGE sql body, in order.
	stmts []*stmtPlan
	texts []string
	// pl is the compiled PL/pgSQL body.
	pl *plFunction
	// resultChecks are the checks of the domains the result columns are
	// declared of, nil for none (resultChecks).
	resultChecks []domainCheck
}

// compiled returns f's body compiled for the session's catalog.
func (s *Session) compiled(f *funcDesc) (*compiledRoutine, error) {
	cat, version := s.catalog()
	env := s.routinePlanEnv()
	if c := s.routines[f]; c != nil && c.version == version && c.env == env {
		return c, nil
	}
	if err := nonStandardBody(s, f); err != nil {
		return nil, err
	}
	c := &compiledRoutine{version: version, env: env}
	var err error
	if f.lang == "plpgsql" {
		c.pl, err = compilePlpgsql(s, cat, f)
	} else {
		c.stmts, c.texts, err = planSQLBody(s, cat, f, "")
		err = bodyError(err)
	}
	if err == nil {
		c.resultChecks, err = (&binder{s: s, cat: cat}).resultChecks(f)
	}
	if err != nil {
		return nil, err
	}
	if c.pl != nil {
		c.pl.resultChecks = c.resultChecks
	}
	if s.routines == nil || len(s.routines) >= planCacheLimit {
		s.routines = map[*funcDesc]*compiledRoutine{}
	}
	s.routines[f] = c
	return c, nil
}

// nonStandardBody refuses to compile f's body while standard_conforming_strings
// is off when a '...' literal in it holds a backslash: PostgreSQL then
// reads the backslash as an escape, and fickle's parsers read routine
// bodies the standard way only. Query strings are rewritten for them
// (rewriteNonStandardStrings); a body is compiled once for several
// settings, so it is refused instead.
func nonStandardBody(s *Session, f *funcDesc) error {
	if v, _ := s.setting("standard_conforming_strings"); v != "off" {
		return nil
	}
	rewritten, err := rewriteNonStandardStrings(f.src)
	if err != nil {
		return err
	}
	if rewritten != f.src {
		return pgerror.Unsupported("routine bodies with backslashes in string literals while standard_conforming_strings is off")
	}
	return nil
}

// routinePlanEnv names the settings a routine's plans depend on: the
// search path their names were resolved on (with the session's temporary
// schema) and those their constants were read in. A body planned under
// one search path is planned again under another, as PostgreSQL's plan
// cache does; one read with standard_conforming_strings on is checked
// again when it is off (nonStandardBody); the replication role decides
// which triggers and rules the body's statements run.
func (s *Session) routinePlanEnv() string {
	var b strings.Builder
	for _, name := range []string{"search_path", "TimeZone", "DateStyle", "IntervalStyle", "standard_conforming_strings", "session_replication_role"} {
		v, _ := s.settings.get(name)
		b.WriteString(v)
		b.WriteByte(0)
	}
	b.WriteString(strconv.FormatUint(uint64(s.tempID), 10))
	return b.String()
}

// sqlBodyStatements returns the statements of f's body.
func sqlBodyStatements(f *funcDesc, createText string) ([]*Statement, error) {
	if f.sqlBody != nil {
		out := make([]*Statement, len(f.sqlBody))
		for i, n := range f.sqlBody {
			out[i] = &Statement{node: n, full: createText}
		}
		return out, nil
	}
	return parseStatements(f.src)
}

// paramVars resolves the names of f's input parameters, plain or
// qualified with the function's name, to $n, and a name qualified by a
// parameter of a composite type (p.field, or fn.p.field) to the field of
// $n, as PostgreSQL's SQL functions do (fn.p before p.field).
func paramVars(f *funcDesc) func(b *binder, fields []string, loc int32) (*scalar, bool) {
	ins := f.inParams()
	param := func(b *binder, name string, loc int32) (*scalar, bool) {
		for i, p := range ins {
			if p.name == name {
				e, err := b.paramRef(&pg_query.ParamRef{Number: int32(i + 1), Location: loc})
				if err != nil {
					return nil, false
				}
				// The parameter is of its declared domain, or of none.
				if e.domain = b.domainByOid(p.dom.oid); e.domain == nil {
					e.plain = !p.typ.IsPolymorphic()
				}
				return e, true
			}
		}
		return nil, false
	}
	field := func(b *binder, name, fieldName string, loc int32) (*scalar, bool) {
		e, ok := param(b, name, loc)
		if !ok {
			return nil, false
		}
		fs, ok := e.typ.Fields()
		if !ok {
			return nil, false
		}
		sel, err := fieldSelection(e, fs, fieldName)
		return sel, err == nil
	}
	return func(b *binder, fields []string, loc int32) (*scalar, bool) {
		switch len(fields) {
		case 1:
			return param(b, fields[0], loc)
		case 2:
			if fields[0] == f.name {
				if e, ok := param(b, fields[1], loc); ok {
					return e, true
				}
			}
			return field(b, fields[0], fields[1], loc)
		case 3:
			if fields[0] == f.name {
				return field(b, fields[1], fields[2], loc)
			}
		}
		return nil, false
	}
}

// routineVar resolves a name through the routine body's variables.
func (b *binder) routineVar(fields []string, loc int32) (*scalar, bool) {
	if b.vars == nil {
		return nil, false
	}
	return b.vars(b, fields, loc)
}

// planSQLBody plans every statement of a LANGUAGE sql body and checks
// that the last one returns what the function declares. Errors keep their
// positions: in the body's text, or for a BEGIN ATOMIC body in createText,
// the CREATE statement that holds it ("" when none does).
func planSQLBody(s *Session, cat *catalog, f *funcDesc, createText string) ([]*stmtPlan, []string, error) {
	sts, err := sqlBodyStatements(f, createText)
	if err != nil {
		return nil, nil, err
	}
	var plans []*stmtPlan
	var texts []string
	for _, st := range sts {
		if st.isTxn {
			return nil, nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed in an SQL function", ddlTagOrKind(st))
		}
		b := &binder{s: s, cat: cat, full: st.full, params: append([]types.Type(nil), f.in...), fixedParams: true, vars: paramVars(f)}
		p, err := b.statement(st)
		if err != nil {
			return nil, nil, err
		}
		if st.node.GetCallStmt() != nil && p.cols != nil {
			return nil, nil, pgerror.New(pgerror.FeatureNotSupported, "calling procedures with output arguments is not supported in SQL functions")
		}
		p.locks, p.perms = b.locks, b.perms
		plans = append(plans, p)
		text := st.sql
		if text == "" {
			text = deparseStatement(st.node)
		}
		texts = append(texts, text)
	}
	var last *pg_query.Node
	if len(sts) > 0 {
		last = sts[len(sts)-1].node
	}
	if err := checkSQLResult(f, plans, last); err != nil {
		return nil, nil, err
	}
	return plans, texts, nil
}

func ddlTagOrKind(st *Statement) string {
	switch st.txn.Kind {
	case TxnCommit:
		return "COMMIT"
	case TxnRollback, TxnRollbackTo:
		return "ROLLBACK"
	case TxnSavepoint:
		return "SAVEPOINT"
	}
	return "transaction control"
}

// checkSQLResult checks the last statement's columns against the declared
// result, as PostgreSQL's check_sql_fn_retval does; last is that
// statement.
func checkSQLResult(f *funcDesc, plans []*stmtPlan, last *pg_query.Node) error {
	if f.result.Oid == types.OidVoid {
		return nil
	}
	if f.anonRecord() && len(plans) > 0 && plans[len(plans)-1].cols != nil {
		return nil // any row goes: the call's column definition list checks it
	}
	mismatch := func(actual string) error {
		return pgerror.Newf(pgerror.InvalidFunctionDefinition, "return type mismatch in function declared to return %s", f.result).
			WithDetail("%s", actual)
	}
	if len(plans) == 0 || plans[len(plans)-1].cols == nil {
		return mismatch("Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING.")
	}
	cols := plans[len(plans)-1].cols
	if f.resultDom.oid != 0 && f.result.IsComposite() {
		// A domain over a composite type is a scalar result: one column
		// of a row value that converts to the composite type
		// (domainCompositeRows takes it apart).
		if len(cols) != 1 {
			return mismatch("Final statement must return exactly one column.")
		}
		c := cols[0].typ
		if c.Oid == f.result.Oid || c.Oid == types.OidUnknown {
			return nil
		}
		if !c.IsRecord() {
			if _, err := types.LookupCastEnv(c, f.result, types.CastAssignment); err != nil {
				return mismatch("Actual return type is " + c.String() + ".")
			}
			return nil
		}
		// A ROW constructor converts field by field, as
		// coerce_record_to_complex does; another record does not convert.
		cannot := pgerror.Newf(pgerror.CannotCoerce, "cannot cast type %s to %s", c, f.resultDom.typeName(f.result))
		if !rowConstructorResult(last) {
			return cannot
		}
		have, _ := c.Fields()
		want, _ := f.result.Fields()
		switch {
		case len(have) < len(want):
			return cannot.WithDetail("Input has too few columns.")
		case len(have) > len(want):
			return cannot.WithDetail("Input has too many columns.")
		}
		for i := range have {
			if _, err := types.LookupCastEnv(have[i].Type, want[i].Type, types.CastAssignment); err != nil && have[i].Type.Oid != types.OidUnknown {
				return cannot.WithDetail("Cannot cast type %s to %s in column %d.", have[i].Type, want[i].Type, i+1)
			}
		}
		return nil
	}
	want := f.resultCols()
	if len(cols) != len(want) {
		if len(cols) == 1 && len(want) > 1 && cols[0].typ.IsRecord() {
			return pgerror.Unsupported("a SQL function whose final statement returns its result columns as one row value")
		}
		switch {
		case len(want) == 1:
			return mismatch("Final statement must return exactly one column.")
		case len(cols) < len(want):
			return mismatch("Final statement returns too few columns.")
		}
		return mismatch("Final statement returns too many columns.")
	}
	for i, c := range cols {
		if c.typ.Oid == want[i].Type.Oid || c.typ.Oid == types.OidUnknown {
			continue
		}
		if _, err := types.LookupCastEnv(c.typ, want[i].Type, types.CastAssignment); err != nil {
			if len(want) == 1 {
				return mismatch("Actual return type is " + c.typ.String() + ".")
			}
			return mismatch("Final statement returns " + c.typ.String() + " instead of " + want[i].Type.String() + " at column " + strconv.Itoa(i+1) + ".")
		}
	}
	return nil
}

// rowConstructorResult reports whether statement n is a SELECT (no set
// operation) whose one result column is a ROW constructor.
func rowConstructorResult(n *pg_query.Node) bool {
	sel := n.GetSelectStmt()
	if sel == nil || sel.Op != pg_query.SetOperation_SETOP_NONE || len(sel.TargetList) != 1 {
		return false
	}
	return sel.TargetList[0].GetResTarget().GetVal().GetRowExpr() != nil
}

// invokeSQL runs a LANGUAGE sql body.
func (s *Session) invokeSQL(x *execCtx, f *funcDesc, vals []any) ([][]any, error) {
	c, err := s.compiled(f)
	if err != nil {
		return nil, err
	}
	var last *Result
	for i, p := range c.stmts {
		if last, err = s.runRoutineStatement(x, p, vals, c.texts[i]); err != nil {
			return nil, err
		}
	}
	if f.result.Oid == types.OidVoid {
		if f.kind == 'p' || f.retSet {
			return nil, nil // a SETOF void function returns no rows
		}
		return [][]any{{nil}}, nil // PostgreSQL's SQL functions return a NULL void
	}
	rows := last.Rows
	if !f.retSet && len(rows) > 1 {
		rows = rows[:1]
	}
	if f.anonRecord() {
		return sqlRecordRows(x, rows, last.Columns)
	}
	if f.resultDom.oid != 0 && f.result.IsComposite() {
		rows, err = domainCompositeRows(x, rows, last.Columns[0], f.result)
	} else {
		rows, err = coerceRows(x, rows, last.Columns, f.resultCols())
	}
	if err != nil {
		return nil, err
	}
	return rows, checkResultRows(x, f, c.resultChecks, rows)
}

// domainCompositeRows are the result rows of a SQL function returning a
// domain over composite type result, whose final statement gave rows of one
// column col of row values: each value converted to the composite type by
// assignment and taken apart into its fields, a NULL giving no row (the
// call's value is NULL then).
func domainCompositeRows(x *execCtx, rows [][]any, col Column, result types.Type) ([][]any, error) {
	from := types.Type{Oid: types.Oid(col.TypeOID), Typmod: col.TypeMod}
	var cast types.EnvCastFunc
	if from.Oid != result.Oid {
		if from.Oid == types.OidUnknown {
			from = types.Text
		}
		var err error
		if cast, err = types.LookupCastEnv(from, result, types.CastAssignment); err != nil {
			return nil, err
		}
	}
	var out [][]any
	for _, row := range rows {
		v := row[0]
		if v != nil && cast != nil {
			var err error
			if v, err = cast(x.env, v); err != nil {
				return nil, err
			}
		}
		if fields, ok := v.([]any); ok {
			out = append(out, append([]any(nil), fields...))
		}
	}
	return out, nil
}

// runRoutineStatement runs one planned statement of a routine body in the
// caller's transaction, with vals as its parameters. It is an event of
// its own in the store, as each statement of a function is a query with
// its own snapshot in PostgreSQL (it sees what the calling statement wrote
// so far); the history names it after the calling statement and the
// routines it runs in, and the calling statement's later reads and writes
// go to an event of its own name again.
func (s *Session) runRoutineStatement(x *execCtx, p *stmtPlan, vals []any, text string) (*Result, error) {
	return s.runRoutineStatementSharing(x, p, vals, text, nil)
}

// runRoutineStatementSharing is runRoutineStatement for one run of a rule
// action: conflicts, when not nil, keeps the rows its ON CONFLICT DO
// UPDATE touched across the runs (execCtx.actionConflicts).
func (s *Session) runRoutineStatementSharing(x *execCtx, p *stmtPlan, vals []any, text string, conflicts map[*conflictPlan]map[string]bool) (*Result, error) {
	x.txn.Statement(history.Statement{SQL: fmt.Sprintf("%s -- in %s: %s", s.stmt.SQL, strings.Join(s.routineNames, ", "), strings.TrimSpace(text)),
		Table: p.table, Predicate: p.predicate})
	defer x.txn.Statement(s.stmt)
	for _, l := range p.locks {
		if err := l.take(x.ctx, x.txn); err != nil {
			return nil, err
		}
	}
	if p.writes != "" && s.txn != nil && s.txn.readOnly {
		return nil, pgerror.Newf(pgerror.ReadOnlySqlTransaction, "cannot execute %s in a read-only transaction", p.writes)
	}
	if err := s.checkPrivileges(p.perms); err != nil {
		return nil, err
	}
	cx := &execCtx{ctx: x.ctx, s: s, txn: x.txn, params: vals, env: x.env, caches: &stmtCaches{}, actionConflicts: conflicts}
	cx.beginRoutineStatement(x)
	queued := 0
	if s.txn != nil {
		queued = len(s.txn.stmtFKs)
	}
	outer := s.queryLevel
	s.queryLevel = nil
	res, err := p.exec(cx)
	if err == nil {
		err = s.fireAfterLevel(cx)
	}
	s.queryLevel = outer
	if err == nil {
		err = s.checkStatementFKs(x.txn, queued)
	}
	if err != nil {
		return nil, err
	}
	if res.Columns == nil && p.cols != nil {
		res.Columns = columnsOf(p.cols)
	}
	s.notices = append(s.notices, res.Notices...)
	return res, nil
}

// coerceRows converts result rows to the declared column types with
// assignment casts.
func coerceRows(x *execCtx, rows [][]any, have []Column, want []types.Field) ([][]any, error) {
	var casts []types.EnvCastFunc
	for i, c := range have {
		if i >= len(want) || types.Oid(c.TypeOID) == want[i].Type.Oid && want[i].Type.Typmod < 0 {
			casts = append(casts, nil)
			continue
		}
		from := types.Type{Oid: types.Oid(c.TypeOID), Typmod: c.TypeMod}
		if from.Oid == types.OidUnknown {
			from = types.Text
		}
		f, err := types.LookupCastEnv(from, want[i].Type, types.CastAssignment)
		if err != nil {
			return nil, err
		}
		casts = append(casts, f)
	}
	out := make([][]any, len(rows))
	for r, row := range rows {
		nr := append([]any(nil), row...)
		for i, f := range casts {
			if f == nil || nr[i] == nil {
				continue
			}
			v, err := f(x.env, nr[i])
			if err != nil {
				return nil, err
			}
			nr[i] = v
		}
		out[r] = nr
	}
	return out, nil
}

// validateBody checks a new routine's body as PostgreSQL does when
// check_function_bodies is on (pg_dump turns it off): a LANGUAGE sql body is planned against the
// catalog being built (a body that creates a table it then reads is not
// supported), a PL/pgSQL body is parsed.
func (d *ddl) validateBody(f *funcDesc, createText string) error {
	if on, _ := d.s.settings.get("check_function_bodies"); on == "off" {
		return nil
	}
	if f.lang == "plpgsql" {
		if err := eventTriggerFunctionError(f); err != nil {
			return err
		}
		_, err := parsePlpgsql(f.validatorCopy(), plRowTypes(&binder{s: d.s, cat: d.cat}))
		return err
	}
	var err error
	if f.polymorphicArgs() {
		// PostgreSQL only parses the body of a SQL function with
		// polymorphic arguments: its types are known at calls.
		_, err = sqlBodyStatements(f, createText)
	} else {
		_, _, err = planSQLBody(d.s, d.cat, f, createText)
	}
	return createBodyError(err, f, createText)
}

// createBodyError is err, raised checking f's LANGUAGE sql body in CREATE
// FUNCTION (createText), as PostgreSQL's validator reports it: a position
// in a body written as a string literal points into the statement where
// that literal is (function_parse_error_transpose), or else into the body
// as the internal query; an error without a position names the function
// in CONTEXT. A BEGIN ATOMIC body's positions count in createText already.
func createBodyError(err error, f *funcDesc, createText string) error {
	var pe *pgerror.Error
	switch {
	case !errors.As(err, &pe):
		return err
	case pe.Position == 0:
		return withContext(err, fmt.Sprintf("SQL function \"%s\"", f.name))
	case f.sqlBody != nil:
		return err
	}
	ne := *pe
	if ne.Position = bodyPositionIn(createText, f.src, pe.Position); ne.Position == 0 {
		ne.InternalQuery, ne.InternalPosition = f.src, pe.Position
	}
	return &ne
}

// bodyPositionIn is PostgreSQL's match_prosrc_to_query: the position in
// text of character pos of src, where text holds src as one dollar-quoted
// or single-quoted literal; 0 unless it holds it exactly once.
func bodyPositionIn(text, src string, pos int) int {
	at := 0
	for i := 0; i+len(src) < len(text); i++ {
		var p int
		switch text[i] {
		case '$':
			end := i + 1 + len(src)
			if end >= len(text) || text[i+1:end] != src || text[end] != '$' {
				continue
			}
			p = pos
		case '\'':
			var ok bool
			if p, ok = literalPosition(text[i+1:], src, pos); !ok {
				continue
			}
		default:
			continue
		}
		if at != 0 {
			return 0
		}
		at = utf8.RuneCountInString(text[:i+1]) + p
	}
	return at
}

// literalPosition is PostgreSQL's match_prosrc_to_literal: whether literal
// starts with src written as the body of a '...' literal (doubled quotes
// and backslashes before its closing quote), and where character pos of
// src is in it.
func literalPosition(literal, src string, pos int) (int, bool) {
	at := pos
	for _, r := range src {
		pos--
		if strings.HasPrefix(literal, "\\") || strings.HasPrefix(literal, "''") {
			literal = literal[1:]
			if pos > 0 {
				at++
			}
		} else if strings.HasPrefix(literal, "'") {
			return 0, false
		}
		ch := string(r)
		if !strings.HasPrefix(literal, ch) {
			return 0, false
		}
		literal = literal[len(ch):]
	}
	return at, strings.HasPrefix(literal, "'") && !strings.HasPrefix(literal, "''")
}

// bodyError drops the position of an error in a routine body: it counts
// in the body's text, not in the statement the client sent (PostgreSQL
// reports it as an internal position).
func bodyError(err error) error {
	if pe, ok := err.(*pgerror.Error); ok && pe.Position > 0 {
		c := *pe
		c.Position = 0
		return &c
	}
	return err
}

// deparseStatement prints a statement of a BEGIN ATOMIC body.
func deparseStatement(n *pg_query.Node) string {
	text, err := pg_query.Deparse(&pg_query.ParseResult{Stmts: []*pg_query.RawStmt{{Stmt: n}}})
	if err != nil {
		return "(statement)"
	}
	return text
}
