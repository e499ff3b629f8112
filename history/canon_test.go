package history

import (
	"fmt"
	"strings"
)

// canonical renders h up to renaming of keys, sessions and transactions:
// sessions in order, each transaction as its place in its session, keys
// numbered by first appearance, each read naming its writer by place. Two
// histories with the same canonical form are the same history. Transactions
// that did not commit are left out when committedOnly (for formats that
// cannot express them), and so are sessions left empty; reads of them show
// "aborted", reads of NoWriter "?".
func canonical(h *History, committedOnly bool) string {
	place := make(map[TxnID]string)
	si := 0
	for _, s := range h.Sessions {
		n := 0
		for _, id := range s.Txns {
			if committedOnly && h.Txns[id].Outcome != Committed {
				continue
			}
			place[id] = fmt.Sprintf("%d.%d", si, n)
			n++
		}
		if n > 0 || !committedOnly {
			si++
		}
	}
	keyNum := make(map[KeyID]int)
	var b strings.Builder
	for _, s := range h.Sessions {
		for _, id := range s.Txns {
			t := &h.Txns[id]
			if _, ok := place[id]; !ok {
				continue
			}
			fmt.Fprintf(&b, "  %s %s:", place[id], t.Outcome)
			for _, op := range t.Ops {
				k, ok := keyNum[op.Key]
				if !ok {
					k = len(keyNum)
					keyNum[op.Key] = k
				}
				if op.Kind == OpWrite {
					del := ""
					if op.Flags&FlagTombstone != 0 {
						del = "-"
					}
					fmt.Fprintf(&b, " w%s(%d)", del, k)
					continue
				}
				w := "?"
				switch {
				case op.Writer == Init:
					w = "init"
				case op.Writer != NoWriter:
					w = "aborted"
					if p, ok := place[op.Writer]; ok {
						w = p
					}
				}
				fmt.Fprintf(&b, " r(%d,%s)", k, w)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func dumpString(h *History) string {
	var b strings.Builder
	h.Dump(&b)
	return b.String()
}
