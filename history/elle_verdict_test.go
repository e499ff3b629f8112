package history_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// sharedHistories is ../shared/histories beside the checkout.
var sharedHistories = filepath.Join("..", "..", "shared", "histories")

// verdicts checks h at every level and renders the verdicts and anomaly
// names, e.g. "RC:violation(incompatible order) RA:...".
func verdicts(h *history.History) string {
	var b strings.Builder
	for _, l := range history.Levels {
		r := oracle.Check(h, oracle.Options{Level: l, MaxSteps: 1 << 22})
		b.WriteString(l.String() + ":" + r.Verdict.String())
		if r.Explanation != nil {
			b.WriteString("(" + r.Explanation.Anomaly + ")")
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestElleListAppendRoundTripKeepsVerdicts imports every Elle list-append
// history in ../shared/histories (EDN and JSON), exports it as list-append
// EDN, imports that again, and checks that the verdicts (and anomaly
// names) at every level are the same.
func TestElleListAppendRoundTripKeepsVerdicts(t *testing.T) {
	if _, err := os.Stat(sharedHistories); err != nil {
		t.Skipf("no shared histories: %v", err)
	}
	n := 0
	err := filepath.WalkDir(sharedHistories, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, derr := history.Detect(path)
		if derr != nil || (f != history.FormatElle && f != history.FormatElleJSON) {
			return nil
		}
		h, err := history.Import(path, f)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if history.ElleModelOf(h) != history.ElleListAppend {
			return nil
		}
		n++
		var buf bytes.Buffer
		if err := history.WriteElleEDNModel(&buf, h, history.ElleListAppend); err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		exported := buf.String()
		got, err := history.ReadElleEDN(&buf, path+" (exported)")
		if err != nil {
			t.Errorf("%s: %v\n%s", path, err, exported)
			return nil
		}
		if a, b := verdicts(h), verdicts(got); a != b {
			t.Errorf("%s: verdicts %s\nafter the round trip %s\n%s", path, a, b, exported)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("checked %d list-append histories: %v", n, err)
	}
}

// TestElleIncompatibleOrderIsAStructuralViolation checks that two list
// reads of a key that are not prefixes of one another (Elle's incompatible
// order, which implies G1a) violate every level, and that the explanation
// names the key and both reads.
func TestElleIncompatibleOrderIsAStructuralViolation(t *testing.T) {
	edn := `{:type :ok, :process 0, :f :txn, :value [[:append :x 1]]}
{:type :ok, :process 1, :f :txn, :value [[:append :x 2]]}
{:type :ok, :process 2, :f :txn, :value [[:append :x 3]]}
{:type :ok, :process 3, :f :txn, :value [[:r :x [1 2]]]}
{:type :ok, :process 4, :f :txn, :value [[:r :x [1 3]]]}
`
	h, err := history.ReadElleEDN(strings.NewReader(edn), "inc.edn")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range history.Levels {
		r := oracle.Check(h, oracle.Options{Level: l})
		if r.Verdict != oracle.Violation || r.Explanation.Structural == nil || r.Explanation.Anomaly != "incompatible order" {
			t.Fatalf("%s: %s %+v, want a structural incompatible order", l, r.Verdict, r.Explanation)
		}
		why := r.Explanation.Structural.Reason
		for _, part := range []string{":x", "[1 3]", "[1 2]", "T5", "T4"} {
			if !strings.Contains(why, part) {
				t.Errorf("%s: reason %q does not name %s", l, why, part)
			}
		}
	}
	// Without the conflicting read the same history holds at every level.
	h, err = history.ReadElleEDN(strings.NewReader(strings.Replace(edn, "[1 3]", "[1 2 3]", 1)), "ok.edn")
	if err != nil {
		t.Fatal(err)
	}
	if v := verdicts(h); strings.Contains(v, "violation") {
		t.Errorf("compatible lists: %s", v)
	}
}
