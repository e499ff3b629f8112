package sqlexec

import "testing"

func TestInterleavedEffectsShowOnlyWhereTheirOrderCanBeTold(t *testing.T) {
	seqs := func(oids ...uint32) map[uint32]bool {
		m := map[uint32]bool{}
		for _, o := range oids {
			m[o] = true
		}
		return m
	}
	cases := []struct {
		name       string
		with, rest partEffects
		want       bool
	}{
		{"nothing on either side", partEffects{}, partEffects{}, false},
		{"triggers on one side only", partEffects{opaque: true}, partEffects{}, false},
		{"triggers on both sides", partEffects{opaque: true}, partEffects{opaque: true}, true},
		{"distinct sequences", partEffects{seqs: seqs(1)}, partEffects{seqs: seqs(2)}, false},
		{"one sequence drawn by both", partEffects{seqs: seqs(1, 3)}, partEffects{seqs: seqs(2, 3)}, true},
		{"triggers beside a sequence", partEffects{opaque: true}, partEffects{seqs: seqs(2)}, true},
		{"a sequence beside triggers", partEffects{seqs: seqs(1)}, partEffects{opaque: true}, true},
		{"AFTER STATEMENT beside AFTER ROW events", partEffects{afterStmt: true}, partEffects{afterRow: true}, true},
		{"AFTER STATEMENT beside BEFORE ROW triggers", partEffects{afterStmt: true}, partEffects{opaque: true}, false},
		{"the rest's AFTER STATEMENT beside AFTER ROW events", partEffects{afterRow: true}, partEffects{afterStmt: true}, false},
	}
	for _, c := range cases {
		if got := c.with.interleaves(&c.rest); got != c.want {
			t.Errorf("%s: interleaves = %v, want %v", c.name, got, c.want)
		}
	}
}
