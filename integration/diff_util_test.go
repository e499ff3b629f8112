package integration

import (
	"fmt"
	"strings"
)

// lineDiff returns the lines where want and got first differ, with a little
// context, for failure messages.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			var b strings.Builder
			for j := max(0, i-3); j < i; j++ {
				fmt.Fprintf(&b, "  %4d   %s\n", j+1, w[j])
			}
			fmt.Fprintf(&b, "- %4d   %s\n+ %4d   %s\n", i+1, wl, i+1, gl)
			return b.String()
		}
	}
	return "(no difference)"
}
