package isolation

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// cmdIndex creates the secondary index "t_val" on the row's integer, which
// lookup reads: index.
func (e *scenarioEnv) cmdIndex() string {
	if _, err := e.s.CreateIndex(e.tab, IndexSpec{Name: "t_val", Key: func(_ []byte, row []any) ([]byte, bool) {
		return scenarioIndexKey(row[0].(int)), false
	}}); err != nil {
		return errString(err)
	}
	return "ok"
}

// scenarioIndexKey encodes an integer so that byte order is numeric order.
func scenarioIndexKey(v int) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(v)^1<<63)
}

// cmdLookup reads through t_val the rows whose integer lies in [lo, hi]:
// lookup s1 7 9. It prints every key inspected with the version seen, as
// scan does, then the keys returned (the chosen version's integer in range).
func (e *scenarioEnv) cmdLookup(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	if len(a.words) < 3 {
		return "want lookup s1 lo hi"
	}
	lo, hi := atoiOr(a.words[1], 0), atoiOr(a.words[2], 0)
	ixs := e.s.e.tables[e.tab].indexes
	if len(ixs) == 0 {
		return "no index: run index first"
	}
	before := len(e.s.History().Txns[tx.ID()].Ops)
	var returned []string
	span := Span{Start: scenarioIndexKey(lo), End: scenarioIndexKey(hi + 1)}
	err := tx.ScanIndex(bg, ixs[0].id, span, ReadOptions{}, func(k []byte, row []any) (bool, error) {
		v := row[0].(int)
		if v < lo || v > hi {
			return false, nil
		}
		returned = append(returned, string(k))
		return true, nil
	})
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
		out = append(out, "(no keys)")
	}
	if len(returned) == 0 {
		returned = append(returned, "nothing")
	}
	return fmt.Sprintf("%s; returned %s", strings.Join(out, " "), strings.Join(returned, " "))
}
