package oracle

import (
	"fmt"

	"github.com/fickle-db/fickle/history"
)

// checkStructure finds the first defect that no commit order can fix (AWDIT's
// Read Consistency, paper 003 Alg. 4, plus fickle's statement-level rules):
// thin-air, aborted, future, intermediate, not-my-own-write and
// not-my-last-write reads, a statement that saw two versions of one key,
// references outside the history, and version orders that name a
// transaction which did not write the key or did not commit. It runs in O(n log n). Server-aborted
// transactions are not checked, and reading from them is an aborted read.
func checkStructure(ix *index) *Explanation {
	h := ix.h
	n := len(h.Txns)
	// Per key, for the transaction being scanned: stamp says whether the
	// entry is current; own is its last own write to the key (-1 if none);
	// ev and wr remember the key's last read statement and writer.
	stamp := make([]uint32, len(h.Keys))
	own := make([]int32, len(h.Keys))
	ev := make([]uint32, len(h.Keys))
	wr := make([]history.TxnID, len(h.Keys))
	for i := 1; i < n; i++ {
		t := history.TxnID(i)
		if !ix.checked(t) {
			continue
		}
		cur := uint32(i)
		txn := &h.Txns[i]
		for j := range txn.Ops {
			op := &txn.Ops[j]
			x := op.Key
			if int(x) >= len(h.Keys) {
				return structural(ix, UnknownWriter, t, j, fmt.Sprintf("%s operation %d names key #%d, which the history does not have", txnName(h, t), j+1, x))
			}
			if stamp[x] != cur {
				stamp[x], own[x], ev[x], wr[x] = cur, -1, ^uint32(0), history.NoWriter
			}
			if op.Kind == history.OpWrite {
				own[x] = int32(j)
				continue
			}
			if why := checkRead(ix, t, j, own[x]); why != nil {
				return why
			}
			if ev[x] == op.Event && wr[x] != op.Writer {
				return structural(ix, SplitRead, t, j, fmt.Sprintf("one statement of %s saw two versions of %s, from %s and %s",
					txnName(h, t), keyName(h, x), txnName(h, wr[x]), txnName(h, op.Writer)))
			}
			ev[x], wr[x] = op.Event, op.Writer
		}
	}
	if why := checkIncompatibleOrders(ix); why != nil {
		return why
	}
	return checkVersionOrders(ix)
}

// checkIncompatibleOrders reports the first of h.IncompatibleOrders whose
// reads are both checked: two list-append reads of a key that are not
// prefixes of one another, so no version order of the key explains both.
func checkIncompatibleOrders(ix *index) *Explanation {
	h := ix.h
	for _, io := range h.IncompatibleOrders {
		a, b := io.Reads[0], io.Reads[1]
		valid := int(io.Key) < len(h.Keys)
		for _, r := range io.Reads {
			valid = valid && r.Txn != history.Init && int(r.Txn) < len(h.Txns) && r.Op >= 0 && r.Op < len(h.Txns[r.Txn].Ops) &&
				h.Txns[r.Txn].Ops[r.Op].Key == io.Key
		}
		if !valid || !ix.checked(a.Txn) || !ix.checked(b.Txn) {
			continue
		}
		return structural(ix, IncompatibleOrder, a.Txn, a.Op, fmt.Sprintf("%s read %s as %v and %s read it as %v: neither list is a prefix of the other, so no version order of %s explains both",
			txnName(h, a.Txn), keyName(h, io.Key), a.List, txnName(h, b.Txn), b.List, keyName(h, io.Key)))
	}
	return nil
}

// checkRead checks read j of t, given ownLast, the index of t's last write
// to the key before it (-1 if none).
func checkRead(ix *index, t history.TxnID, j int, ownLast int32) *Explanation {
	h := ix.h
	op := &h.Txns[t].Ops[j]
	x, w := op.Key, op.Writer
	// Only the error paths name things.
	who, key := lazyName{h, t}, lazyKey{h, x}
	switch {
	case w == history.NoWriter:
		return structural(ix, ThinAirRead, t, j, fmt.Sprintf("%s read %s%s, which no transaction wrote", who, key, valueText(op)))
	case int(w) >= len(h.Txns):
		return structural(ix, UnknownWriter, t, j, fmt.Sprintf("%s read %s from transaction #%d, which the history does not have", who, key, w))
	case w == t:
		if ownLast >= 0 {
			last := &h.Txns[t].Ops[ownLast]
			if mismatch(op, last) {
				return structural(ix, NotMyLastWrite, t, j, fmt.Sprintf("%s read %s%s, not its own last write (%s%s)", who, key, valueText(op), key, valueText(last)))
			}
			return nil
		}
		if ix.lastWrite(t, x) > int32(j) {
			return structural(ix, FutureRead, t, j, fmt.Sprintf("%s read %s from its own later write", who, key))
		}
		return structural(ix, ThinAirRead, t, j, fmt.Sprintf("%s read %s from itself, but never wrote it", who, key))
	case ownLast >= 0:
		return structural(ix, NotMyOwnWrite, t, j, fmt.Sprintf("%s wrote %s, then read %s's version%s instead of its own",
			who, key, txnName(h, w), valueText(op)))
	}
	switch ix.outcome[w] {
	case history.Committed:
	case history.Pending:
		return structural(ix, AbortedRead, t, j, fmt.Sprintf("%s read %s from %s, which never committed", who, key, txnName(h, w)))
	default:
		return structural(ix, AbortedRead, t, j, fmt.Sprintf("%s read %s from %s, which was %s", who, key, txnName(h, w), ix.outcome[w]))
	}
	if w != history.Init && ix.session[w] == ix.session[t] && ix.pos[w] > ix.pos[t] {
		return structural(ix, FutureRead, t, j, fmt.Sprintf("%s read %s from %s, which comes after it in session %s",
			who, key, txnName(h, w), sessionName(h, t)))
	}
	p := ix.writeEntry(w, x)
	if p < 0 {
		if w == history.Init {
			return nil // the initial version, not listed
		}
		return structural(ix, ThinAirRead, t, j, fmt.Sprintf("%s read %s from %s, which never wrote it", who, key, txnName(h, w)))
	}
	if !mismatchValue(op, ix.wFlags[p], ix.wVals[p]) {
		return nil
	}
	wt := &h.Txns[w]
	last := ix.wOps[p]
	lw := &wt.Ops[last]
	for k := int32(0); k < last; k++ {
		if e := &wt.Ops[k]; e.Kind == history.OpWrite && e.Key == x && !mismatch(op, e) {
			return structural(ix, IntermediateRead, t, j, fmt.Sprintf("%s read %s%s, an intermediate write of %s (its last write: %s%s)",
				who, key, valueText(op), txnName(h, w), key, valueText(lw)))
		}
	}
	return structural(ix, ThinAirRead, t, j, fmt.Sprintf("%s read %s%s from %s, which wrote %s%s", who, key, valueText(op), txnName(h, w), key, valueText(lw)))
}

// mismatch reports whether read r cannot have seen write w: their values
// differ (when both carry one) or one is a tombstone and the other is not.
func mismatch(r, w *history.Op) bool { return mismatchValue(r, w.Flags, w.Value) }

// mismatchValue is mismatch against a write given by its flags and value.
func mismatchValue(r *history.Op, flags history.OpFlags, value int64) bool {
	if r.Flags&history.FlagHasValue != 0 && flags&history.FlagHasValue != 0 {
		return r.Value != value || flags&history.FlagTombstone != 0
	}
	return r.Flags&history.FlagTombstone != flags&history.FlagTombstone
}

// valueText renders an operation's value or tombstone for messages.
func valueText(op *history.Op) string {
	switch {
	case op.Flags&history.FlagTombstone != 0:
		return " (absent)"
	case op.Flags&history.FlagHasValue != 0:
		return fmt.Sprintf(" = %d", op.Value)
	}
	return ""
}

// structural builds the explanation of a structural defect found at read j
// of t. Structural defects break every level, so Level is RC.
func structural(ix *index, kind StructuralKind, t history.TxnID, j int, reason string) *Explanation {
	op := ix.h.Txns[t].Ops[j]
	anomaly := kind.String()
	switch kind {
	case AbortedRead:
		anomaly = "G1a"
	case IntermediateRead:
		anomaly = "G1b"
	}
	return &Explanation{
		Level:   history.ReadCommitted,
		Anomaly: anomaly,
		Structural: &StructuralIssue{
			Kind: kind, Txn: t, Op: int32(j), Key: op.Key, Writer: op.Writer, Reason: reason,
		},
	}
}

// lazyName and lazyKey format a transaction's or key's name only when a
// message is built, so that the common path does not allocate.
type lazyName struct {
	h *history.History
	t history.TxnID
}

func (n lazyName) String() string { return txnName(n.h, n.t) }

type lazyKey struct {
	h *history.History
	x history.KeyID
}

func (k lazyKey) String() string { return keyName(k.h, k.x) }
