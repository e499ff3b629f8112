package explore

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fickle-db/fickle/history"
	"github.com/fickle-db/fickle/oracle"
)

// choiceReads are the reads of twoSessionProgram that choose a version, as
// relationOf names them: session b's (S2) two transactions.
var choiceReads = []struct{ site, key string }{
	{"S2.1/0 kv/x", "x"}, {"S2.1/1 kv/y", "y"}, {"S2.1/2 kv/x", "x"},
	{"S2.2/0 kv/y", "y"}, {"S2.2/1 kv/x", "x"},
}

// allowedAssignments computes, independently of the engine, which versions
// the five reads of twoSessionProgram may return at level: every
// assignment of init or the key's writer (committed before each read in
// the schedule) whose history the oracle's brute force accepts.
func allowedAssignments(t *testing.T, level history.Level) map[string]bool {
	out := map[string]bool{}
	for mask := range 1 << len(choiceReads) {
		b := history.NewBuilder()
		s0, sa, sb := b.Session("setup"), b.Session("a"), b.Session("b")
		b.Txn(s0, level).Commit() // the checkpoint's own transaction
		ta1 := b.Txn(sa, level).Write("x").Commit()
		ta2 := b.Txn(sa, level).Write("y").Commit()
		writer := func(i int) history.TxnID {
			if mask&(1<<i) == 0 {
				return history.Init
			}
			if choiceReads[i].key == "x" {
				return ta1
			}
			return ta2
		}
		tb := b.Txn(sb, level)
		for i := range 3 {
			tb.Read(choiceReads[i].key, writer(i))
		}
		tb.Commit()
		tb = b.Txn(sb, level)
		for i := 3; i < 5; i++ {
			tb.Read(choiceReads[i].key, writer(i))
		}
		tb.Commit()
		h, err := b.History()
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := oracle.BruteForce(h, oracle.Options{}); v == oracle.Consistent {
			out[assignmentOf(mask)] = true
		}
	}
	return out
}

func assignmentOf(mask int) string {
	var b strings.Builder
	for i := range choiceReads {
		if mask&(1<<i) != 0 {
			b.WriteByte('W')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// assignmentIn reads the five reads' versions off a run's relation.
func assignmentIn(t *testing.T, rel string) string {
	var b strings.Builder
	for _, c := range choiceReads {
		found := false
		for _, line := range strings.Split(rel, "\n") {
			if w, ok := strings.CutPrefix(line, c.site+" <- "); ok {
				found = true
				if w == "init" {
					b.WriteByte('0')
				} else {
					b.WriteByte('W')
				}
			}
		}
		if !found {
			t.Fatalf("no read %s in the relation:\n%s", c.site, rel)
		}
	}
	return b.String()
}

// TestExhaustiveEnumeratesTheRelationsTheAxiomsAllowOnce: on a small
// two-session program, exhaustive mode at each level runs once per
// write-read relation, never twice the same, and the relations of its
// runs in which every transaction committed are exactly those the axioms
// allow (computed by brute force); the tree is exhausted.
func TestExhaustiveEnumeratesTheRelationsTheAxiomsAllowOnce(t *testing.T) {
	for _, level := range history.Levels {
		t.Run(level.String(), func(t *testing.T) {
			opts := testOptions(t, "two-sessions")
			opts.Runs = 100
			opts.Server.Level = level
			res, err := Exhaustive(opts)
			if err != nil {
				t.Fatal(err)
			}
			want := allowedAssignments(t, level)
			got := map[string]bool{}
			seen := map[string]int{}
			for _, rel := range res.Relations {
				if prev, dup := seen[rel.Text]; dup {
					t.Errorf("runs %d and %d gave the same write-read relation:\n%s", prev, rel.Run, rel.Text)
				}
				seen[rel.Text] = rel.Run
				if rel.AllCommitted {
					got[assignmentIn(t, rel.Text)] = true
				}
			}
			if !res.Exhausted || res.Unserved > 0 || len(res.Failures) > 0 {
				t.Fatalf("%d runs, exhausted %v, unserved %d, failures %d", res.Runs, res.Exhausted, res.Unserved, len(res.Failures))
			}
			if fmt.Sprint(sortedKeys(got)) != fmt.Sprint(sortedKeys(want)) {
				t.Fatalf("the runs gave %d relations with every transaction committed:\n%v\nthe axioms allow %d:\n%v", len(got), sortedKeys(got), len(want), sortedKeys(want))
			}
			t.Logf("%s: %d runs, %d relations the axioms allow", level, res.Runs, len(want))
		})
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
