package isolation

import (
	"fmt"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// rowString renders a read: x=1 (T3), or x=absent (T0).
func rowString(k string, row []any, ok bool, w *txn) string {
	if !ok {
		return fmt.Sprintf("%s=absent (T%d)", k, w.id)
	}
	return fmt.Sprintf("%s=%v (T%d)", k, row[0], w.id)
}

// cmdRead reads one key: read s1 x.
func (e *scenarioEnv) cmdRead(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	if len(a.words) < 2 {
		return "missing key"
	}
	k := a.words[1]
	row, ok, err := tx.Get(bg, e.tab, []byte(k), ReadOptions{Latest: a.opts["latest"] == "true"})
	if err != nil {
		return errString(err)
	}
	return rowString(k, row, ok, e.lastSource(tx, k))
}

// lastSource returns the writer of the version tx's last recorded read of
// key k saw (a statement's repeated read of a key is not recorded again).
func (e *scenarioEnv) lastSource(tx *Txn, k string) *txn {
	h := e.s.History()
	ops := h.Txns[tx.ID()].Ops
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == history.OpRead && h.Keys[ops[i].Key].Name == k {
			return e.writerOf(tx.t, e.s.e.tables[e.tab].keyState(k, false), ops[i].Writer)
		}
	}
	return nil
}

// cmdScan reads every key of the table: scan s1. Absent keys that were
// inspected are listed too.
func (e *scenarioEnv) cmdScan(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	before := len(e.s.History().Txns[tx.ID()].Ops)
	err := tx.Scan(bg, e.tab, Span{}, ReadOptions{}, func([]byte, []any) (bool, error) { return true, nil })
	if err != nil {
		return errString(err)
	}
	h := e.s.History()
	var out []string
	for _, op := range h.Txns[tx.ID()].Ops[before:] {
		k := h.Keys[op.Key].Name
		ks := e.s.e.tables[e.tab].keyState(k, false)
		w := e.writerOf(tx.t, ks, op.Writer)
		row, ok := e.versionRow(tx.t, ks, w)
		out = append(out, rowString(k, row, ok, w))
	}
	if len(out) == 0 {
		return "(no keys)"
	}
	return strings.Join(out, " ")
}

// writerOf returns the transaction with id w: t itself, or the writer of
// a version of ks.
func (e *scenarioEnv) writerOf(t *txn, ks *keyState, w history.TxnID) *txn {
	e.s.e.mu.Lock()
	defer e.s.e.mu.Unlock()
	if w == t.id {
		return t
	}
	for _, v := range ks.versions() {
		if v.w.id == w {
			return v.w
		}
	}
	panic(fmt.Sprintf("no version of %s written by T%d", ks.key, w))
}

// versionRow returns the row of w's version of ks as tx saw it.
func (e *scenarioEnv) versionRow(t *txn, ks *keyState, w *txn) ([]any, bool) {
	e.s.e.mu.Lock()
	defer e.s.e.mu.Unlock()
	if w == t {
		wr := t.pendingWrite(ks)
		return wr.row, !wr.tomb
	}
	v := ks.versions()[ks.versionIndex(w)]
	return v.row, !v.tomb()
}
