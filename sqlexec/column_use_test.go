package sqlexec

import (
	"slices"
	"testing"
)

// TestColumnUse checks which columns a statement's use of a relation asks
// privileges on, and when an ifUsed privilege is not needed at all.
func TestColumnUse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		use    columnUse
		needed []int16
		unused bool
	}{
		{"listed columns, all used", columnUse{attnums: []int16{1, 3}}, []int16{1, 3}, false},
		{"none listed: any column", columnUse{}, nil, false},
		{"tracked reads", columnUse{attnums: []int16{1, 2, 4}, used: []bool{false, true, true}}, []int16{2, 4}, false},
		{"tracked, nothing read", columnUse{attnums: []int16{1, 2}, used: []bool{false, false}}, nil, false},
		{"ifUsed, nothing read", columnUse{attnums: []int16{1, 2}, used: []bool{false, false}, ifUsed: true}, nil, true},
		{"ifUsed, a column read", columnUse{attnums: []int16{1, 2}, used: []bool{true, false}, ifUsed: true}, []int16{1}, false},
		{"ifUsed, a system column read", columnUse{attnums: []int16{1}, used: []bool{false}, system: true, ifUsed: true}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.use.needed(); !slices.Equal(got, tc.needed) {
				t.Errorf("needed() = %v, want %v", got, tc.needed)
			}
			if got := tc.use.unused(); got != tc.unused {
				t.Errorf("unused() = %v, want %v", got, tc.unused)
			}
		})
	}
}
