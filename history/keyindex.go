package history

import "hash/maphash"

// keyIndex finds a key's id by its table and name: an open-addressing table
// of key ids, probed linearly by a 64-bit hash of the key, with each key's
// hash kept beside it so that a probe compares strings only on equal
// hashes and growing never hashes a key again. Interning the 133,000 keys
// of a pgbench history took a seventh of reading it with a Go map keyed by
// the hash, mostly in the map's growth.
type keyIndex struct {
	seed   maphash.Seed
	slots  []uint32 // key id + 1; 0 is an empty slot; a power of two long
	hashes []uint64 // by key id
}

func newKeyIndex(keys []Key) *keyIndex {
	x := &keyIndex{seed: maphash.MakeSeed(), hashes: make([]uint64, len(keys))}
	x.resize(len(keys))
	for id, k := range keys {
		hv := x.hash(k)
		x.hashes[id] = hv
		// A key listed twice keeps its first id.
		if slot, found := x.find(keys, k, hv); !found {
			x.slots[slot] = uint32(id) + 1
		}
	}
	return x
}

func (x *keyIndex) hash(k Key) uint64 {
	var h maphash.Hash
	h.SetSeed(x.seed)
	h.WriteString(k.Table)
	h.WriteByte(0)
	h.WriteString(k.Name)
	return h.Sum64()
}

// intern returns the id of k among *keys, appending k to *keys when it is
// not there yet; the key is hashed once.
func (x *keyIndex) intern(keys *[]Key, k Key) KeyID {
	return x.internHashed(keys, k, x.hash(k))
}

// internHashed is intern with k's hash hv given.
func (x *keyIndex) internHashed(keys *[]Key, k Key, hv uint64) KeyID {
	slot, found := x.find(*keys, k, hv)
	if found {
		return KeyID(x.slots[slot] - 1)
	}
	id := KeyID(len(*keys))
	*keys = append(grow(*keys, 1), k)
	x.hashes = append(x.hashes, hv)
	x.slots[slot] = uint32(id) + 1
	if 2*len(x.hashes) > len(x.slots) {
		x.resize(len(x.hashes))
	}
	return id
}

// find returns the slot holding k's id, or the empty slot where it would go.
func (x *keyIndex) find(keys []Key, k Key, hv uint64) (slot uint64, found bool) {
	mask := uint64(len(x.slots) - 1)
	for slot = hv & mask; x.slots[slot] != 0; slot = (slot + 1) & mask {
		id := x.slots[slot] - 1
		if x.hashes[id] == hv && keys[id] == k {
			return slot, true
		}
	}
	return slot, false
}

// resize makes the table at least 4n slots long (a quarter full after a
// growth, at most half before the next) and places the keys it held again.
func (x *keyIndex) resize(n int) {
	size := 16
	for size < 4*n {
		size *= 2
	}
	old := x.slots
	x.slots = make([]uint32, size)
	mask := uint64(size - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := x.hashes[s-1] & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = s
	}
}

// reserve gives x room for n keys without growing its table.
func (x *keyIndex) reserve(n int) {
	x.hashes = grow(x.hashes, n-len(x.hashes))
	if 2*n > len(x.slots) {
		x.resize((n + 1) / 2)
	}
}
