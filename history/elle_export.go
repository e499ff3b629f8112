package history

import (
	"bufio"
	"io"
	"strconv"
)

// WriteElleEDN writes h as a Jepsen/Elle rw-register history in EDN, one
// operation map a line: for each transaction an :invoke and its completion
// (:ok when committed, :fail when aborted, :info when pending), processes
// numbered by session. Reads are [:r k v], with nil for a read of Init;
// writes [:w k v]; a delete writes a fresh value, since Elle has no
// tombstones. Keys and values follow kvExport. :time is the transaction's
// start and end when recorded, else its place in the file, so that
// sessions appear one after another.
func WriteElleEDN(out io.Writer, h *History) error {
	x := newKVExport(h)
	w := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	index := int64(0)
	for si, s := range h.Sessions {
		for _, id := range s.Txns {
			t := &h.Txns[id]
			value := buf[:0]
			value = append(value, '[')
			for i, op := range t.Ops {
				if i > 0 {
					value = append(value, ' ')
				}
				v, initial := x.valueInit(id, i)
				if op.Kind == OpWrite {
					value = append(value, "[:w "...)
				} else {
					value = append(value, "[:r "...)
				}
				value = strconv.AppendInt(value, x.key(op.Key), 10)
				value = append(value, ' ')
				if op.Kind == OpRead && initial {
					value = append(value, "nil"...)
				} else {
					value = strconv.AppendInt(value, v, 10)
				}
				value = append(value, ']')
			}
			value = append(value, ']')
			buf = value
			start, end := t.Start, t.End
			if start == 0 && end == 0 {
				start, end = index, index+1
			}
			typ := ":ok"
			switch t.Outcome {
			case ClientAborted, ServerAborted:
				typ = ":fail"
			case Pending:
				typ = ":info"
			}
			writeElleOp(w, index, start, ":invoke", si, value)
			writeElleOp(w, index+1, end, typ, si, value)
			index += 2
		}
	}
	return w.Flush()
}

func writeElleOp(w *bufio.Writer, index, time int64, typ string, process int, value []byte) {
	var b [96]byte
	line := append(b[:0], "{:index "...)
	line = strconv.AppendInt(line, index, 10)
	line = append(line, ", :time "...)
	line = strconv.AppendInt(line, time, 10)
	line = append(line, ", :type "...)
	line = append(line, typ...)
	line = append(line, ", :process "...)
	line = strconv.AppendInt(line, int64(process), 10)
	line = append(line, ", :f :txn, :value "...)
	w.Write(line)
	w.Write(value)
	w.WriteString("}\n")
}
