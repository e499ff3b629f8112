package server

import (
	"io"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/wire"
)

// copy runs the COPY sub-protocol for a statement whose result asks for it,
// and sends CommandComplete when it succeeds.
func (c *conn) copy(req *CopyRequest) error {
	ctx, cancel := c.statementContext()
	defer c.endStatement(cancel)
	var overall byte
	formats := make([]uint16, len(req.Columns))
	if req.Binary {
		overall = 1
		for i := range formats {
			formats[i] = 1
		}
	}
	var tag string
	var err error
	if req.In {
		c.be.Send(&pgproto3.CopyInResponse{OverallFormat: overall, ColumnFormatCodes: formats})
		if err := c.flush(); err != nil {
			return err
		}
		in := &copyInReader{c: c}
		defer enterBulkLoad()()
		tag, err = c.sess.CopyIn(ctx, req, in)
		if err == nil && !in.done {
			// The engine stopped reading early; the rest of the data is the
			// client's error, but drain it so the stream stays in sync.
			_, err = io.Copy(io.Discard, in)
		}
	} else {
		c.be.Send(&pgproto3.CopyOutResponse{OverallFormat: overall, ColumnFormatCodes: formats})
		tag, err = c.sess.CopyOut(ctx, req, func(line []byte) error {
			c.be.Send(&pgproto3.CopyData{Data: line})
			c.pending += len(line) + 5
			if c.pending >= flushThreshold {
				return c.flush()
			}
			return nil
		})
		if err == nil {
			c.be.Send(&pgproto3.CopyDone{})
		}
	}
	if err = statementError(ctx, err); err != nil {
		return err
	}
	c.reportChanges()
	c.complete(tag)
	return nil
}

// copyInReader reads the payloads of the client's CopyData messages until
// CopyDone (EOF) or CopyFail (57014), straight from the connection, so a
// COPY FROM STDIN streams without buffering the whole input.
type copyInReader struct {
	c    *conn
	buf  []byte // unread part of the current CopyData payload
	done bool
	err  error
}

func (r *copyInReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		msg, err := r.c.be.Receive()
		if err != nil {
			r.err = wire.ReceiveError(err)
			return 0, r.err
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			// m.Data is valid until the next Receive, which happens only
			// after this payload has been consumed.
			r.buf = m.Data
		case *pgproto3.CopyDone:
			r.done = true
		case *pgproto3.CopyFail:
			r.err = pgerror.Newf(pgerror.QueryCanceled, "COPY from stdin failed: %s", m.Message)
			r.done = true
		case *pgproto3.Flush, *pgproto3.Sync:
			// PostgreSQL ignores these during COPY IN.
		default:
			r.err = pgerror.Newf(pgerror.ProtocolViolation, "unexpected message type %T during COPY from stdin", msg)
			r.done = true
		}
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// wireCodec gives sqlexec's binary COPY the binary value codecs of the
// extended protocol, so a value travels in the same bytes either way.
type wireCodec struct{}

func (wireCodec) AppendBinary(buf []byte, oid uint32, v any) ([]byte, error) {
	return appendBinaryValue(buf, oid, v)
}

func (wireCodec) DecodeBinary(oid uint32, src []byte) (any, error) {
	return decodeBinaryValue(oid, src)
}
