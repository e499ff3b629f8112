package server

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/internal/pgencoding"
	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/sqlexec/types"
	"github.com/fickle-db/fickle/wire"
)

// The client's encoding (client_encoding). fickle's text is UTF8. For a
// client that asked for one of the single-byte encodings, the text of the
// messages it sends is converted as they arrive, and the text fickle sends
// (column names, values in text format, errors and notices) as it leaves,
// where PostgreSQL's pq_getmsgstring and pq_sendstring convert it. UTF8 and
// SQL_ASCII clients get fickle's bytes as they are (PostgreSQL converts
// nothing to or from SQL_ASCII). COPY's data is the engine's to convert, as
// the COPY's ENCODING option says.

// setClientEncoding follows a change of client_encoding to name.
func (c *conn) setClientEncoding(name string) {
	c.enc = nil
	if e, ok := pgencoding.Lookup(name); ok {
		c.enc = e.Converter
	}
}

// fromClient converts text the client sent to UTF8.
func (c *conn) fromClient(s string) (string, error) {
	if c.enc == nil {
		return s, nil
	}
	b, err := c.enc.ToUTF8([]byte(s))
	return string(b), err
}

// convertIncoming converts the text of msg's strings to UTF8 in place:
// the query, statement and portal names. Bind's parameters are converted
// as they are read, when their formats are known.
func (c *conn) convertIncoming(msg pgproto3.FrontendMessage) error {
	if c.enc == nil {
		return nil
	}
	var fields []*string
	switch m := msg.(type) {
	case *pgproto3.Query:
		fields = []*string{&m.String}
	case *pgproto3.Parse:
		fields = []*string{&m.Name, &m.Query}
	case *pgproto3.Bind:
		fields = []*string{&m.DestinationPortal, &m.PreparedStatement}
	case *pgproto3.Describe:
		fields = []*string{&m.Name}
	case *pgproto3.Close:
		fields = []*string{&m.Name}
	case *pgproto3.Execute:
		fields = []*string{&m.Portal}
	}
	for _, f := range fields {
		s, err := c.fromClient(*f)
		if err != nil {
			return err
		}
		*f = s
	}
	return nil
}

// toClient converts UTF8 text to the client's encoding.
func (c *conn) toClient(s string) (string, error) {
	if c.enc == nil {
		return s, nil
	}
	b, err := c.enc.FromUTF8([]byte(s))
	return string(b), err
}

// appendToClient converts the UTF8 text at buf[start:] to the client's
// encoding in place: a single-byte encoding never takes more bytes.
func (c *conn) appendToClient(buf []byte, start int) ([]byte, error) {
	if c.enc == nil {
		return buf, nil
	}
	converted, err := c.enc.FromUTF8(buf[start:])
	if err != nil {
		return buf, err
	}
	return append(buf[:start], converted...), nil
}

// errorToClient converts the text of an ErrorResponse or NoticeResponse to
// the client's encoding. When the client's encoding cannot carry it, the
// conversion's own error (22P05) goes out instead, as in PostgreSQL, where
// the conversion fails while the message is sent.
func (c *conn) errorToClient(e *pgproto3.ErrorResponse) *pgproto3.ErrorResponse {
	if c.enc == nil {
		return e
	}
	for _, f := range []*string{&e.Message, &e.Detail, &e.Hint, &e.Where, &e.InternalQuery, &e.SchemaName, &e.TableName, &e.ColumnName, &e.DataTypeName, &e.ConstraintName} {
		s, err := c.toClient(*f)
		if err != nil {
			pe := pgerror.Flatten(err)
			return &pgproto3.ErrorResponse{Severity: e.Severity, SeverityUnlocalized: e.SeverityUnlocalized, Code: string(pe.Code), Message: pe.Message}
		}
		*f = s
	}
	return e
}

// binaryFreeOfText reports whether values of type oid travel in binary
// without text inside, so that no encoding touches them: the numbers,
// times, network and geometric types, and arrays and ranges of them. With
// a converting client encoding, fickle sends and reads the others only as
// text.
func binaryFreeOfText(oid uint32) bool {
	t := types.Type{Oid: types.Oid(oid), Typmod: -1}
	if e, ok := t.Elem(); ok {
		t = e
	}
	if sub, ok := t.RangeSubtype(); ok {
		t = sub
	}
	switch t.Oid {
	case types.OidBool, types.OidBytea, types.OidChar, types.OidInt2, types.OidInt4, types.OidInt8, types.OidOid,
		types.OidFloat4, types.OidFloat8, types.OidNumeric, types.OidMoney, types.OidDate, types.OidTime, types.OidTimetz,
		types.OidTimestamp, types.OidTimestamptz, types.OidInterval, types.OidUUID, types.OidInet, types.OidCidr,
		types.OidMacaddr, types.OidMacaddr8, types.OidPoint, types.OidLseg, types.OidPath, types.OidBox, types.OidPolygon,
		types.OidLine, types.OidCircle, types.OidBit, types.OidVarbit, types.OidPGLSN, types.OidTID, types.OidXID,
		types.OidXID8, types.OidRegclass, types.OidRegproc, types.OidRegprocedure, types.OidRegoper, types.OidRegoperator,
		types.OidRegtype, types.OidRegnamespace, types.OidRegrole, types.OidRegconfig, types.OidRegdictionary:
		return true
	}
	return false
}

// checkBinaryText refuses the binary format for a value of type oid whose
// binary form holds text, when the client's encoding is not UTF8.
func (c *conn) checkBinaryText(oid uint32) error {
	if c.enc == nil || binaryFreeOfText(oid) {
		return nil
	}
	return pgerror.Unsupported("the binary format of type " + types.Type{Oid: types.Oid(oid), Typmod: -1}.String() + " with a client_encoding other than UTF8")
}

// sendNotice sends a notice or warning in the client's encoding.
func (c *conn) sendNotice(n *pgerror.Error) {
	c.be.Send((*pgproto3.NoticeResponse)(c.errorToClient((*pgproto3.ErrorResponse)(wire.NoticeResponse(n)))))
}
