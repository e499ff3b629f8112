package stress

import (
	"math/rand/v2"
	"testing"
)

// TestMiniTransactionShape: every mt program is a mini-transaction (paper
// 001, Def. 8): one or two reads, at most two writes, each write after a
// read of its key, no key written twice; and every shape occurs.
func TestMiniTransactionShape(t *testing.T) {
	g := newGenerator("mt", "uniform", 5, rand.New(rand.NewPCG(1, 1)))
	shapes := map[string]int{}
	for i := 0; i < 5000; i++ {
		ops := g.next()
		reads, writes := 0, 0
		read, written := map[int]bool{}, map[int]bool{}
		shape := ""
		for _, o := range ops {
			switch o.kind {
			case opRead:
				reads++
				read[o.key] = true
				shape += "R"
			case opWrite:
				writes++
				if !read[o.key] || written[o.key] {
					t.Fatalf("program %v writes key %d without reading it first, or twice", ops, o.key)
				}
				written[o.key] = true
				shape += "W"
			default:
				t.Fatalf("program %v has a %d operation", ops, o.kind)
			}
		}
		if reads < 1 || reads > 2 || writes > 2 {
			t.Fatalf("program %v: %d reads and %d writes", ops, reads, writes)
		}
		shapes[shape]++
	}
	for _, s := range []string{"R", "RR", "RW", "RRW", "RRWW"} {
		if shapes[s] == 0 {
			t.Errorf("no %s transaction in 5000: %v", s, shapes)
		}
	}
}

// TestReadWriteMixWritesEachKeyOnce: rw and append programs write (append
// to) a key at most once, so that the transaction's id is a unique value.
func TestReadWriteMixWritesEachKeyOnce(t *testing.T) {
	for _, w := range []string{"rw", "append"} {
		g := newGenerator(w, "zipf", 4, rand.New(rand.NewPCG(2, 2)))
		for i := 0; i < 2000; i++ {
			written := map[int]bool{}
			for _, o := range g.next() {
				if o.kind == opRead {
					continue
				}
				if written[o.key] {
					t.Fatalf("%s writes key %d twice", w, o.key)
				}
				written[o.key] = true
			}
		}
	}
}

// TestCompareAndSetFollowsWhatTheSessionSaw: a cas session compares with
// the value it last saw, inserts keys it knows absent, and forgets what a
// failed operation leaves unknown.
func TestCompareAndSetFollowsWhatTheSessionSaw(t *testing.T) {
	g := newGenerator("cas", "uniform", 1, rand.New(rand.NewPCG(5, 5)))
	g.learn(op{kind: opRead, key: 0}, opResult{absent: true}, 1)
	if ops := g.next(); ops[0].kind != opInsert {
		t.Fatalf("after reading the key absent: %v, want an insert", ops)
	}
	g.learn(op{kind: opInsert, key: 0}, opResult{applied: true}, 7)
	for i := 0; i < 50; i++ {
		if ops := g.next(); ops[0].kind == opCAS && ops[0].expect != 7 {
			t.Fatalf("after inserting 7: compare-and-set expects %d", ops[0].expect)
		}
	}
	g.learn(op{kind: opCAS, key: 0, expect: 7}, opResult{}, 9)
	if g.known[0] != unknownValue {
		t.Fatalf("a failed compare-and-set left %d known", g.known[0])
	}
}
