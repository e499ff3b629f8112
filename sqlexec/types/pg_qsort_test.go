package types

import (
	"math/rand"
	"slices"
	"testing"
)

// TestPgQsortSorts checks PGQsort against the standard library's order on
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
			PGQsort(s, func(a, b int) int { return a - b })
			if !slices.Equal(s, want) {
				t.Fatalf("n=%d: %v", n, s)
			}
		}
	}
}

type qsRow struct{ id, key int }

// sixty is SELECT id, (id*37)%7 FROM generate_series(1, 60) id.
func sixty() []qsRow {
	var s []qsRow
	for id := 1; id <= 60; id++ {
		s = append(s, qsRow{id, id * 37 % 7})
	}
	return s
}

// TestPGQsortMatchesPostgres checks PGQsort against orders PostgreSQL 15 produced: the
// rows of the regression database's tenk1 with unique1 < 10, in heap
// order, sorted by four (window.sql's frame queries); sixty rows sorted
// by a key with ties (ORDER BY k, which takes the ninther path); and a sort whose
// input is already ordered, which PostgreSQL leaves as it is.
func TestPGQsortMatchesPostgres(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []qsRow
		want []int
	}{
		{"tenk1 by four",
			[]qsRow{{4, 0}, {2, 2}, {1, 1}, {6, 2}, {9, 1}, {8, 0}, {5, 1}, {3, 3}, {7, 3}, {0, 0}},
			[]int{0, 8, 4, 5, 9, 1, 6, 2, 3, 7}},
		{"ninther",
			sixty(),
			[]int{42, 7, 21, 35, 14, 56, 49, 28, 32, 46, 25, 4, 53, 60, 18, 11, 39, 15, 8, 1, 22, 29, 36, 43, 50, 57, 47, 26, 54, 40, 12, 19, 33, 5, 44, 30, 16, 2, 37, 58, 9, 51, 23, 34, 13, 20, 55, 48, 41, 6, 27, 10, 17, 45, 24, 59, 3, 52, 31, 38}},
		{"presorted",
			[]qsRow{{1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 1}, {6, 2}, {7, 2}, {8, 3}},
			[]int{1, 2, 3, 4, 5, 6, 7, 8}},
	} {
		s := slices.Clone(tc.in)
		PGQsort(s, func(a, b qsRow) int { return a.key - b.key })
		var got []int
		for _, r := range s {
			got = append(got, r.id)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPGSortBoundedMatchesPostgres checks PGSortBounded against the rows
// PostgreSQL 15 returned for SELECT id FROM sixty ORDER BY k LIMIT n
// OFFSET m (the table of sixty() in heap order): past twice the bound
// (LIMIT plus OFFSET) its top-N heapsort keeps ties in another order than
// the quicksort it uses up to there.
func TestPGSortBoundedMatchesPostgres(t *testing.T) {
	asc := func(a, b qsRow) int { return a.key - b.key }
	for _, tc := range []struct {
		name  string
		bound int
		skip  int
		cmp   func(a, b qsRow) int
		want  []int
	}{
		{"limit 10", 10, 0, asc, []int{56, 42, 35, 49, 21, 7, 28, 14, 32, 11}},
		{"limit 5 offset 7", 12, 7, asc, []int{42, 25, 39, 11, 18}},
		{"limit 29", 29, 0, asc, []int{14, 49, 42, 21, 7, 28, 56, 35, 25, 53, 11, 39, 32, 18, 4, 46, 60, 29, 15, 36, 57, 22, 1, 43, 8, 50, 26, 12, 33}},
		{"limit 30 quicksorts", 30, 0, asc, []int{42, 7, 21, 35, 14, 56, 49, 28, 32, 46, 25, 4, 53, 60, 18, 11, 39, 15, 8, 1, 22, 29, 36, 43, 50, 57, 47, 26, 54, 40}},
		{"desc limit 1", 1, 0, func(a, b qsRow) int { return b.key - a.key }, []int{3}},
		{"limit 0", 0, 0, asc, nil},
	} {
		s := PGSortBounded(sixty(), tc.bound, tc.cmp)
		var got []int
		for _, r := range s[min(tc.skip, len(s)):min(tc.bound, len(s))] {
			got = append(got, r.id)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
