package wire

import (
	"errors"
	"io"
	"net"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ReceiveError classifies an error returned by Backend.Receive.
//
//   - I/O errors (the peer went away, a deadline passed) are returned as they
//     are: there is nobody left to answer.
//   - A frame the backend cannot delimit (an unknown message type, a length
//     below 4, a length above the configured maximum) is a FATAL 08P01: the
//     stream cannot be resynchronised, so the caller answers and closes.
//   - A complete frame whose body does not decode (a Bind with a truncated
//     parameter, say) is an ERROR 08P01: the frame boundary is intact, so the
//     session goes on, skipping to the next Sync like any other error.
func ReceiveError(err error) error {
	if err == io.EOF {
		// Backend.Receive reports a connection that ends as
		// io.ErrUnexpectedEOF; a bare io.EOF comes from a message body that
		// ends before its fields do (pgproto3 decodes with bytes.Buffer).
		return pgerror.New(pgerror.ProtocolViolation, "invalid message format: message ends early")
	}
	if IsIOError(err) {
		return err
	}
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &tooLong) {
		return fatal(pgerror.ProtocolViolation, "invalid message length: %d bytes exceeds the limit of %d",
			tooLong.ActualBodyLen, tooLong.MaxExpectedBodyLen)
	}
	if MalformedQuery(err) {
		return pgerror.New(pgerror.ProtocolViolation, "invalid string in message")
	}
	text := err.Error()
	if strings.HasPrefix(text, "unknown message type") || strings.HasPrefix(text, "invalid message length") {
		return fatal(pgerror.ProtocolViolation, "%s", strings.Replace(text, "unknown message type", "invalid frontend message type", 1))
	}
	return pgerror.Newf(pgerror.ProtocolViolation, "invalid message format: %v", err)
}

// MalformedQuery reports whether err, from Backend.Receive, is a Query
// message whose body does not decode (its string lacks the terminating
// NUL): the simple protocol answers it with an ERROR and ReadyForQuery at
// once, where an extended-protocol message's error waits for Sync.
func MalformedQuery(err error) bool {
	return strings.HasPrefix(err.Error(), "Query body is invalid")
}

// receiveError is ReceiveError for the authentication exchange, where every
// malformed message ends the session.
func receiveError(err error) error {
	err = ReceiveError(err)
	var pe *pgerror.Error
	if errors.As(err, &pe) {
		return Fatal(pe)
	}
	return err
}

// IsIOError reports whether err means the connection itself failed (closed,
// reset, timed out) rather than that the client sent something malformed.
func IsIOError(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}
