// Package pgerror carries PostgreSQL's SQLSTATE codes on Go errors.
//
// Errors get their code where the failure happens (New, Newf, Wrapf), never by
// a late mapping at the edge; the wire layer calls Flatten once, at the
// boundary, to turn any error chain into the fields of an ErrorResponse.
// Errors without a code flatten to XX000 (internal_error).
//
// codes.go is generated from PostgreSQL's errcodes.txt by generate.sh.
package pgerror

import (
	"errors"
	"fmt"
)

//go:generate ./generate.sh

// Code is a five-character SQLSTATE.
type Code string

// String returns the five-character code.
func (c Code) String() string { return string(c) }

// Class returns the two-character class of the code ("23" for 23505).
func (c Code) Class() string {
	if len(c) < 2 {
		return ""
	}
	return string(c[:2])
}

// Error is an error with a SQLSTATE and the optional fields of PostgreSQL's
// ErrorResponse. Position is 1-based in characters of the query text, 0 when
// unknown.
type Error struct {
	Code       Code
	Severity   string // "ERROR" unless set; "FATAL" for errors that end the session
	Message    string
	Detail     string
	Hint       string
	Position   int
	Table      string
	Column     string
	Constraint string
	// Where is the context the error arose in (PostgreSQL's CONTEXT line:
	// "COPY t, line 3, column a: ...").
	Where string
	// InternalQuery and InternalPosition are the query a routine ran for
	// the client's statement and the 1-based character position of the
	// error in it (PostgreSQL's QUERY line and the LINE pointer under it).
	InternalQuery    string
	InternalPosition int
	cause            error
}

// Error returns the message, as PostgreSQL's clients print it.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the error this one wraps, if any.
func (e *Error) Unwrap() error { return e.cause }

// SafeToRetry reports whether a client may retry the whole transaction:
// serialization failures and deadlocks.
func (e *Error) SafeToRetry() bool {
	return e.Code == SerializationFailure || e.Code == DeadlockDetected
}

// New returns an error with the given code and message.
func New(code Code, msg string) *Error {
	return &Error{Code: code, Message: msg}
}

// Newf returns an error with the given code and a formatted message.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrapf returns an error with the given code and formatted message that wraps
// cause, so that errors.Is and errors.As still see it.
func Wrapf(cause error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), cause: cause}
}

// WithDetail sets Detail and returns e.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint sets Hint and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithPosition sets the 1-based character position in the query text and
// returns e.
func (e *Error) WithPosition(pos int) *Error {
	e.Position = pos
	return e
}

// WithConstraint sets the table and constraint names and returns e.
func (e *Error) WithConstraint(table, constraint string) *Error {
	e.Table, e.Constraint = table, constraint
	return e
}

// Unsupported returns a 0A000 error naming the feature that is not supported.
func Unsupported(feature string) *Error {
	return Newf(FeatureNotSupported, "%s is not supported by fickle", feature)
}

// GetCode returns the code of the first *Error in err's chain, or
// InternalError when there is none. A nil error has no code.
func GetCode(err error) Code {
	if err == nil {
		return ""
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return InternalError
}

// Flatten returns the *Error that should reach the client for err: the first
// *Error in the chain, or an XX000 error carrying err's text.
func Flatten(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		out := *pe
		if out.Severity == "" {
			out.Severity = "ERROR"
		}
		return &out
	}
	return &Error{Code: InternalError, Severity: "ERROR", Message: err.Error()}
}
