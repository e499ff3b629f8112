package oracle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// parseShorthand builds a history from DESIGN §3's notation, as the
// commit-order tests write it:
//
//	S1:[w x=1][w x=2, w y=2] S2:[r y=2, r x=1]@SI [r x=2]!
//
// Sessions are separated by spaces; a transaction is a bracketed list of
// "w KEY=VALUE" and "r KEY=VALUE" operations; values are unique per key, 0
// is Init's. A suffix @LEVEL sets the transaction's level (default: level),
// ! marks it rolled back by the client. An optional "co: T1 T3 T2" part
// after " | " records a commit order by transaction number (1-based, in the
// order transactions appear).
func parseShorthand(t testing.TB, text string, level history.Level) *history.History {
	t.Helper()
	h, err := parseShorthandErr(text, level)
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return h
}

func parseShorthandErr(text string, level history.Level) (*history.History, error) {
	co := ""
	if i := strings.Index(text, "| co:"); i >= 0 {
		text, co = text[:i], text[i+len("| co:"):]
	}
	b := history.NewBuilder()
	type pendingRead struct {
		tb    *history.TxnBuilder
		key   string
		value string
	}
	type txnText struct {
		tb  *history.TxnBuilder
		ops []string
	}
	writer := map[string]history.TxnID{} // "x=1" -> writer
	var txns []txnText
	for _, sess := range strings.Fields(strings.NewReplacer(", ", ",", "w ", "w_", "r ", "r_").Replace(text)) {
		name, body, ok := strings.Cut(sess, ":")
		if !ok {
			return nil, fmt.Errorf("session %q has no name", sess)
		}
		s := b.Session(name)
		for body != "" {
			if body[0] != '[' {
				return nil, fmt.Errorf("expected [ in %q", body)
			}
			end := strings.IndexByte(body, ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", body)
			}
			ops := strings.Split(body[1:end], ",")
			body = body[end+1:]
			l, aborted := level, false
			for body != "" && body[0] != '[' {
				switch {
				case body[0] == '!':
					aborted, body = true, body[1:]
				case body[0] == '@':
					j := strings.IndexByte(body, '[')
					if j < 0 {
						j = len(body)
					}
					var err error
					if l, err = history.ParseLevel(strings.TrimRight(body[1:j], "!")); err != nil {
						return nil, err
					}
					aborted = aborted || strings.HasSuffix(body[1:j], "!")
					body = body[j:]
				default:
					return nil, fmt.Errorf("unexpected %q", body)
				}
			}
			tb := b.Txn(s, l)
			txns = append(txns, txnText{tb, ops})
			for _, op := range ops {
				op = strings.TrimSpace(op)
				if kv, ok := strings.CutPrefix(op, "w_"); ok && !aborted {
					writer[kv] = tb.ID()
				}
			}
			if aborted {
				tb.Abort()
			} else {
				tb.Commit()
			}
		}
	}
	for _, tt := range txns {
		own := map[string]bool{}
		for _, op := range tt.ops {
			op = strings.TrimSpace(op)
			if op == "" {
				continue
			}
			if kv, ok := strings.CutPrefix(op, "w_"); ok {
				k, _, _ := strings.Cut(kv, "=")
				tt.tb.Write(k)
				own[kv] = true
				continue
			}
			kv, ok := strings.CutPrefix(op, "r_")
			if !ok {
				return nil, fmt.Errorf("bad operation %q", op)
			}
			k, v, _ := strings.Cut(kv, "=")
			switch w, found := writer[kv]; {
			case own[kv]:
				tt.tb.Read(k, tt.tb.ID())
			case v == "0":
				tt.tb.Read(k, history.Init)
			case found:
				tt.tb.Read(k, w)
			default:
				return nil, fmt.Errorf("nobody writes %s", kv)
			}
		}
	}
	if co != "" {
		var ids []history.TxnID
		for _, f := range strings.Fields(co) {
			var n int
			if _, err := fmt.Sscanf(f, "T%d", &n); err != nil {
				return nil, fmt.Errorf("bad commit order entry %q", f)
			}
			ids = append(ids, history.TxnID(n))
		}
		b.CommitOrder(ids...)
	}
	return b.History()
}
