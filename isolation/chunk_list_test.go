package isolation

import (
	"slices"
	"testing"
)

// TestChunkListKeepsItsEntriesInOrderAcrossChunks compares the chunked undo
// log with a plain slice through pushes and savepoint truncations on both
// sides of the chunk boundaries.
func TestChunkListKeepsItsEntriesInOrderAcrossChunks(t *testing.T) {
	for _, c := range []struct{ push, cut, more int }{
		{10, 3, 5}, {chunkSize, chunkSize, 1}, {chunkSize + 1, chunkSize, 2},
		{3*chunkSize + 7, 2 * chunkSize, chunkSize}, {3 * chunkSize, chunkSize + 1, 0},
		{2*chunkSize + 5, 0, 3}, {5, 9, 1},
	} {
		var l chunkList[undoEntry]
		var want []undoEntry
		push := func(n int) {
			for range n {
				u := undoEntry{op: len(want)}
				l.push(u)
				want = append(want, u)
			}
		}
		push(c.push)
		l.truncate(c.cut)
		want = want[:min(c.cut, len(want))]
		push(c.more)
		got := slices.Collect(l.from(0))
		if l.len() != len(want) || !slices.Equal(got, want) {
			t.Fatalf("%+v: log holds %d entries %v..., want %d", c, l.len(), got[:min(len(got), 3)], len(want))
		}
		for i := range want {
			if l.at(i) != want[i] {
				t.Fatalf("%+v: entry %d = %+v, want %+v", c, i, l.at(i), want[i])
			}
		}
	}
}
