package oracle

import "github.com/fickle-db/fickle/history"

// writerIndex lists, for every key, the committed transactions that write it,
// grouped by session and in session order within a group. It answers "the
// so-latest writer of x in session s at or before position p" by binary
// search, which is how AWDIT's implementation replaces Alg. 3's lastWrite
// pointers (paper 003, §5).
type writerIndex struct {
	kStart []uint32 // kStart[x]..kStart[x+1]: x's groups
	groups []writerGroup
	pos    []int32 // session positions, per group, increasing
}

// writerGroup is the writers of one key in one session: pos[lo:hi].
type writerGroup struct {
	sess   uint32
	lo, hi uint32
}

// newWriterIndex builds the index in O(W + K) for W writes and K keys with a
// counting sort by key over writes listed in (session, position) order.
func newWriterIndex(ix *index) *writerIndex {
	nk := len(ix.h.Keys)
	count := make([]uint32, nk+1)
	for _, list := range ix.sess {
		for _, t := range list {
			if ix.visibleWriter(t) {
				for _, x := range ix.writes(t) {
					count[x+1]++
				}
			}
		}
	}
	for i := 1; i <= nk; i++ {
		count[i] += count[i-1]
	}
	type entry struct {
		sess uint32
		pos  int32
	}
	entries := make([]entry, count[nk])
	fill := append([]uint32(nil), count[:nk]...)
	for s, list := range ix.sess {
		for _, t := range list {
			if ix.visibleWriter(t) {
				for _, x := range ix.writes(t) {
					entries[fill[x]] = entry{uint32(s), ix.pos[t]}
					fill[x]++
				}
			}
		}
	}
	wi := &writerIndex{kStart: make([]uint32, nk+1), pos: make([]int32, len(entries))}
	for x := 0; x < nk; x++ {
		for i := count[x]; i < count[x+1]; i++ {
			e := entries[i]
			wi.pos[i] = e.pos
			if g := len(wi.groups) - 1; g >= 0 && int(wi.kStart[x]) <= g && wi.groups[g].sess == e.sess {
				wi.groups[g].hi = i + 1
				continue
			}
			wi.groups = append(wi.groups, writerGroup{sess: e.sess, lo: i, hi: i + 1})
		}
		wi.kStart[x+1] = uint32(len(wi.groups))
	}
	return wi
}

// groupsOf returns x's writer groups, one per session that writes x.
func (wi *writerIndex) groupsOf(x history.KeyID) []writerGroup {
	return wi.groups[wi.kStart[x]:wi.kStart[x+1]]
}

// latest returns the session position of the last writer in g at or before
// position bound, or -1 when there is none.
func (wi *writerIndex) latest(g writerGroup, bound int32) int32 {
	lo, hi := g.lo, g.hi // find the first position > bound
	for lo < hi {
		m := (lo + hi) / 2
		if wi.pos[m] > bound {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == g.lo {
		return -1
	}
	return wi.pos[lo-1]
}

// group returns x's group for session s, if any.
func (wi *writerIndex) group(x history.KeyID, s uint32) (writerGroup, bool) {
	lo, hi := wi.kStart[x], wi.kStart[x+1]
	for lo < hi {
		m := (lo + hi) / 2
		if wi.groups[m].sess < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < wi.kStart[x+1] && wi.groups[lo].sess == s {
		return wi.groups[lo], true
	}
	return writerGroup{}, false
}
