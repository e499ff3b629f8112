package sqlexec

import (
	"fmt"
	"testing"
)

// TestRowsTagMatchesFormat: rowsTag's constants and its general case give
// the tags fmt.Sprintf("%s %d") gave.
func TestRowsTagMatchesFormat(t *testing.T) {
	for _, verb := range []string{"SELECT", "INSERT 0", "UPDATE", "DELETE", "MERGE"} {
		for _, n := range []int64{0, 1, 2, 255, 256, 1 << 40} {
			if got, want := rowsTag(verb, n), fmt.Sprintf("%s %d", verb, n); got != want {
				t.Errorf("rowsTag(%q, %d) = %q, want %q", verb, n, got, want)
			}
		}
	}
}
