package history

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// ReadAWDIT reads a history in the AWDIT checker's test format: one
// operation a line, "r KEY VALUE" or "w KEY VALUE" with non-negative
// integers; a line of dashes ends a transaction, a line of equals signs
// ends a session; blank lines are ignored. The format has no levels and no
// aborted transactions: every transaction is committed with LevelUnknown.
//
// Reads are linked to writes by value (values written to a key are unique).
// Initial reads: a read of 0 that no transaction wrote reads Init, which is
// so-before every transaction (AWDIT's own loader treats it the same way
// for this format); any other unmatched value is a thin-air read
// (NoWriter). Keys are named by their decimal number.
func ReadAWDIT(r io.Reader, name string) (*History, error) {
	lr, err := newLineReader(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	b := NewBuilder()
	var keys intKeys
	var txns rawTxns
	sess := SessionID(0)
	newSession := true
	for {
		line, _, ok, err := lr.next()
		if err != nil {
			return nil, lineErr(name, lr.line+1, "%v", err)
		}
		if !ok {
			break
		}
		line = trimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case allBytes(line, '='):
			txns.end()
			newSession = true
			continue
		case allBytes(line, '-'):
			txns.end()
			continue
		}
		kind, k, v, err := parseAWDITOp(line)
		if err != nil {
			return nil, lineErr(name, lr.line, "%v", err)
		}
		if newSession {
			sess = b.Session(strconv.Itoa(len(b.h.Sessions)))
			newSession = false
		}
		txns.current(sess, LevelUnknown, Committed, lr.line)
		key := keys.get(b, k)
		if kind == OpWrite {
			txns.op(Op{Kind: OpWrite, Flags: FlagHasValue, Key: key, Value: v})
		} else {
			txns.op(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: key, Value: v})
		}
	}
	lines := txns.build(b)
	if err := matchByValue(name, &b.h, lines, func(v int64) bool { return v == 0 }); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}

func allBytes(b []byte, c byte) bool {
	for _, x := range b {
		if x != c {
			return false
		}
	}
	return len(b) > 0
}

func parseAWDITOp(line []byte) (OpKind, int64, int64, error) {
	var fs [4][]byte
	f := fields(line, fs[:0])
	if len(f) != 3 || len(f[0]) != 1 || (f[0][0] != 'r' && f[0][0] != 'w') {
		return 0, 0, 0, fmt.Errorf("bad operation %q: want \"r KEY VALUE\" or \"w KEY VALUE\"", line)
	}
	k, err1 := parseInt(f[1])
	v, err2 := parseInt(f[2])
	if err1 != nil || err2 != nil || k < 0 || v < 0 {
		return 0, 0, 0, fmt.Errorf("bad operation %q: key and value must be non-negative integers", line)
	}
	if f[0][0] == 'w' {
		return OpWrite, k, v, nil
	}
	return OpRead, k, v, nil
}

// fields splits b at runs of spaces and tabs into dst, at most cap(dst)
// fields (the last one holding the rest).
func fields(b []byte, dst [][]byte) [][]byte {
	i := 0
	for i < len(b) && len(dst) < cap(dst) {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			break
		}
		j := i
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			j++
		}
		if len(dst) == cap(dst)-1 {
			j = len(b)
		}
		dst = append(dst, b[i:j])
		i = j
	}
	return dst
}

// intKeys interns integer-named keys without building their names twice.
type intKeys struct{ m idMap }

func (ik *intKeys) get(b *Builder, n int64) KeyID {
	if id, ok := ik.m.get(n); ok {
		return KeyID(id)
	}
	id := b.Key("", strconv.FormatInt(n, 10))
	ik.m.set(n, uint32(id))
	return id
}

// WriteAWDIT writes h in AWDIT's test format. The format cannot express
// aborted transactions, levels, tables or predicates: transactions that did
// not commit are left out (reads of their writes become thin-air reads),
// keys are numbered (see kvExport), and every transaction ends with a dash
// line, every session with an equals line.
func WriteAWDIT(out io.Writer, h *History) error {
	x := newKVExport(h)
	w := bufio.NewWriterSize(out, 64<<10)
	buf := make([]byte, 0, 64)
	for _, s := range h.Sessions {
		wrote := false
		for _, id := range s.Txns {
			t := &h.Txns[id]
			if t.Outcome != Committed || len(t.Ops) == 0 {
				continue
			}
			for i, op := range t.Ops {
				buf = buf[:0]
				if op.Kind == OpWrite {
					buf = append(buf, "w "...)
				} else {
					buf = append(buf, "r "...)
				}
				buf = strconv.AppendInt(buf, x.key(op.Key), 10)
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, x.value(id, i), 10)
				buf = append(buf, '\n')
				w.Write(buf)
			}
			w.WriteString("-\n")
			wrote = true
		}
		if wrote {
			w.WriteString("=\n")
		}
	}
	return w.Flush()
}
