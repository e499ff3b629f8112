package sqlexec

import (
	"context"
	"slices"
	"strings"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// SQL-level PREPARE and EXECUTE. The server keeps prepared statements (the
// SQL statements and the protocol's Parse share one namespace, as in
// PostgreSQL), so sqlexec only takes the statements apart: PREPARE into
// its name, inner statement and parameter types, EXECUTE into its name and
// argument values. pg_dump prepares the queries it runs once per object.

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
		typ, err := b.typeName(n.GetTypeName())
		if err != nil {
			return nil, true, err
		}
		oid := uint32(typ.Oid)
		if dom := b.domainNamed(n.GetTypeName()); dom != nil && len(n.GetTypeName().ArrayBounds) == 0 {
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
func (s *Session) SQLExecuteArgs(ctx context.Context, st *Statement, paramOIDs []uint32) (params []any, err error) {
	defer recoverInternal(&err)
	es := st.node.GetExecuteStmt()
	if len(es.Params) != len(paramOIDs) {
		return nil, pgerror.Newf(pgerror.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", es.Name).
			WithDetail("Expected %d parameters but got %d.", len(paramOIDs), len(es.Params))
	}
	cat, _ := s.catalog()
	b := &binder{s: s, cat: cat, full: st.full}
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
		typ, err := b.typeName(tn)
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
		if e, err = b.coerce(e, typ, types.CastAssignment); err != nil {
			return nil, err
		}
		v, err := e.eval(x)
		if err != nil {
			return nil, err
		}
		params = append(params, v)
	}
	return params, nil
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
