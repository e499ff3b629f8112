package server

import (
	"context"
	"io"
	"time"

	"github.com/fickle-db/fickle/internal/cursorpos"
	"github.com/fickle-db/fickle/internal/pgerror"
)

// Engine is what the server needs from the SQL engine: one Session per
// connection. sqlexec's engine satisfies it through NewSQLEngine; the
// server's tests use a small fake.
type Engine interface {
	// NewSession opens the session of a new connection; an error (3D000
	// for an unknown database) ends the connection with FATAL.
	NewSession(info SessionInfo) (Session, error)
}

// SessionInfo describes the client connection a Session serves.
// PreparedStatementInfo is a prepared statement of the connection as
// pg_prepared_statements shows it (sqlexec's PreparedStatementInfo).
type PreparedStatementInfo struct {
	Name, Statement           string
	PrepareTime               time.Time
	ParamOIDs                 []uint32
	FromSQL                   bool
	GenericPlans, CustomPlans int64
}

// preparedStatementLister is a Session that shows the connection's
// prepared statements, which the server keeps, through list.
type preparedStatementLister interface {
	ListPreparedStatements(list func() []PreparedStatementInfo)
}

// NamedStatement is a named prepared statement as a statement that names
// it uses it (EXPLAIN EXECUTE, CREATE TABLE AS EXECUTE): Prepared is nil
// for one that is not an ordinary statement; Bind revalidates it and
// counts its plan, as EXECUTE does.
type NamedStatement struct {
	Prepared Prepared
	Bind     func() error
}

// preparedStatementFinder is a Session whose statements can run the
// connection's prepared statements, which it finds through find.
type preparedStatementFinder interface {
	FindPreparedStatements(find func(name string) (NamedStatement, bool))
}

type SessionInfo struct {
	ProcessID       uint32
	User            string
	Database        string
	ApplicationName string
	// StartupParams are all parameters of the startup message, including
	// the settings of its options parameter.
	StartupParams map[string]string
	// Terminate ends the connection with FATAL 57P01, as
	// pg_terminate_backend does; the engine calls it from any goroutine.
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

// Session is the SQL side of one connection. The server calls it from the
// connection's goroutine only, one call at a time; the transaction state
// machine (txnstate.go) decides when Begin, Commit and the others are called.
type Session interface {
	// Close rolls back any open transaction and releases the session.
	Close()
	// Parse splits a query string into its statements; errors are 42601
	// with a position.
	Parse(sql string) ([]Statement, error)

	// Begin opens a transaction; explicit is false for an implicit one.
	Begin(opts TxnOptions, explicit bool) error
	// Commit commits the open transaction; on error it is gone as well.
	Commit() error
	// Rollback rolls back the open transaction, if any.
	Rollback() error
	// Savepoint establishes a savepoint in the open transaction.
	Savepoint(ctx context.Context, name string) error
	// ReleaseSavepoint releases a savepoint (3B001 if unknown).
	ReleaseSavepoint(name string) error
	// RollbackToSavepoint rolls back to a savepoint (3B001 if unknown).
	RollbackToSavepoint(name string) error
	// InTxn reports whether a transaction is open.
	InTxn() bool
	// PrepareTransaction returns why PREPARE TRANSACTION cannot prepare
	// the open transaction (two-phase commit is off, as with PostgreSQL's
	// default max_prepared_transactions = 0).
	PrepareTransaction() error

	// Prepare resolves an ordinary statement; zero parameter OIDs are
	// inferred.
	Prepare(st Statement, paramOIDs []uint32) (Prepared, error)
	// Execute runs a prepared statement inside the open transaction.
	// Cancelling ctx makes it return 57014. A Result with Stream set runs
	// on while the server drains it, under the same ctx.
	Execute(ctx context.Context, p Prepared, params []any) (*Result, error)
	// CopyIn loads the rows of a COPY FROM STDIN read from data and returns
	// the command tag.
	CopyIn(ctx context.Context, req *CopyRequest, data io.Reader) (string, error)
	// CopyOut emits the lines of a COPY TO STDOUT and returns the tag.
	CopyOut(ctx context.Context, req *CopyRequest, emit func(line []byte) error) (string, error)

	// ReportedParameters returns the initial ParameterStatus set.
	ReportedParameters() map[string]string
	// TakeChangedParameters returns the reported parameters changed since
	// the last call.
	TakeChangedParameters() map[string]string
	// Setting returns a session setting in its SHOW form.
	Setting(name string) (string, bool)
	// TakeNotices returns the notices and warnings raised since the last
	// call (DROP ... IF EXISTS of a missing table, say), to be sent as
	// NoticeResponse before the statement's CommandComplete.
	TakeNotices() []*pgerror.Error
	// Notified returns a channel that receives a value when notifications
	// (a committed NOTIFY on a channel the session listens to) wait for
	// TakeNotifications.
	Notified() <-chan struct{}
	// TakeNotifications returns the notifications received since the last
	// call.
	TakeNotifications() []Notification

	// CursorColumns describes the rows of the SQL cursor (DECLARE) called
	// name, which a Describe of the portal of that name reports, as in
	// PostgreSQL; false when there is no such cursor.
	CursorColumns(name string) ([]Column, bool)

	// AppendText appends the text output of the non-NULL datum v of the
	// column's type, with the session's settings (TimeZone, ...).
	AppendText(buf []byte, col *Column, v any) []byte
	// ParseText parses a text-format parameter of type oid into a datum.
	ParseText(oid uint32, text string) (any, error)
}

// Notification is a NOTIFY delivered to a listening session: its channel,
// payload and the process ID of the session that sent it.
type Notification struct {
	PID     uint32
	Channel string
	Payload string
}

// Statement is one parsed statement of a query string.
type Statement interface {
	// SQL returns the statement's own text.
	SQL() string
	// TxnControl reports whether the statement is transaction control.
	TxnControl() (TxnControl, bool)
	// CursorOp reports whether the statement is FETCH, MOVE or CLOSE,
	// which the server runs itself when it names a portal (portalop.go).
	CursorOp() (CursorOp, bool)
}

// CursorOp is a FETCH, MOVE or CLOSE statement.
type CursorOp struct {
	// Name is the cursor's name; "" with Close for CLOSE ALL.
	Name string
	// Close is CLOSE; otherwise FETCH, or MOVE with Move.
	Close     bool
	Move      bool
	Direction cursorpos.Direction
	Count     int64
}

// Prepared is a statement whose names and types are resolved.
type Prepared interface {
	// ParamOIDs returns the type of every $n placeholder.
	ParamOIDs() []uint32
	// ValueOIDs returns the type each parameter's value is read as:
	// ParamOIDs' own, but a domain's base type for a parameter declared
	// with a domain (the session checks the domain's constraints).
	ValueOIDs() []uint32
	// Columns describes the rows the statement returns; nil for none.
	Columns() []Column
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

// Result is what an executed statement returns.
type Result struct {
	Columns []Column
	Rows    [][]any
	// Stream, when set instead of Rows and Tag, produces the rows one at
	// a time: the server calls it once, it passes each row to send
	// (stopping at send's first error) and returns the tag; the statement
	// ends when it returns.
	Stream func(send func(row []any) error) (tag string, err error)
	// Tag is the command tag ("INSERT 0 3", "SELECT 2").
	Tag string
	// Copy, when set, asks the server to run the COPY sub-protocol.
	Copy *CopyRequest
	// Deallocate, set by DEALLOCATE, names the prepared statement to
	// forget (All: every one); the server answers 26000 for an unknown
	// name.
	Deallocate *Deallocation
}

// Deallocation is a DEALLOCATE name or DEALLOCATE ALL.
type Deallocation struct {
	Name string
	All  bool
}

// CopyRequest is a COPY FROM STDIN or TO STDOUT the server drives.
type CopyRequest struct {
	In bool
	// Binary says the data is in PostgreSQL's binary COPY format, which the
	// CopyInResponse or CopyOutResponse announces.
	Binary  bool
	Columns []Column
	// Handle is the engine's own description of the copy.
	Handle any
}

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
	Options   TxnOptions
	Savepoint string
	Chain     bool
	// GID names the prepared transaction of TxnPrepare, TxnCommitPrepared
	// and TxnRollbackPrepared.
	GID string
}

// TxnOptions are the transaction modes of BEGIN and START TRANSACTION.
type TxnOptions struct {
	Isolation     string
	ReadOnly      bool
	ReadWrite     bool
	Deferrable    bool
	NotDeferrable bool
}
