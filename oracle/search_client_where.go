package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fickle-db/fickle/history"
)

// Client reads recorded in a history (history.Statement.Client) become the
// ClientReads of CheckClient here: every key of the statement's table that
// the statement neither returned nor wrote before is Missing, and Matches
// evaluates the statement's conditions on the row image of the writer's
// version. The conditions are data, not SQL: a column, a comparison and a
// JSON constant each (history.Condition), so the oracle evaluates them
// without parsing SQL.

// recordedClientReads returns the client reads h records, ready for
// CheckClient, and whether there are any. It also returns an explanation
// when a statement returned a row whose version fails its own predicate,
// which no full history can justify.
func recordedClientReads(h *history.History) (ClientReads, *Explanation, bool) {
	if !h.HasClientReads() {
		return ClientReads{}, nil, false
	}
	byTable := map[string][]history.KeyID{}
	for k, key := range h.Keys {
		byTable[key.Table] = append(byTable[key.Table], history.KeyID(k))
	}
	m := &rowMatcher{h: h, rows: map[[2]uint32]map[string]json.RawMessage{}}
	c := ClientReads{rows: m}
	for i := 1; i < len(h.Txns); i++ {
		t := &h.Txns[i]
		if t.Outcome == history.ServerAborted {
			continue
		}
		for ev, st := range t.Statements {
			if st.Client == nil {
				continue
			}
			seen := map[history.KeyID]bool{}
			for j, op := range t.Ops {
				switch {
				case op.Event > uint32(ev):
				case op.Kind == history.OpWrite && op.Event < uint32(ev):
					seen[op.Key] = true // later reads of it are local
				case op.Kind == history.OpRead && op.Event == uint32(ev):
					seen[op.Key] = true
					if op.Writer != t.ID && int(op.Writer) < len(h.Txns) && !m.matches(st.Client, op.Key, op.Writer) && m.err == nil {
						return c, &Explanation{Level: history.ReadCommitted, Anomaly: "returned row fails its predicate",
							Structural: &StructuralIssue{Kind: Malformed, Txn: t.ID, Op: int32(j), Key: op.Key, Writer: op.Writer,
								Reason: fmt.Sprintf("%s returned %s as %s wrote it, which its predicate rejects",
									txnLabel(h, t.ID), h.Keys[op.Key], txnLabel(h, op.Writer))}}, true
					}
				}
			}
			for _, k := range byTable[st.Client.Table] {
				if !seen[k] {
					c.Missing = append(c.Missing, MissingRead{Txn: t.ID, Event: uint32(ev), Key: k})
				}
			}
		}
	}
	c.Matches = func(reader history.TxnID, event uint32, key history.KeyID, writer history.TxnID) bool {
		return m.matches(h.Txns[reader].Statements[event].Client, key, writer)
	}
	return c, nil, true
}

// rowMatcher evaluates client-read predicates on the versions of a
// history, parsing each version's row image once.
type rowMatcher struct {
	h    *history.History
	rows map[[2]uint32]map[string]json.RawMessage // by (writer, key); nil: a tombstone
	// err is the first row image that could not be read back from the
	// history's file: the verdict that follows is void.
	err error
}

// version returns the columns of writer's version of key: its last write of
// the key (Init's, or Init's tombstone when it has none); nil for a
// tombstone or a row image that is not a JSON object.
func (m *rowMatcher) version(key history.KeyID, writer history.TxnID) map[string]json.RawMessage {
	id := [2]uint32{uint32(writer), uint32(key)}
	if row, ok := m.rows[id]; ok {
		return row
	}
	var row map[string]json.RawMessage
	if int(writer) < len(m.h.Txns) {
		t := &m.h.Txns[writer]
		for j := len(t.Ops) - 1; j >= 0; j-- {
			if op := t.Ops[j]; op.Kind == history.OpWrite && op.Key == key {
				if op.Flags&history.FlagTombstone == 0 && t.HasRows() {
					text, err := t.Row(j)
					if err != nil && m.err == nil {
						m.err = err
					}
					if err != nil || json.Unmarshal([]byte(text), &row) != nil {
						row = nil
					}
				}
				break
			}
		}
	}
	m.rows[id] = row
	return row
}

// matches reports whether writer's version of key satisfies c: the row
// exists and satisfies every condition.
func (m *rowMatcher) matches(c *history.ClientRead, key history.KeyID, writer history.TxnID) bool {
	row := m.version(key, writer)
	if row == nil {
		return false
	}
	for _, cond := range c.Where {
		if !satisfies(row[cond.Column], cond.Op, []byte(cond.Value)) {
			return false
		}
	}
	return true
}

// satisfies compares a column's JSON value with a constant (see
// history.Condition): numbers by value, strings byte by byte, booleans
// false before true; a missing or null value, or values of different JSON
// types, satisfy nothing.
func satisfies(value json.RawMessage, op history.CompareOp, constant []byte) bool {
	value = bytes.TrimSpace(value)
	if len(value) == 0 || len(constant) == 0 {
		return false
	}
	kind := func(b []byte) byte {
		switch b[0] {
		case '"':
			return 's'
		case 't', 'f':
			return 'b'
		case 'n', '{', '[':
			return 0
		}
		return 'n'
	}
	k := kind(value)
	if k == 0 || k != kind(constant) {
		return false
	}
	var c int
	switch k {
	case 's':
		var a, b string
		if json.Unmarshal(value, &a) != nil || json.Unmarshal(constant, &b) != nil {
			return false
		}
		c = strings.Compare(a, b)
	case 'b':
		c = compareInts(int64(b2i(value[0] == 't')), int64(b2i(constant[0] == 't')))
	default:
		var ok bool
		if c, ok = compareNumbers(string(value), string(constant)); !ok {
			return false
		}
	}
	switch op {
	case history.OpEq:
		return c == 0
	case history.OpNe:
		return c != 0
	case history.OpLt:
		return c < 0
	case history.OpLe:
		return c <= 0
	case history.OpGt:
		return c > 0
	case history.OpGe:
		return c >= 0
	}
	return false
}

// compareNumbers compares two JSON numbers: exactly as integers when both
// are, as float64 otherwise.
func compareNumbers(a, b string) (int, bool) {
	if x, err := strconv.ParseInt(a, 10, 64); err == nil {
		if y, err := strconv.ParseInt(b, 10, 64); err == nil {
			return compareInts(x, y), true
		}
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

func compareInts(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
