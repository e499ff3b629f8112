package isolation

import (
	"cmp"
	"slices"

	"github.com/fickle-db/fickle/internal/pgerror"
)

// indexed is one (index key, primary key) pair a new index starts with: a
// kept version's or a pending write's row under primary key ks. latest
// marks the pairs of the keys' latest committed live versions, which a
// unique index must not repeat.
type indexed struct {
	ik     string
	ks     *keyState
	at     uint32 // the pair's place in the order above (32 bits: a pair is 32 bytes)
	latest bool
}

// build fills new index ix from every kept version of its table's keys and
// every pending write of the active transactions, in that order. It sorts the
// pairs once and loads the B-tree from the sorted run instead of inserting
// key by key; the sort is stable, so each entry lists its primary keys in the
// order key-by-key insertion would have. A unique index fails with 23505
// when two latest committed rows share an index key, naming the first key in
// primary-key order whose index key an earlier one has.
func (e *engine) build(ix *index) error {
	tb := ix.table
	pairs := make([]indexed, 0, tb.keys.Len())
	tb.keys.Scan(func(_ string, ks *keyState) bool {
		last := len(ks.versions()) - 1
		for i, v := range ks.versions() {
			if v.tomb() {
				continue
			}
			ik, null := ix.indexKey(&e.keyBufs[0], v.row)
			pairs = append(pairs, indexed{ik: string(ik), ks: ks, at: uint32(len(pairs)), latest: i == last && !null})
		}
		return true
	})
	for t := range e.active {
		for w := range t.tableWrites(tb.id) {
			if !w.tomb {
				ik, _ := ix.indexKey(&e.keyBufs[0], w.row)
				pairs = append(pairs, indexed{ik: string(ik), ks: w.ks, at: uint32(len(pairs))})
			}
		}
	}
	byIndexKey := func(a, b indexed) int { return cmp.Compare(a.ik, b.ik) }
	if !slices.IsSortedFunc(pairs, byIndexKey) {
		slices.SortStableFunc(pairs, byIndexKey)
	}
	if ix.spec.Unique {
		if dup, ok := duplicateKey(pairs); ok {
			return pgerror.Newf(pgerror.UniqueViolation, "could not create unique index %q", ix.spec.Name).
				WithDetail("Key %s is duplicated.", tb.formatKey([]byte(dup))).WithConstraint(tb.spec.Name, ix.spec.Name)
		}
	}
	// The entries come from one slab: most entries of a fresh index (all of
	// a unique one's) hold a single key.
	ents := make([]indexEntry, distinctKeys(pairs))
	var ent *indexEntry
	next := 0
	for n, p := range pairs {
		if n == 0 || p.ik != pairs[n-1].ik {
			ent = &ents[next]
			next++
			ix.entries.Set(p.ik, ent)
		}
		ent.enter(p.ks)
	}
	return nil
}

// distinctKeys is the number of distinct index keys of pairs, sorted by
// index key.
func distinctKeys(pairs []indexed) int {
	n := 0
	for i, p := range pairs {
		if i == 0 || p.ik != pairs[i-1].ik {
			n++
		}
	}
	return n
}

// duplicateKey returns the primary key of the first latest pair (by place)
// whose index key a latest pair before it has; pairs are sorted by index key,
// stably. In a run of equal index keys only the second latest pair can be
// that first one.
func duplicateKey(pairs []indexed) (string, bool) {
	dup := -1
	latest := 0 // latest pairs seen in the current run of equal index keys
	for n, p := range pairs {
		if n > 0 && p.ik != pairs[n-1].ik {
			latest = 0
		}
		if !p.latest {
			continue
		}
		latest++
		if latest == 2 && (dup < 0 || p.at < pairs[dup].at) {
			dup = n
		}
	}
	if dup < 0 {
		return "", false
	}
	return pairs[dup].ks.key, true
}
