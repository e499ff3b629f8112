package server

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// preparedStmt is a statement made by a Parse message.
type preparedStmt struct {
	name      string
	st        Statement   // nil for an empty query
	ctl       *TxnControl // set for transaction control
	prep      Prepared    // set for ordinary statements
	paramOIDs []uint32
	cols      []Column
	// query is the query string that made the statement, at its time;
	// fromSQL is set for a PREPARE. generic and custom count the
	// executions by the plan PostgreSQL would have used (countPlan).
	query           string
	at              time.Time
	fromSQL         bool
	generic, custom int64
}

// countPlan counts an execution of the statement under the plan
// PostgreSQL's plan cache chooses (choose_custom_plan): the generic plan
// for a statement without parameters or under plan_cache_mode
// force_generic_plan; a custom plan under force_custom_plan and for the
// first five executions with parameters, the generic plan after them
// (fickle's plans cost the same for any values, so the generic one wins).
func (c *conn) countPlan(ps *preparedStmt) {
	if ps.name == "" {
		return // pg_prepared_statements does not show it
	}
	custom := false
	if len(ps.paramOIDs) > 0 && ps.ctl == nil {
		switch mode, _ := c.sess.Setting("plan_cache_mode"); mode {
		case "force_generic_plan":
		case "force_custom_plan":
			custom = true
		default:
			custom = ps.custom < 5
		}
	}
	if custom {
		ps.custom++
	} else {
		ps.generic++
	}
}

// namedStatement is the named prepared statement name for a statement
// that runs it, EXPLAIN EXECUTE or CREATE TABLE AS EXECUTE: binding it
// revalidates it and counts its plan, as EXECUTE does.
func (c *conn) namedStatement(name string) (NamedStatement, bool) {
	ps, ok := c.stmts[name]
	if !ok || name == "" {
		return NamedStatement{}, false
	}
	return NamedStatement{Prepared: ps.prep, Bind: func() error {
		if _, err := c.revalidate(ps); err != nil {
			return err
		}
		c.countPlan(ps)
		return nil
	}}, true
}

// preparedStatements describes the connection's named prepared statements
// for pg_prepared_statements.
func (c *conn) preparedStatements() []PreparedStatementInfo {
	out := make([]PreparedStatementInfo, 0, len(c.stmts))
	for _, ps := range c.stmts {
		if ps.name == "" {
			continue
		}
		out = append(out, PreparedStatementInfo{Name: ps.name, Statement: ps.query, PrepareTime: ps.at, ParamOIDs: ps.paramOIDs,
			FromSQL: ps.fromSQL, GenericPlans: ps.generic, CustomPlans: ps.custom})
	}
	return out
}

// isExit reports whether the statement may run in a failed transaction:
// COMMIT, ROLLBACK and ROLLBACK TO (PostgreSQL's IsTransactionExitStmt).
func (ps *preparedStmt) isExit() bool {
	if ps.ctl == nil {
		return false
	}
	switch ps.ctl.Kind {
	case TxnCommit, TxnRollback, TxnRollbackTo:
		return true
	}
	return false
}

// portal is a bound statement made by a Bind message, with its result
// once executed and how far Execute has sent it.
type portal struct {
	stmt   *preparedStmt
	params []any
	// cols are the columns the portal returns: its statement's, or for a
	// FETCH its cursor's when it was bound (portalColumns).
	cols    []Column
	formats []int16 // one result format per column; nil means all text
	res     *Result
	sent    int
	// finished is what res points to once an Execute has sent all the
	// rows: the columns and the tag, kept here so that a statement needs
	// no allocation for it.
	finished Result
}

// extendedError reports an error of the extended protocol: the transaction
// fails and every message up to the next Sync is skipped.
func (c *conn) extendedError(err error) {
	c.fail()
	c.sendError(err)
	c.reportChanges()
	c.skipToSync = true
}

func (c *conn) parse(m *pgproto3.Parse) {
	if m.Name != "" {
		if _, ok := c.stmts[m.Name]; ok {
			c.extendedError(pgerror.Newf(pgerror.DuplicatePreparedStatement, "prepared statement %q already exists", m.Name))
			return
		}
		if len(c.stmts) >= c.srv.cfg.MaxPreparedStatements {
			c.extendedError(pgerror.Newf(pgerror.ProgramLimitExceeded,
				"too many prepared statements: the limit per session is %d", c.srv.cfg.MaxPreparedStatements))
			return
		}
	}
	stmts, err := c.sess.Parse(m.Query)
	if err != nil {
		c.extendedError(err)
		return
	}
	if len(stmts) > 1 {
		c.extendedError(pgerror.New(pgerror.SyntaxError, "cannot insert multiple commands into a prepared statement"))
		return
	}
	ps := &preparedStmt{name: m.Name, paramOIDs: append([]uint32(nil), m.ParameterOIDs...), query: m.Query, at: time.Now()}
	if len(stmts) == 1 {
		ps.st = stmts[0]
		if ctl, ok := ps.st.TxnControl(); ok {
			ps.ctl = &ctl
		}
	}
	if c.state == stateFailed && !ps.isExit() {
		c.extendedError(errAborted)
		return
	}
	if ps.st != nil && ps.ctl == nil {
		p, err := c.sess.Prepare(ps.st, ps.paramOIDs)
		if err != nil {
			c.extendedError(err)
			return
		}
		ps.prep, ps.paramOIDs, ps.cols = p, p.ParamOIDs(), p.Columns()
	}
	c.stmts[m.Name] = ps
	c.be.Send(&pgproto3.ParseComplete{})
}

var errAborted = pgerror.New(pgerror.InFailedSqlTransaction,
	"current transaction is aborted, commands ignored until end of transaction block")

func (c *conn) lookupStmt(name string) (*preparedStmt, error) {
	if ps, ok := c.stmts[name]; ok {
		return ps, nil
	}
	if name == "" {
		return nil, pgerror.New(pgerror.InvalidSqlStatementName, "unnamed prepared statement does not exist")
	}
	return nil, pgerror.Newf(pgerror.InvalidSqlStatementName, "prepared statement %q does not exist", name)
}

func (c *conn) lookupPortal(name string) (*portal, error) {
	if p, ok := c.portals[name]; ok {
		return p, nil
	}
	return nil, pgerror.Newf(pgerror.InvalidCursorName, "portal %q does not exist", name)
}

func (c *conn) bind(m *pgproto3.Bind) {
	ps, err := c.lookupStmt(m.PreparedStatement)
	if err != nil {
		c.extendedError(err)
		return
	}
	if c.state == stateFailed && !ps.isExit() {
		c.extendedError(errAborted)
		return
	}
	if m.DestinationPortal != "" {
		if _, ok := c.portals[m.DestinationPortal]; ok {
			c.extendedError(pgerror.Newf(pgerror.DuplicateCursor, "portal %q already exists", m.DestinationPortal))
			return
		}
		if len(c.portals) >= c.srv.cfg.MaxPortals {
			c.extendedError(pgerror.Newf(pgerror.ProgramLimitExceeded,
				"too many portals: the limit per session is %d", c.srv.cfg.MaxPortals))
			return
		}
	}
	params, err := c.decodeParams(ps, m.ParameterFormatCodes, m.Parameters)
	if err != nil {
		c.extendedError(err)
		return
	}
	cols, err := c.revalidate(ps)
	if err != nil {
		c.extendedError(err)
		return
	}
	formats, err := resultFormats(cols, m.ResultFormatCodes)
	if err != nil {
		c.extendedError(err)
		return
	}
	c.countPlan(ps)
	// A Bind replaces the unnamed portal statement after statement: its
	// struct is reused, as nothing keeps it between messages.
	if p, ok := c.portals[m.DestinationPortal]; ok {
		*p = portal{stmt: ps, params: params, cols: cols, formats: formats}
	} else {
		c.portals[m.DestinationPortal] = &portal{stmt: ps, params: params, cols: cols, formats: formats}
	}
	c.be.Send(&pgproto3.BindComplete{})
}

// decodeParams turns Bind's parameter values into datums, each in its
// format: zero codes mean all text, one code applies to all.
func (c *conn) decodeParams(ps *preparedStmt, codes []int16, values [][]byte) ([]any, error) {
	name := ps.name
	if len(values) != len(ps.paramOIDs) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation,
			"bind message supplies %d parameters, but prepared statement %q requires %d", len(values), name, len(ps.paramOIDs))
	}
	if len(codes) > 1 && len(codes) != len(values) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation,
			"bind message has %d parameter formats but %d parameters", len(codes), len(values))
	}
	if len(values) == 0 {
		return nil, nil
	}
	oids := ps.paramOIDs
	if ps.prep != nil {
		oids = ps.prep.ValueOIDs()
	}
	params := make([]any, len(values))
	for i, v := range values {
		if v == nil {
			continue
		}
		format := formatText
		switch len(codes) {
		case 1:
			format = codes[0]
		case len(values):
			format = codes[i]
		}
		oid := oids[i]
		var err error
		switch format {
		case formatText:
			// PostgreSQL converts a text parameter to the server's
			// encoding, or verifies it is valid there, before its type's
			// input function sees it (pg_client_to_server).
			var text string
			if text, err = c.fromClient(string(v)); err != nil {
				return nil, err
			}
			if bad := pgerror.CheckUTF8(text); bad != nil {
				return nil, bad
			}
			params[i], err = c.sess.ParseText(oid, text)
		case formatBinary:
			if err := c.checkBinaryText(oid); err != nil {
				return nil, err
			}
			if oid == uint32(types.OidXML) {
				// xml_recv reads the text as xml_in does, in the
				// session's xmloption.
				params[i], err = c.sess.ParseText(oid, string(v))
				break
			}
			params[i], err = decodeBinaryValue(oid, v)
			if errors.Is(err, wire.ErrIncorrectBinaryFormat) {
				err = pgerror.Wrapf(err, pgerror.InvalidBinaryRepresentation,
					"incorrect binary data format in bind parameter %d", i+1)
			}
		default:
			err = pgerror.Newf(pgerror.ProtocolViolation, "unsupported format code: %d", format)
		}
		if err != nil {
			return nil, err
		}
	}
	return params, nil
}

// resultFormats expands Bind's result format codes to one per column (nil
// when all are text) and checks that binary ones have a codec.
func resultFormats(cols []Column, codes []int16) ([]int16, error) {
	if len(codes) == 0 || (len(codes) == 1 && codes[0] == formatText) {
		return nil, nil
	}
	if len(codes) != 1 && len(codes) != len(cols) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation,
			"bind message has %d result formats but query has %d columns", len(codes), len(cols))
	}
	formats := make([]int16, len(cols))
	for i := range cols {
		f := codes[0]
		if len(codes) > 1 {
			f = codes[i]
		}
		switch f {
		case formatText:
		case formatBinary:
			if !supportsBinaryType(types.Type{Oid: types.Oid(cols[i].TypeOID), Typmod: cols[i].TypeMod}) {
				return nil, binaryOutputError(cols[i])
			}
		default:
			return nil, pgerror.Newf(pgerror.ProtocolViolation, "unsupported format code: %d", f)
		}
		formats[i] = f
	}
	return formats, nil
}

func (c *conn) describe(m *pgproto3.Describe) {
	switch m.ObjectType {
	case 'S':
		ps, err := c.lookupStmt(m.Name)
		if err != nil {
			c.extendedError(err)
			return
		}
		if c.state == stateFailed && ps.cols != nil {
			// Describing rows needs the catalog, which a failed
			// transaction may not read (exec_describe_statement_message).
			c.extendedError(errAborted)
			return
		}
		c.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: ps.paramOIDs})
		c.describeRows(ps.cols, nil)
	case 'P':
		p, err := c.lookupPortal(m.Name)
		if err != nil {
			if cols, ok := c.sess.CursorColumns(m.Name); ok && c.state != stateFailed {
				c.describeRows(cols, nil)
				return
			}
			c.extendedError(err)
			return
		}
		if c.state == stateFailed && p.cols != nil {
			c.extendedError(errAborted)
			return
		}
		c.describeRows(p.cols, p.formats)
	default:
		c.extendedError(pgerror.Newf(pgerror.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType))
	}
}

func (c *conn) describeRows(cols []Column, formats []int16) {
	if cols == nil {
		c.be.Send(&pgproto3.NoData{})
		return
	}
	if err := c.sendRowDescription(cols, formats); err != nil {
		c.extendedError(err)
	}
}

func (c *conn) execute(m *pgproto3.Execute) {
	p, err := c.lookupPortal(m.Portal)
	if err != nil {
		c.extendedError(err)
		return
	}
	ps := p.stmt
	switch {
	case ps.st == nil:
		c.be.Send(&pgproto3.EmptyQueryResponse{})
		return
	case ps.ctl != nil:
		tag, err := c.runTxnControl(ps.st.SQL(), *ps.ctl)
		if err != nil {
			c.extendedError(err)
			return
		}
		c.reportChanges()
		c.complete(tag)
		return
	}
	if op, ok := ps.st.CursorOp(); ok && p.res == nil {
		if done, err := c.portalOp(op, true); done {
			if err != nil {
				c.extendedError(err)
			}
			return
		}
	}
	if p.res == nil {
		if err := c.beforeStatement(); err != nil {
			c.extendedError(err)
			return
		}
		// An Execute that fetches every row streams them; one with a row
		// count keeps the rest in the portal for the next Execute.
		var out *rowSink
		if m.MaxRows == 0 {
			c.sink = rowSink{shape: p.cols, formats: p.formats}
			out = &c.sink
		}
		res, err := c.run(ps.st.SQL(), ps.prep, p.params, out)
		if err != nil {
			c.extendedError(err)
			return
		}
		if res.Copy != nil {
			if err := c.copy(res.Copy); err != nil {
				c.extendedError(err)
			}
			return
		}
		if out != nil {
			// The portal is done: a later Execute of it sends nothing.
			p.finished = Result{Columns: res.Columns, Tag: res.Tag}
			p.res = &p.finished
			if strings.HasPrefix(res.Tag, "SELECT ") {
				p.res.Tag = "SELECT 0"
			}
			c.reportChanges()
			c.complete(res.Tag)
			return
		}
		if err := checkShape(res, p.cols); err != nil {
			c.extendedError(err)
			return
		}
		p.res = res
		c.reportChanges()
	}
	rows := p.res.Rows[p.sent:]
	if m.MaxRows > 0 && uint32(len(rows)) > m.MaxRows {
		rows = rows[:m.MaxRows]
	}
	if err := c.sendRows(p.res.Columns, rows, p.formats); err != nil {
		c.extendedError(err)
		return
	}
	p.sent += len(rows)
	if p.sent < len(p.res.Rows) {
		c.be.Send(&pgproto3.PortalSuspended{})
		return
	}
	tag := p.res.Tag
	if strings.HasPrefix(tag, "SELECT ") && len(rows) != len(p.res.Rows) {
		tag = "SELECT " + strconv.Itoa(len(rows))
	}
	c.complete(tag)
}

func (c *conn) closeObject(m *pgproto3.Close) {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		delete(c.portals, m.Name)
	default:
		c.extendedError(pgerror.Newf(pgerror.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType))
		return
	}
	c.be.Send(&pgproto3.CloseComplete{})
}

// sync ends an extended-protocol batch: the implicit transaction commits,
// error-skipping stops and ReadyForQuery reports the state.
func (c *conn) sync() {
	c.skipToSync = false
	if err := c.endBatch(); err != nil {
		c.be.Send(c.errorToClient(wire.ErrorResponse(err)))
	}
	c.reportChanges()
	c.ready()
}

// errResultShapeChanged is PostgreSQL's refusal of a prepared statement
// whose re-planned result differs from the one it was prepared with.
var errResultShapeChanged = pgerror.New(pgerror.FeatureNotSupported, "cached plan must not change result type")

// checkShape refuses a result whose columns are not the prepared ones:
// the portal's formats and the client's RowDescription were made for
// those.
func checkShape(res *Result, prepared []Column) error {
	if !sameShape(res.Columns, prepared) {
		return errResultShapeChanged
	}
	return nil
}

// sameShape reports whether columns got, the server's or the engine's
// description of a re-planned result, are the prepared ones.
func sameShape[C Column | sqlexec.Column](got []C, prepared []Column) bool {
	if len(got) != len(prepared) {
		return false
	}
	for i := range got {
		if !sameColumnShape(Column(got[i]), prepared[i]) {
			return false
		}
	}
	return true
}

// sameColumnShape reports whether a re-planned column is the prepared one
// in name, type and type modifier, as PostgreSQL's plan cache compares a
// re-planned statement's result with the one it was prepared with (so
// renaming a column, or changing its length, is refused too).
func sameColumnShape(got, prepared Column) bool {
	return got.Name == prepared.Name && got.TypeOID == prepared.TypeOID && got.TypeMod == prepared.TypeMod
}

// revalidator is a Session that re-plans a prepared statement after DDL:
// PostgreSQL does so when a statement is bound (Bind, EXECUTE), before
// running anything.
type revalidator interface {
	Revalidate(p Prepared) error
}

// revalidate re-plans ps, when the session can, and returns the columns a
// portal of it returns (portalColumns); it refuses a statement whose
// re-planned result changed shape.
func (c *conn) revalidate(ps *preparedStmt) ([]Column, error) {
	if cols, ok := c.fetchColumns(ps); ok {
		return cols, nil
	}
	if r, ok := c.sess.(revalidator); ok && ps.prep != nil {
		if err := r.Revalidate(ps.prep); err != nil {
			return nil, err
		}
		if !sameShape(ps.prep.Columns(), ps.cols) {
			return nil, errResultShapeChanged
		}
	}
	return ps.cols, nil
}

// fetchColumns returns the columns of a FETCH from an SQL cursor that
// exists: the cursor's at the time of the Bind, whatever the statement was
// described with when prepared (NoData before the cursor was declared).
// PostgreSQL, too, gives a utility statement's portal its result when it
// starts, without the plan cache's check of the result.
func (c *conn) fetchColumns(ps *preparedStmt) ([]Column, bool) {
	if ps.st == nil {
		return nil, false
	}
	op, ok := ps.st.CursorOp()
	if !ok || op.Close || op.Move {
		return nil, false
	}
	if _, ok := c.portals[op.Name]; ok {
		return nil, false
	}
	return c.sess.CursorColumns(op.Name)
}
