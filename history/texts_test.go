package history

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestTextTableStringsOutliveTheirInput(t *testing.T) {
	for _, method := range []struct {
		name string
		make func(*textTable, []byte) string
	}{{"text", (*textTable).text}, {"row", (*textTable).row}} {
		t.Run(method.name, func(t *testing.T) {
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
				want, got = append(want, in), append(got, method.make(tt, buf))
				for j := range buf {
					buf[j] = '!' // the caller reuses its buffer
				}
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("text %d = %.30q, want %.30q", i, got[i], want[i])
				}
			}
		})
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
	keys := []Key{{Table: "t", Name: "1"}, {Table: "t", Name: "2"}, {Table: "u", Name: "1"}, {Table: "t", Name: "1"}}
	x := newKeyIndex(nil)
	var got []Key
	for i := 0; i < 2; i++ { // a first time adds, a second finds
		for j, k := range keys[:3] {
			if id := x.internHashed(&got, k, 42); id != KeyID(j) {
				t.Errorf("round %d: intern(%v) = %d, want %d", i, k, id, j)
			}
		}
	}
	if id := x.internHashed(&got, keys[3], 42); id != 0 || len(got) != 3 {
		t.Errorf("intern of a known key = %d with %d keys, want 0 with 3", id, len(got))
	}
}

func TestKeyIndexGrowsAndKeepsIDs(t *testing.T) {
	var keys []Key
	x := newKeyIndex(nil)
	for i := range 10_000 {
		k := Key{Table: "t", Name: strconv.Itoa(i % 5_000)}
		if id := x.intern(&keys, k); id != KeyID(i%5_000) {
			t.Fatalf("intern(%v) = %d, want %d", k, id, i%5_000)
		}
	}
	y := newKeyIndex(keys)
	for i, k := range keys {
		if id := y.intern(&keys, k); id != KeyID(i) {
			t.Fatalf("rebuilt index: intern(%v) = %d, want %d", k, id, i)
		}
	}
}
