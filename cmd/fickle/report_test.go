package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportWritesAPageOrSaysWhyNot: a history becomes a page (exit 0);
// a file that is not a history, a missing file and a wrong number of
// arguments are one message and exit 2.
func TestReportWritesAPageOrSaysWhyNot(t *testing.T) {
	dir := t.TempDir()
	in := "testdata/fractured-read.jsonl" // DESIGN §3's fractured read, at read committed
	garbage := filepath.Join(dir, "garbage.jsonl")
	if err := os.WriteFile(garbage, []byte("this is not a history\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "page.html")
	var o, e bytes.Buffer
	if code := reportMain([]string{"-o", out, in}, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	page, err := os.ReadFile(out)
	if err != nil || !bytes.Contains(page, []byte("fractured read")) {
		t.Fatalf("the page lacks the fractured read the history shows at SERIALIZABLE (%v)", err)
	}
	for _, args := range [][]string{{"-o", out, garbage}, {"-o", out, filepath.Join(dir, "missing.jsonl")}, {"-o", out}, {in, in}} {
		o.Reset()
		e.Reset()
		code := reportMain(args, &o, &e)
		if lines := strings.Split(strings.TrimSpace(e.String()), "\n"); code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "fickle report: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, e.String())
		}
	}
}
