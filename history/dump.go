package history

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Dump writes h in a stable, human-readable text form, one transaction a
// line, for golden files and debugging:
//
//	T2 S1 SER committed: r(x,T1,ret) | w(y=3) w(z,del)
//
// Operations of one statement are separated by spaces, statements by " | ".
// Reads show the key, the writer (T0 is Init, T? is NoWriter) and their
// flags; writes the key and value or tombstone. The commit order, when
// recorded, ends the dump.
func (h *History) Dump(out io.Writer) error {
	w := bufio.NewWriter(out)
	for _, op := range h.Txns[Init].Ops {
		fmt.Fprintf(w, "init %s\n", h.opString(op))
	}
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		fmt.Fprintf(w, "T%d S%d %s %s:", t.ID, t.Session, t.Level, t.Outcome)
		for j, op := range t.Ops {
			sep := " "
			if j > 0 && op.Event != t.Ops[j-1].Event {
				sep = " | "
			}
			w.WriteString(sep)
			w.WriteString(h.opString(op))
		}
		if t.Statements != nil {
			for j, st := range t.Statements {
				if st != (Statement{}) {
					fmt.Fprintf(w, "\n  stmt %d: sql=%q table=%q pred=%q", j, st.SQL, st.Table, st.Predicate)
				}
			}
		}
		w.WriteByte('\n')
	}
	if h.CommitOrder != nil {
		w.WriteString("co:")
		for _, t := range h.CommitOrder {
			fmt.Fprintf(w, " T%d", t)
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}

func (h *History) opString(op Op) string {
	k := h.Keys[op.Key].String()
	b := make([]byte, 0, 32)
	if op.Kind == OpWrite {
		b = append(b, "w("...)
		b = append(b, k...)
		if op.Flags&FlagHasValue != 0 {
			b = append(b, '=')
			b = strconv.AppendInt(b, op.Value, 10)
		}
		if op.Flags&FlagTombstone != 0 {
			b = append(b, ",del"...)
		}
		return string(append(b, ')'))
	}
	b = append(b, "r("...)
	b = append(b, k...)
	switch op.Writer {
	case NoWriter:
		b = append(b, ",T?"...)
	default:
		b = append(b, ",T"...)
		b = strconv.AppendUint(b, uint64(op.Writer), 10)
	}
	if op.Flags&FlagHasValue != 0 {
		b = append(b, '=')
		b = strconv.AppendInt(b, op.Value, 10)
	}
	if op.Flags&FlagReturned != 0 {
		b = append(b, ",ret"...)
	}
	if op.Flags&FlagTombstone != 0 {
		b = append(b, ",del"...)
	}
	return string(append(b, ')'))
}
