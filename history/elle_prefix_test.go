package history

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestElleListAppendMarksTheLongestListAPrefix pins what an Elle
// list-append import says of each key's version order: the longest list's
// writers, marked a prefix (History.VersionOrderPrefix), since an append
// no read showed came after the list's last element; a key whose lists
// conflict, or that no read showed, has no order and no mark; a writer
// whose last append the list does not show (its appends straddle another
// writer's) is listed again at the end.
func TestElleListAppendMarksTheLongestListAPrefix(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:append :x 1] [:append :y 1] [:append :w 1] [:append :z 1]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2] [:append :y 2] [:append :w 2]]}
{:type :info, :process 2, :f :txn, :value [[:append :x 3] [:append :z 3]]}
{:type :fail, :process 3, :f :txn, :value [[:append :x 4]]}
{:type :ok, :process 4, :f :txn, :value [[:r :x [1 2]] [:r :y [1]] [:r :y [2]] [:r :z [1]] [:append :z 5]]}
`
	h, err := ReadElleEDN(strings.NewReader(edn), "prefix.edn")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		order  []TxnID
		prefix bool
	}{
		":x": {[]TxnID{1, 2}, true}, // T3 (:info) is no listed writer; T4 (:fail) takes no part
		":y": {nil, false},          // [1] and [2] conflict: an incompatible order
		":w": {nil, false},          // no read
		":z": {[]TxnID{1}, true},    // T3 and T5 appended after T1's element
	}
	for name, w := range want {
		k := h.Intern(Key{Name: name})
		var got []TxnID
		if int(k) < len(h.VersionOrder) {
			got = h.VersionOrder[k]
		}
		prefix := int(k) < len(h.VersionOrderPrefix) && h.VersionOrderPrefix[k]
		if !slices.Equal(got, w.order) || prefix != w.prefix {
			t.Errorf("%s: order %v, prefix %v; want %v, %v", name, got, prefix, w.order, w.prefix)
		}
	}

	straddle := `{:type :ok, :process 0, :f :txn, :value [[:append :x 1] [:append :x 3]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2]]}
{:type :ok, :process 2, :f :txn, :value [[:r :x [1 2]]]}
`
	h, err = ReadElleEDN(strings.NewReader(straddle), "straddle.edn")
	if err != nil {
		t.Fatal(err)
	}
	if got := h.VersionOrder[0]; !slices.Equal(got, []TxnID{1, 2, 1}) || !h.VersionOrderPrefix[0] {
		t.Errorf("straddling appends: order %v, prefix %v; want [1 2 1], true", got, h.VersionOrderPrefix[0])
	}
}

// TestVersionOrderPrefixSurvivesJSONLAndElleRoundTrips: the prefix mark
// goes through JSONL as the order event's "prefix" member, and an Elle EDN
// export gives back the same lists, hence the same orders and marks.
func TestVersionOrderPrefixSurvivesJSONLAndElleRoundTrips(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:r :x []] [:append :x 1] [:append :y 1]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2]]}
{:type :ok, :process 2, :f :txn, :value [[:r :x [2]] [:r :y [1]]]}
{:type :ok, :process 3, :f :txn, :value [[:append :y 4]]}
`
	h, err := ReadElleEDN(strings.NewReader(edn), "trip.edn")
	if err != nil {
		t.Fatal(err)
	}
	var jsonl bytes.Buffer
	if err := WriteJSONL(&jsonl, h, Header{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(jsonl.String(), `"prefix":true`); n != 2 {
		t.Fatalf("%d order events marked a prefix, want 2:\n%s", n, jsonl.String())
	}
	fromJSONL, err := ReadJSONL(&jsonl, "trip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteElleEDN(&out, h); err != nil {
		t.Fatal(err)
	}
	fromEDN, err := ReadElleEDN(&out, "again.edn")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for name, got := range map[string]*History{"jsonl": fromJSONL, "edn": fromEDN} {
		for k := range h.Keys {
			if !slices.Equal(got.VersionOrder[k], h.VersionOrder[k]) || got.VersionOrderPrefix[k] != h.VersionOrderPrefix[k] {
				t.Errorf("%s: key %s: order %v prefix %v, want %v %v", name, h.Keys[k].Name,
					got.VersionOrder[k], got.VersionOrderPrefix[k], h.VersionOrder[k], h.VersionOrderPrefix[k])
			}
		}
	}
}

// TestJSONLOrderEventPrefixMember: "prefix" is optional and boolean; an
// order event without it leaves the key unmarked.
func TestJSONLOrderEventPrefixMember(t *testing.T) {
	base := `{"format":"fickle-history","version":1}
{"e":"key","k":1,"name":"x"}
{"e":"session","s":1}
{"e":"begin","t":1,"s":1}
{"e":"write","t":1,"k":1,"v":1}
{"e":"commit","t":1}
`
	for _, c := range []struct {
		event   string
		prefix  bool
		wantErr bool
	}{
		{`{"e":"order","k":1,"ts":[1]}`, false, false},
		{`{"e":"order","k":1,"ts":[1],"prefix":true}`, true, false},
		{`{"e":"order","k":1,"ts":[1],"prefix":false}`, false, false},
		{`{"e":"order","k":1,"ts":[1],"prefix":1}`, false, true},
	} {
		h, err := ReadJSONL(strings.NewReader(base+c.event+"\n"), "order.jsonl")
		if c.wantErr {
			if err == nil {
				t.Errorf("%s: read without an error", c.event)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		got := len(h.VersionOrderPrefix) > 0 && h.VersionOrderPrefix[0]
		if got != c.prefix {
			t.Errorf("%s: prefix %v, want %v", c.event, got, c.prefix)
		}
	}
}
