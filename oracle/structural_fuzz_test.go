package oracle

import (
	"testing"

	"github.com/fickle-db/fickle/history"
)

// fuzzHistory decodes arbitrary bytes into a history that need not be
// valid: sessions, transactions and operations with ids, keys, writers,
// statement numbers, levels, outcomes, times and version orders taken from
// the input, out of range included. Check must answer on every such history without
// panicking.
func fuzzHistory(data []byte) *history.History {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	h := &history.History{}
	nk := int(next()%6) + 1
	for k := 0; k < nk; k++ {
		h.Keys = append(h.Keys, history.Key{Name: string(rune('a' + k))})
	}
	ns := int(next()%4) + 1
	for s := 0; s < ns; s++ {
		h.Sessions = append(h.Sessions, history.Session{ID: history.SessionID(s), Name: string(rune('A' + s))})
	}
	nt := int(next()%8) + 1
	h.Txns = append(h.Txns, history.Txn{ID: history.Init, Session: history.NoSession, Outcome: history.Committed})
	for i := 1; i <= nt; i++ {
		b := next()
		t := history.Txn{
			ID:      history.TxnID(i),
			Session: history.SessionID(b % byte(ns+1)), // may name no session
			Level:   history.Level(next() % 8),         // may be out of range
			Outcome: history.Outcome(next() % 5),       // may be out of range
		}
		if b&0x80 != 0 {
			t.Start, t.End = int64(next()%16), int64(next()%16)
		}
		nops := int(next() % 6)
		ev := uint32(0)
		for j := 0; j < nops; j++ {
			c := next()
			op := history.Op{Kind: history.OpKind(c % 3), Key: history.KeyID(next() % byte(nk+1)), Event: ev}
			if c&0x8 == 0 {
				ev++
			}
			if c&0x10 != 0 {
				op.Event = uint32(next() % 4) // may go backwards
			}
			w := next()
			switch {
			case w == 0xff:
				op.Writer = history.NoWriter
			default:
				op.Writer = history.TxnID(w % byte(nt+2)) // may be out of range
			}
			if c&0x20 != 0 {
				op.Flags |= history.FlagHasValue
				op.Value = int64(next() % 4)
			}
			if c&0x40 != 0 {
				op.Flags |= history.FlagTombstone
			}
			t.Ops = append(t.Ops, op)
		}
		h.Txns = append(h.Txns, t)
		if int(t.Session) < ns {
			h.Sessions[t.Session].Txns = append(h.Sessions[t.Session].Txns, t.ID)
		}
	}
	if next()&1 == 1 {
		for i := range h.Txns {
			if h.Txns[i].Outcome <= history.ClientAborted {
				h.CommitOrder = append(h.CommitOrder, history.TxnID(i))
			}
		}
	}
	if b := next(); b&1 == 1 {
		// Version orders, for up to two keys more than the history has,
		// naming any transaction, Init and out-of-range ones included.
		h.VersionOrder = make([][]history.TxnID, int(b>>1)%(nk+3))
		for k := range h.VersionOrder {
			for n := next() % 5; n > 0; n-- {
				h.VersionOrder[k] = append(h.VersionOrder[k], history.TxnID(next()%byte(nt+2)))
			}
		}
	}
	return h
}

// FuzzCheckNeverPanics: Check answers on arbitrary, possibly malformed
// histories, at every level and mixed, with and without real time, and a
// violation always comes with an explanation that renders.
func FuzzCheckNeverPanics(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 2, 3, 1, 2, 0, 2, 0, 0, 1, 1, 0, 1, 1, 2, 0, 1, 0})
	f.Add([]byte{5, 3, 7, 0x81, 3, 1, 1, 5, 4, 0x21, 2, 3, 1, 0x30, 1, 2, 2, 0xff, 0x40, 0, 1})
	f.Add([]byte{1, 1, 4, 0, 1, 0, 3, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 2, 0, 0, 2, 1, 1})
	// Two writers of a, in both orders of a's version order: a G0.
	f.Add([]byte{0, 0, 3, 0, 5, 0, 1, 0x09, 0, 0, 0, 5, 0, 1, 0x09, 0, 0, 0, 0, 3, 2, 1, 2, 2, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := fuzzHistory(data)
		for _, rt := range []bool{false, true} {
			for _, l := range append([]history.Level{history.LevelUnknown}, history.Levels...) {
				r := Check(h, Options{Level: l, RealTime: rt, MaxSteps: 10_000})
				if r.Verdict == Violation {
					if r.Explanation == nil {
						t.Fatalf("%s: violation without explanation", l)
					}
					_ = r.Explanation.Text(h)
					_ = r.Explanation.DOT(h)
					if _, err := r.Explanation.JSON(h); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	})
}
