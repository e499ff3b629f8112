package sqlexec

import (
	"context"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// loggedSession returns a session of an engine whose store logs its
// history, and a function that ends the log and reads it back.
func loggedSession(t *testing.T) (*Session, func() *history.History) {
	t.Helper()
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(Config{Store: isolation.NewStore(isolation.Config{Log: log})})
	if err != nil {
		t.Fatal(err)
	}
	return eng.NewSession(SessionInfo{User: "h"}), func() *history.History {
		t.Helper()
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}
		h, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
}

// TestHistoryLogNamesKeysAndRowsInSQLTerms pins how the history log names a
// key (its primary key's text, two columns in parentheses, a hidden row id
// as a number) and the row image of each committed write (a JSON object of
// the current columns: numbers, booleans and NULL as JSON's, other values
// as their text output), also after ALTER TABLE ADD COLUMN.
func TestHistoryLogNamesKeysAndRowsInSQLTerms(t *testing.T) {
	s, readLog := loggedSession(t)
	mustRun(t, s, "CREATE TABLE acct (id int PRIMARY KEY, owner text, bal numeric, open boolean)")
	mustRun(t, s, "INSERT INTO acct VALUES (1, 'ann', 10.50, true), (2, NULL, 'NaN', false)")
	mustRun(t, s, "CREATE TABLE line (o int, n text, PRIMARY KEY (o, n))")
	mustRun(t, s, "INSERT INTO line VALUES (7, 'b')")
	mustRun(t, s, "CREATE TABLE note (body text)")
	mustRun(t, s, "INSERT INTO note VALUES ('hi')")
	mustRun(t, s, "ALTER TABLE note ADD COLUMN n int")
	mustRun(t, s, "UPDATE note SET n = 3")
	h := readLog()
	var got []string
	for _, txn := range h.Txns {
		for i, op := range txn.Ops {
			if op.Kind == history.OpWrite {
				got = append(got, h.Keys[op.Key].String()+" "+txn.Rows[i])
			}
		}
	}
	want := []string{
		`acct/1 {"id":1,"owner":"ann","bal":10.50,"open":true}`,
		`acct/2 {"id":2,"owner":null,"bal":"NaN","open":false}`,
		`line/(7, b) {"o":7,"n":"b"}`,
		`note/1 {"body":"hi"}`,
		`note/1 {"body":"hi","n":3}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logged writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHistoryNamesCopyStatements pins that the rows a COPY reads or writes
// are recorded as its own statement's: they were recorded as the last
// statement's of the transaction (a SELECT here).
func TestHistoryNamesCopyStatements(t *testing.T) {
	s, readLog := loggedSession(t)
	mustRun(t, s, "CREATE TABLE hc (a int)")
	mustRun(t, s, "INSERT INTO hc VALUES (0)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "SELECT 1")
	if _, err := s.CopyOut(context.Background(), startCopy(t, s, "COPY hc TO STDOUT"), func([]byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CopyIn(context.Background(), startCopy(t, s, "COPY hc FROM STDIN"), strings.NewReader("1\n")); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "COMMIT")
	h := readLog()
	var got []string
	for _, op := range h.Txns[len(h.Txns)-1].Ops {
		stmt := h.Txns[len(h.Txns)-1].Statements[op.Event]
		switch op.Kind {
		case history.OpWrite:
			got = append(got, "write by "+stmt.SQL+" on "+stmt.Table)
		case history.OpRead:
			got = append(got, "read by "+stmt.SQL+" on "+stmt.Table)
		}
	}
	want := "read by COPY hc TO STDOUT on hc\nwrite by COPY hc FROM STDIN on hc"
	if strings.Join(got, "\n") != want {
		t.Fatalf("recorded:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
