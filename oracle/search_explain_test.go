package oracle

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestSearchExplanationScripts runs testdata/explain_search/*.txt, the
// golden explanations of violations the commit-order search finds (PC, SI,
// SER), in the format of testdata/check (see TestCheckScripts). Run with
// -rewrite to regenerate them.
func TestSearchExplanationScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/explain_search/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases, lines := readDD(t, path)
			var out []string
			prev := 0
			for _, c := range cases {
				got := runDD(t, c)
				if !*rewrite && got != c.want {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.pos, c.cmd, got, c.want)
				}
				out = append(out, lines[prev:c.sep+1]...)
				if got != "" {
					out = append(out, strings.Split(got, "\n")...)
				}
				prev = c.end
			}
			if *rewrite {
				out = append(out, lines[prev:]...)
				if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestPropertySearchExplanationsAreTrueCycles: on random small histories
// (half of them serial executions with stale reads, which CC mostly allows)
// checked at PC, SI or SER, every violation is explained at the weakest
// level the brute force rejects, and every cycle the explanation gives is
// closed and made of edges the history shows: so and rt as recorded, wr a
// read of the key from the writer, rw a read of another version of a key
// the target commits, ww two committed writes of the key.
func TestPropertySearchExplanationsAreTrueCycles(t *testing.T) {
	n, seed := propertyCases(t, 3000)
	rng := rand.New(rand.NewPCG(seed, 0xe8a1))
	searched, cycles, withoutCycle := 0, 0, 0
	for i := range n {
		h, realTime := genSmallHistory(rng, smallHistories)
		if i%2 == 1 {
			h, realTime = genStaleHistory(rng), false
		}
		level := history.Levels[3+rng.IntN(3)]
		opts := Options{Level: level, RealTime: realTime}
		r := Check(h, opts)
		if r.Verdict != Violation || r.Explanation.Structural != nil {
			continue
		}
		e := r.Explanation
		weakest := history.LevelUnknown
		for _, l := range history.Levels {
			if v, _ := BruteForce(h, Options{Level: l, RealTime: realTime}); v == Violation {
				weakest = l
				break
			}
		}
		if e.Level != weakest {
			t.Fatalf("case %d (seed %d): explained at %v, the brute force first fails at %v\n%s\n%s", i, seed, e.Level, weakest, e.Text(h), dumpHistory(h))
		}
		if e.Level >= history.Prefix {
			searched++
		}
		if len(e.Cycle) == 0 {
			withoutCycle++
			continue
		}
		cycles++
		for j, ed := range e.Cycle {
			if next := e.Cycle[(j+1)%len(e.Cycle)]; ed.To != next.From {
				t.Fatalf("case %d (seed %d): the cycle is not closed at edge %d\n%s\n%s", i, seed, j, e.Text(h), dumpHistory(h))
			}
			if why := edgeFalsehood(h, ed); why != "" {
				t.Fatalf("case %d (seed %d): edge %d (%s %v->%v): %s\n%s\n%s", i, seed, j, ed.Kind, ed.From, ed.To, why, e.Text(h), dumpHistory(h))
			}
		}
		if e.Anomaly == "" || strings.Contains(e.Text(h), "?") {
			t.Fatalf("case %d (seed %d): unnamed anomaly or unexplained step\n%s\n%s", i, seed, e.Text(h), dumpHistory(h))
		}
	}
	if searched == 0 || cycles == 0 {
		t.Fatalf("%d cases: %d violations at PC, SI or SER, %d explained by a cycle", n, searched, cycles)
	}
	t.Logf("%d cases: %d violations at PC, SI or SER; %d explained by a cycle, %d by the search's longest prefix", n, searched, cycles, withoutCycle)
}

// edgeFalsehood says why a cycle edge is not a relation of h, or "".
func edgeFalsehood(h *history.History, e Edge) string {
	reads := func(t, src history.TxnID) bool {
		for _, op := range h.Txns[t].Ops {
			if op.Kind == history.OpRead && op.Key == e.Key && op.Writer == src && src != t {
				return true
			}
		}
		return false
	}
	writes := func(t history.TxnID) bool {
		if t == history.Init {
			return true
		}
		if h.Txns[t].Outcome != history.Committed {
			return false
		}
		for _, op := range h.Txns[t].Ops {
			if op.Kind == history.OpWrite && op.Key == e.Key {
				return true
			}
		}
		return false
	}
	switch e.Kind {
	case EdgeSO:
		if e.From != history.Init && (h.Txns[e.From].Session != h.Txns[e.To].Session || e.From >= e.To) {
			return "not in session order"
		}
	case EdgeWR:
		if !reads(e.To, e.From) {
			return "no such read"
		}
	case EdgeRW:
		other := false
		for _, op := range h.Txns[e.From].Ops {
			other = other || op.Kind == history.OpRead && op.Key == e.Key && op.Writer != e.To && op.Writer != e.From
		}
		if !other || !writes(e.To) {
			return "no read of an overwritten version"
		}
	case EdgeWW:
		if !writes(e.From) || !writes(e.To) {
			return "not two writes of the key"
		}
	case EdgeRT:
		if !realTimeBefore(h, e.From, e.To) {
			return "not in real-time order"
		}
	}
	return ""
}

// TestSearchExplanationOfSQLHistories pins, in text, JSON and DOT, the
// explanations of PC/SI/SER violations in histories of SQL statements:
// every edge names the session's transaction, the statement's SQL, the
// table and key, and the versions read and written. The goldens are
// testdata/explain_search/*.golden; run with -rewrite to regenerate them.
func TestSearchExplanationOfSQLHistories(t *testing.T) {
	stmt := func(sql, table string) history.Statement { return history.Statement{SQL: sql, Table: table} }
	cases := []struct {
		name    string
		level   history.Level
		anomaly string
		build   func(b *history.Builder)
	}{{
		// Two withdrawals read the balance and write it back lowered.
		name: "sql_lost_update", level: history.Snapshot, anomaly: "lost update",
		build: func(b *history.Builder) {
			alice, bob := b.Session("alice"), b.Session("bob")
			for _, w := range []struct {
				s       history.SessionID
				name    string
				balance int64
			}{{alice, "withdraw 10", 90}, {bob, "withdraw 30", 70}} {
				b.Txn(w.s, history.Snapshot).Name(w.name).
					Stmt(stmt("SELECT balance FROM accounts WHERE id = 1", "accounts")).ReadValue("1", history.Init, 100).EndStmt().
					Stmt(stmt(fmt.Sprintf("UPDATE accounts SET balance = %d WHERE id = 1", w.balance), "accounts")).WriteValue("1", w.balance).EndStmt().
					Commit()
			}
		},
	}, {
		// Both doctors see two on call, and each goes off call.
		name: "sql_write_skew", level: history.Serializable, anomaly: "write skew",
		build: func(b *history.Builder) {
			for i, who := range []string{"alice", "bob"} {
				id := strconv.Itoa(i + 1)
				b.Txn(b.Session(who), history.Serializable).Name(who+" off call").
					Stmt(stmt("SELECT on_call FROM doctors WHERE id IN (1, 2)", "doctors")).
					ReadValue("1", history.Init, 1).ReadValue("2", history.Init, 1).EndStmt().
					Stmt(stmt("UPDATE doctors SET on_call = 0 WHERE id = "+id, "doctors")).WriteValue(id, 0).EndStmt().
					Commit()
			}
		},
	}, {
		// A report sees the deposit to account 1 but not the one to account
		// 2, an audit the other way round.
		name: "sql_long_fork", level: history.Prefix, anomaly: "long fork",
		build: func(b *history.Builder) {
			d1 := b.Txn(b.Session("teller1"), history.Prefix).Name("deposit 1").
				Stmt(stmt("UPDATE accounts SET balance = 110 WHERE id = 1", "accounts")).WriteValue("1", 110).EndStmt().Commit()
			d2 := b.Txn(b.Session("teller2"), history.Prefix).Name("deposit 2").
				Stmt(stmt("UPDATE accounts SET balance = 210 WHERE id = 2", "accounts")).WriteValue("2", 210).EndStmt().Commit()
			sel := stmt("SELECT id, balance FROM accounts", "accounts")
			b.Txn(b.Session("report"), history.Prefix).Name("report").
				Stmt(sel).ReadValue("1", d1, 110).ReadValue("2", history.Init, 200).EndStmt().Commit()
			b.Txn(b.Session("audit"), history.Prefix).Name("audit").
				Stmt(sel).ReadValue("1", history.Init, 100).ReadValue("2", d2, 210).EndStmt().Commit()
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := history.NewBuilder()
			c.build(b)
			h := b.MustHistory()
			r := Check(h, Options{})
			if r.Verdict != Violation || r.Explanation.Level != c.level || r.Explanation.Anomaly != c.anomaly {
				t.Fatalf("got %v, want a %s at %v:\n%s", r.Verdict, c.anomaly, c.level, r.Explanation.Text(h))
			}
			j, err := r.Explanation.JSON(h)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Explanation.Text(h) + "\n" + string(j) + "\n\n" + r.Explanation.DOT(h)
			path := filepath.Join("testdata", "explain_search", c.name+".golden")
			if *rewrite {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs:\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// TestSaturationProvedViolationsNeedNoSearchSteps: a lost update, a write
// skew and a long fork are proved by the search's saturation before its
// exponential part, so even a budget of one step gives the verdict and the
// cycle, at the weakest level.
func TestSaturationProvedViolationsNeedNoSearchSteps(t *testing.T) {
	cases := []struct {
		name, history string
		level         history.Level
		anomaly       string
	}{
		{"lost update", "S1: [r x=0, w x=1]\nS2: [r x=0, w x=2]", history.Snapshot, "lost update"},
		{"write skew", "S1: [r x=0, r y=0, w x=1]\nS2: [r x=0, r y=0, w y=1]", history.Serializable, "write skew"},
		{"long fork", "S1: [w x=1]\nS2: [w y=1]\nS3: [r x=1, r y=0]\nS4: [r y=1, r x=0]", history.Prefix, "long fork"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := miniHistory(c.history, history.Serializable)
			if err != nil {
				t.Fatal(err)
			}
			r := Check(h, Options{MaxSteps: 1})
			if r.Verdict != Violation || r.Steps != 0 {
				t.Fatalf("got %v after %d steps, want a violation after none", r.Verdict, r.Steps)
			}
			if e := r.Explanation; e.Level != c.level || e.Anomaly != c.anomaly || len(e.Cycle) == 0 {
				t.Fatalf("got %s", e.Text(h))
			}
		})
	}
}

// genStaleHistory builds a random history of up to 7 committed
// transactions in up to 4 sessions over 3 keys, run one after the other,
// each read seeing one of the 2 latest versions of its key: a serial
// execution with stale reads, which CC mostly allows and PC, SI or SER
// often do not.
func genStaleHistory(rng *rand.Rand) *history.History {
	b := history.NewBuilder()
	sess := make([]history.SessionID, 1+rng.IntN(4))
	for i := range sess {
		sess[i] = b.Session("S" + strconv.Itoa(i+1))
	}
	versions := make([][]history.TxnID, 3)
	for k := range versions {
		versions[k] = []history.TxnID{history.Init}
	}
	for range 2 + rng.IntN(6) {
		tb := b.Txn(sess[rng.IntN(len(sess))], history.Serializable)
		wrote := map[int]bool{}
		for range 1 + rng.IntN(4) {
			k := rng.IntN(len(versions))
			name := string(rune('x' + k))
			switch v := versions[k]; {
			case rng.IntN(2) == 0:
				tb.Write(name)
				wrote[k] = true
			case wrote[k]:
				tb.Read(name, tb.ID())
			default:
				tb.Read(name, v[len(v)-1-rng.IntN(min(2, len(v)))])
			}
		}
		id := tb.Commit()
		for k := range wrote {
			versions[k] = append(versions[k], id)
		}
	}
	return b.MustHistory()
}
