package sqlexec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
	"github.com/fickle-db/fickle/oracle"
)

// statementReads returns, for the statement whose SQL is query, how many
// keys its read ops list and how many of them are flagged returned.
func statementReads(h *history.History, query string) (read, returned int) {
	for _, txn := range h.Txns {
		for _, op := range txn.Ops {
			if op.Kind == history.OpRead && int(op.Event) < len(txn.Statements) && txn.Statements[op.Event].SQL == query {
				read++
				if op.Flags&history.FlagReturned != 0 {
					returned++
				}
			}
		}
	}
	return read, returned
}

// TestStreamedScansRecordWhatTheyRead pins what the history says a scan
// saw. Without LIMIT, a scan reads every key and flags the rows its WHERE
// clause kept. A scan of a whole table whose rows were updated reads it
// all before passing rows on, to pass them in heap order (heap_order.go),
// so a LIMIT changes nothing of what it records. A table only inserted
// into has its rows in heap order already, and its scan stops at a LIMIT
// as PostgreSQL's does: the read lists the keys of the chunks the store
// inspected (64 keys each) up to that point and flags only the rows passed
// on; the keys after are not read. An index scan passes rows on as it reads
// them, and a LIMIT stops it once reached, as PostgreSQL's does: the read
// lists every key under the index value (the store reads them at once),
// each at the version chosen for it, and flags only the rows passed on.
// Every history passes the oracle.
func TestStreamedScansRecordWhatTheyRead(t *testing.T) {
	cases := []struct {
		query          string
		rows           int
		read, returned int
	}{
		{"SELECT k FROM kv WHERE v % 2 = 0", 100, 200, 100},
		{"SELECT count(*) FROM kv WHERE v % 2 = 0", 1, 200, 100},
		{"SELECT k FROM kv WHERE v % 2 = 0 LIMIT 5", 5, 200, 100},
		{"SELECT k FROM kv LIMIT 70", 70, 200, 200},
		{"SELECT k FROM fresh WHERE v % 2 = 0 LIMIT 5", 5, 64, 5},
		{"SELECT k FROM fresh LIMIT 70", 70, 128, 70},
		{"SELECT k FROM kv WHERE g = 0 LIMIT 5", 5, 150, 5},
		{"SELECT k FROM kv WHERE g = 0 AND v % 4 = 0 LIMIT 20", 20, 150, 20},
		{"SELECT k FROM kv WHERE v % 2 = 0 ORDER BY k LIMIT 5", 5, 200, 100},
	}
	for _, level := range []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"} {
		for _, c := range cases {
			t.Run(level+"/"+c.query, func(t *testing.T) {
				store := isolation.NewStore(isolation.Config{Strategy: isolation.StrategyAdversarial, Seed: 3, Record: true})
				eng, err := NewEngine(Config{Store: store, Strategy: isolation.StrategyAdversarial, Record: true})
				if err != nil {
					t.Fatal(err)
				}
				setup := eng.NewSession(SessionInfo{User: "setup"})
				mustRun(t, setup, "CREATE TABLE kv (k int PRIMARY KEY, v int NOT NULL, g int NOT NULL)")
				mustRun(t, setup, "CREATE INDEX ON kv (g)")
				values := make([]string, 200)
				for i := range values {
					values[i] = fmt.Sprintf("(%d, %d, %d)", i, i, i/150)
				}
				mustRun(t, setup, "INSERT INTO kv VALUES "+strings.Join(values, ", "))
				mustRun(t, eng.NewSession(SessionInfo{User: "w"}), "UPDATE kv SET v = v + 2")
				reader := eng.NewSession(SessionInfo{User: "reader"})
				// The reader's own earlier writes: no strategy may hide them.
				mustRun(t, reader, "CREATE TABLE fresh (k int PRIMARY KEY, v int NOT NULL, g int NOT NULL)")
				mustRun(t, reader, "INSERT INTO fresh VALUES "+strings.Join(values, ", "))
				mustRun(t, reader, "BEGIN ISOLATION LEVEL "+level)
				res, err := execOne(reader, c.query)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Rows) != c.rows {
					t.Fatalf("%d rows, want %d", len(res.Rows), c.rows)
				}
				mustRun(t, reader, "COMMIT")
				h := store.History()
				read, returned := statementReads(h, c.query)
				if read != c.read || returned != c.returned {
					t.Fatalf("the read lists %d keys, %d returned; want %d, %d", read, returned, c.read, c.returned)
				}
				if r := oracle.Check(h, oracle.Options{}); r.Verdict != oracle.Consistent {
					t.Fatalf("the recorded history is %v: %v", r.Verdict, r.Explanation)
				}
			})
		}
	}
}

// TestStreamedScanDoesNotSeeTheStatementsOwnWrites: a scan passes its
// rows on while it reads, so a volatile function called on each row can
// insert into the table being scanned; the scan reads with the
// statement's snapshot and so meets each of the table's rows once, never
// the rows the statement inserted (as when it read them all first).
func TestStreamedScanDoesNotSeeTheStatementsOwnWrites(t *testing.T) {
	s := streamingSession(t)
	mustRun(t, s, "CREATE TABLE grow (k int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO grow SELECT g FROM generate_series(1, 300) g")
	mustRun(t, s, "CREATE FUNCTION add_after(k int) RETURNS int LANGUAGE sql AS 'INSERT INTO grow VALUES (k + 1000) RETURNING k'")
	// A scan that met the rows it inserted would run until the timeout.
	rows, _, _, err := runMeasured(t, s, "SELECT count(add_after(k)) FROM grow", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{Rows: rows}
	if got := fmt.Sprint(res.Rows); got != "[[300]]" {
		t.Fatalf("the scan met %s rows, want 300", got)
	}
	res, err = execOne(s, "SELECT count(*) FROM grow")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Rows); got != "[[600]]" {
		t.Fatalf("the table holds %s rows after, want 600", got)
	}
}
