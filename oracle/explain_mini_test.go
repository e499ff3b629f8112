package oracle

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// miniHistory parses the notation of DESIGN §3's anomaly table into a
// history, one session a line:
//
//	S1: [w x=1] [w x=2, w y=2]
//	S2: [r y=2, r x=1]
//
// A transaction is a bracketed list of operations separated by commas: "w
// x=1" writes 1 to x, "d x" deletes x, "r x=1" reads 1 from x, and "r x=1
// y=2" is one statement reading both keys. A read's writer is the
// transaction that wrote that value to that key (0 is init's), so values
// should be unique per key; a value nobody wrote is a thin-air read. A
// transaction may start with a level, "[RA| r x=1]" (default: level), and
// end with "!" (client-aborted), "?" (pending) or "#" (server-aborted)
// after the bracket. "@start-end" after the bracket gives times.
func miniHistory(text string, level history.Level) (*history.History, error) {
	type op struct {
		kind  byte
		keys  []string
		vals  []int64
		event int
	}
	type txn struct {
		sess       int
		level      history.Level
		outcome    history.Outcome
		ops        []op
		start, end int64
	}
	var sessions []string
	var txns []txn
	writers := map[string]map[int64]int{} // key -> value -> txn index+1
	for ln, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: want \"S: [ops]...\"", ln+1)
		}
		si := len(sessions)
		sessions = append(sessions, strings.TrimSpace(name))
		for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
			if rest[0] != '[' {
				return nil, fmt.Errorf("line %d: want '[' at %q", ln+1, rest)
			}
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("line %d: unclosed '['", ln+1)
			}
			body := rest[1:end]
			rest = rest[end+1:]
			t := txn{sess: si, level: level, outcome: history.Committed}
			if lv, b, ok := strings.Cut(body, "|"); ok {
				l, err := history.ParseLevel(lv)
				if err != nil {
					return nil, fmt.Errorf("line %d: %v", ln+1, err)
				}
				t.level, body = l, b
			}
			for len(rest) > 0 && strings.ContainsRune("!?#@", rune(rest[0])) {
				switch rest[0] {
				case '!':
					t.outcome = history.ClientAborted
				case '?':
					t.outcome = history.Pending
				case '#':
					t.outcome = history.ServerAborted
				case '@':
					sp := strings.IndexAny(rest, " \t[")
					if sp < 0 {
						sp = len(rest)
					}
					a, b, _ := strings.Cut(rest[1:sp], "-")
					t.start, _ = strconv.ParseInt(a, 10, 64)
					t.end, _ = strconv.ParseInt(b, 10, 64)
					rest = rest[sp-1:]
				}
				rest = rest[1:]
			}
			for ei, f := range strings.Split(body, ",") {
				fs := strings.Fields(f)
				if len(fs) < 2 {
					return nil, fmt.Errorf("line %d: bad operation %q", ln+1, f)
				}
				o := op{kind: fs[0][0], event: ei}
				for _, kv := range fs[1:] {
					k, v, _ := strings.Cut(kv, "=")
					val := int64(0)
					if v != "" {
						n, err := strconv.ParseInt(v, 10, 64)
						if err != nil {
							return nil, fmt.Errorf("line %d: bad value in %q", ln+1, kv)
						}
						val = n
					}
					o.keys, o.vals = append(o.keys, k), append(o.vals, val)
					if o.kind == 'w' {
						if writers[k] == nil {
							writers[k] = map[int64]int{}
						}
						writers[k][val] = len(txns) + 1
					}
				}
				t.ops = append(t.ops, o)
			}
			txns = append(txns, t)
		}
	}
	b := history.NewBuilder()
	sids := make([]history.SessionID, len(sessions))
	for i, s := range sessions {
		sids[i] = b.Session(s)
	}
	for ti, t := range txns {
		tb := b.Txn(sids[t.sess], t.level).Name(fmt.Sprintf("T%d", ti+1))
		if t.start != 0 || t.end != 0 {
			tb.Times(t.start, t.end)
		}
		for _, o := range t.ops {
			if len(o.keys) > 1 {
				tb.Stmt(history.Statement{})
			}
			for i, k := range o.keys {
				switch o.kind {
				case 'w':
					tb.WriteValue(k, o.vals[i])
				case 'd':
					tb.Delete(k)
				case 'r':
					w := history.NoWriter
					if id, ok := writers[k][o.vals[i]]; ok {
						w = history.TxnID(id)
					} else if o.vals[i] == 0 {
						w = history.Init
					}
					tb.ReadValue(k, w, o.vals[i])
				default:
					return nil, fmt.Errorf("unknown operation %q", o.kind)
				}
			}
			if len(o.keys) > 1 {
				tb.EndStmt()
			}
		}
		tb.End(t.outcome)
	}
	return b.History()
}
