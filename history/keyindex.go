package history

import "hash/maphash"

// keyIndex finds a key's id by a 64-bit hash of its table and name: a map
// with integer keys costs a third of one keyed by two strings, which made
// interning the keys a quarter of the time of reading a pgbench history.
// Keys whose hash an earlier key already has (rare) go to a second map.
type keyIndex struct {
	seed     maphash.Seed
	byHash   map[uint64]KeyID
	collided map[Key]KeyID
}

func newKeyIndex(keys []Key) *keyIndex {
	x := &keyIndex{seed: maphash.MakeSeed(), byHash: make(map[uint64]KeyID, len(keys))}
	for i, k := range keys {
		x.add(keys, k, KeyID(i))
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

// get returns the id of k among keys, which the index covers.
func (x *keyIndex) get(keys []Key, k Key) (KeyID, bool) {
	id, ok := x.byHash[x.hash(k)]
	if !ok || keys[id] == k {
		return id, ok
	}
	id, ok = x.collided[k]
	return id, ok
}

// add records that keys[id] is k, which the index does not hold yet.
func (x *keyIndex) add(keys []Key, k Key, id KeyID) {
	hv := x.hash(k)
	if _, taken := x.byHash[hv]; !taken {
		x.byHash[hv] = id
		return
	}
	if x.collided == nil {
		x.collided = make(map[Key]KeyID)
	}
	if _, dup := x.collided[k]; !dup && keys[x.byHash[hv]] != k {
		x.collided[k] = id
	}
}
