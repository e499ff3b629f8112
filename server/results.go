package server

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fickle-db/fickle/sqlexec/types"
)

// Format codes of the protocol.
const (
	formatText   int16 = 0
	formatBinary int16 = 1
)

// sendRowDescription describes the columns; formats holds one code per
// column (nil: all text). It fails when the client's encoding cannot carry
// a column's name or has the binary format refused for its type.
func (c *conn) sendRowDescription(cols []Column, formats []int16) error {
	fields := make([]pgproto3.FieldDescription, len(cols))
	for i, col := range cols {
		f := formatText
		if formats != nil {
			f = formats[i]
		}
		if f == formatBinary {
			if err := c.checkBinaryText(col.TypeOID); err != nil {
				return err
			}
		}
		name, err := c.toClient(col.Name)
		if err != nil {
			return err
		}
		fields[i] = pgproto3.FieldDescription{
			Name:                 []byte(name),
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.AttNum),
			DataTypeOID:          col.TypeOID,
			DataTypeSize:         col.TypeSize,
			TypeModifier:         typeModifier(col),
			Format:               f,
		}
	}
	c.be.Send(&pgproto3.RowDescription{Fields: fields})
	return nil
}

// typeModifier is the typmod a RowDescription gives a column: an anonymous
// record's typmod names its shape inside fickle only, and PostgreSQL
// sends -1 for it.
func typeModifier(col Column) int32 {
	if col.TypeOID == uint32(types.OidRecord) {
		return -1
	}
	return col.TypeMod
}

// sendRows sends rows as DataRow messages, each value in its column's
// format (formats nil: all text), flushing whenever enough output is
// buffered.
func (c *conn) sendRows(cols []Column, rows [][]any, formats []int16) error {
	for _, row := range rows {
		if err := c.sendRow(cols, row, formats); err != nil {
			return err
		}
		if c.pending >= flushThreshold {
			if err := c.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendRow encodes one row into the connection's scratch buffers, which
// Backend.Send copies, so a row costs no allocation once they have grown.
func (c *conn) sendRow(cols []Column, row []any, formats []int16) error {
	buf := c.rowBuf[:0]
	ends := c.rowValues[:0]
	// First append every value to buf, remembering where each starts and
	// ends (-1 for NULL); slice only once buf stops moving. buf is never nil,
	// so an empty value stays distinct from NULL.
	offsets := c.rowOffsets[:0]
	for i, v := range row {
		if v == nil {
			offsets = append(offsets, -1, -1)
			continue
		}
		start := len(buf)
		col := &cols[i]
		if formats != nil && formats[i] == formatBinary {
			if err := c.checkBinaryText(col.TypeOID); err != nil {
				return err
			}
			var err error
			buf, err = appendTypedBinary(buf, types.Type{Oid: types.Oid(col.TypeOID), Typmod: col.TypeMod}, v)
			if err != nil {
				return err
			}
		} else {
			buf = c.sess.AppendText(buf, col, v)
			var err error
			if buf, err = c.appendToClient(buf, start); err != nil {
				return err
			}
		}
		offsets = append(offsets, start, len(buf))
	}
	for i := 0; i < len(offsets); i += 2 {
		if offsets[i] < 0 {
			ends = append(ends, nil)
		} else {
			ends = append(ends, buf[offsets[i]:offsets[i+1]:offsets[i+1]])
		}
	}
	c.out.row.Values = ends
	c.be.Send(&c.out.row)
	c.pending += len(buf) + 4*len(row) + 7
	c.rowBuf, c.rowValues, c.rowOffsets = buf, ends, offsets
	return nil
}
