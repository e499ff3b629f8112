package history

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedHistories is where the external test histories live (see
// /work/shared/histories/README.md); tests that need them skip without.
const sharedHistories = "../../shared/histories"

func sharedFiles(t testing.TB, pattern string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedHistories, pattern))
	if len(files) == 0 {
		t.Skipf("no shared histories match %s in %s: the external test histories are not checked out", pattern, sharedHistories)
	}
	return files
}

func TestAWDITReadsEverySharedTestHistory(t *testing.T) {
	for _, f := range append(sharedFiles(t, "awdit-tests/*/*.txt"), sharedFiles(t, "awdit-tests/*/generated/*.txt")...) {
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := ReadAWDIT(in, f)
		in.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(h.Txns) < 2 {
			t.Fatalf("%s: only %d transactions", f, len(h.Txns))
		}
		// Export and import again: the same history.
		var buf bytes.Buffer
		if err := WriteAWDIT(&buf, h); err != nil {
			t.Fatal(err)
		}
		h2, err := ReadAWDIT(&buf, "re-"+filepath.Base(f))
		if err != nil {
			t.Fatalf("%s: re-import: %v", f, err)
		}
		sameHistory(t, h, h2)
	}
}

func TestAWDITLinksReadsByValue(t *testing.T) {
	const in = "w 0 0\nw 1 0\n=====\nw 0 1\n-----\nr 0 1\nr 1 0\nr 2 0\nr 2 7\n"
	h, err := ReadAWDIT(strings.NewReader(in), "long-fork.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h.Dump(&out)
	want := `T1 S0 unknown committed: w(0=0) | w(1=0)
T2 S1 unknown committed: w(0=1)
T3 S1 unknown committed: r(0,T2=1,ret) | r(1,T1=0,ret) | r(2,T0=0,ret) | r(2,T?=7,ret)
`
	if out.String() != want {
		t.Fatalf("dump:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestAWDITRejectsBadInputNamingTheLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"w 1 1\nx(1,2)\n", `a.txt:2: bad operation "x(1,2)"`},
		{"w 1 -1\n", "a.txt:1: bad operation \"w 1 -1\": key and value must be non-negative integers"},
		{"r 1\n", `a.txt:1: bad operation "r 1"`},
		{"w 1 99999999999999999999\n", "a.txt:1: bad operation"},
		{"w 1 5\n-\nw 1 5\n", "a.txt:3: value 5 written to key 1 twice (by transactions 1 and 2), so reads of it are ambiguous (the other transaction starts at line 1)"},
	}
	for _, c := range cases {
		_, err := ReadAWDIT(strings.NewReader(c.in), "a.txt")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadAWDIT(%q) error = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestAWDITExportOfGeneratedHistoriesRoundTrips(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		h := Generate(GenOptions{Txns: 80, Sessions: 5, Keys: 6, Seed: seed, Mixed: true, AbortRate: 0.2})
		var buf bytes.Buffer
		if err := WriteAWDIT(&buf, h); err != nil {
			t.Fatal(err)
		}
		h2, err := ReadAWDIT(&buf, "gen.txt")
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if a, b := canonical(h, true), canonical(h2, true); a != b {
			t.Fatalf("seed %d: round trip changed the history:\n%s\nvs\n%s", seed, a, b)
		}
	}
}
