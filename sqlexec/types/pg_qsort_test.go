package types

import (
	"math/rand"
	"slices"
	"testing"
)

// TestPgQsortSorts checks pgQsort against the standard library's order on
// random slices of every size class (insertion sort, median of three,
// ninther), with many equal keys.
func TestPgQsortSorts(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 6, 7, 8, 40, 41, 100, 1000} {
		for range 20 {
			s := make([]int, n)
			for i := range s {
				s[i] = r.Intn(n/3 + 1)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			pgQsort(s, func(a, b int) int { return a - b })
			if !slices.Equal(s, want) {
				t.Fatalf("n=%d: %v", n, s)
			}
		}
	}
}
