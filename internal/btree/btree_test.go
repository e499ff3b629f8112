package btree

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// check verifies m's shape: keys in order within every node and between the
// separators that bound it, every leaf at the same depth, no empty node but
// an empty root, and the count.
func check[V any](t *testing.T, m *Map[V]) {
	t.Helper()
	last := m.root
	for last != nil && last.kids != nil {
		last = last.kids[len(last.kids)-1]
	}
	if m.last != last {
		t.Fatalf("last leaf is not the rightmost")
	}
	if m.root == nil {
		if m.count != 0 || m.height != 0 {
			t.Fatalf("empty map with count %d, height %d", m.count, m.height)
		}
		return
	}
	entries := 0
	var walk func(n *node[V], height int, lo, hi *string)
	walk = func(n *node[V], height int, lo, hi *string) {
		if len(n.keys) == 0 {
			t.Fatalf("empty node at height %d", height)
		}
		if height == 0 {
			if n.kids != nil || len(n.vals) != len(n.keys) {
				t.Fatalf("leaf with %d keys, %d values, kids %v", len(n.keys), len(n.vals), n.kids != nil)
			}
			for i, k := range n.keys {
				if i > 0 && n.keys[i-1] >= k || lo != nil && k < *lo || hi != nil && k >= *hi {
					t.Fatalf("leaf key %q out of order or bounds", k)
				}
			}
			entries += len(n.keys)
			return
		}
		if n.vals != nil || len(n.kids) != len(n.keys) {
			t.Fatalf("inner node with %d keys, %d kids", len(n.keys), len(n.kids))
		}
		for i := 2; i < len(n.keys); i++ {
			if n.keys[i-1] >= n.keys[i] {
				t.Fatalf("separators %q, %q out of order", n.keys[i-1], n.keys[i])
			}
		}
		for i, kid := range n.kids {
			klo, khi := lo, hi
			if i > 0 {
				klo = &n.keys[i]
			}
			if i+1 < len(n.kids) {
				khi = &n.keys[i+1]
			}
			walk(kid, height-1, klo, khi)
		}
	}
	walk(m.root, m.height, nil, nil)
	if entries != m.count {
		t.Fatalf("%d entries, count %d", entries, m.count)
	}
}

// TestMapMatchesSortedReference runs seeded random sets, deletes, gets and
// ascents against a plain map and its sorted keys, checking the tree's
// shape as it goes; small key spaces force replacements and merges, runs of
// ascending keys force rightmost splits.
func TestMapMatchesSortedReference(t *testing.T) {
	for seed := range uint64(24) {
		rng := rand.New(rand.NewPCG(seed, 7))
		space := []int{10, 300, 5000}[seed%3]
		var m Map[int]
		ref := map[string]int{}
		key := func() string { return fmt.Sprintf("%05d", rng.IntN(space)) }
		next := 0
		for op := range 12000 {
			switch r := rng.IntN(100); {
			case r < 45:
				k := key()
				if r < 15 { // ascending runs
					k = fmt.Sprintf("%05d", next%space)
					next++
				}
				prev, replaced := m.Set(k, op)
				want, had := ref[k]
				if replaced != had || prev != want {
					t.Fatalf("seed %d: Set(%s) = %d, %v; want %d, %v", seed, k, prev, replaced, want, had)
				}
				ref[k] = op
			case r < 80:
				k := key()
				_, had := ref[k]
				if got := m.Delete(k); got != had {
					t.Fatalf("seed %d: Delete(%s) = %v, want %v", seed, k, got, had)
				}
				delete(ref, k)
			case r < 95:
				k := key()
				v, ok := m.Get(k)
				want, had := ref[k]
				if ok != had || v != want {
					t.Fatalf("seed %d: Get(%s) = %d, %v; want %d, %v", seed, k, v, ok, want, had)
				}
			default:
				pivot, limit := key(), rng.IntN(50)
				var got []string
				m.Ascend(pivot, func(k string, v int) bool {
					if ref[k] != v {
						t.Fatalf("seed %d: Ascend yields %s=%d, want %d", seed, k, v, ref[k])
					}
					got = append(got, k)
					return len(got) < limit
				})
				var want []string
				for _, k := range slices.Sorted(func(yield func(string) bool) {
					for k := range ref {
						if !yield(k) {
							return
						}
					}
				}) {
					if k >= pivot && len(want) < max(limit, 1) {
						want = append(want, k)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d: Ascend(%s, %d) = %v, want %v", seed, pivot, limit, got, want)
				}
			}
			if m.Len() != len(ref) {
				t.Fatalf("seed %d: Len %d, want %d", seed, m.Len(), len(ref))
			}
			if op%97 == 0 {
				check(t, &m)
			}
		}
		check(t, &m)
		n := 0
		m.Scan(func(k string, v int) bool { n++; return true })
		if n != len(ref) {
			t.Fatalf("seed %d: Scan yields %d entries, want %d", seed, n, len(ref))
		}
	}
}

// TestAscendingKeysFillTheirNodes pins the rightmost split: keys set in
// ascending order (hidden row ids, an index built from sorted pairs) leave
// every node full but the last of each level.
func TestAscendingKeysFillTheirNodes(t *testing.T) {
	var m Map[*int]
	const n = 100_000
	for i := range n {
		m.Set(string(binary.BigEndian.AppendUint64(nil, uint64(i))), nil)
	}
	check(t, &m)
	var leaves, underfull int
	var walk func(nd *node[*int], height int, rightmost bool)
	walk = func(nd *node[*int], height int, rightmost bool) {
		if !rightmost && len(nd.keys) != degree {
			underfull++
		}
		if height == 0 {
			leaves++
			return
		}
		for i, kid := range nd.kids {
			walk(kid, height-1, rightmost && i == len(nd.kids)-1)
		}
	}
	walk(m.root, m.height, true)
	if want := (n + degree - 1) / degree; leaves != want || underfull != 0 {
		t.Fatalf("%d leaves (want %d), %d nodes not full", leaves, want, underfull)
	}
}

// TestDeletingEverythingEmptiesTheMap deletes in an order unrelated to the
// insertion order and checks the map is empty and usable again.
func TestDeletingEverythingEmptiesTheMap(t *testing.T) {
	var m Map[int]
	keys := make([]string, 20000)
	for i := range keys {
		keys[i] = fmt.Sprintf("%08d", i)
		m.Set(keys[i], i)
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for i, k := range keys {
		if !m.Delete(k) {
			t.Fatalf("Delete(%s) found nothing", k)
		}
		if i%1000 == 0 {
			check(t, &m)
		}
	}
	if m.Len() != 0 || m.root != nil {
		t.Fatalf("after deleting everything: Len %d, root %v", m.Len(), m.root != nil)
	}
	m.Set("a", 1)
	if v, ok := m.Get("a"); !ok || v != 1 {
		t.Fatalf("Get after refill = %d, %v", v, ok)
	}
}

func BenchmarkSetAscending(b *testing.B) {
	keys := make([]string, b.N)
	for i := range keys {
		keys[i] = string(binary.BigEndian.AppendUint64(nil, uint64(i)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	var m Map[*int]
	for _, k := range keys {
		m.Set(k, nil)
	}
}

func BenchmarkGet(b *testing.B) {
	var m Map[*int]
	const n = 1 << 20
	keys := make([]string, n)
	for i := range keys {
		keys[i] = string(binary.BigEndian.AppendUint64(nil, uint64(i)*2654435761%n))
		m.Set(keys[i], nil)
	}
	b.ResetTimer()
	for i := range b.N {
		m.Get(keys[i%n])
	}
}
