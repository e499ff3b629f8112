package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestCheckReportsAHistoryThatViolatesItsOwnLevelsAsAFickleBug: with
// --check, a run whose history breaks its transactions' levels (here a
// fractured read at read atomic, which fickle must never serve) fails, and
// its report says the bug is fickle's, with the oracle's cycle.
func TestCheckReportsAHistoryThatViolatesItsOwnLevelsAsAFickleBug(t *testing.T) {
	b := history.NewBuilder()
	s1, s2, s3 := b.Session("S1"), b.Session("S2"), b.Session("S3")
	t1 := b.Txn(s1, history.ReadAtomic).Write("x").Write("y").Commit()
	t2 := b.Txn(s2, history.ReadAtomic).Write("x").Write("y").Commit()
	b.Txn(s3, history.ReadAtomic).Read("x", t1).Read("y", t2).Commit()
	path := filepath.Join(t.TempDir(), "run-000001.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := history.WriteJSONL(f, b.MustHistory(), history.Header{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	v := checkHistory(path, ServerConfig{})
	if v == nil || v.Explanation == nil || v.Explanation.Anomaly != "fractured read" {
		t.Fatalf("check found %+v, want the fractured read", v)
	}
	r := &Run{Number: 1, History: path, Violation: v}
	if !r.Failed() || !strings.Contains(r.Status(), "a bug in fickle") {
		t.Fatalf("run status %q", r.Status())
	}
	rep, err := BuildReport(r, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.FickleBug == nil || !strings.Contains(rep.Text(), "BUG IN FICKLE") || len(rep.FickleBug.Cycle) == 0 {
		t.Fatalf("report:\n%s", rep.Text())
	}
}
