package history_test

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// statementHistory is the shape of pgbench -i's ALTER TABLE ... ADD PRIMARY
// KEY in a recorded history: a loader writes keys rows, then one statement
// of another transaction reads all of them, over lines read lines, and
// updates, one per row read, follow in their own transactions.
func statementHistory(t testing.TB, keys, lines int) []byte {
	var buf bytes.Buffer
	w, err := history.NewWriter(&buf, history.Header{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) history.Key { return history.Key{Table: "accounts", Name: strconv.Itoa(i)} }
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Session(0, "loader"))
	must(w.Begin(1, 0, history.ReadCommitted, 0, ""))
	for i := range keys {
		must(w.Write(1, history.WriteItem{Key: key(i), Row: `{"aid":` + strconv.Itoa(i) + `}`}))
	}
	must(w.CommitOrder(1, history.Init))
	must(w.Commit(1, 0))
	must(w.Begin(2, 0, history.ReadCommitted, 0, ""))
	must(w.Stmt(2, history.Statement{SQL: "alter table accounts add primary key (aid)", Table: "accounts"}))
	per := (keys + lines - 1) / lines
	for i := 0; i < keys; i += per {
		items := make([]history.ReadItem, 0, per)
		for j := i; j < min(i+per, keys); j++ {
			items = append(items, history.ReadItem{Key: key(j), Writer: 1})
		}
		must(w.Read(2, items))
	}
	must(w.CommitOrder(2, 1))
	must(w.Commit(2, 0))
	for i := range keys / 10 {
		t := history.TxnID(3 + i)
		must(w.Begin(t, 0, history.ReadCommitted, 0, ""))
		must(w.Read(t, []history.ReadItem{{Key: key(i), Writer: 1, Returned: true}}))
		must(w.Write(t, history.WriteItem{Key: key(i)}))
		must(w.CommitOrder(t, t-1))
		must(w.Commit(t, 0))
	}
	must(w.Close())
	return buf.Bytes()
}

// readAndCheck returns the least time, of three, to read data and check it
// at RC, RA and CC.
func readAndCheck(t *testing.T, data []byte) time.Duration {
	best := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		h, err := history.ReadJSONL(bytes.NewReader(data), "statement.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal} {
			if r := oracle.Check(h, oracle.Options{Level: l}); r.Verdict != oracle.Consistent {
				t.Fatalf("%s: %s", l, r.Verdict)
			}
		}
		best = min(best, time.Since(start))
	}
	return best
}

// TestStatementReadLinesCostLinearTime: reading and checking a history
// takes time linear in its size, however one statement's reads are split
// into lines. 40,000 keys read by one statement in 10 lines or in 4,000
// take about as long; a cost quadratic in the lines (issue 16: 1,563 lines
// of pgbench's ALTER TABLE took 16 s) would make the second 400 times
// slower.
func TestStatementReadLinesCostLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	const keys = 40_000
	few, many := statementHistory(t, keys, 10), statementHistory(t, keys, 4_000)
	tFew, tMany := readAndCheck(t, few), readAndCheck(t, many)
	t.Logf("%d keys in 10 lines: %v; in 4,000 lines: %v", keys, tFew, tMany)
	if tMany > 4*tFew+50*time.Millisecond {
		t.Errorf("4,000 read lines took %v, 10 lines %v: the cost grows faster than the input", tMany, tFew)
	}
}
