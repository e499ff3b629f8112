package history

import (
	"bytes"
	"fmt"
	"io"
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
