package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksOnlyTheCheckerAndNoCgo pins what makes fickle-check worth having
// beside `fickle check`: it depends on the history model and the checker
// only (no SQL parser, server or store; internal/hugepages needs only the
// standard library), and on no C code, so it builds with CGO_ENABLED=0 and
// starts with a small binary.
func TestLinksOnlyTheCheckerAndNoCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/fickle-db/fickle/history":               true,
		"github.com/fickle-db/fickle/oracle":                true,
		"github.com/fickle-db/fickle/internal/hugepages":    true,
		"github.com/fickle-db/fickle/cmd/internal/checkcli": true,
		"github.com/fickle-db/fickle/cmd/fickle-check":      true,
	}
	for _, pkg := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(pkg, "/")
		if pkg == "runtime/cgo" || strings.Contains(first, ".") && !allowed[pkg] {
			t.Errorf("fickle-check depends on %s", pkg)
		}
	}
}
