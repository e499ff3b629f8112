// Package server accepts PostgreSQL clients and runs their sessions: the
// connection lifecycle, the simple and extended query protocols, portals,
// COPY, cancellation, timeouts and the transaction state machine that
// decides when a session's transaction begins, commits, rolls back or is
// failed.
//
// server owns the protocol state of a connection and nothing below it: it
// never parses or evaluates SQL (sqlexec does, behind the Engine and Session
// interfaces of backend.go), never decides which version a read sees
// (isolation does), and never encodes a message by hand (wire and pgproto3
// do). It holds no global lock while a statement runs; the store serializes
// what it must.
//
// # Lifecycle of a connection
//
//  1. Serve accepts a TCP connection and starts its goroutine (conn.serve);
//     an accept error (out of file descriptors) pauses it, never stops it.
//  2. wire.ReadStartup reads the startup packets: an SSLRequest switches
//     the connection to TLS when Config.TLS is set and is refused with 'N'
//     otherwise, as GSSENC requests are; a CancelRequest cancels the
//     statement running in the session with that process ID and secret
//     key, then the connection closes. Until authentication ends a message
//     may be at most 64 kB.
//  3. A client beyond Config.MaxConnections gets FATAL 53300. The
//     Authenticator checks the password with the configured method (trust
//     without one), the session is registered under a fresh process ID,
//     and the server sends every
//     ParameterStatus of Session.ReportedParameters, BackendKeyData and
//     ReadyForQuery.
//  4. The loop reads one message at a time and answers it. Output is
//     buffered and written at ReadyForQuery (after a Query or a Sync), at a
//     Flush message, when COPY waits for data, and every 64 KiB within large
//     results, so a pipeline of Parse, Bind, Execute, Sync is answered in
//     one write.
//  5. Terminate, a closed socket, a FATAL error or Shutdown end the loop;
//     the session's open transaction is rolled back by Session.Close.
//
// # Transactions
//
// txnstate.go holds the one table of PostgreSQL's rules: states Idle,
// Implicit, InBlock and Failed against the events BEGIN, COMMIT, ROLLBACK,
// SAVEPOINT, RELEASE, ROLLBACK TO, PREPARE TRANSACTION, statement, statement
// error and end of batch. A statement outside a block runs in an implicit
// transaction that ends at the end of the simple query message or at Sync;
// several statements of one Query message share it, and the first error
// rolls it back and skips the rest. BEGIN inside a block and COMMIT or
// ROLLBACK outside one are warnings (25001, 25P01); in a failed block every
// statement but ROLLBACK, ROLLBACK TO and COMMIT (which answers ROLLBACK)
// fails with 25P02. testdata/txn_transitions.txt lists the handled pairs.
//
// # Extended protocol
//
// Parse resolves a statement (Session.Prepare) and infers its parameter
// types; Bind decodes parameters in text (Session.ParseText) or binary
// (wire.DecodeBinary) and fixes the result formats; Describe answers
// ParameterDescription and RowDescription or NoData; Execute runs the
// statement once and sends its rows, at most MaxRows at a time, with
// PortalSuspended in between. After an error every message up to Sync is
// skipped. Portals end with their transaction, as PostgreSQL's do.
//
// # Cancellation, timeouts, shutdown, panics
//
// Every statement runs under its own context, cancelled by a CancelRequest
// (57014 "due to user request"), by statement_timeout (57014 "due to
// statement timeout") and by Shutdown, which sends FATAL 57P01 to every
// session and waits for them. A panic while handling a message is recovered
// for that connection: the statement fails with XX000, the transaction
// fails as after any error, and the server goes on.
//
// # Limits
//
//   - MaxMessageSize (default 64 MiB): a message whose length claims more
//     ends the connection with FATAL 08P01 before its body is read. A length
//     below 4, an unknown message type or a malformed startup packet (over
//     10,000 bytes) end it too; a complete message that does not decode is
//     an ERROR 08P01 and the session continues after the next Sync.
//   - MaxPreparedStatements and MaxPortals (default 10,000 named ones per
//     session): Parse and Bind beyond them fail with 54000; the unnamed
//     statement and portal are always available.
//   - Startup and authentication must finish within one minute (PostgreSQL's
//     authentication_timeout); Shutdown closes connections still in that
//     phase without waiting for them.
//   - Results are materialized by the engine before they are sent; COPY
//     FROM STDIN streams its data to the engine without buffering it.
//
// # Debugging
//
// Config.Trace dumps every message of every connection in libpq's PQtrace
// format; Config.Logf receives recovered panics with their stacks and
// protocol violations. The golden scripts in testdata/wire (send/until over
// pgproto3's JSON) replay a conversation exactly; run them with -rewrite to
// regenerate the expected output after a deliberate change. The SQL-level
// scripts in testdata/pgtest run against the real engine and, with
// FICKLE_PGTEST_ADDR=host:port (a PostgreSQL 15 with trust for user
// postgres), against PostgreSQL too; -rewrite with that variable set takes
// the expected output from PostgreSQL.
package server
