package isolation

import (
	"math/rand/v2"
	"testing"
)

// TestFreeSpaceMapFindsTheFirstPageWithRoom checks the map's search against
// a scan of every page, over seeded random updates of a growing heap.
func TestFreeSpaceMapFindsTheFirstPageWithRoom(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 0))
		var m freeSpaceMap
		var pages []uint16 // the reference: each page's value
		for step := range 2000 {
			b := r.IntN(len(pages) + 3)
			if r.IntN(4) == 0 {
				b += r.IntN(300) // sometimes far past the end
			}
			for len(pages) <= b {
				pages = append(pages, 0)
			}
			v := uint16(r.IntN(12))
			if r.IntN(50) == 0 {
				v = fsmValue(heapPageSize - heapPageHeader - heapLinePointer) // the largest
			}
			m.set(b, v)
			pages[b] = v
			from, need := r.IntN(len(pages)+2), uint16(1+r.IntN(12))
			want := -1
			for i := from; i < len(pages); i++ {
				if pages[i] >= need {
					want = i
					break
				}
			}
			if got := m.first(from, need); got != want {
				t.Fatalf("seed %d step %d: first(%d, %d) = %d, want %d", seed, step, from, need, got, want)
			}
		}
	}
}

// BenchmarkHeapPlaceBulkLoad places a million 121-byte tuples, pgbench's
// accounts rows: each filled page asks the free space map once.
func BenchmarkHeapPlaceBulkLoad(b *testing.B) {
	for range b.N {
		h := heap{target: -1}
		for range 1_000_000 {
			h.place(121, nil, 0)
		}
	}
}
