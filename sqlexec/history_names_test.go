package sqlexec

import (
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/isolation"
)

// TestHistoryLogNamesKeysAndRowsInSQLTerms pins how the history log names a
// key (its primary key's text, two columns in parentheses, a hidden row id
// as a number) and the row image of each committed write (a JSON object of
// the current columns: numbers, booleans and NULL as JSON's, other values
// as their text output), also after ALTER TABLE ADD COLUMN.
func TestHistoryLogNamesKeysAndRowsInSQLTerms(t *testing.T) {
	var buf strings.Builder
	log, err := history.NewWriter(&buf, history.Header{})
	if err != nil {
		t.Fatal(err)
	}
	store := isolation.NewStore(isolation.Config{Log: log})
	eng, err := NewEngine(Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(SessionInfo{User: "h"})
	mustRun(t, s, "CREATE TABLE acct (id int PRIMARY KEY, owner text, bal numeric, open boolean)")
	mustRun(t, s, "INSERT INTO acct VALUES (1, 'ann', 10.50, true), (2, NULL, 'NaN', false)")
	mustRun(t, s, "CREATE TABLE line (o int, n text, PRIMARY KEY (o, n))")
	mustRun(t, s, "INSERT INTO line VALUES (7, 'b')")
	mustRun(t, s, "CREATE TABLE note (body text)")
	mustRun(t, s, "INSERT INTO note VALUES ('hi')")
	mustRun(t, s, "ALTER TABLE note ADD COLUMN n int")
	mustRun(t, s, "UPDATE note SET n = 3")
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := history.ReadJSONL(strings.NewReader(buf.String()), "log")
	if err != nil {
		t.Fatal(err)
	}
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
