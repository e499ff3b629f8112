package isolation

import (
	"math/rand/v2"
	"testing"
)

// TestOrderListKeepsInsertionOrderUnderAdversarialInsertions inserts nodes
// at random places, and many times at the same place (the worst case for
// label gaps), and checks after every insertion that labels increase along
// the list and that before agrees with a plain slice model.
func TestOrderListKeepsInsertionOrderUnderAdversarialInsertions(t *testing.T) {
	for _, hot := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(1, 2))
		var l orderList
		model := []*omNode{l.init(nil)}
		for i := range 5000 {
			at := rng.IntN(len(model))
			if hot {
				at = 0 // always right after the head: halves one gap each time
			}
			nd := l.insertAfter(model[at], nil)
			model = append(model[:at+1], append([]*omNode{nd}, model[at+1:]...)...)
			if i%997 == 0 || i < 200 {
				checkOrder(t, &l, model)
			}
		}
		checkOrder(t, &l, model)
	}
}

func checkOrder(t *testing.T, l *orderList, model []*omNode) {
	t.Helper()
	i := 0
	for nd := l.head; nd != nil; nd = nd.next {
		if nd != model[i] {
			t.Fatalf("list position %d holds the wrong node", i)
		}
		if nd.next != nil && !nd.before(nd.next) {
			t.Fatalf("labels not increasing at %d: %d then %d", i, nd.label, nd.next.label)
		}
		i++
	}
	if i != len(model) || l.tail != model[len(model)-1] {
		t.Fatalf("list has %d nodes, want %d", i, len(model))
	}
}

func BenchmarkOrderListInsertAtOnePlace(b *testing.B) {
	var l orderList
	head := l.init(nil)
	for b.Loop() {
		l.insertAfter(head, nil)
	}
}
