package isolation

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// bruteCheck decides whether h is consistent by DESIGN §3's axioms,
// literally. With a recorded commit order it checks that order (the
// engine's witness: it must extend so ∪ wr and satisfy every axiom, which
// is stricter than consistency); without one it tries every commit order of
// the committed and client-aborted transactions that extends so ∪ wr (use
// it on at most about 8 transactions). It is the dumb reference the engine's
// histories are checked against (STYLE #7). It returns "" when consistent,
// else a reason.
func bruteCheck(h *history.History) string {
	type read struct {
		key    history.KeyID
		writer history.TxnID
		idx    int // position among the transaction's reads
	}
	n := len(h.Txns)
	live := func(id history.TxnID) bool {
		o := h.Txns[id].Outcome
		return o == history.Committed || o == history.ClientAborted
	}
	writes := make([]map[history.KeyID]bool, n) // visible writes: committed only
	reads := make([][]read, n)
	for i := range h.Txns {
		t := &h.Txns[i]
		writes[i] = map[history.KeyID]bool{}
		if i == 0 || !live(t.ID) {
			continue
		}
		for _, op := range t.Ops {
			switch {
			case op.Kind == history.OpWrite && t.Outcome == history.Committed:
				writes[i][op.Key] = true
			case op.Kind == history.OpRead && op.Writer != t.ID:
				reads[i] = append(reads[i], read{key: op.Key, writer: op.Writer, idx: len(reads[i])})
			}
		}
	}
	// so and wr as transaction relations.
	so := func(a, b history.TxnID) bool {
		if a == history.Init {
			return b != history.Init
		}
		ta, tb := &h.Txns[a], &h.Txns[b]
		return ta.Session == tb.Session && a < b
	}
	wr := func(a, b history.TxnID) bool {
		for _, r := range reads[b] {
			if r.writer == a {
				return true
			}
		}
		return false
	}
	var ids []history.TxnID
	for i := 1; i < n; i++ {
		id := history.TxnID(i)
		if !live(id) {
			continue
		}
		ids = append(ids, id)
		for _, r := range reads[i] {
			if r.writer != history.Init && (!live(r.writer) || h.Txns[r.writer].Outcome != history.Committed || !writes[r.writer][r.key]) {
				return fmt.Sprintf("txn %d reads %s from %d, which has no committed write of it", i, h.Keys[r.key], r.writer)
			}
		}
	}
	// causal: (so ∪ wr)+ by closure over the live transactions and init.
	all := append([]history.TxnID{history.Init}, ids...)
	causal := map[[2]history.TxnID]bool{}
	for _, a := range all {
		for _, b := range all {
			if a != b && (so(a, b) || wr(a, b)) {
				causal[[2]history.TxnID{a, b}] = true
			}
		}
	}
	for _, k := range all {
		for _, a := range all {
			for _, b := range all {
				if causal[[2]history.TxnID{a, k}] && causal[[2]history.TxnID{k, b}] {
					causal[[2]history.TxnID{a, b}] = true
				}
			}
		}
	}
	pos := make([]int, n)
	order := []history.TxnID{history.Init}
	placed := map[history.TxnID]bool{history.Init: true}
	co := func(a, b history.TxnID) bool { return pos[a] < pos[b] }
	coStar := func(a, b history.TxnID) bool { return pos[a] <= pos[b] }
	vis := func(t2, t3 history.TxnID, r read) bool {
		if so(t2, t3) {
			return true
		}
		switch h.Txns[t3].Level {
		case history.ReadCommitted:
			for _, e := range reads[t3][:r.idx] {
				if e.writer == t2 {
					return true
				}
			}
			return false
		case history.ReadAtomic:
			return wr(t2, t3)
		case history.Causal:
			return causal[[2]history.TxnID{t2, t3}]
		case history.Serializable:
			return co(t2, t3)
		}
		for _, t4 := range all { // Prefix
			if coStar(t2, t4) && (so(t4, t3) || wr(t4, t3)) {
				return true
			}
		}
		if h.Txns[t3].Level == history.Snapshot && h.Txns[t3].Outcome == history.Committed {
			for _, t4 := range all {
				if !coStar(t2, t4) || !co(t4, t3) {
					continue
				}
				for k := range writes[t3] {
					if writes[t4][k] || t4 == history.Init {
						return true
					}
				}
			}
		}
		return false
	}
	check := func() bool {
		for _, t3 := range ids {
			for _, r := range reads[t3] {
				for _, t2 := range all {
					if t2 == r.writer || t2 == t3 || (t2 != history.Init && !writes[t2][r.key]) {
						continue
					}
					if vis(t2, t3, r) && !co(t2, r.writer) {
						return false
					}
				}
			}
		}
		return true
	}
	if h.CommitOrder != nil {
		if why := func() string {
			for i, t := range h.CommitOrder {
				pos[t] = i
				placed[t] = true
			}
			for _, t := range ids {
				if !placed[t] {
					return fmt.Sprintf("recorded co misses txn %d", t)
				}
				for _, p := range all {
					if p != t && (so(p, t) || wr(p, t)) && !co(p, t) {
						return fmt.Sprintf("recorded co puts txn %d before its so/wr predecessor %d", t, p)
					}
				}
			}
			if !check() {
				return "recorded co violates the axioms"
			}
			return ""
		}(); why != "" {
			return why
		}
		return ""
	}
	var walk func() bool
	walk = func() bool {
		if len(order) == len(ids)+1 {
			return check()
		}
		for _, t := range ids {
			if placed[t] {
				continue
			}
			ready := true
			for _, p := range ids {
				if !placed[p] && p != t && (so(p, t) || wr(p, t)) {
					ready = false
					break
				}
			}
			if !ready {
				continue
			}
			placed[t] = true
			pos[t] = len(order)
			order = append(order, t)
			if walk() {
				return true
			}
			order = order[:len(order)-1]
			placed[t] = false
		}
		return false
	}
	if walk() {
		return ""
	}
	return "no commit order satisfies the axioms"
}
