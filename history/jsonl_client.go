package history

import (
	"fmt"
	"strconv"
)

// Client reads in the fickle JSONL format (docs/history-format.md, "Client
// reads"): a read event with a "client" member lists only the rows its
// statement returned, and says which table it read and with which
// predicate, so that the checker can fill in the rows it filtered out:
//
//	{"e":"read","t":2,"r":[[1,1,"r",null,{"id":2,"bal":60}]],"client":{"table":"acct","where":[["bal",">",50]]}}
//
// "where" is a list of conditions [column, op, constant], all of which a
// returned row satisfies; op is one of = <> < <= > >=, the constant a JSON
// number, string or boolean.

// parseClientRead parses the "client" member of a read event.
func parseClientRead(raw []byte) (*ClientRead, error) {
	s := jsonScanner{buf: raw}
	c := &ClientRead{}
	err := s.object(func(name []byte) error {
		var err error
		switch string(name) {
		case "table":
			c.Table, err = s.str()
		case "where":
			err = s.array(func(int) error {
				var cond Condition
				n := 0
				err := s.array(func(i int) error {
					n++
					switch i {
					case 0:
						var err error
						cond.Column, err = s.str()
						return err
					case 1:
						op, err := s.str()
						cond.Op = CompareOp(op)
						if err == nil && !cond.Op.Valid() {
							err = fmt.Errorf("client read: unknown comparison %q (want = <> < <= > >=)", op)
						}
						return err
					case 2:
						v, err := s.raw()
						cond.Value = string(v)
						if err == nil && !validConstant(v) {
							err = fmt.Errorf("client read: constant %s is not a number, string or boolean", v)
						}
						return err
					}
					return fmt.Errorf("client read: a condition is [column, op, constant]")
				})
				if err == nil && n != 3 {
					err = fmt.Errorf("client read: a condition is [column, op, constant]")
				}
				c.Where = append(c.Where, cond)
				return err
			})
		default:
			_, err = s.raw()
		}
		return err
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// validConstant reports whether v is the JSON text of a number, a string or
// a boolean.
func validConstant(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	switch v[0] {
	case '"':
		return isJSONString(v)
	case 't', 'f':
		return string(v) == "true" || string(v) == "false"
	}
	_, err := strconv.ParseFloat(string(v), 64)
	return err == nil
}

// isJSONString reports whether v is one JSON string (escapes JSON allows
// and Go's quoting does not, such as \/, included).
func isJSONString(v []byte) bool {
	s := jsonScanner{buf: v}
	if _, err := s.stringBytes(); err != nil {
		return false
	}
	return s.end() == nil
}

// clientRead applies a read event with a "client" member: its items (only
// the returned rows) join the open statement, or a statement of their own,
// which becomes a client read.
func (jr *jsonlReader) clientRead(tb *TxnBuilder, raw []byte) error {
	c, err := parseClientRead(raw)
	if err != nil {
		return err
	}
	for _, op := range jr.items {
		if op.Flags&FlagReturned == 0 {
			return fmt.Errorf("client read lists key %s without \"r\": it lists only the rows returned", jr.b.h.Keys[op.Key])
		}
	}
	open := tb.stmt >= 0
	if open && tb.txn().Statements[tb.stmt].Client != nil {
		return fmt.Errorf("a second client read in one statement: start a new one with a stmt event")
	}
	if !open {
		tb.Stmt(Statement{Table: c.Table})
	}
	t := tb.txn()
	t.Statements[tb.stmt].Client = c
	jr.addItems(tb)
	if !open {
		tb.EndStmt()
	}
	return nil
}

// ClientRead records one client read event of t: items are the rows the
// statement returned (each Returned), c its table and predicate. It joins
// t's open statement (Stmt), or is a statement of its own.
func (w *Writer) ClientRead(t TxnID, c ClientRead, items []ReadItem) error {
	for _, it := range items {
		w.key(it.Key)
	}
	b := appendField(w.start("read"), "t", int64(t))
	b = append(b, `,"r":`...)
	b = w.appendItems(b, items)
	b = append(b, `,"client":{"table":`...)
	b = appendJSONString(b, c.Table)
	b = append(b, `,"where":[`...)
	for i, cond := range c.Where {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendJSONString(b, cond.Column)
		b = append(b, ',')
		b = appendJSONString(b, string(cond.Op))
		b = append(b, ',')
		b = append(b, cond.Value...)
		b = append(b, ']')
	}
	w.buf = append(b, "]}}\n"...)
	w.emit()
	return w.err
}

// writeStatementReads writes the read items of statement ev of t as one
// read event: a client read when the statement is one.
func (w *Writer) writeStatementReads(t *Txn, ev uint32, items []ReadItem) {
	if int(ev) < len(t.Statements) && t.Statements[ev].Client != nil {
		w.ClientRead(t.ID, *t.Statements[ev].Client, items)
		return
	}
	w.Read(t.ID, items)
}

// writeEmptyClientReads writes the client reads of t numbered from to to-1
// that have no read op (they returned no row), each after its stmt event:
// WriteJSONL's walk over the operations does not meet them.
func (w *Writer) writeEmptyClientReads(t *Txn, from, to uint32) {
	for ev := from; ev < to && int(ev) < len(t.Statements); ev++ {
		if st := t.Statements[ev]; st.Client != nil {
			w.Stmt(t.ID, st)
			w.ClientRead(t.ID, *st.Client, nil)
		}
	}
}
