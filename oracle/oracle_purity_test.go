package oracle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOracleIsPure: the package's non-test code has no clock, no global or
// seeded randomness, no goroutines and no locks (doc.go; STYLE.md §1), so
// that a verdict depends on the history and the options alone.
func TestOracleIsPure(t *testing.T) {
	forbidden := map[string]string{
		"time": "a clock", "math/rand": "randomness", "math/rand/v2": "randomness",
		"crypto/rand": "randomness", "sync": "locks", "sync/atomic": "atomics", "os": "the environment",
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbidden[path]; bad {
				t.Errorf("%s imports %s (%s)", name, path, why)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GoStmt); ok {
				t.Errorf("%s: a goroutine", fset.Position(g.Pos()))
			}
			return true
		})
	}
}
