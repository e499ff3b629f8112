package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// LogFile is one per-client log of a directory-shaped format (Viper,
// Cobra): its name for errors and its contents.
type LogFile struct {
	Name string
	R    io.Reader
}

// ReadViper reads Viper's JSON-lines logs, one file per client (session,
// in the order given): each line is a transaction {"value": [[OP, KEY,
// VALUE, OK], ...]} with OP "r" or "w", integer KEY and VALUE, and OK
// false for an operation that failed; other fields are ignored. A
// transaction with a failed operation is server-aborted. Every other
// transaction is committed with LevelUnknown. Reads are linked to writes by
// value. Initial reads: a read of 0 that no transaction wrote reads Init,
// so-before every transaction; other unmatched values are thin-air reads.
func ReadViper(files []LogFile) (*History, error) {
	b := NewBuilder()
	var keys intKeys
	lines := []int32{0}
	name := ""
	for _, f := range files {
		name = f.Name
		lr, err := newLineReader(f.R)
		if err != nil {
			return nil, fileErr(f.Name, "%v", err)
		}
		s := b.Session(f.Name)
		for {
			line, _, ok, err := lr.next()
			if err != nil {
				return nil, lineErr(f.Name, lr.line+1, "%v", err)
			}
			if !ok {
				break
			}
			if len(trimSpace(line)) == 0 {
				continue
			}
			var t struct {
				Value [][]json.RawMessage `json:"value"`
			}
			if err := json.Unmarshal(line, &t); err != nil {
				return nil, lineErr(f.Name, lr.line, "bad transaction: %v", err)
			}
			tb := b.Txn(s, LevelUnknown)
			tb.End(Committed)
			lines = append(lines, int32(min(lr.line, 1<<31-1)))
			for _, op := range t.Value {
				kind, k, v, okOp, err := parseViperOp(op)
				if err != nil {
					return nil, lineErr(f.Name, lr.line, "%v", err)
				}
				if !okOp {
					tb.End(ServerAborted)
				}
				key := keys.get(b, k)
				if kind == OpWrite {
					tb.Op(Op{Kind: OpWrite, Flags: FlagHasValue, Key: key, Value: v})
				} else {
					tb.Op(Op{Kind: OpRead, Flags: FlagReturned | FlagHasValue, Key: key, Value: v})
				}
			}
		}
	}
	if err := matchByValue(name, &b.h, lines, func(v int64) bool { return v == 0 }); err != nil {
		return nil, err
	}
	if err := b.h.validate(false); err != nil {
		return nil, fileErr(name, "%v", err)
	}
	return &b.h, nil
}

func parseViperOp(op []json.RawMessage) (OpKind, int64, int64, bool, error) {
	if len(op) != 3 && len(op) != 4 {
		return 0, 0, 0, false, fmt.Errorf("bad operation %s: want [\"r\"|\"w\", key, value, ok]", joinRaw(op))
	}
	var kind string
	if json.Unmarshal(op[0], &kind) != nil || (kind != "r" && kind != "w") {
		return 0, 0, 0, false, fmt.Errorf("bad operation %s: the first element must be \"r\" or \"w\"", joinRaw(op))
	}
	k, err1 := strconv.ParseInt(string(op[1]), 10, 64)
	v, err2 := strconv.ParseInt(string(op[2]), 10, 64)
	if err1 != nil || err2 != nil || k < 0 || v < 0 {
		return 0, 0, 0, false, fmt.Errorf("bad operation %s: key and value must be non-negative integers", joinRaw(op))
	}
	ok := true
	if len(op) == 4 && json.Unmarshal(op[3], &ok) != nil {
		return 0, 0, 0, false, fmt.Errorf("bad operation %s: the fourth element must be a bool", joinRaw(op))
	}
	if kind == "w" {
		return OpWrite, k, v, ok, nil
	}
	return OpRead, k, v, ok, nil
}

func joinRaw(op []json.RawMessage) string {
	return "[" + string(bytes.Join(func() [][]byte {
		out := make([][]byte, len(op))
		for i, o := range op {
			out[i] = o
		}
		return out
	}(), []byte(","))) + "]"
}
