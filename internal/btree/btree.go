// Package btree is an ordered map from strings to values: a B+ tree whose
// leaves hold the entries and whose inner nodes hold separator keys.
//
// It exists for the store's tables and indexes, which are mostly filled in
// key order (hidden row ids, bulk loads, index builds). A node that
// overflows by an insertion past the last key of the tree's rightmost leaf
// is not split in half: the new key starts a new node and the full one stays
// full, as PostgreSQL's B-tree does when it splits its rightmost page. So a
// table filled in key order keeps its leaves full (about 25 bytes an entry of
// a string key and a pointer) where an even split leaves them half full;
// other insertions split evenly. Nodes are allocated at their full size once,
// so filling one makes no garbage.
package btree

// degree is the most entries a leaf, and the most children an inner node,
// holds.
const degree = 64

// Map is an ordered map from string keys to values of type V. Its zero value
// is an empty map. It is not safe for concurrent use.
type Map[V any] struct {
	root   *node[V] // nil when the map is empty
	last   *node[V] // the rightmost leaf, nil when the map is empty
	height int      // inner levels above the leaves
	count  int
}

// node is a leaf (vals set) or an inner node (kids set). In an inner node
// keys[i], for i > 0, separates kids[i-1], whose keys are all less, from
// kids[i], whose keys are all at least keys[i]; keys[0] is unused.
type node[V any] struct {
	keys []string
	vals []V
	kids []*node[V]
}

func newLeaf[V any]() *node[V] {
	return &node[V]{keys: make([]string, 0, degree), vals: make([]V, 0, degree)}
}

func newInner[V any]() *node[V] {
	return &node[V]{keys: make([]string, 0, degree), kids: make([]*node[V], 0, degree)}
}

// child returns the index of the child of inner node n whose keys may
// include k.
func (n *node[V]) child(k string) int {
	// The child before the first separator greater than k.
	lo, hi := 1, len(n.keys)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if k < n.keys[h] {
			hi = h
		} else {
			lo = h + 1
		}
	}
	return lo - 1
}

// find returns the index of the first key of leaf n at or after k, and
// whether it is k.
func (n *node[V]) find(k string) (int, bool) {
	lo, hi := 0, len(n.keys)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if n.keys[h] < k {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo, lo < len(n.keys) && n.keys[lo] == k
}

// Len returns the number of entries.
func (m *Map[V]) Len() int { return m.count }

// Clear removes every entry.
func (m *Map[V]) Clear() { *m = Map[V]{} }

// Get returns the value of key k and whether k is in the map.
func (m *Map[V]) Get(k string) (V, bool) {
	n := m.root
	if n == nil {
		var zero V
		return zero, false
	}
	for range m.height {
		n = n.kids[n.child(k)]
	}
	if i, ok := n.find(k); ok {
		return n.vals[i], true
	}
	var zero V
	return zero, false
}

// Set makes v the value of key k. It returns the value it replaced and
// whether there was one.
func (m *Map[V]) Set(k string, v V) (V, bool) {
	if l := m.last; l != nil && len(l.keys) < degree && l.keys[len(l.keys)-1] < k {
		// Past the last key, with room: an append, as in a load in key order.
		l.keys, l.vals = append(l.keys, k), append(l.vals, v)
		m.count++
		var zero V
		return zero, false
	}
	if m.root == nil {
		m.root = newLeaf[V]()
	}
	prev, replaced, split, sep := m.set(m.root, m.height, true, k, v)
	if split != nil {
		root := newInner[V]()
		root.keys = append(root.keys, "", sep)
		root.kids = append(root.kids, m.root, split)
		m.root = root
		m.height++
	}
	if !replaced {
		m.count++
	}
	m.findLast()
	return prev, replaced
}

// findLast points m.last at the rightmost leaf after the tree changed shape.
func (m *Map[V]) findLast() {
	n := m.root
	for n != nil && n.kids != nil {
		n = n.kids[len(n.kids)-1]
	}
	m.last = n
}

// set puts k in the subtree n of the given height; rightmost says n ends the
// tree. When n overflows it returns the new node that follows it and the
// separator between them.
func (m *Map[V]) set(n *node[V], height int, rightmost bool, k string, v V) (prev V, replaced bool, split *node[V], sep string) {
	if height == 0 {
		i, ok := n.find(k)
		if ok {
			prev, n.vals[i] = n.vals[i], v
			return prev, true, nil, ""
		}
		if len(n.keys) < degree {
			n.keys = insertAt(n.keys, i, k)
			n.vals = insertAt(n.vals, i, v)
			return prev, false, nil, ""
		}
		split = newLeaf[V]()
		if rightmost && i == len(n.keys) {
			split.keys = append(split.keys, k)
			split.vals = append(split.vals, v)
			return prev, false, split, k
		}
		half := degree / 2
		split.keys = append(split.keys, n.keys[half:]...)
		split.vals = append(split.vals, n.vals[half:]...)
		n.keys, n.vals = truncate(n.keys, half), truncate(n.vals, half)
		if i < half {
			n.keys, n.vals = insertAt(n.keys, i, k), insertAt(n.vals, i, v)
		} else {
			split.keys, split.vals = insertAt(split.keys, i-half, k), insertAt(split.vals, i-half, v)
		}
		return prev, false, split, split.keys[0]
	}
	c := n.child(k)
	last := c == len(n.kids)-1
	prev, replaced, kid, kidSep := m.set(n.kids[c], height-1, rightmost && last, k, v)
	if kid == nil {
		return prev, replaced, nil, ""
	}
	if len(n.kids) < degree {
		n.keys = insertAt(n.keys, c+1, kidSep)
		n.kids = insertAt(n.kids, c+1, kid)
		return prev, replaced, nil, ""
	}
	split = newInner[V]()
	if rightmost && last {
		split.keys = append(split.keys, "")
		split.kids = append(split.kids, kid)
		return prev, replaced, split, kidSep
	}
	half := degree / 2
	sep = n.keys[half]
	split.keys = append(split.keys, n.keys[half:]...)
	split.keys[0] = ""
	split.kids = append(split.kids, n.kids[half:]...)
	n.keys, n.kids = truncate(n.keys, half), truncate(n.kids, half)
	if c+1 <= half {
		n.keys, n.kids = insertAt(n.keys, c+1, kidSep), insertAt(n.kids, c+1, kid)
	} else {
		split.keys, split.kids = insertAt(split.keys, c+1-half, kidSep), insertAt(split.kids, c+1-half, kid)
	}
	return prev, replaced, split, sep
}

// Delete removes key k and reports whether it was there.
func (m *Map[V]) Delete(k string) bool {
	if m.root == nil || !m.delete(m.root, m.height, k) {
		return false
	}
	m.count--
	for m.height > 0 && len(m.root.kids) == 1 {
		m.root = m.root.kids[0]
		m.height--
	}
	if m.count == 0 {
		*m = Map[V]{}
	}
	m.findLast()
	return true
}

// delete removes k from subtree n of the given height. A node left empty
// goes; one left with less than a quarter of its room merges with a
// neighbour when the two fit in one, so that deletions do not strand
// near-empty nodes.
func (m *Map[V]) delete(n *node[V], height int, k string) bool {
	if height == 0 {
		i, ok := n.find(k)
		if ok {
			n.keys, n.vals = removeAt(n.keys, i), removeAt(n.vals, i)
		}
		return ok
	}
	c := n.child(k)
	kid := n.kids[c]
	if !m.delete(kid, height-1, k) {
		return false
	}
	switch {
	case len(kid.keys) == 0:
		n.keys, n.kids = removeAt(n.keys, c), removeAt(n.kids, c)
		if len(n.keys) > 0 {
			n.keys[0] = ""
		}
	case len(kid.keys) < degree/4 && len(n.kids) > 1:
		l := max(c-1, 0) // kid and its left neighbour, or its right one
		left, right := n.kids[l], n.kids[l+1]
		if len(left.keys)+len(right.keys) > degree {
			break
		}
		if height == 1 {
			left.keys = append(left.keys, right.keys...)
			left.vals = append(left.vals, right.vals...)
		} else {
			left.keys = append(left.keys, n.keys[l+1])
			left.keys = append(left.keys, right.keys[1:]...)
			left.kids = append(left.kids, right.kids...)
		}
		n.keys, n.kids = removeAt(n.keys, l+1), removeAt(n.kids, l+1)
	}
	return true
}

// Scan calls fn for every entry in key order until fn returns false.
func (m *Map[V]) Scan(fn func(k string, v V) bool) {
	if m.root != nil {
		m.ascend(m.root, m.height, "", fn)
	}
}

// Ascend calls fn for every entry whose key is at least pivot, in key order,
// until fn returns false.
func (m *Map[V]) Ascend(pivot string, fn func(k string, v V) bool) {
	if m.root != nil {
		m.ascend(m.root, m.height, pivot, fn)
	}
}

func (m *Map[V]) ascend(n *node[V], height int, pivot string, fn func(k string, v V) bool) bool {
	if height == 0 {
		i, _ := n.find(pivot)
		for ; i < len(n.keys); i++ {
			if !fn(n.keys[i], n.vals[i]) {
				return false
			}
		}
		return true
	}
	for c := n.child(pivot); c < len(n.kids); c++ {
		if !m.ascend(n.kids[c], height-1, pivot, fn) {
			return false
		}
	}
	return true
}

// insertAt inserts x at index i of s, which has room for it.
func insertAt[T any](s []T, i int, x T) []T {
	s = append(s, x)
	copy(s[i+1:], s[i:])
	s[i] = x
	return s
}

// removeAt removes index i of s, clearing the slot it frees so that the
// collector does not keep what it referred to.
func removeAt[T any](s []T, i int) []T {
	copy(s[i:], s[i+1:])
	return truncate(s, len(s)-1)
}

// truncate shortens s to n, clearing the slots it frees.
func truncate[T any](s []T, n int) []T {
	clear(s[n:])
	return s[:n]
}
