package server

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"

	"github.com/fickle-db/fickle/wire"
)

// simpleQuery runs a Query message: every statement in turn, all in one
// implicit transaction unless the text has its own BEGIN/COMMIT; the first
// error skips the rest. It always ends with ReadyForQuery.
func (c *conn) simpleQuery(sql string) {
	c.runQuery(sql)
	// Not deferred: after a panic, safely answers and sends ReadyForQuery.
	c.ready()
}

func (c *conn) runQuery(sql string) {
	if done := c.runLiteralQuery(sql); done {
		return
	}
	stmts, err := c.sess.Parse(sql)
	if err != nil {
		c.queryError(err)
		return
	}
	if len(stmts) == 0 {
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return
	}
	for _, st := range stmts {
		if err := c.simpleStatement(sql, st); err != nil {
			c.queryError(err)
			return
		}
	}
	c.endQuery()
}

// literalPreparer is a Session that prepares a simple query through a
// cache keyed by the text with its literals replaced by parameters
// (sqlexec's PrepareLiterals): ok is false when the text does not qualify.
type literalPreparer interface {
	PrepareLiterals(sql string) (p Prepared, params []any, ok bool)
}

// runLiteralQuery runs a one-statement query through the literal cache;
// done is false when the text does not qualify and nothing happened.
func (c *conn) runLiteralQuery(sql string) (done bool) {
	lp, ok := c.sess.(literalPreparer)
	if !ok {
		return false
	}
	p, params, ok := lp.PrepareLiterals(sql)
	if !ok {
		return false
	}
	if err := c.beforeStatement(); err != nil {
		c.queryError(err)
		return true
	}
	if err := c.runPrepared(sql, p, params, nil); err != nil {
		c.queryError(err)
		return true
	}
	c.endQuery()
	return true
}

// sendError sends a statement's error; a FATAL one ends the connection
// (fatalSent).
func (c *conn) sendError(err error) {
	var pe *pgerror.Error
	if errors.As(err, &pe) && pe.Severity == "FATAL" {
		c.fatalSent = true
	}
	c.be.Send(c.errorToClient(wire.ErrorResponse(err)))
}

// endQuery ends a simple query whose statements all succeeded.
func (c *conn) endQuery() {
	if err := c.endBatch(); err != nil {
		c.be.Send(c.errorToClient(wire.ErrorResponse(err)))
	}
	c.reportChanges()
}

// queryError reports a failed statement of a simple query and fails the
// transaction.
func (c *conn) queryError(err error) {
	c.fail()
	c.sendError(err)
	c.reportChanges()
}

// simpleStatement runs one statement of the simple query string query,
// sending its RowDescription, rows (text format) and CommandComplete.
func (c *conn) simpleStatement(query string, st Statement) error {
	if ctl, ok := st.TxnControl(); ok {
		tag, err := c.runTxnControl(st.SQL(), ctl)
		if err != nil {
			return err
		}
		c.reportChanges()
		c.complete(tag)
		return nil
	}
	if op, ok := st.CursorOp(); ok {
		if done, err := c.portalOp(op, false); done {
			return err
		}
	}
	if err := c.beforeStatement(); err != nil {
		return err
	}
	if done, err := c.sqlPrepareOrExecute(query, st); done {
		return err
	}
	p, err := c.sess.Prepare(st, nil)
	if err != nil {
		return err
	}
	if len(p.ParamOIDs()) > 0 {
		return noParameter(st.SQL())
	}
	return c.runPrepared(st.SQL(), p, nil, nil)
}

// runPrepared runs a statement of a simple query with its parameter values
// and sends its RowDescription, rows (text format) and CommandComplete.
// shape, when set, holds the columns a prepared statement was prepared
// with (EXECUTE): a result of another shape is refused.
func (c *conn) runPrepared(sql string, p Prepared, params []any, shape []Column) error {
	c.sink = rowSink{describe: true, shape: shape}
	res, err := c.run(sql, p, params, &c.sink)
	if err != nil {
		return err
	}
	if res.Copy != nil {
		return c.copy(res.Copy)
	}
	c.reportChanges()
	c.complete(res.Tag)
	return nil
}

// testHookExecute, when set by a test, is called with a statement's text
// right before the engine executes it; tests use it to panic inside a
// statement.
var testHookExecute func(sql string)

// rowSink sends a result's rows to the client as the statement makes
// them, in formats (nil: all text). What precedes them: with describe, the
// RowDescription (simple protocol); without, nothing (extended protocol;
// the RowDescription went out at Describe). The result's columns must have
// the shape the statement was prepared with: always without describe, and
// with it when shape is set (SQL EXECUTE).
type rowSink struct {
	describe bool
	shape    []Column
	formats  []int16
}

// start sends what precedes a result's rows, or refuses the result.
func (c *conn) start(out *rowSink, res *Result) error {
	if !out.describe || out.shape != nil {
		if err := checkShape(res, out.shape); err != nil || !out.describe {
			return err
		}
	}
	if res.Columns != nil {
		return c.sendRowDescription(res.Columns, nil)
	}
	return nil
}

// run executes a prepared statement under the statement's context
// (cancel, statement_timeout, shutdown). With out set, the rows go to the
// client as they are made and the returned Result holds none; without,
// a streamed result is collected into Rows (a portal keeps them).
func (c *conn) run(sql string, p Prepared, params []any, out *rowSink) (*Result, error) {
	ctx, cancel := c.statementContext()
	defer c.endStatement(cancel)
	if testHookExecute != nil {
		testHookExecute(sql)
	}
	res, err := c.sess.Execute(ctx, p, params)
	if err == nil && res.Deallocate != nil {
		err = c.deallocate(res.Deallocate)
	}
	if err == nil && res.Copy == nil {
		err = c.drain(res, out)
	}
	return res, statementError(ctx, err)
}

// rowDrain is the state of drain for the result being drained.
type rowDrain struct {
	c        *conn
	res      *Result
	out      *rowSink
	started  bool
	startErr error
}

// start sends what precedes the rows once, and refuses the rest of them
// if that failed.
func (d *rowDrain) start() error {
	if !d.started {
		d.started = true
		d.startErr = d.c.start(d.out, d.res)
	}
	return d.startErr
}

// send sends (out set) or collects one row of the result.
func (d *rowDrain) send(row []any) error {
	if d.out == nil {
		d.res.Rows = append(d.res.Rows, row)
		return nil
	}
	if err := d.start(); err != nil {
		return err
	}
	c := d.c
	if err := c.sendRow(d.res.Columns, row, d.out.formats); err != nil {
		return err
	}
	if c.pending >= flushThreshold {
		return c.flush()
	}
	return nil
}

// drain runs a result's stream and sends (out set) or collects its rows.
// What precedes the rows goes out with the first row, or at the end, so a
// statement that fails before its first row sends none of it, as before
// streaming. The stream always runs, so that its statement ends, also
// when start refuses the result.
func (c *conn) drain(res *Result, out *rowSink) error {
	d := &c.drainer
	d.res, d.out, d.started, d.startErr = res, out, false, nil
	defer func() { d.res, d.out, d.startErr = nil, nil, nil }()
	if res.Stream != nil {
		tag, err := res.Stream(c.drainSend)
		res.Stream, res.Tag = nil, tag
		if err != nil || out == nil {
			return err
		}
		return d.start()
	}
	if out == nil {
		return nil
	}
	if err := d.start(); err != nil {
		return err
	}
	rows := res.Rows
	res.Rows = nil
	return c.sendRows(res.Columns, rows, out.formats)
}

// deallocate forgets prepared statements for DEALLOCATE: the named one
// (26000 when there is none), or every named one.
func (c *conn) deallocate(d *Deallocation) error {
	if d.All {
		for name := range c.stmts {
			if name != "" {
				delete(c.stmts, name)
			}
		}
		return nil
	}
	if _, ok := c.stmts[d.Name]; !ok || d.Name == "" {
		return pgerror.Newf(pgerror.InvalidSqlStatementName, "prepared statement \"%s\" does not exist", d.Name)
	}
	delete(c.stmts, d.Name)
	return nil
}

// sqlPreparer is a Session that takes SQL-level PREPARE and EXECUTE
// apart; the server keeps the statements, in the namespace the protocol's
// Parse uses.
type sqlPreparer interface {
	SQLPrepareOf(st Statement) (name string, inner Statement, paramOIDs []uint32, ok bool, err error)
	SQLExecuteName(st Statement) (string, bool)
	SQLExecuteArgs(ctx context.Context, st Statement, p Prepared) ([]any, error)
}

// sqlPrepareOrExecute runs st when it is a PREPARE or an EXECUTE of the
// simple query string query; done is false for any other statement.
func (c *conn) sqlPrepareOrExecute(query string, st Statement) (done bool, err error) {
	sp, ok := c.sess.(sqlPreparer)
	if !ok {
		return false, nil
	}
	if name, ok := sp.SQLExecuteName(st); ok {
		ps, ok := c.stmts[name]
		if !ok || name == "" {
			return true, pgerror.Newf(pgerror.InvalidSqlStatementName, "prepared statement \"%s\" does not exist", name)
		}
		if ps.prep == nil {
			return true, pgerror.Newf(pgerror.FeatureNotSupported, "EXECUTE of prepared statement \"%s\", which is not an ordinary statement", name)
		}
		ctx, cancel := c.statementContext()
		params, err := sp.SQLExecuteArgs(ctx, st, ps.prep)
		c.endStatement(cancel)
		if err != nil {
			return true, err
		}
		cols, err := c.revalidate(ps)
		if err != nil {
			return true, err
		}
		c.countPlan(ps)
		return true, c.runPrepared(st.SQL(), ps.prep, params, cols)
	}
	name, inner, paramOIDs, ok, err := sp.SQLPrepareOf(st)
	if !ok || err != nil {
		return ok, err
	}
	if _, ok := c.stmts[name]; ok {
		return true, pgerror.Newf(pgerror.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", name)
	}
	if len(c.stmts) >= c.srv.cfg.MaxPreparedStatements {
		return true, pgerror.Newf(pgerror.ProgramLimitExceeded,
			"too many prepared statements: the limit per session is %d", c.srv.cfg.MaxPreparedStatements)
	}
	p, err := c.sess.Prepare(inner, paramOIDs)
	if err != nil {
		return true, err
	}
	c.stmts[name] = &preparedStmt{name: name, st: inner, prep: p, paramOIDs: p.ParamOIDs(), cols: p.Columns(),
		query: query, at: time.Now(), fromSQL: true}
	c.complete("PREPARE")
	return true, nil
}
