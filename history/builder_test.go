package history

import (
	"strings"
	"testing"
)

func TestBuilderBuildsSessionsTxnsAndStatements(t *testing.T) {
	b := NewBuilder()
	s1, s2 := b.Session("S1"), b.Session("S2")
	t1 := b.Txn(s1, Serializable).Write("x").WriteValue("y", 7).Commit()
	tb := b.Txn(s2, Snapshot)
	tb.Read("x", t1).
		Stmt(Statement{SQL: "SELECT * FROM acct WHERE bal > 0", Table: "acct", Predicate: "bal > 0"}).
		Read("a", Init).ReadFiltered("b", Init).ReadAbsent("c", Init).
		EndStmt().Delete("a")
	t2 := tb.Abort()
	b.CommitOrder(t1, t2)
	h, err := b.History()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(h.Txns); got != 3 {
		t.Fatalf("len(Txns) = %d, want 3", got)
	}
	if h.Txns[t2].Outcome != ClientAborted || h.Txns[t1].Outcome != Committed || h.Txns[t2].Level != Snapshot {
		t.Errorf("outcomes/levels wrong: %+v %+v", h.Txns[t1], h.Txns[t2])
	}
	if got := h.Sessions[s2].Txns; len(got) != 1 || got[0] != t2 {
		t.Errorf("session S2 txns = %v", got)
	}
	var events []uint32
	for _, op := range h.Txns[t2].Ops {
		events = append(events, op.Event)
	}
	if want := []uint32{0, 1, 1, 1, 2}; !equalU32(events, want) {
		t.Errorf("events = %v, want %v", events, want)
	}
	st := h.Txns[t2].Statements
	if len(st) != 3 || st[1].Predicate != "bal > 0" || st[2].Table != "acct" {
		t.Errorf("statements = %+v", st)
	}
	if k := h.Keys[h.Txns[t2].Ops[1].Key]; k != (Key{Table: "acct", Name: "a"}) {
		t.Errorf("key of predicate read = %v", k)
	}
	if h.Txns[t2].Ops[4].Flags&FlagTombstone == 0 {
		t.Errorf("delete is not a tombstone write")
	}
	if !equalTxn(h.CommitOrder, []TxnID{Init, t1, t2}) {
		t.Errorf("commit order = %v", h.CommitOrder)
	}
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalTxn(a, b []TxnID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestValidateAcceptsWhatTheCheckerMustReport(t *testing.T) {
	b := NewBuilder()
	s := b.Session("S")
	aborted := b.Txn(s, ReadCommitted).WriteValue("x", 1).Abort()
	tb := b.Txn(s, ReadCommitted)
	tb.ReadValue("y", tb.ID(), 2).WriteValue("y", 2) // future read
	tb.ReadValue("x", aborted, 1)                    // aborted read
	tb.ReadValue("z", NoWriter, 9)                   // thin-air read
	tb.Commit()
	if _, err := b.History(); err != nil {
		t.Fatalf("Validate rejected a history the checker must judge: %v", err)
	}
}

func TestValidateRejectsInconsistentHistories(t *testing.T) {
	base := func() (*Builder, SessionID, TxnID) {
		b := NewBuilder()
		s := b.Session("S")
		t1 := b.Txn(s, Serializable).Write("x").Commit()
		return b, s, t1
	}
	cases := []struct {
		name  string
		build func() *History
		want  string
	}{
		{"empty", func() *History { return &History{} }, "no Init"},
		{"writer out of range", func() *History {
			b, s, _ := base()
			b.Txn(s, Serializable).Read("x", 42).Commit()
			return &b.h
		}, "writer 42 out of range"},
		{"writer does not write key", func() *History {
			b, s, t1 := base()
			b.Txn(s, Serializable).Read("y", t1).Commit()
			return &b.h
		}, "does not write it"},
		{"commit order without init", func() *History {
			b, _, t1 := base()
			b.h.CommitOrder = []TxnID{t1}
			return &b.h
		}, "start with Init"},
		{"commit order misses a txn", func() *History {
			b, s, t1 := base()
			b.Txn(s, Serializable).Commit()
			b.CommitOrder(t1)
			return &b.h
		}, "misses committed transaction 2"},
		{"commit order names server-aborted", func() *History {
			b, s, t1 := base()
			t2 := b.Txn(s, Serializable).End(ServerAborted)
			b.CommitOrder(t1, t2)
			return &b.h
		}, "which is server-aborted"},
		{"commit order duplicate", func() *History {
			b, _, t1 := base()
			b.CommitOrder(t1, t1)
			return &b.h
		}, "twice"},
		{"txn in no session", func() *History {
			b, s, _ := base()
			b.Txn(s, Serializable).Commit()
			b.h.Sessions[s].Txns = b.h.Sessions[s].Txns[:1]
			return &b.h
		}, "in no session"},
		{"txn in wrong session", func() *History {
			b, _, _ := base()
			s2 := b.Session("T")
			b.h.Sessions[s2].Txns = append(b.h.Sessions[s2].Txns, 1)
			return &b.h
		}, "twice or after another session"},
		{"init reads", func() *History {
			b, _, t1 := base()
			b.h.Txns[Init].Ops = append(b.h.Txns[Init].Ops, Op{Kind: OpRead, Writer: t1})
			return &b.h
		}, "Init reads"},
		{"init aborted", func() *History {
			b, _, _ := base()
			b.h.Txns[Init].Outcome = ClientAborted
			return &b.h
		}, "Init is client-aborted"},
		{"key out of range", func() *History {
			b, _, t1 := base()
			b.h.Txns[t1].Ops[0].Key = 9
			return &b.h
		}, "key 9 out of range"},
		{"events decrease", func() *History {
			b, s, _ := base()
			tb := b.Txn(s, Serializable).Write("x").Write("y")
			tb.txn().Ops[1].Event = 0
			tb.txn().Ops[0].Event = 1
			return &b.h
		}, "statement 0 after statement 1"},
		{"rows mismatch", func() *History {
			b, _, t1 := base()
			b.h.Txns[t1].Rows = []string{"{}", "{}"}
			return &b.h
		}, "2 row images for 1 operations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.build().Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want error containing %q", err, c.want)
			}
		})
	}
}
