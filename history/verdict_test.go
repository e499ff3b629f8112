package history_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// These tests join the importers to the checker: a history read from any
// format must get the verdict its authors expect.

const shared = "../../shared/histories"

func TestAWDITHistoriesGetTheirFoldersVerdict(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared, "awdit-tests/*/*.txt"))
	more, _ := filepath.Glob(filepath.Join(shared, "awdit-tests/*/generated/*.txt"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Skipf("no AWDIT test histories in %s", shared)
	}
	// The folder names the strongest level that holds.
	want := map[string]history.Level{"none": history.LevelUnknown, "read-committed": history.ReadCommitted,
		"read-atomic": history.ReadAtomic, "causal": history.Causal}
	for _, f := range files {
		rel, _ := filepath.Rel(filepath.Join(shared, "awdit-tests"), f)
		folder := strings.Split(rel, string(filepath.Separator))[0]
		h, err := history.Import(f, history.FormatAuto)
		if err != nil {
			t.Fatal(err)
		}
		// AWDIT checks Biswas and Enea's read committed; fickle's own
		// (paper 000's) differs on four of these files, which
		// oracle.TestAWDITHistories pins.
		for _, l := range []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal} {
			r := oracle.Check(h, oracle.Options{Level: l, RC: oracle.RCBiswasEnea})
			if holds := r.Verdict == oracle.Consistent; holds != (l <= want[folder]) {
				t.Errorf("%s at %s: %s, want %v (%+v)", rel, l, r.Verdict, l <= want[folder], r.Explanation)
			}
		}
	}
}

func TestTapHistoriesGetPlumesVerdicts(t *testing.T) {
	if m, _ := filepath.Glob(filepath.Join(shared, "tap/text/*.txt")); len(m) == 0 {
		t.Skipf("no tap histories in %s", shared)
	}
	// Plume's table: the strongest of RC, RA, CC that holds.
	want := map[string]history.Level{"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0, "g": 0, "h": 0, "i": 0,
		"j": history.ReadCommitted, "k": history.ReadCommitted, "l": history.ReadCommitted,
		"m": history.ReadAtomic, "n": history.ReadAtomic}
	paths := map[history.Format]string{history.FormatPlume: "tap/text/tap-%s.txt", history.FormatElle: "tap/elle/tap-%s.edn",
		history.FormatViper: "tap/viper/tap-%s", history.FormatDBCopBincode: "tap/dbcop/tap-%s"}
	// Where fickle's verdict differs from Plume's, and why.
	type key struct {
		c string
		f history.Format
	}
	differs := map[key]history.Level{}
	for f := range paths {
		// tap-i (writers of x and y in two sessions; the reader sees y
		// from the second, then x from the first): under the RC of
		// DESIGN.md §3 and paper 002, co may order the second writer
		// first, so RC holds; Plume's RC forbids it.
		differs[key{"i", f}] = history.ReadCommitted
		// tap-j (a transaction reads another's x after writing x): fickle
		// reads its own last write (DESIGN.md §2), so this is a
		// not-my-own-write read at every level; Plume allows it at RC.
		differs[key{"j", f}] = history.LevelUnknown
	}
	// The Elle files of tap-l and tap-n are different histories: tap-l's
	// reader is in the second writer's session (so it must see that write
	// under fickle's RC, which includes session order), and tap-n's third
	// session reads both keys in one transaction (a read of a writer of x
	// after seeing its successor's y: non-monotonic, RC fails).
	differs[key{"l", history.FormatElle}] = history.LevelUnknown
	// tap-i's Elle file is a list-append history: the read of key 2 shows
	// [2] without the first writer's append, and the read of key 1 shows
	// [1] without the second's, so each unseen append came after the
	// other writer's (Elle's inference, History.VersionOrderPrefix): a
	// write cycle, G0, which violates RC as Plume's table says.
	delete(differs, key{"i", history.FormatElle})
	differs[key{"n", history.FormatElle}] = history.LevelUnknown
	for c, strongest := range want {
		for f, pattern := range paths {
			if d, ok := differs[key{c, f}]; ok {
				strongest = d
			} else {
				strongest = want[c]
			}
			p := filepath.Join(shared, strings.Replace(pattern, "%s", c, 1))
			h, err := history.Import(p, history.FormatAuto)
			if err != nil || len(h.Txns) == 1 {
				continue // absent or empty: the format cannot express the case
			}
			for _, l := range []history.Level{history.ReadCommitted, history.ReadAtomic, history.Causal} {
				r := oracle.Check(h, oracle.Options{Level: l})
				if holds := r.Verdict == oracle.Consistent; holds != (l <= strongest) {
					t.Errorf("tap-%s (%s) at %s: %s, want %v", c, f, l, r.Verdict, l <= strongest)
				}
			}
		}
	}
}

// TestGeneratedHistoriesAreConsistentAtTheirLevels checks Generate's
// promise: every history it makes passes the checker at each transaction's
// own level.
func TestGeneratedHistoriesAreConsistentAtTheirLevels(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		o := history.GenOptions{Txns: 40, Sessions: 2 + int(seed%4), Keys: 3 + int(seed%5), Seed: seed,
			AbortRate: 0.1, CommitOrder: seed%2 == 0}
		if seed%3 == 0 {
			o.Mixed = true
		} else {
			o.Level = history.Levels[seed%6]
		}
		h := history.Generate(o)
		if r := oracle.Check(h, oracle.Options{MaxSteps: 5_000_000}); r.Verdict != oracle.Consistent {
			t.Errorf("seed %d (%+v): %s: %+v", seed, o, r.Verdict, r.Explanation)
		}
	}
}
