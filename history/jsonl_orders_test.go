package history

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// incompatibleEDN is an Elle list-append history whose key 1 was read as
// [1 3] and as [1 2 9]: an incompatible order; key 2 keeps its order.
const incompatibleEDN = `{:type :ok, :process 0, :f :txn, :value [[:append 1 1] [:append 2 5]]}
{:type :ok, :process 1, :f :txn, :value [[:append 1 2]]}
{:type :ok, :process 2, :f :txn, :value [[:append 1 3]]}
{:type :ok, :process 3, :f :txn, :value [[:r 2 [5]] [:r 1 [1 2]]]}
{:type :ok, :process 4, :f :txn, :value [[:r 1 [1 3]] [:r 1 [1 2]]]}
{:type :ok, :process 5, :f :txn, :value [[:r 1 [1 2 9]]]}
`

func TestJSONLKeepsIncompatibleOrdersAndVersionOrders(t *testing.T) {
	h, err := ReadElleEDN(strings.NewReader(incompatibleEDN), "inc.edn")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.IncompatibleOrders) != 1 {
		t.Fatalf("the import has %d incompatible orders, want 1", len(h.IncompatibleOrders))
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, h, Header{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `{"e":"incompatible","k":0,"ts":[[5,0,[1,3]],[6,0,[1,2,9]],[4,1,[1,2]],[5,1,[1,2]]]}`) {
		t.Errorf("no incompatible event in\n%s", buf.String())
	}
	got, err := ReadJSONL(&buf, "again.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.IncompatibleOrders, h.IncompatibleOrders) {
		t.Errorf("after a round trip, incompatible orders %+v, want %+v", got.IncompatibleOrders, h.IncompatibleOrders)
	}
	if !reflect.DeepEqual(got.VersionOrder[1], h.VersionOrder[1]) || got.VersionOrder[0] != nil {
		t.Errorf("after a round trip, version orders %v, want %v", got.VersionOrder, h.VersionOrder)
	}
}

func TestJSONLRejectsMalformedIncompatibleEvents(t *testing.T) {
	head := `{"format":"fickle-history","version":1}
{"e":"key","k":0,"name":"x"}
{"e":"session","s":0,"name":"a"}
{"e":"begin","t":1,"s":0,"level":"SER"}
{"e":"read","t":1,"r":[[0,0]]}
{"e":"write","t":1,"k":0,"v":1}
{"e":"commit","t":1}
`
	cases := []struct{ event, want string }{
		{`{"e":"incompatible","k":0}`, `without "k" and "ts"`},
		{`{"e":"incompatible","k":9,"ts":[[1,0,[]],[1,0,[1]]]}`, "undeclared key 9"},
		{`{"e":"incompatible","k":0,"ts":[[1,1,[]],[1,0,[1]]]}`, "operation 1 of transaction 1 is not a read of key 0"},
		{`{"e":"incompatible","k":0,"ts":[[0,0,[]],[1,0,[1]]]}`, "names transaction 0 as a reader"},
		{`{"e":"incompatible","k":0,"ts":[[1,0,[]]]}`, "want two reads"},
		{`{"e":"incompatible","k":0,"ts":[[1,0,[]],[1,0]]}`, "want two reads"},
		{`{"e":"incompatible","k":0,"ts":[[1,0,[]],[1,0,[1]],[1,0]]}`, "each [transaction, operation, list]"},
		{`{"e":"incompatible","k":0,"ts":[[1,0,[],4],[1,0,[1]]]}`, "a read is [transaction, operation, list]"},
	}
	for _, c := range cases {
		_, err := ReadJSONL(strings.NewReader(head+c.event+"\n"), "bad.jsonl")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.jsonl:8") {
			t.Errorf("%s: error %v, want one at bad.jsonl:8 saying %q", c.event, err, c.want)
		}
	}
}
