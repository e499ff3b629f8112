package isolation

// freeSpaceMap is what a heap's free space map knows of its pages: for each
// page its free space category (fsmCategoryStep bytes a category) plus one,
// 0 for a page it knows nothing of. It keeps the maximum of every range of
// pages in a binary tree, as PostgreSQL's FSM pages do, so that finding a
// page with room costs the tree's height, not a scan of every page: a bulk
// load fills and passes over thousands of pages, each asking once.
type freeSpaceMap struct {
	// tree holds the leaves at [width, 2*width) and each inner node i the
	// maximum of its children 2i and 2i+1; width is a power of two.
	tree  []uint16
	width int
}

// fsmValue is the map's value for a page with free bytes of room.
func fsmValue(free int32) uint16 { return uint16(free/fsmCategoryStep + 1) }

// set records that page b has the free space of value v (fsmValue).
func (m *freeSpaceMap) set(b int, v uint16) {
	if b >= m.width {
		m.grow(b + 1)
	}
	i := m.width + b
	m.tree[i] = v
	for i > 1 {
		i /= 2
		top := max(m.tree[2*i], m.tree[2*i+1])
		if m.tree[i] == top {
			return
		}
		m.tree[i] = top
	}
}

// grow widens the map to hold at least n pages, keeping what it knows.
func (m *freeSpaceMap) grow(n int) {
	width := max(m.width, 64)
	for width < n {
		width *= 2
	}
	tree := make([]uint16, 2*width)
	if m.width > 0 {
		copy(tree[width:], m.tree[m.width:])
	}
	for i := width - 1; i >= 1; i-- {
		tree[i] = max(tree[2*i], tree[2*i+1])
	}
	m.tree, m.width = tree, width
}

// first returns the first page at or after from whose value is at least v,
// or -1.
func (m *freeSpaceMap) first(from int, v uint16) int {
	if from >= m.width || m.tree == nil || m.tree[1] < v {
		return -1
	}
	// Climb from the leaf while the pages right of it, within the node
	// reached, hold no value as large; then descend leftmost.
	i := m.width + from
	if m.tree[i] >= v {
		return from
	}
	for {
		for i%2 == 1 { // a right child: its parent's right part is passed
			i /= 2
			if i == 1 {
				return -1
			}
		}
		i++ // the right sibling
		if m.tree[i] >= v {
			break
		}
	}
	for i < m.width {
		i *= 2
		if m.tree[i] < v {
			i++
		}
	}
	return i - m.width
}
