package sqlexec

import (
	"context"
	"io"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// Config configures an Engine.
type Config struct {
	// Store is the multi-version store every session's transactions run on.
	Store *isolation.Store
	// DefaultIsolation is the level of every transaction that asks for none
	// (fickle serve --isolation); history.LevelUnknown means read
	// committed. PostgreSQL's levels become the sessions'
	// default_transaction_isolation, fickle's others their fickle.isolation;
	// a session that sets default_transaction_isolation itself gets it.
	DefaultIsolation history.Level
	// Strategy is the store's default strategy (isolation.Config.Strategy),
	// which fickle.strategy shows and RESET returns to in every session.
	Strategy isolation.Strategy
	// Record says the store records its history (isolation.Config.Record);
	// without it fickle_check() fails with 55000.
	Record bool
	// RealTime says the store adds real time to every level
	// (isolation.Config.RealTime); fickle_check() checks with it.
	RealTime bool
	// Database names the main database (DefaultDatabase when empty): the
	// one NewEngine returns, where fickle serve --load runs. The server
	// also has PostgreSQL's postgres, template0 and template1, and CREATE
	// DATABASE adds more; all share Store.
	Database string
}

// NewEngine returns the main database of a new server: its catalog, its
// sequences and the store that holds its rows, which the server's other
// databases share.
func NewEngine(cfg Config) (*Engine, error) { return newEngine(cfg) }

// Connect opens a session of the database info.Database names (the user's
// name when empty), as a connection's startup does: 3D000 when there is no
// such database.
func (e *Engine) Connect(info SessionInfo) (*Session, error) { return e.cluster.connect(info) }

// SessionInfo describes the client connection a Session serves.
type SessionInfo struct {
	ProcessID       uint32
	User            string
	Database        string
	ApplicationName string
	// StartupParams are the parameters of the startup message; recognized
	// settings (DateStyle, TimeZone, search_path, ...) become the session's
	// initial values.
	StartupParams map[string]string
	// Terminate, when set, ends the session's connection with FATAL 57P01,
	// as pg_terminate_backend does (DROP DATABASE ... WITH (FORCE)).
	Terminate func()
	// Cancel, when set, cancels the running statement with 57014, as
	// pg_cancel_backend does; the engine calls it from any goroutine.
	Cancel func()
	// ClientAddr and ClientPort are the TCP client's address and port;
	// ClientAddr is empty for a Unix-socket client.
	ClientAddr string
	ClientPort int
	// ServerAddr and ServerPort are the address and port the client
	// connected to (inet_server_addr, inet_server_port); ServerAddr is
	// empty for a Unix-socket client.
	ServerAddr string
	ServerPort int
	// ServerSettings are the server parameters the server's own
	// configuration decides (port, listen_addresses, max_connections,
	// ssl), as PostgreSQL's command line sets them.
	ServerSettings map[string]string
}

// NewSession returns a session of this database with its settings
// initialised from info.
func (e *Engine) NewSession(info SessionInfo) *Session { return e.newSession(info) }

// Close rolls back any open transaction and releases the session.
func (s *Session) Close() { s.close() }

// Parse splits sql into its statements (a simple query may hold several) and
// parses each. Parse errors are 42601 with Position set. Parsed statements are
// cached by text, so parsing the same text again is cheap. An empty query
// returns no statements.
func (s *Session) Parse(sql string) (sts []*Statement, err error) {
	defer recoverInternal(&err)
	if v, _ := s.setting("standard_conforming_strings"); v == "off" {
		if sql, err = rewriteNonStandardStrings(sql); err != nil {
			return nil, err
		}
	}
	return s.engine.parse(sql)
}

// SQL returns this statement's own text, without the other statements of the
// query string it came from.
func (st *Statement) SQL() string { return st.sql }

// TxnControl reports whether the statement is transaction control (BEGIN,
// COMMIT, ROLLBACK, SAVEPOINT, ...), which the server's state machine handles
// by calling Begin, Commit and the others, and returns what it asks for.
func (st *Statement) TxnControl() (TxnControl, bool) { return st.txn, st.isTxn }

// TxnControlKind is the kind of a transaction-control statement.
type TxnControlKind int

// The transaction-control statements.
const (
	TxnBegin            TxnControlKind = iota + 1 // BEGIN, START TRANSACTION
	TxnCommit                                     // COMMIT, END
	TxnRollback                                   // ROLLBACK, ABORT
	TxnSavepoint                                  // SAVEPOINT name
	TxnRelease                                    // RELEASE [SAVEPOINT] name
	TxnRollbackTo                                 // ROLLBACK TO [SAVEPOINT] name
	TxnPrepare                                    // PREPARE TRANSACTION gid
	TxnCommitPrepared                             // COMMIT PREPARED gid
	TxnRollbackPrepared                           // ROLLBACK PREPARED gid
)

// TxnControl is a parsed transaction-control statement.
type TxnControl struct {
	Kind      TxnControlKind
	Options   TxnOptions // for TxnBegin
	Savepoint string     // for TxnSavepoint, TxnRelease, TxnRollbackTo
	GID       string     // for TxnPrepare, TxnCommitPrepared, TxnRollbackPrepared
	Chain     bool       // COMMIT AND CHAIN, ROLLBACK AND CHAIN
}

// TxnOptions are the transaction modes of BEGIN, START TRANSACTION and SET
// TRANSACTION.
type TxnOptions struct {
	// Isolation is the requested level, "" for the session default. It holds
	// a PostgreSQL level name ("read committed", "repeatable read", ...) or a
	// fickle one ("causal", "prefix", ...), as history.ParseLevel accepts.
	Isolation     string
	ReadOnly      bool
	ReadWrite     bool
	Deferrable    bool
	NotDeferrable bool
}

// Begin opens a transaction with opts over the session's defaults. explicit
// is false for the implicit transaction the server opens around a statement
// outside a transaction block.
func (s *Session) Begin(opts TxnOptions, explicit bool) error { return s.begin(opts, explicit) }

// Commit commits the open transaction. On error (for example 40001) the
// transaction is gone as well.
func (s *Session) Commit() error { return s.commit() }

// Rollback rolls back the open transaction, if any.
func (s *Session) Rollback() error { return s.rollback() }

// Savepoint establishes a savepoint in the open transaction.
func (s *Session) Savepoint(ctx context.Context, name string) error { return s.savepoint(ctx, name) }

// ReleaseSavepoint releases the named savepoint and every later one; 3B001
// if there is none of that name.
func (s *Session) ReleaseSavepoint(name string) error { return s.releaseSavepoint(name) }

// RollbackToSavepoint undoes the writes made since the named savepoint and
// keeps it; 3B001 if there is none of that name.
func (s *Session) RollbackToSavepoint(name string) error { return s.rollbackToSavepoint(name) }

// InTxn reports whether a transaction is open.
func (s *Session) InTxn() bool { return s.txn != nil }

// Prepare resolves the names and types of an ordinary statement, as
// PostgreSQL's Parse message does: unknown tables, columns and type mismatches
// fail here (42P01, 42703, 42804). paramOIDs gives the client's parameter
// types; zeros (and missing trailing entries) are inferred from context. The
// plan is cached in the returned Prepared.
func (s *Session) Prepare(st *Statement, paramOIDs []uint32) (p *Prepared, err error) {
	defer recoverInternal(&err)
	return s.prepare(st, paramOIDs)
}

// Prepared is a statement whose names and types are resolved.
type Prepared struct {
	Statement *Statement
	// ParamOIDs holds the type of every $n placeholder, inferred where the
	// client left it 0.
	ParamOIDs []uint32
	// ValueOIDs holds the type each parameter's value is read as:
	// ParamOIDs' own, but a domain's base type for a parameter of a domain.
	ValueOIDs []uint32
	// Columns describes the rows the statement returns; nil when it returns
	// none.
	Columns []Column

	plan   *stmtPlan
	schema uint64 // catalog version the plan was made against
	roles  uint64 // the roles' version it was made against (roleCatalog.version)
	// replica is the session's replication role the plan was made in
	// (Session.replica): which triggers and rules it runs.
	replica bool
	// path is the effective search path it was made under (planPath).
	path string
	// paramTypes are the parameters' types, and paramTargets the column
	// types (with their modifiers) of those assigned to columns as whole
	// values (binder.paramTargets).
	paramTypes, paramTargets []types.Type
	// bound is set on a statement the literal cache prepared: its literals
	// are the parameters.
	bound *literalBinding
	// litPredicate is the history's WHERE clause template of a plan the
	// literal cache made (predicateTemplate), computed on first use.
	litPredicate *string
}

// Column describes one result column, as a RowDescription field.
type Column struct {
	Name     string
	TypeOID  uint32
	TypeSize int16
	TypeMod  int32
	TableOID uint32
	AttNum   int16
}

// Execute runs a prepared ordinary statement inside the open transaction (the
// server opens an implicit one first when none is open). params are datums
// in the representation of DESIGN's datum table, one per ParamOIDs entry.
// Cancelling ctx (CancelRequest, statement_timeout) makes it return 57014.
func (s *Session) Execute(ctx context.Context, p *Prepared, params []any) (res *Result, err error) {
	defer recoverInternal(&err)
	return s.tracked(p, func() (*Result, error) { return s.execute(ctx, p, params, false) })
}

// ExecuteStream is Execute for a caller that sends the rows on as they
// come: a SELECT whose rows no operator needs all of (no sort, aggregate,
// DISTINCT, window or lock stage) returns Result.Stream instead of Rows,
// and runs while the caller drains it.
func (s *Session) ExecuteStream(ctx context.Context, p *Prepared, params []any) (res *Result, err error) {
	defer recoverInternal(&err)
	return s.tracked(p, func() (*Result, error) { return s.execute(ctx, p, params, true) })
}

// Result is what an executed statement returns.
type Result struct {
	Columns []Column
	Rows    [][]any
	// Stream, set by ExecuteStream instead of Rows and Tag, runs the
	// statement: it passes each row to send in order (stopping at the
	// first error send returns) and returns the command tag. The caller
	// must call it once, under the context given to ExecuteStream; the
	// statement, and the implicit transaction around it, end when it
	// returns, and the session runs nothing else until then.
	Stream func(send func(row []any) error) (tag string, err error)
	// Tag is the command tag: "INSERT 0 3", "SELECT 2", "SET", ...
	Tag string
	// Copy, when set, asks the server to run the COPY sub-protocol and then
	// call CopyIn or CopyOut with it; Rows and Tag are empty then.
	Copy *CopyRequest
	// Notices are sent to the client as NoticeResponse messages before the
	// command completes (Severity "NOTICE" or "WARNING"), for example
	// 'table "t" does not exist, skipping' after DROP TABLE IF EXISTS.
	Notices []*pgerror.Error
	// Deallocate, set by DEALLOCATE, asks the server to forget prepared
	// statements, which it keeps (the SQL statement and the protocol
	// share one namespace of prepared statements, as in PostgreSQL).
	Deallocate *Deallocation
}

// Deallocation is a DEALLOCATE: the named prepared statement, or all.
type Deallocation struct {
	Name string
	All  bool
}

// CopyFormat is the data format of a COPY.
type CopyFormat int

// The COPY formats.
const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

// CopyRequest is a COPY ... FROM STDIN or TO STDOUT the server must drive.
type CopyRequest struct {
	In      bool // FROM STDIN
	Format  CopyFormat
	Columns []Column
	// Codec encodes and decodes the values of a CopyBinary; the server sets
	// it (on its own copy of the request) before CopyIn or CopyOut.
	Codec BinaryCodec

	copy *copyPlan
	// stmt is the COPY statement as the history records it: the rows it
	// writes or reads are its own, not the transaction's last statement's.
	stmt history.Statement
}

// CopyIn loads the rows read from data (the concatenated CopyData payloads)
// inside the open transaction and returns the command tag ("COPY n").
func (s *Session) CopyIn(ctx context.Context, req *CopyRequest, data io.Reader) (tag string, err error) {
	defer recoverInternal(&err)
	return s.copyIn(ctx, req, data)
}

// CopyOut formats the rows of a COPY ... TO STDOUT, one line (terminated by
// a newline) per call of emit, or in the binary format one tuple per call
// (the header with the first, the trailer alone last), and returns the
// command tag ("COPY n").
func (s *Session) CopyOut(ctx context.Context, req *CopyRequest, emit func(line []byte) error) (tag string, err error) {
	defer recoverInternal(&err)
	return s.copyOut(ctx, req, emit)
}

// ReportedParameters returns the full initial set of parameters a server
// announces with ParameterStatus (server_version "15.0", client_encoding,
// DateStyle, ...).
func (s *Session) ReportedParameters() map[string]string { return s.reportedParameters() }

// TakeChangedParameters returns the reported parameters whose value changed
// since the last call (by SET, RESET or a transaction end), and forgets them.
func (s *Session) TakeChangedParameters() map[string]string { return s.takeChangedParameters() }

// Setting returns the current value of a session setting by name, in its
// SHOW form (for example statement_timeout "0" or "5s").
func (s *Session) Setting(name string) (string, bool) { return s.setting(name) }

// TakeNotices returns the notices RAISE sent during a statement that then
// failed (a statement that succeeds hands them over in its Result), and
// forgets them.
func (s *Session) TakeNotices() []*pgerror.Error {
	n := s.notices
	s.notices = nil
	return s.sentNotices(n)
}
