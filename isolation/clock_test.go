package isolation

import (
	"math/rand/v2"
	"testing"

	"github.com/fickle-db/fickle/history"
)

// TestClockMergeAgreesWithAMapModel checks merge, with, covers and get
// against maps on random clocks.
func TestClockMergeAgreesWithAMapModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sessions := make([]*session, 8)
	for i := range sessions {
		sessions[i] = &session{id: history.SessionID(i)}
	}
	gen := func() (clock, map[history.SessionID]uint64) {
		var c clock
		m := map[history.SessionID]uint64{}
		for range rng.IntN(6) {
			s, n := history.SessionID(rng.IntN(8)), uint64(1+rng.IntN(5))
			c = c.with(sessions[s], n)
			m[s] = max(m[s], n)
		}
		return c, m
	}
	for range 2000 {
		a, ma := gen()
		b, mb := gen()
		u := a.merge(b)
		covers := true
		for s, n := range mb {
			if ma[s] < n {
				covers = false
			}
			ma[s] = max(ma[s], n)
		}
		if a.covers(b) != covers {
			t.Fatalf("covers(%v, %v) = %v", a, b, !covers)
		}
		for s := range history.SessionID(8) {
			if u.get(sessions[s]) != ma[s] {
				t.Fatalf("merge(%v, %v) has %d for session %d, want %d", a, b, u.get(sessions[s]), s, ma[s])
			}
		}
		for i := 1; i < len(u); i++ {
			if u[i-1].s.id >= u[i].s.id {
				t.Fatalf("merge result %v not sorted", u)
			}
		}
	}
}

// TestClockForgetDropsTheEntriesInThePast: forget drops exactly the
// entries whose transactions all joined the past (seq at most the
// session's pastSeq), and returns the clock itself when there is none.
func TestClockForgetDropsTheEntriesInThePast(t *testing.T) {
	a, b, c := &session{id: 0, pastSeq: 3}, &session{id: 1, pastSeq: 0}, &session{id: 2, pastSeq: 5}
	vc := clock{}.with(a, 3).with(b, 2).with(c, 6)
	got := vc.forget()
	if len(got) != 2 || got.get(a) != 0 || got.get(b) != 2 || got.get(c) != 6 {
		t.Fatalf("forget(%v) = %v, want b:2 c:6", vc, got)
	}
	if again := got.forget(); &again[0] != &got[0] {
		t.Fatal("forget copied a clock with nothing to forget")
	}
	if u := got.merge(clock{}.with(a, 4)); unionLen(got, clock{}.with(a, 4)) != 3 || cap(u) != 3 {
		t.Fatalf("merge allocated %d entries for a union of 3", cap(u))
	}
}
