package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// runCheckCapture runs fickle check (cmd/internal/checkcli has its tests)
// and returns its exit code and output.
func runCheckCapture(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	checkOut, checkErr = &o, &e
	defer func() { checkOut, checkErr = os.Stdout, os.Stderr }()
	code = run(append([]string{"check"}, args...))
	return code, o.String(), e.String()
}

// writeHistory writes h as fickle JSONL into dir/name and returns the path.
func writeHistory(t *testing.T, dir, name string, h *history.History) string {
	t.Helper()
	var buf bytes.Buffer
	if err := history.WriteJSONL(&buf, h, history.Header{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fracturedRead is DESIGN §3's fractured read, every transaction at level.
func fracturedRead(level history.Level) *history.History {
	b := history.NewBuilder()
	s1, s2, s3 := b.Session("S1"), b.Session("S2"), b.Session("S3")
	t1 := b.Txn(s1, level).Write("x").Write("y").Commit()
	t2 := b.Txn(s2, level).Write("x").Write("y").Commit()
	b.Txn(s3, level).Read("x", t1).Read("y", t2).Commit()
	return b.MustHistory()
}
