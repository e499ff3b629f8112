package checkcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

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

func runCheckCapture(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = Run("fickle check", args, &o, &e)
	return code, o.String(), e.String()
}

func TestCheckCommandExitCodesAndOutput(t *testing.T) {
	dir := t.TempDir()
	rc := writeHistory(t, dir, "rc.jsonl", fracturedRead(history.ReadCommitted))
	ra := writeHistory(t, dir, "ra.jsonl", fracturedRead(history.ReadAtomic))
	garbage := filepath.Join(dir, "garbage.txt")
	if err := os.WriteFile(garbage, []byte("\x00\x01 not a history\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badAWDIT := filepath.Join(dir, "bad-awdit.txt")
	if err := os.WriteFile(badAWDIT, []byte("w 1 1\nr x y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"format\":\"nonsense\"}\n{{{\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"own levels hold", []string{rc}, 0, []string{"consistent at each transaction's level; strongest level that holds: RC", "not RA:", "fractured read"}},
		{"own levels violated", []string{ra}, 1, []string{"violation at each transaction's level", "violates RA: fractured read", "T1 -ww y-> T2"}},
		{"level flag holds", []string{"--level", "read-committed", ra}, 0, []string{"consistent at RC"}},
		{"level flag violated", []string{"--level", "RA", rc}, 1, []string{"violation at RA"}},
		{"bad input wins", []string{rc, bad}, 2, []string{"bad.jsonl"}},
		{"bad input names file and line", []string{"--format", "awdit", badAWDIT}, 2, []string{"bad-awdit.txt:2:"}},
		{"unknown format", []string{"--format", "nope", rc}, 2, []string{"unknown history format"}},
		{"undetectable format", []string{garbage}, 2, []string{"garbage.txt", "--format"}},
		{"missing file", []string{filepath.Join(dir, "missing.jsonl")}, 2, []string{"missing.jsonl"}},
		{"bad level", []string{"--level", "strict", rc}, 2, []string{"unknown isolation level"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCheckCapture(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out+errOut, c) {
					t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", c, out, errOut)
				}
			}
		})
	}
}

func TestCheckCommandJSONAndDOT(t *testing.T) {
	dir := t.TempDir()
	ra := writeHistory(t, dir, "ra.jsonl", fracturedRead(history.ReadAtomic))
	dot := filepath.Join(dir, "cycle.dot")
	code, out, errOut := runCheckCapture("--json", "--dot", dot, ra)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s %s", code, out, errOut)
	}
	var rep struct {
		File, Level, Verdict, Strongest string
		Explanation                     struct {
			Level, Anomaly string
			Cycle          []struct{ From, To, Kind, Key string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Verdict != "violation" || rep.Strongest != "RC" || rep.Explanation.Anomaly != "fractured read" || len(rep.Explanation.Cycle) != 2 {
		t.Errorf("report = %+v", rep)
	}
	b, err := os.ReadFile(dot)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "digraph violation {") || !strings.Contains(string(b), "fractured read") {
		t.Errorf("dot file:\n%s", b)
	}
}

func TestCheckCommandJSONExplainsTheNextLevel(t *testing.T) {
	rc := writeHistory(t, t.TempDir(), "rc.jsonl", fracturedRead(history.ReadCommitted))
	code, out, errOut := runCheckCapture("--json", rc)
	if code != 0 {
		t.Fatalf("exit %d, want 0: %s %s", code, out, errOut)
	}
	var rep struct {
		Verdict, Strongest string
		Next               struct{ Level, Anomaly string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Verdict != "consistent" || rep.Strongest != "RC" || rep.Next.Level != "RA" || rep.Next.Anomaly != "fractured read" {
		t.Errorf("report = %+v", rep)
	}
}

// TestCheckCommandChecksClientHistories: fickle check reads client reads
// (rows filtered out unrecorded) from JSONL and decides them by paper 000's
// Algorithm 3: testdata/client-fig2.jsonl is the paper's Figure 2 with T2
// at SER (consistent at RC only), client-fig4.jsonl its Figure 4a
// (consistent at the paper's levels, and at SER).
func TestCheckCommandChecksClientHistories(t *testing.T) {
	fig2, fig4 := filepath.Join("testdata", "client-fig2.jsonl"), filepath.Join("testdata", "client-fig4.jsonl")
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"fig2 at its own levels", []string{fig2}, 1, []string{"violation at each transaction's level; strongest level that holds: RC", "t/x1"}},
		{"fig2 at RC", []string{"--level", "RC", fig2}, 0, []string{"consistent at RC"}},
		{"fig2 at SER", []string{"--level", "serializable", fig2}, 1, []string{"violation at SER"}},
		{"fig4", []string{fig4}, 0, []string{"consistent at each transaction's level; strongest level that holds: SER"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCheckCapture(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out+errOut, c) {
					t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", c, out, errOut)
				}
			}
		})
	}
}

// TestCheckCommandSaysWhichLevelIsUndecidedAndWhatBudgetToGive: when the
// search runs out of --max-steps, the report names the level and the flag.
func TestCheckCommandSaysWhichLevelIsUndecidedAndWhatBudgetToGive(t *testing.T) {
	h := history.Generate(history.GenOptions{Sessions: 6, Txns: 400, OpsPerTxn: 8, Keys: 100, Level: history.Serializable, Seed: 3})
	p := writeHistory(t, t.TempDir(), "pc.jsonl", h)
	code, out, errOut := runCheckCapture("--level", "SER", "--max-steps", "1", p)
	if code != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, c := range []string{"unknown at SER", "SER: undecided", "budget of 1 steps", "--max-steps 10 ", "--max-steps 0"} {
		if !strings.Contains(out, c) {
			t.Errorf("output lacks %q:\n%s", c, out)
		}
	}
}

// TestCheckCommandNamesTheReadCommittedDefinition: a history that holds
// under Biswas and Enea's read committed (AWDIT's) but not under paper
// 000's (fickle's) fails --level RC with a note naming the tools that check
// the other definition, and passes --level read-committed-be; a fickle
// history gets no note.
func TestCheckCommandNamesTheReadCommittedDefinition(t *testing.T) {
	dir := t.TempDir()
	// Session 0 writes key 0, then reads its initial value.
	awdit := filepath.Join(dir, "stale.txt")
	if err := os.WriteFile(awdit, []byte("w 0 1\n-\nr 0 0\n=\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := history.Import(awdit, history.FormatAWDIT)
	if err != nil {
		t.Fatal(err)
	}
	jsonl := writeHistory(t, dir, "stale.jsonl", h)
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
		lacks    string
	}{
		{"fickle's RC fails, with a note", []string{"--level", "RC", awdit}, 1,
			[]string{"violation at RC", "violates RC (paper 000's read committed", "note: the history satisfies read committed as Biswas and Enea define it, the definition of AWDIT"}, ""},
		{"strongest level none, with a note", []string{awdit}, 1, []string{"strongest level that holds: none", "note: ", "--level read-committed-be"}, ""},
		{"Biswas and Enea's RC holds", []string{"--level", "read-committed-be", awdit}, 0, []string{"consistent at RC-BE"}, "note:"},
		{"fickle's own format has no note", []string{"--level", "RC", jsonl}, 1, []string{"violation at RC"}, "note:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCheckCapture(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			for _, c := range tt.contains {
				if !strings.Contains(out, c) {
					t.Errorf("output lacks %q:\n%s", c, out)
				}
			}
			if tt.lacks != "" && strings.Contains(out, tt.lacks) {
				t.Errorf("output has %q:\n%s", tt.lacks, out)
			}
		})
	}
	_, out, _ := runCheckCapture("--json", "--level", "RC", awdit)
	var rep struct{ Note string }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || !strings.Contains(rep.Note, "AWDIT") {
		t.Errorf("JSON note = %q (%v): %s", rep.Note, err, out)
	}
}
