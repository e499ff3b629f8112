package sqlexec

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// SQL-level PREPARE and EXECUTE. The server keeps prepared statements (the
// SQL statements and the protocol's Parse share one namespace, as in
// PostgreSQL), so sqlexec takes the statements apart: PREPARE into its
// name, inner statement and parameter types, EXECUTE into its name and
// argument values. pg_dump prepares the queries it runs once per object.
// The statements that run a prepared statement themselves, EXPLAIN
// EXECUTE and CREATE TABLE AS EXECUTE, find it through the function the
// server gives (FindPreparedStatements).

// SQLPrepare is a PREPARE name [(type, ...)] AS statement.
type SQLPrepare struct {
	Name string
	// Statement is the statement prepared, ParamOIDs its parameters'
	// types (0 where PREPARE leaves a type to be inferred: unknown).
	Statement *Statement
	ParamOIDs []uint32
}

// SQLPrepareOf returns st's parts when it is a PREPARE; ok is false for
// any other statement. The inner statement keeps the query string it came
// in, as PostgreSQL's prepared statement does: the positions of the errors
// planning it raises, then or at an EXECUTE, point into that string.
func (s *Session) SQLPrepareOf(st *Statement) (p *SQLPrepare, ok bool, err error) {
	defer recoverInternal(&err)
	ps := st.node.GetPrepareStmt()
	if ps == nil {
		return nil, false, nil
	}
	cat, _ := s.catalog()
	b := &binder{s: s, cat: cat, full: st.full}
	p = &SQLPrepare{Name: ps.Name, Statement: preparedQuery(st, ps)}
	for _, n := range ps.Argtypes {
		typ, dom, err := b.declaredType(n.GetTypeName())
		if err != nil {
			return nil, true, err
		}
		oid := uint32(typ.Oid)
		if dom != nil {
			oid = dom.oid
		}
		p.ParamOIDs = append(p.ParamOIDs, oid)
	}
	return p, true, nil
}

// preparedQuery is the statement PREPARE st prepares, ps.Query: its text
// is what follows the AS that ends PREPARE's head (the parameter types in
// parentheses hold no AS outside parentheses of their own).
func preparedQuery(st *Statement, ps *pg_query.PrepareStmt) *Statement {
	inner := &Statement{sql: st.sql, offset: st.offset, full: st.full, node: ps.Query}
	res, err := pg_query.Scan(st.sql)
	if err != nil {
		return inner
	}
	depth := 0
	for _, tk := range res.Tokens {
		switch tk.Token {
		case pg_query.Token_ASCII_40:
			depth++
		case pg_query.Token_ASCII_41:
			depth--
		case pg_query.Token_AS:
			if depth == 0 {
				rest := st.sql[tk.End:]
				trimmed := strings.TrimLeft(rest, " \t\n\r\f\v")
				inner.sql = strings.TrimSpace(trimmed)
				inner.offset = st.offset + int(tk.End) + len(rest) - len(trimmed)
				return inner
			}
		}
	}
	return inner
}

// SQLExecuteName returns the name of the prepared statement st runs when
// it is an EXECUTE; ok is false for any other statement.
func (st *Statement) SQLExecuteName() (name string, ok bool) {
	es := st.node.GetExecuteStmt()
	if es == nil {
		return "", false
	}
	return es.Name, true
}

// SQLExecuteArgs evaluates the arguments of EXECUTE st as values of the
// prepared statement's parameter types, as PostgreSQL's EvaluateParams
// does: each is an expression without subqueries, coerced to its
// parameter's type by assignment and evaluated in the session, outside
// any statement of the history. A count that differs from the
// parameters' is 42601, PostgreSQL's error.
func (s *Session) SQLExecuteArgs(ctx context.Context, st *Statement, p *Prepared) (params []any, err error) {
	defer recoverInternal(&err)
	return s.executeArgs(ctx, st.node.GetExecuteStmt(), st.full, p)
}

// executeArgs is SQLExecuteArgs of es, which came in the query string
// full. The domains of p's parameters check their arguments here, before
// the statement is bound, as PostgreSQL's EvaluateParams coerces them.
func (s *Session) executeArgs(ctx context.Context, es *pg_query.ExecuteStmt, full string, p *Prepared) (params []any, err error) {
	var paramOIDs []uint32
	if p != nil {
		paramOIDs = p.ParamOIDs
	}
	if len(es.Params) != len(paramOIDs) {
		return nil, pgerror.Newf(pgerror.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", es.Name).
			WithDetail("Expected %d parameters but got %d.", len(paramOIDs), len(es.Params))
	}
	cat, _ := s.catalog()
	b := &binder{s: s, cat: cat, full: full}
	frame := &struct {
		x      execCtx
		caches stmtCaches
		env    types.Env
	}{x: execCtx{ctx: ctx, s: s}}
	x := &frame.x
	x.caches = &frame.caches
	x.env = s.fillEnv(&frame.env)
	x.env.Interrupter = x
	if s.txn != nil {
		if x.txn, err = s.kvTxn(ctx); err != nil {
			return nil, err
		}
	}
	names := catalogNames{s: s, cat: cat}
	for i, n := range es.Params {
		if containsSubLink(n) {
			return nil, b.errAt(pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in EXECUTE parameter"), exprLocation(n))
		}
		typeText, _ := names.RegOut(types.OidRegtype, int64(paramOIDs[i]))
		tn, err := parseTypeString(typeText)
		if err != nil {
			return nil, err
		}
		typ, _, err := b.declaredType(tn)
		if err != nil {
			return nil, err
		}
		// A parameter's type has no typmod: the name regtype prints
		// reads back as bit(1) for bit and character(1) for bpchar.
		typ.Typmod = -1
		e, err := b.expr(nil, n)
		if err != nil {
			return nil, err
		}
		lit := e.lit != nil
		if e, err = b.coerce(e, typ, types.CastAssignment); err != nil {
			return nil, b.literalInputError(err, lit, n)
		}
		v, err := e.eval(x)
		if err != nil {
			return nil, b.literalInputError(err, lit, n)
		}
		params = append(params, v)
	}
	if p != nil && p.plan != nil {
		x.params = params
		if err := checkParams(x, p.plan.paramChecks); err != nil {
			return nil, err
		}
	}
	return params, nil
}

// literalInputError places err, raised converting an argument, at the
// argument n when it is a literal its type's input function refused, as
// PostgreSQL's parser places it.
func (b *binder) literalInputError(err error, lit bool, n *pg_query.Node) error {
	var pe *pgerror.Error
	if lit && errors.As(err, &pe) && pe.Position == 0 && slices.Contains(inputErrors, pe.Code) {
		return b.errAt(pe, exprLocation(n))
	}
	return err
}

// Revalidate re-plans p when the catalog or the roles changed since it was
// planned, as PostgreSQL revalidates a cached plan when a prepared
// statement is bound or executed; p.Columns then describe the new result.
func (s *Session) Revalidate(p *Prepared) (err error) {
	defer recoverInternal(&err)
	return s.replan(p)
}

// PreparedStatementInfo is a prepared statement as pg_prepared_statements
// shows it.
type PreparedStatementInfo struct {
	Name string
	// Statement is the query string that created it: the Parse message's,
	// or the one holding the PREPARE.
	Statement   string
	PrepareTime time.Time
	ParamOIDs   []uint32
	// FromSQL is set for a PREPARE, clear for the protocol's Parse.
	FromSQL bool
	// GenericPlans and CustomPlans count the executions that used a plan
	// for any parameter values and one made for the values given.
	GenericPlans, CustomPlans int64
}

// ListPreparedStatements gives the session the function listing its
// connection's named prepared statements, which the server keeps, for
// pg_prepared_statements.
func (s *Session) ListPreparedStatements(list func() []PreparedStatementInfo) {
	s.preparedStatements = list
}

// preparedStatementRows are pg_prepared_statements' rows, by name.
func (s *Session) preparedStatementRows() [][]any {
	if s.preparedStatements == nil {
		return nil
	}
	list := s.preparedStatements()
	slices.SortFunc(list, func(a, b PreparedStatementInfo) int { return strings.Compare(a.Name, b.Name) })
	out := make([][]any, 0, len(list))
	for _, p := range list {
		params := make([]any, len(p.ParamOIDs))
		for i, oid := range p.ParamOIDs {
			params[i] = int64(oid)
		}
		out = append(out, []any{p.Name, p.Statement, p.PrepareTime, params, p.FromSQL, p.GenericPlans, p.CustomPlans})
	}
	return out
}

// NamedStatement is a prepared statement of the connection as a statement
// that names it uses it: EXPLAIN EXECUTE and CREATE TABLE AS EXECUTE.
type NamedStatement struct {
	// Prepared is the statement; nil for one sqlexec did not plan
	// (transaction control, an empty query).
	Prepared *Prepared
	// Bind readies it to run as EXECUTE does: planned again when what it
	// reads changed, refused when its result changed shape, and its plan
	// counted in pg_prepared_statements.
	Bind func() error
}

// FindPreparedStatements gives the session the function finding its
// connection's named prepared statements, which the server keeps.
func (s *Session) FindPreparedStatements(find func(name string) (NamedStatement, bool)) {
	s.findPrepared = find
}

// boundExecute is a prepared statement that EXECUTE inside another
// statement runs, with its arguments.
type boundExecute struct {
	p    *Prepared
	args []any
}

// bindExecute readies the prepared statement es names, which came in the
// query string full, as PostgreSQL's ExplainExecuteQuery and ExecuteQuery
// do: it must exist (26000), its arguments are evaluated as its
// parameters' types (domains checked), then it is bound
// (NamedStatement.Bind). The result's p is nil for a statement without a
// plan.
func (x *execCtx) bindExecute(es *pg_query.ExecuteStmt, full string) (boundExecute, error) {
	s := x.s
	var ns NamedStatement
	ok := false
	if s.findPrepared != nil && es.Name != "" {
		ns, ok = s.findPrepared(es.Name)
	}
	if !ok {
		return boundExecute{}, pgerror.Newf(pgerror.InvalidSqlStatementName, "prepared statement \"%s\" does not exist", es.Name)
	}
	args, err := s.executeArgs(x.ctx, es, full, ns.Prepared)
	if err != nil {
		return boundExecute{}, err
	}
	if err := ns.Bind(); err != nil {
		return boundExecute{}, err
	}
	return boundExecute{p: ns.Prepared, args: args}, nil
}

// open takes the bound statement's table locks and checks its privileges,
// as PostgreSQL does before it runs a plan or explains one; a plan that
// will not run reads no materialized view, so an unpopulated one is not
// refused.
func (be boundExecute) open(x *execCtx, runs bool) error {
	s, p := x.s, be.p
	if err := s.lockTables(x.ctx, x.txn, p); err != nil {
		return err
	}
	for _, l := range p.plan.locks {
		s.txn.usedTemp = s.txn.usedTemp || l.temp
	}
	perms := p.plan.perms
	if !runs {
		perms = withoutUnpopulatedChecks(perms, 0)
	}
	return s.checkPrivileges(perms)
}

// run runs the opened statement inside the statement of x, in caches of
// its own; stats, when set, counts its plan's rows for EXPLAIN ANALYZE.
func (be boundExecute) run(x *execCtx, stats planStats) (*Result, error) {
	pl := be.p.plan
	if pl.writes != "" && x.s.txn.readOnly {
		return nil, pgerror.Newf(pgerror.ReadOnlySqlTransaction, "cannot execute %s in a read-only transaction", pl.writes)
	}
	cx := *x
	cx.params, cx.stats, cx.caches = be.args, stats, &stmtCaches{}
	return pl.exec(&cx)
}
