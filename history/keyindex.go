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
		hv := x.hash(k)
		id, taken := x.byHash[hv]
		switch {
		case !taken:
			x.byHash[hv] = KeyID(i)
		case keys[id] != k:
			if x.collided == nil {
				x.collided = make(map[Key]KeyID)
			}
			if _, dup := x.collided[k]; !dup {
				x.collided[k] = KeyID(i)
			}
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
	hv := x.hash(k)
	id, ok := x.byHash[hv]
	switch {
	case !ok:
		id = KeyID(len(*keys))
		x.byHash[hv] = id
	case (*keys)[id] == k:
		return id
	default:
		if x.collided == nil {
			x.collided = make(map[Key]KeyID)
		}
		if cid, ok := x.collided[k]; ok {
			return cid
		}
		id = KeyID(len(*keys))
		x.collided[k] = id
	}
	*keys = append(grow(*keys, 1), k)
	return id
}
