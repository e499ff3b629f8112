package history

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// ReadDBCopHist reads dbcop's compact text format (.hist): sessions
// separated by lines of dashes; each line holds transactions "[e e ...]",
// a trailing "!" marking one uncommitted; an event is "x:=N" (write),
// "x==N" (read) or "x==?" (read of the uninitialised variable); "//"
// starts a comment line. Variables are identifiers. See buildDBCop for
// aborts and initial reads.
func ReadDBCopHist(r io.Reader, name string) (*History, error) {
	lr, err := newLineReader(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	b := NewBuilder()
	sessions := [][]dbcopTxn{nil}
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
		case len(line) == 0 || bytes.HasPrefix(line, []byte("//")):
			continue
		case allBytes(line, '-'):
			sessions = append(sessions, nil)
			continue
		}
		for len(line) > 0 {
			t, rest, err := parseHistTxn(b, line)
			if err != nil {
				return nil, lineErr(name, lr.line, "%v", err)
			}
			t.line = int32(min(lr.line, 1<<31-1))
			sessions[len(sessions)-1] = append(sessions[len(sessions)-1], t)
			line = trimSpace(rest)
		}
	}
	return buildDBCop(name, b, sessions)
}

func parseHistTxn(b *Builder, s []byte) (dbcopTxn, []byte, error) {
	t := dbcopTxn{committed: true}
	if s[0] != '[' {
		return t, nil, fmt.Errorf("want '[' to start a transaction, got %q", truncate(s))
	}
	end := bytes.IndexByte(s, ']')
	if end < 0 {
		return t, nil, fmt.Errorf("transaction %q has no closing ']'", truncate(s))
	}
	body, rest := s[1:end], s[end+1:]
	if len(rest) > 0 && rest[0] == '!' {
		t.committed, rest = false, rest[1:]
	}
	for _, ev := range bytes.Fields(body) {
		e, err := parseHistEvent(b, ev)
		if err != nil {
			return t, nil, err
		}
		t.events = append(t.events, e)
	}
	if len(t.events) == 0 {
		return t, nil, fmt.Errorf("empty transaction")
	}
	return t, rest, nil
}

func parseHistEvent(b *Builder, ev []byte) (dbcopEvent, error) {
	var e dbcopEvent
	i := bytes.IndexAny(ev, ":=")
	if i <= 0 || !isIdent(ev[:i]) {
		return e, fmt.Errorf("bad event %q: want x:=N, x==N or x==?", ev)
	}
	op, val := ev[i:], []byte(nil)
	switch {
	case bytes.HasPrefix(op, []byte(":=")):
		e.write, val = true, op[2:]
	case bytes.Equal(op, []byte("==?")):
		e.initial = true
	case bytes.HasPrefix(op, []byte("==")):
		val = op[2:]
	default:
		return e, fmt.Errorf("bad event %q: want x:=N, x==N or x==?", ev)
	}
	if !e.initial {
		v, err := parseInt(val)
		if err != nil || v < 0 {
			return e, fmt.Errorf("bad event %q: the version must be a non-negative integer", ev)
		}
		e.value = v
	}
	e.key = b.Key("", string(ev[:i]))
	return e, nil
}

func isIdent(b []byte) bool {
	for _, c := range b {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && c < 0x80 {
			return false
		}
	}
	return len(b) > 0
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// WriteDBCopHist writes h in dbcop's .hist text format: one transaction a
// line, sessions separated by "---", "!" after a transaction that did not
// commit, "x==?" for a read of Init; pending transactions are left out.
// Variables are the key names when these are identifiers starting with a
// letter and distinct, else "k" and the key's number; values follow
// kvExport.
func WriteDBCopHist(out io.Writer, h *History) error {
	x := newKVExport(h)
	names := make([]string, len(h.Keys))
	seen := make(map[string]bool, len(h.Keys))
	useNames := true
	for i, k := range h.Keys {
		n := k.Name
		if k.Table != "" || !isIdent([]byte(n)) || !(n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z' || n[0] == '_') || seen[n] {
			useNames = false
			break
		}
		seen[n], names[i] = true, n
	}
	if !useNames {
		for i := range names {
			names[i] = "k" + strconv.FormatInt(x.key(KeyID(i)), 10)
		}
	}
	w := bufio.NewWriterSize(out, 64<<10)
	for si, s := range h.Sessions {
		if si > 0 {
			w.WriteString("---\n")
		}
		for _, id := range s.Txns {
			t := &h.Txns[id]
			if t.Outcome == Pending || len(t.Ops) == 0 {
				continue
			}
			w.WriteByte('[')
			for i, op := range t.Ops {
				if i > 0 {
					w.WriteByte(' ')
				}
				w.WriteString(names[op.Key])
				v, initial := x.valueInit(id, i)
				switch {
				case op.Kind == OpWrite:
					w.WriteString(":=" + strconv.FormatInt(v, 10))
				case initial:
					w.WriteString("==?")
				default:
					w.WriteString("==" + strconv.FormatInt(v, 10))
				}
			}
			w.WriteByte(']')
			if t.Outcome != Committed {
				w.WriteByte('!')
			}
			w.WriteByte('\n')
		}
	}
	return w.Flush()
}
