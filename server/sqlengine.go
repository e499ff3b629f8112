package server

import (
	"context"
	"io"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// NewSQLEngine adapts a sqlexec engine to the server's Engine interface.
// The adapter only converts between the two packages' plain types; it owns
// the session's text I/O settings (TimeZone) for the values it formats.
func NewSQLEngine(e *sqlexec.Engine) Engine { return sqlEngine{e: e} }

// NewMemoryEngine returns a fresh in-memory database: an isolation store
// with cfg and a sqlexec engine over it that knows the store's strategy,
// recording and real time (for fickle.strategy and fickle_check()).
func NewMemoryEngine(cfg isolation.Config) (Engine, *isolation.Store, error) {
	store := isolation.NewStore(cfg)
	e, err := sqlexec.NewEngine(sqlexec.Config{Store: store, Strategy: cfg.Strategy, Record: cfg.Record, RealTime: cfg.RealTime})
	if err != nil {
		return nil, nil, err
	}
	return NewSQLEngine(e), store, nil
}

type sqlEngine struct{ e *sqlexec.Engine }

func (a sqlEngine) NewSession(info SessionInfo) (Session, error) {
	s, err := a.e.Connect(sqlexec.SessionInfo(info))
	if err != nil {
		return nil, err
	}
	return &sqlSession{s: s}, nil
}

type sqlSession struct {
	s *sqlexec.Session

	// notices are the executed statements' notices not yet sent.
	notices []*pgerror.Error
}

type sqlStatement struct{ st *sqlexec.Statement }

func (w sqlStatement) SQL() string { return w.st.SQL() }

func (w sqlStatement) TxnControl() (TxnControl, bool) {
	c, ok := w.st.TxnControl()
	if !ok {
		return TxnControl{}, false
	}
	return TxnControl{Kind: TxnControlKind(c.Kind), Options: TxnOptions(c.Options), Savepoint: c.Savepoint, Chain: c.Chain, GID: c.GID}, true
}

func (w sqlStatement) CursorOp() (CursorOp, bool) {
	op, ok := w.st.CursorOp()
	return CursorOp(op), ok
}

type sqlPrepared struct {
	p    *sqlexec.Prepared
	cols []Column
}

func (p *sqlPrepared) ParamOIDs() []uint32 { return p.p.ParamOIDs }
func (p *sqlPrepared) ValueOIDs() []uint32 { return p.p.ValueOIDs }
func (p *sqlPrepared) Columns() []Column   { return p.cols }

func columns(cs []sqlexec.Column) []Column {
	if cs == nil {
		return nil
	}
	out := make([]Column, len(cs))
	for i, c := range cs {
		out[i] = Column(c)
	}
	return out
}

func (s *sqlSession) Close() { s.s.Close() }

func (s *sqlSession) Parse(sql string) ([]Statement, error) {
	stmts, err := s.s.Parse(sql)
	if err != nil {
		return nil, err
	}
	out := make([]Statement, len(stmts))
	for i, st := range stmts {
		out[i] = sqlStatement{st}
	}
	return out, nil
}

func (s *sqlSession) Begin(opts TxnOptions, explicit bool) error {
	return s.s.Begin(sqlexec.TxnOptions(opts), explicit)
}
func (s *sqlSession) Commit() error   { return s.s.Commit() }
func (s *sqlSession) Rollback() error { return s.s.Rollback() }
func (s *sqlSession) Savepoint(ctx context.Context, name string) error {
	return s.s.Savepoint(ctx, name)
}
func (s *sqlSession) ReleaseSavepoint(name string) error    { return s.s.ReleaseSavepoint(name) }
func (s *sqlSession) RollbackToSavepoint(name string) error { return s.s.RollbackToSavepoint(name) }
func (s *sqlSession) InTxn() bool                           { return s.s.InTxn() }
func (s *sqlSession) PrepareTransaction() error             { return s.s.PrepareTransaction() }
func (s *sqlSession) ReportedParameters() map[string]string { return s.s.ReportedParameters() }
func (s *sqlSession) TakeChangedParameters() map[string]string {
	return s.s.TakeChangedParameters()
}

func (s *sqlSession) Notified() <-chan struct{} { return s.s.Notified() }

func (s *sqlSession) TakeNotifications() []Notification {
	in := s.s.TakeNotifications()
	out := make([]Notification, len(in))
	for i, n := range in {
		out[i] = Notification(n)
	}
	return out
}

// TakeNotices returns the notices of the statements executed since the last
// call (sqlexec hands them over with each Result, and keeps those of a
// statement that failed).
func (s *sqlSession) TakeNotices() []*pgerror.Error {
	n := append(s.notices, s.s.TakeNotices()...)
	s.notices = nil
	return n
}

func (s *sqlSession) Setting(name string) (string, bool) { return s.s.Setting(name) }

func (s *sqlSession) CursorColumns(name string) ([]Column, bool) {
	cols, ok := s.s.CursorColumns(name)
	return columns(cols), ok
}

func (s *sqlSession) Prepare(st Statement, paramOIDs []uint32) (Prepared, error) {
	p, err := s.s.Prepare(st.(sqlStatement).st, paramOIDs)
	if err != nil {
		return nil, err
	}
	return &sqlPrepared{p: p, cols: columns(p.Columns)}, nil
}

// PrepareLiterals prepares a one-statement simple query through sqlexec's
// literal cache.
func (s *sqlSession) PrepareLiterals(sql string) (Prepared, []any, bool) {
	p, params, ok := s.s.PrepareLiterals(sql)
	if !ok {
		return nil, nil, false
	}
	return &sqlPrepared{p: p, cols: columns(p.Columns)}, params, true
}

func (s *sqlSession) Execute(ctx context.Context, p Prepared, params []any) (*Result, error) {
	sp := p.(*sqlPrepared)
	res, err := s.s.ExecuteStream(ctx, sp.p, params)
	if err != nil {
		return nil, err
	}
	s.notices = append(s.notices, res.Notices...)
	out := &Result{Rows: res.Rows, Stream: res.Stream, Tag: res.Tag}
	if res.Deallocate != nil {
		out.Deallocate = &Deallocation{Name: res.Deallocate.Name, All: res.Deallocate.All}
	}
	if (res.Columns == nil) == (sp.cols == nil) && len(res.Columns) == len(sp.cols) && sameColumns(res.Columns, sp.cols) {
		out.Columns = sp.cols
	} else {
		out.Columns = columns(res.Columns)
	}
	if res.Copy != nil {
		req := *res.Copy
		req.Codec = wireCodec{}
		out.Copy = &CopyRequest{In: req.In, Binary: req.Format == sqlexec.CopyBinary, Columns: columns(req.Columns), Handle: &req}
	}
	return out, nil
}

func sameColumns(a []sqlexec.Column, b []Column) bool {
	for i := range a {
		if Column(a[i]) != b[i] {
			return false
		}
	}
	return true
}

func (s *sqlSession) CopyIn(ctx context.Context, req *CopyRequest, data io.Reader) (string, error) {
	return s.s.CopyIn(ctx, req.Handle.(*sqlexec.CopyRequest), data)
}

func (s *sqlSession) CopyOut(ctx context.Context, req *CopyRequest, emit func(line []byte) error) (string, error) {
	return s.s.CopyOut(ctx, req.Handle.(*sqlexec.CopyRequest), emit)
}

// AppendText appends a value's text form in the session's settings
// (TimeZone, DateStyle, extra_float_digits, regclass names).
func (s *sqlSession) AppendText(buf []byte, col *Column, v any) []byte {
	return append(buf, s.s.FormatText(types.Type{Oid: types.Oid(col.TypeOID), Typmod: col.TypeMod}, v)...)
}

// ParseText reads a parameter's text form in the session's settings.
func (s *sqlSession) ParseText(oid uint32, text string) (any, error) {
	if oid == 0 {
		oid = uint32(types.OidUnknown)
	}
	return s.s.ParseText(types.Type{Oid: types.Oid(oid), Typmod: -1}, text)
}

// ListPreparedStatements shows list's statements in pg_prepared_statements.
func (s *sqlSession) ListPreparedStatements(list func() []PreparedStatementInfo) {
	s.s.ListPreparedStatements(func() []sqlexec.PreparedStatementInfo {
		l := list()
		out := make([]sqlexec.PreparedStatementInfo, len(l))
		for i, p := range l {
			out[i] = sqlexec.PreparedStatementInfo(p)
		}
		return out
	})
}

// FindPreparedStatements lets the session's statements run the
// connection's prepared statements that find finds.
func (s *sqlSession) FindPreparedStatements(find func(name string) (NamedStatement, bool)) {
	s.s.FindPreparedStatements(func(name string) (sqlexec.NamedStatement, bool) {
		ns, ok := find(name)
		if !ok {
			return sqlexec.NamedStatement{}, false
		}
		out := sqlexec.NamedStatement{Bind: ns.Bind}
		if sp, ok := ns.Prepared.(*sqlPrepared); ok {
			out.Prepared = sp.p
		}
		return out, true
	})
}

// SQLPrepareOf takes a PREPARE statement apart (sqlexec's SQLPrepareOf).
func (s *sqlSession) SQLPrepareOf(st Statement) (name string, inner Statement, paramOIDs []uint32, ok bool, err error) {
	p, ok, err := s.s.SQLPrepareOf(st.(sqlStatement).st)
	if !ok || err != nil {
		return "", nil, nil, ok, err
	}
	return p.Name, sqlStatement{p.Statement}, p.ParamOIDs, true, nil
}

// Revalidate re-plans p if DDL changed what it reads; p's Columns are then
// the new plan's.
func (s *sqlSession) Revalidate(p Prepared) error {
	sp := p.(*sqlPrepared)
	if err := s.s.Revalidate(sp.p); err != nil {
		return err
	}
	sp.cols = columns(sp.p.Columns)
	return nil
}

// SQLExecuteName returns the prepared statement an EXECUTE runs.
func (s *sqlSession) SQLExecuteName(st Statement) (string, bool) {
	return st.(sqlStatement).st.SQLExecuteName()
}

// SQLExecuteArgs evaluates an EXECUTE's arguments as p's parameters'
// types.
func (s *sqlSession) SQLExecuteArgs(ctx context.Context, st Statement, p Prepared) ([]any, error) {
	return s.s.SQLExecuteArgs(ctx, st.(sqlStatement).st, p.(*sqlPrepared).p)
}
