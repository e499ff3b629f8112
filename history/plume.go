package history

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// ReadPlume reads a history in the Plume/PolySI text format: one operation
// a line, "r(KEY,VALUE,SESSION,TXN)" or "w(KEY,VALUE,SESSION,TXN)", with
// non-negative integers except TXN, where -1 marks an operation of an
// aborted transaction (Plume's extension). Transaction ids are global; a
// session's transactions are in order of first appearance. Blank lines and
// lines starting with # are ignored.
//
// Every transaction is committed with LevelUnknown. The operations with
// transaction -1 of a session form one server-aborted transaction, so that
// reads of their writes are aborted reads. Reads are linked to writes by
// value. Initial reads: Plume's loaders add an initial transaction writing
// 0 to every key; here a read of 0 that no transaction wrote reads Init,
// which, unlike Plume's added transaction (not ordered first), is
// so-before every transaction (DESIGN.md §2). Other unmatched values are
// thin-air reads.
func ReadPlume(r io.Reader, name string) (*History, error) {
	lr, err := newLineReader(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	b := NewBuilder()
	keys := newNumKeys()
	var sessions, txns idMap
	aborted := map[SessionID]TxnID{}
	var raw rawTxns
	var late []lateOp
	for {
		line, _, ok, err := lr.next()
		if err != nil {
			return nil, lineErr(name, lr.line+1, "%v", err)
		}
		if !ok {
			break
		}
		line = trimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		kind, f, err := parsePlumeOp(line)
		if err != nil {
			return nil, lineErr(name, lr.line, "%v", err)
		}
		sid, ok := sessions.get(f[2])
		if !ok {
			sid = uint32(b.Session(strconv.FormatInt(f[2], 10)))
			sessions.set(f[2], sid)
		}
		var t TxnID
		var known bool
		if f[3] == -1 {
			t, known = aborted[SessionID(sid)]
		} else if id, ok := txns.get(f[3]); ok {
			t, known = TxnID(id), true
			if raw.heads[t-1].session != SessionID(sid) {
				return nil, lineErr(name, lr.line, "transaction %d appears in sessions %s and %d", f[3], b.h.Sessions[raw.heads[t-1].session].Name, f[2])
			}
		}
		if !known {
			raw.end()
			t = raw.current(SessionID(sid), LevelUnknown, Committed, lr.line)
			if f[3] == -1 {
				raw.head().name, raw.head().outcome = "-1", ServerAborted
				aborted[SessionID(sid)] = t
			} else {
				raw.nameNumber(f[3])
				txns.set(f[3], uint32(t))
			}
		}
		key := keys.ref(f[0])
		op := Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: key, Value: f[1]}
		if kind == OpWrite {
			op = Op{Kind: OpWrite, Flags: FlagHasValue, Key: key, Value: f[1]}
		}
		if raw.open && t == TxnID(len(raw.heads)) {
			raw.op(op)
		} else {
			// An operation of a transaction interrupted by another's.
			late = append(late, lateOp{t, op})
		}
	}
	lines := raw.build(b)
	for _, l := range late {
		tx := &b.h.Txns[l.txn]
		l.op.Event = uint32(len(tx.Ops))
		tx.Ops = append(tx.Ops, l.op)
	}
	keys.assign(&b.h)
	if err := matchByValue(name, &b.h, lines, func(v int64) bool { return v == 0 }); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}

// lateOp is an operation of a transaction that another interrupted, added
// after the contiguous ones.
type lateOp struct {
	txn TxnID
	op  Op
}

// parsePlumeOp parses "r(k,v,s,t)" into its kind and four integers.
func parsePlumeOp(line []byte) (OpKind, [4]int64, error) {
	var f [4]int64
	bad := func(why string) (OpKind, [4]int64, error) {
		return 0, f, fmt.Errorf("bad operation %q: %s", line, why)
	}
	if len(line) < 2 || (line[0] != 'r' && line[0] != 'w') || line[1] != '(' || line[len(line)-1] != ')' {
		return bad("want r(KEY,VALUE,SESSION,TXN) or w(KEY,VALUE,SESSION,TXN)")
	}
	var parts [4][]byte
	rest, n := line[2:len(line)-1], 0
	for ; n < 4; n++ {
		i := bytes.IndexByte(rest, ',')
		if i < 0 {
			parts[n], rest = rest, nil
			n++
			break
		}
		parts[n], rest = rest[:i], rest[i+1:]
	}
	if n != 4 || rest != nil {
		return bad("want four comma-separated integers")
	}
	for i, p := range parts {
		v, err := parseInt(trimSpace(p))
		if err != nil {
			return bad(err.Error())
		}
		if v < 0 && !(i == 3 && v == -1) {
			return bad("negative number (only TXN may be -1)")
		}
		f[i] = v
	}
	kind := OpRead
	if line[0] == 'w' {
		kind = OpWrite
	}
	return kind, f, nil
}

// WritePlume writes h in the Plume/PolySI text format. The sessions that
// write a line are numbered from 0 in order, transactions from 0 across the file;
// committed transactions write all their operations; transactions the
// client or the server aborted write only their writes, with transaction
// -1; pending ones are left out. Keys and values follow kvExport.
func WritePlume(out io.Writer, h *History) error {
	x := newKVExport(h)
	w := bufio.NewWriterSize(out, 64<<10)
	buf := make([]byte, 0, 64)
	next, sessions := int64(0), int64(0)
	for _, s := range h.Sessions {
		// A session is numbered when its first line is written: one whose
		// transactions write nothing (aborted reads only) leaves no gap
		// that would renumber the sessions after it on the next read.
		si := int64(-1)
		for _, id := range s.Txns {
			t := &h.Txns[id]
			txn := int64(-1)
			switch t.Outcome {
			case Pending:
				continue
			case Committed:
				if len(t.Ops) == 0 {
					continue
				}
				txn = next
				next++
			}
			for i, op := range t.Ops {
				if txn == -1 && op.Kind == OpRead {
					continue
				}
				if si < 0 {
					si, sessions = sessions, sessions+1
				}
				buf = append(buf[:0], "r("...)
				if op.Kind == OpWrite {
					buf[0] = 'w'
				}
				buf = strconv.AppendInt(buf, x.key(op.Key), 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, x.value(id, i), 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, si, 10)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, txn, 10)
				buf = append(buf, ")\n"...)
				w.Write(buf)
			}
		}
	}
	return w.Flush()
}
