package isolation

import "math"

// orderList is the commit order co as an order-maintenance list (Bender,
// Cole, Demaine, Farach-Colton and Zito, "Two simplified algorithms for
// maintaining order in a list", 2002): every node carries an integer label,
// comparisons are label comparisons, and an insertion that finds no free
// label between its neighbours relabels the smallest enclosing aligned label
// range whose density is below a geometric threshold. Insertions cost
// O(log n) amortized; comparisons O(1).
type orderList struct {
	head, tail *omNode
	n          int
}

// omNode is one position in co. A node removed from the list (remove)
// keeps label 0: it compares below every node still in the list but the
// head, which is where the collapsed past lies (collect.go).
type omNode struct {
	label      uint64
	prev, next *omNode
	t          *txn
}

const (
	omBits      = 62
	omAppendGap = 1 << 32
	// omDensity is T in the paper: a range of 2^i labels may hold at most
	// 2^i / T^i nodes before it is relabelled together with its parent.
	omDensity = 1.25
)

// before reports whether a precedes b in co.
func (a *omNode) before(b *omNode) bool { return a.label < b.label }

// init makes the list hold one node, the initial transaction's.
func (l *orderList) init(t *txn) *omNode {
	nd := &omNode{t: t}
	l.head, l.tail, l.n = nd, nd, 1
	return nd
}

// insertAfter inserts a node for t right after p and returns it.
func (l *orderList) insertAfter(p *omNode, t *txn) *omNode {
	nd := &omNode{t: t, prev: p, next: p.next}
	if p.next == nil {
		l.tail = nd
	} else {
		p.next.prev = nd
	}
	p.next = nd
	l.n++
	hi := uint64(1) << omBits
	if nd.next != nil {
		hi = nd.next.label
	}
	if p.next == nd && nd.next == nil && hi-p.label > omAppendGap {
		nd.label = p.label + omAppendGap
		return nd
	}
	if hi-p.label > 1 {
		nd.label = p.label + (hi-p.label)/2
		return nd
	}
	l.relabel(p)
	return nd
}

// remove unlinks nd, which is not the head, and gives it label 0. It keeps
// nothing alive: a transaction that still points at it only needs to
// compare below every place left.
func (l *orderList) remove(nd *omNode) {
	nd.prev.next = nd.next
	if nd.next == nil {
		l.tail = nd.prev
	} else {
		nd.next.prev = nd.prev
	}
	nd.prev, nd.next, nd.t, nd.label = nil, nil, nil, 0
	l.n--
}

// relabel spreads the labels of the smallest sparse enough aligned range
// around p, whose successor has just been inserted without a label.
func (l *orderList) relabel(p *omNode) {
	fresh := p.next
	for i := 1; i <= omBits; i++ {
		size := uint64(1) << i
		lo := p.label &^ (size - 1)
		hi := lo + size - 1
		first := p
		for first.prev != nil && first.prev.label >= lo {
			first = first.prev
		}
		count, last := 0, first
		for nd := first; nd != nil && (nd == fresh || nd.label <= hi); nd = nd.next {
			count++
			last = nd
		}
		if float64(count) < float64(size)/math.Pow(omDensity, float64(i)) {
			gap := size / uint64(count+1)
			label := lo + gap
			for nd := first; ; nd = nd.next {
				nd.label = label
				label += gap
				if nd == last {
					return
				}
			}
		}
	}
	panic("isolation: order-maintenance labels exhausted")
}
