package history

import (
	"strings"
	"testing"
)

// TestStaleReadsRoundTripThroughTheNewerMember: a read event's "newer"
// member marks the items that saw a version older than the latest
// committed one; ReadJSONL puts them in Txn.Stale (by op index) and
// WriteJSONL writes them back.
func TestStaleReadsRoundTripThroughTheNewerMember(t *testing.T) {
	const text = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"table":"acct","name":"1"}
{"e":"key","k":1,"table":"acct","name":"2"}
{"e":"begin","t":1,"s":0,"level":"RC"}
{"e":"write","t":1,"k":0,"row":{"id":1,"bal":5}}
{"e":"co","t":1,"after":0}
{"e":"commit","t":1}
{"e":"begin","t":2,"s":1,"level":"RC"}
{"e":"stmt","t":2,"sql":"SELECT * FROM acct"}
{"e":"read","t":2,"r":[[1,0,"d"],[0,0,"r"]],"newer":[[0,1]]}
{"e":"co","t":2,"after":1}
{"e":"commit","t":2}
`
	h, err := ReadJSONL(strings.NewReader(text), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	check := func(h *History) {
		t.Helper()
		tx := &h.Txns[2]
		if w, ok := tx.LatestOf(1); !ok || w != 1 {
			t.Fatalf("op 1 (acct/1 read from init): LatestOf = %d, %v; want T1, true (stale: %+v)", w, ok, tx.Stale)
		}
		if _, ok := tx.LatestOf(0); ok {
			t.Fatalf("op 0 (acct/2, never written) is marked stale: %+v", tx.Stale)
		}
	}
	check(h)
	var out strings.Builder
	if err := WriteJSONL(&out, h, Header{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"newer":[[`) {
		t.Fatalf("WriteJSONL dropped the newer member:\n%s", out.String())
	}
	again, err := ReadJSONL(strings.NewReader(out.String()), "again.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	check(again)
}

// TestBadNewerMembersAreErrorsNamingTheLine: a "newer" entry must name a
// key of the same read event and a transaction that began.
func TestBadNewerMembersAreErrorsNamingTheLine(t *testing.T) {
	const head = `{"format":"fickle-history","version":1}
{"e":"key","k":0,"name":"x"}
{"e":"key","k":1,"name":"y"}
{"e":"begin","t":1,"s":0,"level":"RC"}
`
	for _, c := range []struct{ line, want string }{
		{`{"e":"read","t":1,"r":[[0,0]],"newer":[[1,0]]}`, "h.jsonl:5"},
		{`{"e":"read","t":1,"r":[[0,0]],"newer":[[0,9]]}`, "unknown transaction 9"},
		{`{"e":"read","t":1,"r":[[0,0]],"newer":[[0,1,2]]}`, "more than 2 elements"},
		{`{"e":"read","t":1,"r":[[0,0]],"newer":{}}`, "h.jsonl:5"},
	} {
		_, err := ReadJSONL(strings.NewReader(head+c.line+"\n"), "h.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.line, err, c.want)
		}
	}
}
