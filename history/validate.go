package history

import (
	"fmt"
	"slices"
)

// Validate checks that h is internally consistent, so that the oracle can
// index it without bounds checks: ids in range and equal to their index, Init
// first and only writing, every transaction in exactly its own session's
// list, statement numbers non-decreasing and in range, a read's writer either
// NoWriter or a transaction that writes the key, and a commit order, when
// recorded, that starts with Init and lists every committed and
// client-aborted transaction once and nothing else.
//
// Validate accepts everything the checker must report rather than reject:
// reads of aborted or pending transactions, of the reader's own later write
// (future reads), of NoWriter (thin-air), of a value that is not the writer's
// last write (intermediate reads).
func (h *History) Validate() error {
	return h.validate(true)
}

// validate is Validate; importers that link reads to writes by value skip
// the check that each read's writer writes its key, which holds by
// construction there and costs a cache miss per read.
func (h *History) validate(checkWriters bool) error {
	if len(h.Txns) == 0 {
		return fmt.Errorf("history has no Init transaction")
	}
	init := &h.Txns[Init]
	if init.Outcome != Committed {
		return fmt.Errorf("Init is %s, want committed", init.Outcome)
	}
	if init.Session != NoSession {
		return fmt.Errorf("Init belongs to session %d, want none", init.Session)
	}
	seen := make([]bool, len(h.Txns))
	for si := range h.Sessions {
		s := &h.Sessions[si]
		if s.ID != SessionID(si) {
			return fmt.Errorf("session %d (%q) has id %d, want its index", si, s.Name, s.ID)
		}
		for _, id := range s.Txns {
			if id == Init || int(id) >= len(h.Txns) {
				return fmt.Errorf("session %q lists transaction %d, out of range", s.Name, id)
			}
			if seen[id] {
				return fmt.Errorf("session %q lists transaction %d twice or after another session", s.Name, id)
			}
			seen[id] = true
			if h.Txns[id].Session != s.ID {
				return fmt.Errorf("session %q lists transaction %d, which belongs to session %d", s.Name, id, h.Txns[id].Session)
			}
		}
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.ID != TxnID(i) {
			return fmt.Errorf("transaction %d has id %d, want its index", i, t.ID)
		}
		if i != int(Init) && !seen[i] {
			return fmt.Errorf("transaction %d is in no session's list", i)
		}
		if t.Level > Serializable {
			return fmt.Errorf("transaction %d has invalid level %d", i, t.Level)
		}
		if t.Outcome > Pending {
			return fmt.Errorf("transaction %d has invalid outcome %d", i, t.Outcome)
		}
		if t.HasRows() && t.rowsLen() != len(t.Ops) {
			return fmt.Errorf("transaction %d has %d row images for %d operations", i, t.rowsLen(), len(t.Ops))
		}
		var last uint32
		for j, op := range t.Ops {
			if int(op.Key) >= len(h.Keys) {
				return fmt.Errorf("transaction %d operation %d: key %d out of range", i, j, op.Key)
			}
			if op.Event < last {
				return fmt.Errorf("transaction %d operation %d: statement %d after statement %d", i, j, op.Event, last)
			}
			last = op.Event
			if t.Statements != nil && int(op.Event) >= len(t.Statements) {
				return fmt.Errorf("transaction %d operation %d: statement %d out of range", i, j, op.Event)
			}
			switch op.Kind {
			case OpWrite:
			case OpRead:
				if i == int(Init) {
					return fmt.Errorf("Init reads key %s", h.Keys[op.Key])
				}
				if op.Writer != NoWriter && int(op.Writer) >= len(h.Txns) {
					return fmt.Errorf("transaction %d operation %d: writer %d out of range", i, j, op.Writer)
				}
			default:
				return fmt.Errorf("transaction %d operation %d: invalid kind %d", i, j, op.Kind)
			}
		}
	}
	var big map[TxnID][]KeyID // keys written by transactions too large to scan per read, sorted
	for i := range h.Txns {
		if !checkWriters {
			break
		}
		for j, op := range h.Txns[i].Ops {
			if op.Kind != OpRead || op.Writer == NoWriter || op.Writer == Init {
				continue
			}
			if !writes(h, op.Writer, op.Key, &big) {
				return fmt.Errorf("transaction %d operation %d reads %s from transaction %d, which does not write it",
					i, j, h.Keys[op.Key], op.Writer)
			}
		}
	}
	if h.VersionOrder != nil && len(h.VersionOrder) > len(h.Keys) {
		return fmt.Errorf("version order for %d keys, only %d exist", len(h.VersionOrder), len(h.Keys))
	}
	for k, ts := range h.VersionOrder {
		for _, t := range ts {
			if t == Init || int(t) >= len(h.Txns) {
				return fmt.Errorf("version order of key %s names transaction %d, out of range", h.Keys[k], t)
			}
		}
	}
	if err := h.validateClientReads(); err != nil {
		return err
	}
	return h.validateCommitOrder()
}

// validateClientReads checks the client reads (Statement.Client): known
// comparisons, read ops that are returned rows of the statement's table,
// and a row image for every write of a row of a table a client read reads,
// without which the checker could not tell whether the row matched.
func (h *History) validateClientReads() error {
	var tables map[string]bool
	for i := range h.Txns {
		t := &h.Txns[i]
		for ev, st := range t.Statements {
			c := st.Client
			if c == nil {
				continue
			}
			if tables == nil {
				tables = map[string]bool{}
			}
			tables[c.Table] = true
			for _, cond := range c.Where {
				if !cond.Op.Valid() || cond.Value == "" {
					return fmt.Errorf("transaction %d statement %d: bad client read condition %q %q %q", i, ev, cond.Column, cond.Op, cond.Value)
				}
			}
			for j, op := range t.Ops {
				if op.Event != uint32(ev) || op.Kind != OpRead {
					continue
				}
				if h.Keys[op.Key].Table != c.Table || op.Flags&FlagReturned == 0 {
					return fmt.Errorf("transaction %d operation %d: a client read of table %q lists only the rows it returned, not %s",
						i, j, c.Table, h.Keys[op.Key])
				}
			}
		}
	}
	if tables == nil {
		return nil
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		for j, op := range t.Ops {
			if op.Kind != OpWrite || op.Flags&FlagTombstone != 0 || !tables[h.Keys[op.Key].Table] {
				continue
			}
			if !t.HasRow(j) {
				return fmt.Errorf("transaction %d writes %s without a row image, which the client reads of table %q need",
					i, h.Keys[op.Key], h.Keys[op.Key].Table)
			}
		}
	}
	return nil
}

// writes reports whether t writes k: by scanning t's operations when it
// has few, by a binary search of the sorted keys a large transaction writes
// otherwise (a slice per transaction: a quarter of a map's memory, which the
// 100,000 writes of a pgbench load made a twelfth of reading its history).
func writes(h *History, t TxnID, k KeyID, big *map[TxnID][]KeyID) bool {
	ops := h.Txns[t].Ops
	if len(ops) <= 64 {
		for _, op := range ops {
			if op.Kind == OpWrite && op.Key == k {
				return true
			}
		}
		return false
	}
	if *big == nil {
		*big = make(map[TxnID][]KeyID)
	}
	keys, ok := (*big)[t]
	if !ok {
		for _, op := range ops {
			if op.Kind == OpWrite {
				keys = append(keys, op.Key)
			}
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		(*big)[t] = keys
	}
	_, found := slices.BinarySearch(keys, k)
	return found
}

func (h *History) validateCommitOrder() error {
	if h.CommitOrder == nil {
		return nil
	}
	if len(h.CommitOrder) == 0 || h.CommitOrder[0] != Init {
		return fmt.Errorf("commit order does not start with Init")
	}
	in := make([]bool, len(h.Txns))
	for _, id := range h.CommitOrder {
		if int(id) >= len(h.Txns) {
			return fmt.Errorf("commit order names transaction %d, out of range", id)
		}
		if in[id] {
			return fmt.Errorf("commit order names transaction %d twice", id)
		}
		in[id] = true
		if o := h.Txns[id].Outcome; o != Committed && o != ClientAborted {
			return fmt.Errorf("commit order names transaction %d, which is %s", id, o)
		}
	}
	for i := range h.Txns {
		if o := h.Txns[i].Outcome; (o == Committed || o == ClientAborted) && !in[i] {
			return fmt.Errorf("commit order misses %s transaction %d", o, i)
		}
	}
	return nil
}
