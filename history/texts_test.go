package history

import (
	"fmt"
	"strings"
	"testing"
)

func TestTextTableStringsOutliveTheirInput(t *testing.T) {
	tt := newTextTable()
	repeated := []string{"", "a", "pgbench_accounts", strings.Repeat("x", textChunk/16+1)}
	var want, got []string
	buf := make([]byte, 0, textChunk)
	for i := 0; i < 4000; i++ { // distinct row images fill several chunks
		in := repeated[i%len(repeated)]
		if i%2 == 1 {
			in = fmt.Sprintf(`{"aid":%d,"filler":"%s"}`, i, strings.Repeat(" ", i%90))
		}
		buf = append(buf[:0], in...)
		want, got = append(want, in), append(got, tt.text(buf))
		for j := range buf {
			buf[j] = '!' // the caller reuses its buffer
		}
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("text %d = %.30q, want %.30q", i, got[i], want[i])
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
	for _, indexed := range []int{1, 3} { // keys interned one by one, or indexed at once
		x := newKeyIndex(keys[:indexed])
		got := append([]Key(nil), keys[:indexed]...)
		for i := range keys {
			if i == 0 {
				continue
			}
			// Pretend that every key hashes as keys[0] does.
			if _, ok := x.byHash[x.hash(keys[i])]; !ok {
				x.byHash[x.hash(keys[i])] = 0
			}
			if id := x.intern(&got, keys[i]); indexed == 1 && id != KeyID(i) {
				t.Errorf("intern(%v) = %d, want the new id %d", keys[i], id, i)
			}
		}
		for want, k := range keys {
			if id := x.intern(&got, k); id != KeyID(want) {
				t.Errorf("indexed %d: intern(%v) = %d, want %d", indexed, k, id, want)
			}
		}
		if len(got) != len(keys) {
			t.Errorf("indexed %d: %d keys after interning, want %d", indexed, len(got), len(keys))
		}
	}
}
