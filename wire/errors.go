package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// ErrorResponse turns any error into the ErrorResponse a client receives:
// the chain is flattened once with pgerror.Flatten, so an error without a
// SQLSTATE becomes XX000 and keeps its text.
func ErrorResponse(err error) *pgproto3.ErrorResponse {
	e := pgerror.Flatten(err)
	return &pgproto3.ErrorResponse{
		Severity:            e.Severity,
		SeverityUnlocalized: e.Severity,
		Code:                string(e.Code),
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
		Position:            int32(e.Position),
		InternalPosition:    int32(e.InternalPosition),
		InternalQuery:       e.InternalQuery,
		Where:               e.Where,
		TableName:           e.Table,
		ColumnName:          e.Column,
		ConstraintName:      e.Constraint,
	}
}

// NoticeResponse turns a warning or notice into a NoticeResponse. Its
// severity is WARNING unless e sets one.
func NoticeResponse(e *pgerror.Error) *pgproto3.NoticeResponse {
	sev := e.Severity
	if sev == "" || sev == "ERROR" {
		sev = "WARNING"
	}
	return &pgproto3.NoticeResponse{
		Severity:            sev,
		SeverityUnlocalized: sev,
		Code:                string(e.Code),
		Message:             e.Message,
		Detail:              e.Detail,
		Hint:                e.Hint,
	}
}
