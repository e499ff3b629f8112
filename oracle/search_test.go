package oracle

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// anomalyCase is one line of testdata/search_anomalies.txt at one level.
type anomalyCase struct {
	name  string
	text  string
	level history.Level // LevelUnknown: mixed
	want  Verdict
}

func loadAnomalyCases(t *testing.T) []anomalyCase {
	t.Helper()
	f, err := os.Open("testdata/search_anomalies.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []anomalyCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.Split(text, "|")
		if len(parts) != 3 {
			t.Fatalf("line %d: want name | history | verdicts", line)
		}
		name, hist, verdicts := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), strings.Fields(parts[2])
		verdict := func(s string) Verdict {
			switch s {
			case "yes":
				return Consistent
			case "no":
				return Violation
			}
			t.Fatalf("line %d: verdict %q is not yes or no", line, s)
			return Unknown
		}
		switch {
		case len(verdicts) == 2 && verdicts[0] == "mixed":
			cases = append(cases, anomalyCase{name, hist, history.LevelUnknown, verdict(verdicts[1])})
		case len(verdicts) == len(history.Levels):
			for i, l := range history.Levels {
				cases = append(cases, anomalyCase{name, hist, l, verdict(verdicts[i])})
			}
		default:
			t.Fatalf("line %d: want six verdicts or \"mixed yes|no\"", line)
		}
	}
	return cases
}

func caseName(c anomalyCase) string {
	l := "mixed"
	if c.level != history.LevelUnknown {
		l = c.level.String()
	}
	return strings.ReplaceAll(c.name, " ", "_") + "/" + l
}

// TestSearchGivesTheTableVerdicts pins DESIGN §3's anomaly table (and more
// shapes, mixed levels and rollbacks) on the search, the brute force and the
// witness verification: every level allows exactly its column.
func TestSearchGivesTheTableVerdicts(t *testing.T) {
	for _, c := range loadAnomalyCases(t) {
		t.Run(caseName(c), func(t *testing.T) {
			h := parseShorthand(t, c.text, history.Serializable)
			opts := Options{Level: c.level}
			bv, bco := BruteForce(h, opts)
			if bv != c.want {
				t.Errorf("BruteForce = %v, want %v", bv, c.want)
			}
			sv, sco, why := Search(h, opts)
			if sv != c.want {
				t.Errorf("Search = %v, want %v", sv, c.want)
			}
			if sv == Violation && why == nil {
				t.Errorf("Search found a violation without an explanation")
			}
			for name, co := range map[string][]history.TxnID{"brute force": bco, "search": sco} {
				if co == nil {
					continue
				}
				if e, err := CheckOrder(h, co, opts, nil); err != nil || e != nil {
					t.Errorf("CheckOrder rejects the %s witness %v: %v %+v", name, co, err, e)
				}
			}
		})
	}
}

// TestSearchExplainsWriteSkewAsTwoAntiDependencies: the cycle saturation
// finds names each transaction's read and the other's overwriting write.
func TestSearchExplainsWriteSkewAsTwoAntiDependencies(t *testing.T) {
	h := parseShorthand(t, "S1:[r x=0, r y=0, w x=1] S2:[r x=0, r y=0, w y=1]", history.Serializable)
	v, _, why := Search(h, Options{})
	if v != Violation || why == nil || len(why.Cycle) != 2 {
		t.Fatalf("Search = %v %+v, want a two-edge cycle", v, why)
	}
	for _, e := range why.Cycle {
		if e.Kind != EdgeRW {
			t.Fatalf("edge %+v, want rw", e)
		}
		read, write := h.Txns[e.From].Ops[e.FromOp], h.Txns[e.To].Ops[e.ToOp]
		if read.Kind != history.OpRead || write.Kind != history.OpWrite || read.Key != e.Key || write.Key != e.Key {
			t.Fatalf("edge %+v points at %+v and %+v", e, read, write)
		}
	}
	if why.Cycle[0].To != why.Cycle[1].From || why.Cycle[1].To != why.Cycle[0].From {
		t.Fatalf("edges do not close a cycle: %+v", why.Cycle)
	}
}

// TestSearchDecidesLargeComponents: components beyond probeLimit nodes are
// probed without saturation first; consistent ones are decided by the
// probe with a witness, violations still by saturation.
func TestSearchDecidesLargeComponents(t *testing.T) {
	for _, c := range []struct {
		gen, check history.Level
		want       Verdict
	}{
		{history.Serializable, history.Serializable, Consistent},
		{history.Snapshot, history.Snapshot, Consistent},
		{history.Prefix, history.Serializable, Violation},
	} {
		h := history.Generate(history.GenOptions{Sessions: 4, Txns: 1500, OpsPerTxn: 6, Keys: 300, Level: c.gen, Seed: 9})
		opts := Options{Level: c.check}
		v, co, _ := Search(h, opts)
		if v != c.want {
			t.Fatalf("generated at %s, checked at %s: %v, want %v", c.gen, c.check, v, c.want)
		}
		if co != nil {
			if e, err := CheckOrder(h, co, opts, nil); err != nil || e != nil {
				t.Fatalf("witness rejected: %v %+v", err, e)
			}
		}
	}
}

// TestExhaustedSearchSaysWhyEverySessionIsBlocked: when the search (here
// without saturation, which would find the cycle first) tries every valid
// prefix in vain, the explanation names what blocks each session's next
// transaction after the longest one.
func TestExhaustedSearchSaysWhyEverySessionIsBlocked(t *testing.T) {
	h := parseShorthand(t, "S1:[r x=0, r y=0, w x=1] S2:[r x=0, r y=0, w y=1]", history.Serializable)
	g, ok := buildSearchGraph(newTxnIndex(h, levelsFor(h, Options{})), nil, false)
	if !ok {
		t.Fatal("fixed edges already cyclic")
	}
	s := newSearchState(g, searchHint(h), 0)
	if s.run() {
		t.Fatal("write skew serialized")
	}
	why := g.explainExhausted(s.deepest).Anomaly
	for _, want := range []string{
		"the longest valid prefix has 0",
		"T1 (session S1) would overwrite x, which T2 (session S2) has yet to read from init",
		"T2 (session S2) would overwrite y, which T1 (session S1) has yet to read from init",
	} {
		if !strings.Contains(why, want) {
			t.Errorf("explanation %q does not say %q", why, want)
		}
	}
}
