package server

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/wire"
)

// functionCaller is a Session that calls functions by OID, for the
// FunctionCall message (PostgreSQL's fastpath): LookupFunction checks the
// function and the number of arguments and returns their types and a call
// that runs it, returning its result and the result's type.
type functionCaller interface {
	LookupFunction(oid uint32, nargs int) (argOIDs []uint32, call func(ctx context.Context, args []any) (any, uint32, error), err error)
}

// LookupFunction finds the function a FunctionCall message names.
func (s *sqlSession) LookupFunction(oid uint32, nargs int) ([]uint32, func(context.Context, []any) (any, uint32, error), error) {
	f, err := s.s.LookupFunction(oid, nargs)
	if err != nil {
		return nil, nil, err
	}
	call := func(ctx context.Context, args []any) (any, uint32, error) { return s.s.CallFunction(ctx, f, args) }
	return f.ArgOIDs, call, nil
}

var _ functionCaller = (*sqlSession)(nil)

// functionCall answers a FunctionCall message as PostgreSQL does: like a
// simple query of one statement, in the open transaction or an implicit
// one, with FunctionCallResponse for its result and ReadyForQuery after.
func (c *conn) functionCall(m *pgproto3.FunctionCall) {
	if result, err := c.runFunctionCall(m); err != nil {
		c.queryError(err)
	} else {
		c.be.Send(&pgproto3.FunctionCallResponse{Result: result})
		c.endQuery()
	}
	c.ready()
}

// runFunctionCall decodes the message's arguments, calls the function and
// encodes its result in the requested format.
func (c *conn) runFunctionCall(m *pgproto3.FunctionCall) ([]byte, error) {
	fc, ok := c.sess.(functionCaller)
	if !ok {
		return nil, pgerror.Unsupported("the function call protocol message")
	}
	if err := c.beforeStatement(); err != nil {
		return nil, err
	}
	argOIDs, call, err := fc.LookupFunction(m.Function, len(m.Arguments))
	if err != nil {
		return nil, err
	}
	if n := len(m.ArgFormatCodes); n > 1 && n != len(m.Arguments) {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "function call message contains %d argument formats but %d arguments", n, len(m.Arguments))
	}
	args := make([]any, len(m.Arguments))
	for i, v := range m.Arguments {
		format := formatText
		switch len(m.ArgFormatCodes) {
		case 0:
		case 1:
			format = int16(m.ArgFormatCodes[0])
		default:
			format = int16(m.ArgFormatCodes[i])
		}
		if v == nil {
			continue
		}
		switch format {
		case formatText:
			args[i], err = c.sess.ParseText(argOIDs[i], string(v))
		case formatBinary:
			args[i], err = decodeBinaryValue(argOIDs[i], v)
			if errors.Is(err, wire.ErrIncorrectBinaryFormat) {
				err = pgerror.Wrapf(err, pgerror.InvalidBinaryRepresentation, "incorrect binary data format in function argument %d", i+1)
			}
		default:
			err = pgerror.Newf(pgerror.InvalidParameterValue, "unsupported format code: %d", format)
		}
		if err != nil {
			return nil, err
		}
	}
	ctx, cancel := c.statementContext()
	defer c.endStatement(cancel)
	v, typ, err := call(ctx, args)
	if err != nil {
		return nil, statementError(ctx, err)
	}
	c.reportChanges()
	if v == nil {
		return nil, nil
	}
	switch format := int16(m.ResultFormatCode); format {
	case formatText:
		return c.sess.AppendText([]byte{}, &Column{TypeOID: typ, TypeMod: -1}, v), nil
	case formatBinary:
		return appendBinaryValue([]byte{}, typ, v)
	default:
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "unsupported format code: %d", format)
	}
}
