package isolation

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineHasNoClockGlobalRandomnessOrGoroutines scans the package's
// non-test sources: the engine is a pure state machine (STYLE #1), so a
// replay depends only on the seed and the order of calls.
func TestEngineHasNoClockGlobalRandomnessOrGoroutines(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "time" || p == "math/rand" || p == "crypto/rand" {
				t.Errorf("%s imports %s", f, p)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement at %s", f, fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				// math/rand/v2's package-level functions use a global source.
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "rand" && n.Sel.Name != "New" && n.Sel.Name != "NewPCG" && n.Sel.Name != "Rand" {
					t.Errorf("%s: global rand.%s at %s", f, n.Sel.Name, fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
