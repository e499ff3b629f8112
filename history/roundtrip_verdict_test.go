package history_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// TestExportKeepsVerdictsAtEveryLevel is the property behind fickle
// convert: a history exported in any writable format and imported back
// gets the same verdict at every level (both definitions of read committed
// included). The histories are generated at random levels, so that each
// level sees both verdicts, without aborted transactions, which the
// key-value formats cannot express (docs/history-format.md §3).
func TestExportKeepsVerdictsAtEveryLevel(t *testing.T) {
	type check struct {
		level history.Level
		rc    oracle.RCDefinition
	}
	checks := []check{{history.ReadCommitted, oracle.RCBiswasEnea}}
	for _, l := range history.Levels {
		checks = append(checks, check{l, oracle.RCSessionOrder})
	}
	counts := map[oracle.Verdict]int{}
	for seed := uint64(0); seed < 40; seed++ {
		h := history.Generate(history.GenOptions{Txns: 14 + int(seed%10), Sessions: 2 + int(seed%4), Keys: 2 + int(seed%5),
			OpsPerTxn: 1 + int(seed%5), Mixed: true, Seed: seed})
		for _, f := range history.WriteFormats {
			var buf bytes.Buffer
			if err := history.Export(&buf, h, f); err != nil {
				t.Fatal(err)
			}
			got, err := history.Read(bytes.NewReader(buf.Bytes()), "rt", f)
			if err != nil {
				t.Fatalf("seed %d, %s: %v\n%s", seed, f, err, buf.String())
			}
			for _, c := range checks {
				opts := oracle.Options{Level: c.level, RC: c.rc, MaxSteps: 2_000_000}
				want, have := oracle.Check(h, opts), oracle.Check(got, opts)
				if want.Verdict == oracle.Unknown || have.Verdict == oracle.Unknown {
					continue
				}
				counts[want.Verdict]++
				if want.Verdict != have.Verdict {
					t.Errorf("seed %d through %s at %s: %s, was %s\n%s", seed, f, oracle.LevelName(c.level, c.rc), have.Verdict, want.Verdict, buf.String())
				}
			}
		}
	}
	if counts[oracle.Consistent] == 0 || counts[oracle.Violation] == 0 {
		t.Fatalf("one-sided: %v", counts)
	}
}

// TestAWDITExportMeansWhatAWDITReads checks the AWDIT export as AWDIT's
// loader reads it: its initial transaction is an ordinary one there, ordered
// only by the reads of it. Moving the initial session to the end of the
// file keeps AWDIT's reading but stops ReadAWDIT from folding it into Init,
// and the verdicts must not change: the marker reads order it first.
func TestAWDITExportMeansWhatAWDITReads(t *testing.T) {
	levels := []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal}
	counts := map[oracle.Verdict]int{}
	for seed := uint64(0); seed < 60; seed++ {
		h := history.Generate(history.GenOptions{Txns: 20, Sessions: 2 + int(seed%5), Keys: 2 + int(seed%6),
			OpsPerTxn: 1 + int(seed%6), Mixed: true, Seed: seed})
		var buf bytes.Buffer
		if err := history.WriteAWDIT(&buf, h); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		if !readsInit(h) {
			continue // no read of an initial value: no initial transaction
		}
		first, rest, _ := strings.Cut(text, "-\n=\n")
		moved, err := history.ReadAWDIT(strings.NewReader(rest+first+"-\n=\n"), "moved")
		if err != nil {
			t.Fatal(err)
		}
		folded, err := history.ReadAWDIT(strings.NewReader(text), "folded")
		if err != nil {
			t.Fatal(err)
		}
		if len(moved.Txns) != len(folded.Txns)+1 {
			t.Fatalf("seed %d: %d transactions with the initial one moved, %d with it folded into Init", seed, len(moved.Txns), len(folded.Txns))
		}
		for _, l := range levels {
			opts := oracle.Options{Level: l, RC: oracle.RCBiswasEnea}
			want, have := oracle.Check(h, opts).Verdict, oracle.Check(moved, opts).Verdict
			counts[want]++
			if want != have {
				t.Errorf("seed %d at %s: %s as AWDIT reads the export, %s in fickle\n%s", seed, oracle.LevelName(l, opts.RC), have, want, text)
			}
		}
	}
	if counts[oracle.Consistent] == 0 || counts[oracle.Violation] == 0 {
		t.Fatalf("one-sided: %v", counts)
	}
}

func readsInit(h *history.History) bool {
	for _, t := range h.Txns[1:] {
		for _, op := range t.Ops {
			if op.Kind == history.OpRead && op.Writer == history.Init {
				return true
			}
		}
	}
	return false
}
