package history

import (
	"strings"
	"testing"
)

func TestTextTableStringsOutliveTheirInput(t *testing.T) {
	tt := newTextTable()
	inputs := []string{"", "a", "pgbench_accounts", strings.Repeat("x", textChunk/16+1), "pgbench_accounts", `{"aid":1}`}
	var got []string
	buf := make([]byte, 0, textChunk)
	for i := 0; i < 3*textChunk/8; i++ { // enough to fill several chunks
		in := inputs[i%len(inputs)]
		buf = append(buf[:0], in...)
		got = append(got, tt.text(buf))
		for j := range buf {
			buf[j] = '!' // the caller reuses its buffer
		}
	}
	for i, s := range got {
		if want := inputs[i%len(inputs)]; s != want {
			t.Fatalf("text %d = %.20q, want %.20q", i, s, want)
		}
	}
}

func TestTextTableSharesRepeatedTexts(t *testing.T) {
	tt := newTextTable()
	a := tt.text([]byte("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"))
	b := tt.text([]byte("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"))
	if a != b || len(tt.chunk) != len(a) {
		t.Fatalf("a repeated text was copied again: %d bytes in the chunk for %d", len(tt.chunk), len(a))
	}
}

func TestKeyIndexFindsKeysWhoseHashesCollide(t *testing.T) {
	keys := []Key{{Table: "t", Name: "1"}, {Table: "t", Name: "2"}, {Table: "u", Name: "1"}}
	x := newKeyIndex(keys[:1])
	// Pretend keys[1] and keys[2] hash as keys[0] does.
	x.byHash[x.hash(keys[1])] = 0
	x.add(keys[:2], keys[1], 1)
	x.byHash[x.hash(keys[2])] = 0
	x.add(keys, keys[2], 2)
	for want, k := range keys {
		if id, ok := x.get(keys, k); !ok || id != KeyID(want) {
			t.Errorf("get(%v) = %d, %v; want %d", k, id, ok, want)
		}
	}
	if _, ok := x.get(keys, Key{Table: "t", Name: "3"}); ok {
		t.Errorf("get found a key that was never added")
	}
}
