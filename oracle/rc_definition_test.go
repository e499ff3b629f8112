package oracle

import (
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// staleOwnSession is the history on which the two definitions of read
// committed disagree: T2 reads x's initial version after T1, earlier in its
// own session, overwrote it.
func staleOwnSession(level history.Level) *history.History {
	b := history.NewBuilder()
	s := b.Session("S1")
	b.Txn(s, level).Write("x").Commit()
	b.Txn(s, level).Read("x", history.Init).Commit()
	return b.MustHistory()
}

func TestReadCommittedDefinitionsDisagreeOnlyOnSessionVisibility(t *testing.T) {
	tests := []struct {
		level history.Level
		rc    RCDefinition
		want  Verdict
		text  string
	}{
		{history.ReadCommitted, RCSessionOrder, Violation, "violates RC (paper 000's read committed, session order visible)"},
		{history.ReadCommitted, RCBiswasEnea, Consistent, ""},
		// Read atomic makes session order visible under both; the
		// explanation names the weakest level broken, which is read
		// committed only under paper 000's definition.
		{history.ReadAtomic, RCSessionOrder, Violation, "violates RC (paper 000's"},
		{history.ReadAtomic, RCBiswasEnea, Violation, "violates RA:"},
	}
	for _, tt := range tests {
		h := staleOwnSession(tt.level)
		r := Check(h, Options{Level: tt.level, RC: tt.rc})
		if r.Verdict != tt.want {
			t.Errorf("%s: %s, want %s", LevelName(tt.level, tt.rc), r.Verdict, tt.want)
			continue
		}
		if bv, _ := BruteForce(h, Options{Level: tt.level, RC: tt.rc}); bv != tt.want {
			t.Errorf("%s: brute force says %s", LevelName(tt.level, tt.rc), bv)
		}
		if tt.want == Violation && !strings.HasPrefix(r.Explanation.Text(h), tt.text) {
			t.Errorf("%s: explanation %q, want it to start with %q", LevelName(tt.level, tt.rc), r.Explanation.Text(h), tt.text)
		}
	}
}

func TestReadCommittedViolationNamesItsDefinition(t *testing.T) {
	// A non-monotonic read within one transaction breaks both definitions;
	// the explanation says which one was checked.
	b := history.NewBuilder()
	s1, s2 := b.Session("S1"), b.Session("S2")
	t1 := b.Txn(s1, history.ReadCommitted).Write("x").Commit()
	t2 := b.Txn(s1, history.ReadCommitted).Write("x").Write("y").Commit()
	b.Txn(s2, history.ReadCommitted).Read("y", t2).Read("x", t1).Commit()
	h := b.MustHistory()
	for _, rc := range []RCDefinition{RCSessionOrder, RCBiswasEnea} {
		r := Check(h, Options{Level: history.ReadCommitted, RC: rc})
		if r.Verdict != Violation || r.Explanation.RC != rc {
			t.Fatalf("%s: %s, explanation for %v", rc, r.Verdict, r.Explanation)
		}
		j, err := r.Explanation.JSON(h)
		if err != nil {
			t.Fatal(err)
		}
		want := `"level":"` + rc.String() + `"`
		if !strings.Contains(string(j), want) || !strings.Contains(string(j), rc.Describe()) {
			t.Errorf("%s: JSON %s lacks %s and the definition", rc, j, want)
		}
		_, results := StrongestLevel(h, Options{RC: rc})
		if e := results[0].Explanation; e == nil || e.RC != rc {
			t.Errorf("%s: StrongestLevel's RC explanation names %v", rc, e)
		}
	}
}

func TestParseRCLevel(t *testing.T) {
	tests := []struct {
		in    string
		level history.Level
		rc    RCDefinition
	}{
		{"read-committed-be", history.ReadCommitted, RCBiswasEnea},
		{"RC-BE", history.ReadCommitted, RCBiswasEnea},
		{"rc_be", history.ReadCommitted, RCBiswasEnea},
		{"read committed", history.ReadCommitted, RCSessionOrder},
		{"causal", history.Causal, RCSessionOrder},
	}
	for _, tt := range tests {
		l, rc, err := ParseRCLevel(tt.in)
		if err != nil || l != tt.level || rc != tt.rc {
			t.Errorf("ParseRCLevel(%q) = %s, %s, %v", tt.in, l, rc, err)
		}
	}
	if _, _, err := ParseRCLevel("ra-be"); err == nil {
		t.Error("ra-be parsed")
	}
}
