package purity

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// purePackages are the directories, relative to the module root, that must
// take every source of choice (seeds, clocks) as arguments.
var purePackages = []string{"isolation", "oracle"}

// allowedRand are the package-level functions of math/rand and math/rand/v2
// that construct a seeded generator rather than draw from the global one.
var allowedRand = map[string]bool{"New": true, "NewSource": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true}

// forbiddenTime are the functions of package time that read or wait on the
// wall clock.
var forbiddenTime = map[string]bool{"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true, "AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true}

func TestPurePackagesUseNoClockGlobalRandOrGoroutines(t *testing.T) {
	for _, dir := range purePackages {
		root := filepath.Join("..", "..", dir)
		if _, err := os.Stat(root); err != nil {
			continue // the package does not exist yet
		}
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			for _, p := range impurities(t, path) {
				t.Errorf("%s", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// impurities lists the forbidden uses in one file, with their positions.
func impurities(t *testing.T, path string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(p)
		if p == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
		if p == "crypto/rand" {
			return []string{fset.Position(imp.Pos()).String() + ": imports crypto/rand"}
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fset.Position(n.Pos()).String()+": starts a goroutine")
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok || id.Obj != nil {
				return true
			}
			switch names[id.Name] {
			case "time":
				if forbiddenTime[n.Sel.Name] {
					out = append(out, fset.Position(n.Pos()).String()+": uses time."+n.Sel.Name)
				}
			case "math/rand", "math/rand/v2":
				if ast.IsExported(n.Sel.Name) && !allowedRand[n.Sel.Name] && isFunc(n.Sel.Name) {
					out = append(out, fset.Position(n.Pos()).String()+": uses the global rand."+n.Sel.Name)
				}
			}
		}
		return true
	})
	return out
}

// isFunc tells the package-level functions of math/rand from its types
// (rand.Rand, rand.Source), which are fine to name.
func isFunc(name string) bool {
	switch name {
	case "Rand", "Source", "Source64", "Zipf", "PCG", "ChaCha8":
		return false
	}
	return true
}

func TestImpuritiesFindsClockGlobalRandAndGoroutines(t *testing.T) {
	got := impurities(t, filepath.Join("testdata", "impure.go.in"))
	want := []string{"starts a goroutine", "uses time.Now", "uses the global rand.Intn"}
	if len(got) != len(want) {
		t.Fatalf("got %d impurities %q, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if !strings.HasSuffix(got[i], w) {
			t.Errorf("impurity %d: got %q, want one ending in %q", i, got[i], w)
		}
	}
}
