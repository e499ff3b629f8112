package history

import "io"

// WriteJSONL writes a whole history in the fickle JSONL format: sessions,
// every begin (so that reads may name any transaction), then each
// transaction's statements, reads and writes and its end, then the commit
// order, the version orders and the incompatible orders (jsonl_orders.go).
// Reading the result back gives h again (ReadJSONL).
func WriteJSONL(out io.Writer, h *History, hdr Header) error {
	w, err := NewWriter(out, hdr)
	if err != nil {
		return err
	}
	for _, k := range h.Keys {
		w.key(k)
	}
	for _, s := range h.Sessions {
		w.Session(s.ID, s.Name)
	}
	for i := range h.Txns[Init].Ops {
		it, err := writeItem(h, Init, i)
		if err != nil {
			return err
		}
		w.Write(Init, it)
	}
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		w.Begin(t.ID, t.Session, t.Level, t.Start, t.Name)
	}
	var items []ReadItem
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		next := uint32(0) // the first statement not written yet
		for j := 0; j < len(t.Ops); {
			ev := t.Ops[j].Event
			w.writeEmptyClientReads(t, next, ev)
			next = ev + 1
			if t.Statements != nil {
				w.Stmt(t.ID, t.Statements[ev])
			}
			// One read line per run of reads of the event, one write line
			// per write.
			for j < len(t.Ops) && t.Ops[j].Event == ev {
				if t.Ops[j].Kind == OpWrite {
					it, err := writeItem(h, t.ID, j)
					if err != nil {
						return err
					}
					w.Write(t.ID, it)
					j++
					if t.Statements == nil {
						break
					}
					continue
				}
				items = items[:0]
				for j < len(t.Ops) && t.Ops[j].Event == ev && t.Ops[j].Kind == OpRead {
					it, err := readItem(h, t, j)
					if err != nil {
						return err
					}
					items = append(items, it)
					j++
				}
				w.writeStatementReads(t, ev, items)
			}
		}
		w.writeEmptyClientReads(t, next, uint32(len(t.Statements)))
		switch t.Outcome {
		case Committed:
			w.Commit(t.ID, t.End)
		case Pending:
		default:
			w.Abort(t.ID, t.Outcome, "", t.End)
		}
	}
	for i := 1; i < len(h.CommitOrder); i++ {
		w.CommitOrder(h.CommitOrder[i], h.CommitOrder[i-1])
	}
	w.writeVersionOrders(h)
	w.writeIncompatibleOrders(h)
	return w.Close()
}

func readItem(h *History, t *Txn, i int) (ReadItem, error) {
	op := t.Ops[i]
	it := ReadItem{
		Key:       h.Keys[op.Key],
		Writer:    op.Writer,
		Returned:  op.Flags&FlagReturned != 0,
		Tombstone: op.Flags&FlagTombstone != 0,
		HasValue:  op.Flags&FlagHasValue != 0,
		Value:     op.Value,
	}
	var err error
	it.Row, err = t.Row(i)
	it.Newer, _ = t.LatestOf(i)
	return it, err
}

func writeItem(h *History, t TxnID, i int) (WriteItem, error) {
	tx := &h.Txns[t]
	op := tx.Ops[i]
	it := WriteItem{
		Key:       h.Keys[op.Key],
		Tombstone: op.Flags&FlagTombstone != 0,
		HasValue:  op.Flags&FlagHasValue != 0,
		Value:     op.Value,
	}
	var err error
	it.Row, err = tx.Row(i)
	return it, err
}
