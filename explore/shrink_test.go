package explore

import (
	"fmt"
	"slices"
	"testing"
)

// TestDdminFindsASmallestFailingSubset: delta debugging returns a subset
// that still fails and from which no single item can be dropped, within a
// number of tests far below trying every subset; a failure that needs no
// item at all is found with one test.
func TestDdminFindsASmallestFailingSubset(t *testing.T) {
	items := make([]int, 24)
	for i := range items {
		items[i] = i
	}
	for _, c := range []struct {
		name     string
		needs    []int // the run fails when every one of these is kept
		maxTests int
	}{
		{"one item", []int{17}, 20},
		{"two far apart", []int{2, 21}, 40},
		{"three adjacent", []int{8, 9, 10}, 60},
		{"none", nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tests := 0
			fails := func(set []int) bool {
				tests++
				for _, n := range c.needs {
					if !slices.Contains(set, n) {
						return false
					}
				}
				return true
			}
			got := ddmin(items, fails)
			slices.Sort(got)
			if fmt.Sprint(got) != fmt.Sprint(c.needs) && !(len(got) == 0 && len(c.needs) == 0) {
				t.Fatalf("ddmin kept %v, want %v", got, c.needs)
			}
			if tests > c.maxTests {
				t.Fatalf("%d tests, want at most %d", tests, c.maxTests)
			}
		})
	}
}
