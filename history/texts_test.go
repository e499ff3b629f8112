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
