package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
)

// elleOp is one operation of a Jepsen history, from EDN or JSON.
type elleOp struct {
	typ, f  string
	process string
	value   []any
	hasVal  bool
	time    int64
	line    int
}

// ReadElleEDN reads a Jepsen/Elle history in EDN: either one operation map
// a line (or any sequence of maps) or a single vector of them. See
// buildElle for the interpretation.
func ReadElleEDN(r io.Reader, name string) (*History, error) {
	data, err := readAllInput(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	p := &ednParser{src: data, line: 1}
	var ops []elleOp
	for {
		p.skipSpace()
		line := p.line
		v, ok, err := p.next()
		if err != nil {
			e := err.(*ednError)
			return nil, lineErr(name, e.line, "bad EDN: %s", e.msg)
		}
		if !ok {
			break
		}
		if err := collectElle(v, line, &ops); err != nil {
			return nil, lineErr(name, line, "%v", err)
		}
	}
	return buildElle(name, ops)
}

// ReadElleJSON reads a Jepsen/Elle history in JSON: one operation object a
// line, or a single array of them; keywords are strings ("ok", "append").
func ReadElleJSON(r io.Reader, name string) (*History, error) {
	data, err := readAllInput(r)
	if err != nil {
		return nil, fileErr(name, "%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var ops []elleOp
	for {
		off := dec.InputOffset()
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, jsonErr(name, data, dec, err)
		}
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		if rest := data[off:]; len(bytes.TrimLeft(rest, " \t\r\n")) < len(rest) {
			line += bytes.Count(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))], []byte{'\n'})
		}
		if err := collectElle(fromJSON(v), line, &ops); err != nil {
			return nil, lineErr(name, line, "%v", err)
		}
	}
	return buildElle(name, ops)
}

// fromJSON converts decoded JSON into the EDN parser's representation.
func fromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = fromJSON(x[i])
		}
		return x
	case map[string]any:
		m := make(ednMap, 0, len(x))
		for k, e := range x {
			m = append(m, ednEntry{k, fromJSON(e)})
		}
		return m
	}
	return v
}

// collectElle appends the operation(s) in form v to ops.
func collectElle(v any, line int, ops *[]elleOp) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := collectElle(e, line, ops); err != nil {
				return err
			}
		}
		return nil
	case ednMap:
		op := elleOp{line: line}
		t, _ := x.get("type")
		op.typ, _ = t.(string)
		f, _ := x.get("f")
		op.f, _ = f.(string)
		if p, ok := x.get("process"); ok {
			op.process = fmt.Sprint(p)
		}
		if tm, ok := x.get("time"); ok {
			op.time, _ = tm.(int64)
		}
		if val, ok := x.get("value"); ok && val != nil {
			mops, ok := val.([]any)
			if !ok && op.f == "txn" {
				return fmt.Errorf("transaction value is %s, want a vector of micro-operations", ednKind(val))
			}
			op.value, op.hasVal = mops, ok
		}
		switch op.typ {
		case "invoke", "ok", "fail", "info":
		default:
			return fmt.Errorf("operation type %q, want invoke, ok, fail or info", op.typ)
		}
		*ops = append(*ops, op)
		return nil
	}
	return fmt.Errorf("want an operation map, got %s", ednKind(v))
}

func ednKind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case string:
		return "a keyword, symbol or string"
	case []any:
		return "a vector"
	case ednMap:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

// elleRead is a list-append read kept to derive the version order: read
// operation op of transaction txn.
type elleRead struct {
	key  KeyID
	list []int64
	txn  TxnID
	op   int
}

// buildElle turns Jepsen operations into a history. Only :f :txn
// operations count; each process is a session. A completion pairs with the
// process's pending invocation (whose :time becomes the start time); a
// history of completions alone works too. :ok transactions are committed;
// :fail ones server-aborted (reads of their writes are aborted reads);
// :info ones and invocations never completed are indeterminate: they are
// kept as committed with their writes only, since a write nobody read can
// always be ordered last. Micro-operations: [:r k v] and [:w k v] for
// rw-register, [:r k [v ...]] and [:append k v] for list-append (values
// are integers, unique per key). A list-append read's last element names
// the write it read (an earlier element of the same transaction's appends
// makes it an intermediate read); the longest list read of each key gives
// a prefix of its version order (History.VersionOrder, marked in
// History.VersionOrderPrefix: every append no read showed came after the
// list's last element, as Elle infers), unless two lists read of the
// key are not prefixes of one another: that is Elle's incompatible order,
// recorded in History.IncompatibleOrders (a structural violation the
// checker reports, naming the key and the two reads), and the key's order
// is unknown. Initial reads: nil, and the
// empty list, read Init's tombstone (Elle's initial state is "no value");
// Init is so-before every transaction. Unmatched values are thin-air reads.
func buildElle(name string, ops []elleOp) (*History, error) {
	b := NewBuilder()
	sessions := map[string]SessionID{}
	pending := map[string]*elleOp{}
	var lines []int32
	var reads []elleRead
	kinds := map[string]bool{}
	keys := map[any]KeyID{}
	add := func(op *elleOp, inv *elleOp) error {
		s, ok := sessions[op.process]
		if !ok {
			s = b.Session(op.process)
			sessions[op.process] = s
		}
		o, keepReads := Committed, true
		switch op.typ {
		case "fail":
			o, keepReads = ServerAborted, false
		case "info", "invoke":
			keepReads = false
		}
		mops := op.value
		if !op.hasVal && inv != nil {
			mops = inv.value
		}
		tb := b.Txn(s, LevelUnknown)
		tb.End(o)
		if inv != nil {
			tb.txn().Start = inv.time
		}
		if op.typ != "invoke" {
			tb.txn().End = op.time
		}
		lines = append(lines, int32(min(op.line, 1<<31-1)))
		for _, m := range mops {
			mop, ok := m.([]any)
			if !ok || len(mop) != 3 {
				return lineErr(name, op.line, "bad micro-operation %s: want [f k v]", ednString(m))
			}
			f, _ := mop[0].(string)
			key, err := elleKey(b, keys, mop[1])
			if err != nil {
				return lineErr(name, op.line, "micro-operation %s: %v", ednString(m), err)
			}
			switch f {
			case "w", "append":
				kinds[f] = true
				v, ok := mop[2].(int64)
				if !ok {
					return lineErr(name, op.line, "micro-operation %s: the value must be an integer", ednString(m))
				}
				tb.Op(Op{Kind: OpWrite, Flags: FlagHasValue, Key: key, Value: v})
			case "r":
				if !keepReads {
					continue
				}
				switch v := mop[2].(type) {
				case nil:
					tb.Op(Op{Kind: OpRead, Flags: FlagTombstone, Key: key, Writer: Init})
				case int64:
					kinds["w"] = true
					tb.Op(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: key, Value: v})
				case []any:
					kinds["append"] = true
					list := make([]int64, len(v))
					for i, e := range v {
						n, ok := e.(int64)
						if !ok {
							return lineErr(name, op.line, "micro-operation %s: list elements must be integers", ednString(m))
						}
						list[i] = n
					}
					if len(list) == 0 {
						tb.Op(Op{Kind: OpRead, Flags: FlagTombstone, Key: key, Writer: Init})
						continue
					}
					reads = append(reads, elleRead{key: key, list: list, txn: tb.ID(), op: len(tb.txn().Ops)})
					tb.Op(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: key, Value: list[len(list)-1]})
				default:
					return lineErr(name, op.line, "micro-operation %s: bad read value", ednString(m))
				}
			default:
				return lineErr(name, op.line, "micro-operation %s: unknown function %q", ednString(m), f)
			}
		}
		return nil
	}
	for i := range ops {
		op := &ops[i]
		if op.f != "txn" {
			continue
		}
		if op.typ == "invoke" {
			if prev := pending[op.process]; prev != nil {
				if err := add(prev, nil); err != nil { // never completed
					return nil, err
				}
			}
			pending[op.process] = op
			continue
		}
		inv := pending[op.process]
		delete(pending, op.process)
		if err := add(op, inv); err != nil {
			return nil, err
		}
	}
	for i := range ops { // invocations left pending, in history order
		if op := &ops[i]; op.typ == "invoke" && pending[op.process] == op {
			if err := add(op, nil); err != nil {
				return nil, err
			}
		}
	}
	if kinds["w"] && kinds["append"] {
		return nil, fileErr(name, "history mixes rw-register ([:w k v], [:r k v]) and list-append ([:append k v], [:r k [...]]) operations")
	}
	lines = append([]int32{0}, lines...)
	if err := matchByValue(name, &b.h, lines, func(int64) bool { return false }); err != nil {
		return nil, err
	}
	if err := elleVersionOrder(name, &b.h, reads); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}

func elleKey(b *Builder, keys map[any]KeyID, k any) (KeyID, error) {
	switch x := k.(type) {
	case int64, string:
		if id, ok := keys[x]; ok {
			return id, nil
		}
		name := fmt.Sprint(x)
		if s, ok := x.(string); ok {
			name = ":" + s // keep keywords apart from numbers
		}
		id := b.Key("", name)
		keys[x] = id
		return id, nil
	}
	return 0, fmt.Errorf("the key must be an integer or a keyword")
}

// elleVersionOrder derives each key's version order from its longest list
// read, when every list read of the key is a prefix of it, and marks it a
// prefix: the list shows the first appends to the key, so any committed
// append it does not show (its writer's :ok or :info, not :fail) was
// installed after the list's last element. Otherwise some
// read is not a prefix of the longest, and that pair is the key's
// incompatible order: the first such read in the file, and the first
// longest list.
func elleVersionOrder(name string, h *History, reads []elleRead) error {
	if len(reads) == 0 {
		return nil
	}
	longest := make(map[KeyID]elleRead)
	for _, r := range reads {
		if l, ok := longest[r.key]; !ok || len(r.list) > len(l.list) {
			longest[r.key] = r
		}
	}
	conflict := make(map[KeyID]int) // key -> 1 + its index in h.IncompatibleOrders
	for _, r := range reads {
		l := longest[r.key]
		if conflict[r.key] > 0 || isPrefix(r.list, l.list) {
			continue
		}
		h.IncompatibleOrders = append(h.IncompatibleOrders, IncompatibleOrder{Key: r.key, Reads: [2]ListRead{
			{Txn: r.txn, Op: r.op, List: r.list}, {Txn: l.txn, Op: l.op, List: l.list}}})
		conflict[r.key] = len(h.IncompatibleOrders)
	}
	for _, r := range reads {
		if i := conflict[r.key]; i > 0 {
			io := &h.IncompatibleOrders[i-1]
			if pair := io.Reads; (r.txn != pair[0].Txn || r.op != pair[0].Op) && (r.txn != pair[1].Txn || r.op != pair[1].Op) {
				io.Others = append(io.Others, ListRead{Txn: r.txn, Op: r.op, List: r.list})
			}
		}
	}
	sort.Slice(h.IncompatibleOrders, func(i, j int) bool { return h.IncompatibleOrders[i].Key < h.IncompatibleOrders[j].Key })
	var m valueMatcher
	for i := range h.Txns {
		for _, op := range h.Txns[i].Ops {
			if op.Kind == OpWrite {
				m.writes = append(m.writes, vmWrite{value: op.Value, key: op.Key, txn: TxnID(i)})
			}
		}
	}
	if err := m.prepare(name, h.Keys); err != nil {
		return err
	}
	h.VersionOrder = make([][]TxnID, len(h.Keys))
	h.VersionOrderPrefix = make([]bool, len(h.Keys))
	for k, l := range longest {
		if conflict[k] > 0 {
			continue
		}
		var order []TxnID
		for _, v := range l.list {
			t, ok := m.lookup(k, v)
			if !ok {
				continue // a thin-air element
			}
			if len(order) == 0 || order[len(order)-1] != t {
				order = append(order, t)
			}
		}
		h.VersionOrder[k] = append(order, straddlers(h, k, order, l.list)...)
		h.VersionOrderPrefix[k] = len(order) > 0
	}
	return nil
}

// straddlers returns the committed writers in key k's order, other than
// its last, whose last append to k the longest list does not show: the
// list shows an earlier append of theirs, and the unseen last one came
// after the list's last element (Elle's inference for an unobserved
// append), so their versions straddle the others' and the order lists
// them again at its end, which closes a write cycle (G0) as Elle reports
// one. The order they are listed in among themselves adds edges only
// within that cycle.
func straddlers(h *History, k KeyID, order []TxnID, list []int64) []TxnID {
	if len(order) < 2 {
		return nil
	}
	var out []TxnID
	shown := make(map[int64]bool, len(list))
	for _, v := range list {
		shown[v] = true
	}
	for i, t := range order[:len(order)-1] {
		if h.Txns[t].Outcome != Committed || slices.Contains(order[:i], t) || t == order[len(order)-1] {
			continue
		}
		ops := h.Txns[t].Ops
		for j := len(ops) - 1; j >= 0; j-- {
			if ops[j].Kind == OpWrite && ops[j].Key == k {
				if !shown[ops[j].Value] {
					out = append(out, t)
				}
				break
			}
		}
	}
	return out
}

// isPrefix reports whether p is a prefix of l.
func isPrefix(p, l []int64) bool {
	if len(p) > len(l) {
		return false
	}
	for i, v := range p {
		if l[i] != v {
			return false
		}
	}
	return true
}

// ednString renders a parsed EDN value back, for error messages.
func ednString(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return x
	case []any:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(ednString(e))
		}
		b.WriteByte(']')
		return b.String()
	case ednMap:
		return "{...}"
	}
	return fmt.Sprint(v)
}
