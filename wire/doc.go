// Package wire speaks PostgreSQL's frontend/backend protocol version 3 on top
// of pgx/v5's pgproto3: the startup exchange, authentication, the binary value
// codecs and the conversion of errors into ErrorResponse messages.
//
// wire knows nothing of SQL. It never parses a query, never decides what a
// statement means and never holds session state beyond one exchange; the
// server package drives it message by message.
//
// The lifecycle of a connection, as far as wire is concerned:
//
//  1. ReadStartup reads the untyped startup packets. SSLRequest is answered
//     'S' and the connection switched to TLS by the caller's Encrypt, or
//     'N' without one, as GSSENCRequest always is, and the next packet is
//     read; a CancelRequest is returned to the caller, which
//     looks up the session by its key; a StartupMessage for protocol 3.0 (or
//     3.2, negotiated down to 3.0 with NegotiateProtocolVersion) yields the
//     startup parameters. Anything else is a FATAL 08P01 or 0A000.
//  2. Authenticate runs the authentication exchange the configuration asks
//     for: trust, SCRAM-SHA-256, md5 or cleartext. A wrong password is FATAL
//     28P01.
//  3. After that the server reads typed messages with Backend.Receive. Binary
//     parameter values are decoded with DecodeBinary and binary result values
//     are encoded with AppendBinary, both by type OID, on the datum
//     representation shared with sqlexec (see DESIGN.md and codec.go).
//  4. Every error that reaches a client goes through ErrorResponse exactly
//     once, which flattens the error chain with pgerror.Flatten.
//
// # Limits
//
// Startup packets are bounded by pgproto3 (10,000 bytes). Typed messages are
// bounded by the maximum body length the server sets with
// Backend.SetMaxBodyLen; a longer claim is rejected before any byte of the
// body is read or allocated.
//
// # Debugging
//
// pgproto3's Backend.Trace dumps every message in libpq's PQtrace format; the
// server enables it per connection when its configuration has a trace writer.
package wire
