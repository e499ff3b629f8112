package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// ReadDBCopJSON reads a history in dbcop's JSON format: either the
// standalone form {"params":..., "info":..., "start":..., "end":...,
// "data": SESSIONS} or the bare SESSIONS array. SESSIONS is an array of
// sessions, each an array of {"events": [...], "committed": bool}; an
// event is {"Write":{"variable":V,"version":N}}, {"Read":{"variable":V,
// "version":N|null}}, or the compact ["w",V,N] / ["r",V,N|null]. Variables
// may be integers or strings. See buildDBCop for aborts and initial reads.
func ReadDBCopJSON(r io.Reader, name string) (*History, error) {
	data, err := readAllInput(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, jsonErr(name, data, dec, err)
	}
	if obj, ok := top.(map[string]any); ok {
		if top, ok = obj["data"]; !ok {
			return nil, fileErr(name, "dbcop JSON object without \"data\"")
		}
	}
	b := NewBuilder()
	p := dbcopJSON{b: b}
	sessions, err := p.sessions(top)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return buildDBCop(name, b, sessions)
}

// jsonErr turns an encoding/json error into a ParseError with a line.
func jsonErr(name string, data []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if ok := asSyntax(err, &se); ok {
		off = se.Offset
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte{'\n'})
	return lineErr(name, line, "bad JSON: %v", err)
}

func asSyntax(err error, se **json.SyntaxError) bool {
	s, ok := err.(*json.SyntaxError)
	if ok {
		*se = s
	}
	return ok
}

type dbcopJSON struct {
	b    *Builder
	keys intKeys
}

func (p *dbcopJSON) sessions(v any) ([][]dbcopTxn, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("sessions: want an array, got %s", jsonKind(v))
	}
	out := make([][]dbcopTxn, len(arr))
	for i, s := range arr {
		txns, ok := s.([]any)
		if !ok {
			return nil, fmt.Errorf("session %d: want an array of transactions, got %s", i, jsonKind(s))
		}
		for j, t := range txns {
			dt, err := p.txn(t)
			if err != nil {
				return nil, fmt.Errorf("session %d transaction %d: %v", i, j, err)
			}
			out[i] = append(out[i], dt)
		}
	}
	return out, nil
}

func (p *dbcopJSON) txn(v any) (dbcopTxn, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return dbcopTxn{}, fmt.Errorf("want an object, got %s", jsonKind(v))
	}
	dt := dbcopTxn{committed: true}
	if c, ok := obj["committed"]; ok {
		b, ok := c.(bool)
		if !ok {
			return dt, fmt.Errorf("\"committed\" is %s, want a bool", jsonKind(c))
		}
		dt.committed = b
	}
	evs, ok := obj["events"].([]any)
	if !ok {
		return dt, fmt.Errorf("\"events\" missing or not an array")
	}
	for k, e := range evs {
		ev, err := p.event(e)
		if err != nil {
			return dt, fmt.Errorf("event %d: %v", k, err)
		}
		dt.events = append(dt.events, ev)
	}
	return dt, nil
}

func (p *dbcopJSON) event(v any) (dbcopEvent, error) {
	var kind string
	var variable, version any
	switch e := v.(type) {
	case []any:
		if len(e) != 3 {
			return dbcopEvent{}, fmt.Errorf("compact event has %d elements, want 3", len(e))
		}
		tag, _ := e[0].(string)
		kind, variable, version = map[string]string{"r": "Read", "w": "Write"}[tag], e[1], e[2]
	case map[string]any:
		if len(e) != 1 {
			return dbcopEvent{}, fmt.Errorf("want {\"Read\":...} or {\"Write\":...}")
		}
		for k, body := range e {
			kind = k
			fields, ok := body.(map[string]any)
			if !ok {
				return dbcopEvent{}, fmt.Errorf("%s: want an object", k)
			}
			variable, version = fields["variable"], fields["version"]
		}
	default:
		return dbcopEvent{}, fmt.Errorf("want an event, got %s", jsonKind(v))
	}
	if kind != "Read" && kind != "Write" {
		return dbcopEvent{}, fmt.Errorf("unknown event kind %q", kind)
	}
	ev := dbcopEvent{write: kind == "Write"}
	switch k := variable.(type) {
	case json.Number:
		n, err := strconv.ParseInt(k.String(), 10, 64)
		if err != nil || n < 0 {
			return ev, fmt.Errorf("bad variable %s", k)
		}
		ev.key = p.keys.get(p.b, n)
	case string:
		ev.key = p.b.Key("", k)
	default:
		return ev, fmt.Errorf("variable is %s, want a number or a string", jsonKind(variable))
	}
	if version == nil {
		if ev.write {
			return ev, fmt.Errorf("write without a version")
		}
		ev.initial = true
		return ev, nil
	}
	n, ok := version.(json.Number)
	if !ok {
		return ev, fmt.Errorf("version is %s, want a number", jsonKind(version))
	}
	val, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil || val < 0 {
		return ev, fmt.Errorf("bad version %s", n)
	}
	ev.value = val
	return ev, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// WriteDBCopJSON writes h in dbcop's standalone JSON format with tagged
// events. Committed transactions have "committed": true, aborted ones
// false; pending ones are left out. A read from Init has version null;
// keys and values follow kvExport.
func WriteDBCopJSON(out io.Writer, h *History) error {
	x := newKVExport(h)
	w := bufio.NewWriterSize(out, 64<<10)
	nTxn, nEvt := 0, 0
	for i := 1; i < len(h.Txns); i++ {
		if h.Txns[i].Outcome != Pending {
			nTxn++
			nEvt += len(h.Txns[i].Ops)
		}
	}
	fmt.Fprintf(w, "{\"params\":{\"id\":0,\"n_node\":%d,\"n_variable\":%d,\"n_transaction\":%d,\"n_event\":%d},"+
		"\"info\":\"exported by fickle\",\"start\":\"1970-01-01T00:00:00+00:00\",\"end\":\"1970-01-01T00:00:00+00:00\",\"data\":[",
		len(h.Sessions), len(h.Keys), nTxn, nEvt)
	for si, s := range h.Sessions {
		if si > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n [")
		first := true
		for _, id := range s.Txns {
			t := &h.Txns[id]
			if t.Outcome == Pending {
				continue
			}
			if !first {
				w.WriteByte(',')
			}
			first = false
			w.WriteString("\n  {\"events\":[")
			for i, op := range t.Ops {
				if i > 0 {
					w.WriteByte(',')
				}
				v, initial := x.valueInit(id, i)
				kind, ver := "Read", strconv.FormatInt(v, 10)
				if op.Kind == OpWrite {
					kind = "Write"
				} else if initial {
					ver = "null"
				}
				fmt.Fprintf(w, "{%q:{\"variable\":%d,\"version\":%s}}", kind, x.key(op.Key), ver)
			}
			fmt.Fprintf(w, "],\"committed\":%t}", t.Outcome == Committed)
		}
		w.WriteString("]")
	}
	w.WriteString("\n]}\n")
	return w.Flush()
}
