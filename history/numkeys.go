package history

import (
	"cmp"
	"slices"
	"strconv"
)

// numKeys names the keys of the formats whose keys are non-negative
// integers (AWDIT, Plume) without a lookup per operation: while a file is
// read, an operation's Key holds the key's number itself (ref), and assign
// declares the keys and rewrites the operations once at the end. When the
// numbers are exactly 0..max (the usual shape), key n is KeyID n and
// nothing is rewritten; otherwise keys are numbered in increasing order of
// their numbers. A number too large for a KeyID is kept aside and its
// operations hold an index into that list, marked by the top bit.
//
// A table lookup per operation (idMap) was a fifth of the time to read a
// 10^6-transaction history: the key numbers come in random order, and a
// table of one entry per key does not stay in cache.
type numKeys struct {
	max   int64   // the largest small number seen, -1 for none
	big   []int64 // numbers of bigKey or more, by index
	bigAt map[int64]uint32
}

// bigKey is the first number an operation cannot carry as its Key.
const bigKey = 1 << 31

func newNumKeys() numKeys { return numKeys{max: -1} }

// ref returns the provisional Key of number n (n >= 0).
func (k *numKeys) ref(n int64) KeyID {
	if n < bigKey {
		k.max = max(k.max, n)
		return KeyID(n)
	}
	if k.bigAt == nil {
		k.bigAt = make(map[int64]uint32)
	}
	i, ok := k.bigAt[n]
	if !ok {
		i = uint32(len(k.big))
		k.big = append(k.big, n)
		k.bigAt[n] = i
	}
	return KeyID(bigKey | i)
}

// assign declares h's keys, which must be empty, and rewrites every
// operation's provisional Key into a KeyID. Numbers no operation refers to
// any more (a marker removed by foldAWDITInitial) are not declared.
func (k *numKeys) assign(h *History) {
	ops := 0
	for i := range h.Txns {
		ops += len(h.Txns[i].Ops)
	}
	if k.max >= int64(ops)*8+1<<16 {
		// A few numbers spread far apart ("w 270000000 0"): tables of one
		// entry per number up to the largest would take gigabytes.
		k.assignSparse(h)
		return
	}
	used := make([]bool, k.max+1)
	usedBig := make([]bool, len(k.big))
	top := -1 // the largest number used
	for i := range h.Txns {
		for _, op := range h.Txns[i].Ops {
			if op.Key < bigKey {
				used[op.Key] = true
				top = max(top, int(op.Key))
			} else {
				usedBig[op.Key&^bigKey] = true
			}
		}
	}
	used = used[:top+1]
	dense := !slices.Contains(usedBig, true)
	for _, u := range used {
		dense = dense && u
	}
	if dense {
		h.Keys = make([]Key, len(used))
		for n := range h.Keys {
			h.Keys[n] = Key{Name: strconv.Itoa(n)}
		}
		h.keyIndex = nil
		return
	}
	// Sparse numbers: rank the small ones, then the big ones in order.
	rank := make([]uint32, len(used))
	for n, u := range used {
		if u {
			rank[n] = uint32(len(h.Keys))
			h.Keys = append(h.Keys, Key{Name: strconv.Itoa(n)})
		}
	}
	var order []int
	for i, u := range usedBig {
		if u {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(k.big[a], k.big[b]) })
	bigRank := make([]uint32, len(k.big))
	for _, i := range order {
		bigRank[i] = uint32(len(h.Keys))
		h.Keys = append(h.Keys, Key{Name: strconv.FormatInt(k.big[i], 10)})
	}
	for i := range h.Txns {
		ops := h.Txns[i].Ops
		for j := range ops {
			if x := ops[j].Key; x < bigKey {
				ops[j].Key = KeyID(rank[x])
			} else {
				ops[j].Key = KeyID(bigRank[x&^bigKey])
			}
		}
	}
	h.keyIndex = nil
}

// assignSparse is assign for numbers too sparse for a table up to the
// largest: the keys are numbered in increasing order of their numbers.
func (k *numKeys) assignSparse(h *History) {
	number := func(x KeyID) int64 {
		if x < bigKey {
			return int64(x)
		}
		return k.big[x&^bigKey]
	}
	var nums []int64
	for i := range h.Txns {
		for _, op := range h.Txns[i].Ops {
			nums = append(nums, number(op.Key))
		}
	}
	slices.Sort(nums)
	nums = slices.Compact(nums)
	rank := make(map[int64]KeyID, len(nums))
	for _, n := range nums {
		rank[n] = KeyID(len(h.Keys))
		h.Keys = append(h.Keys, Key{Name: strconv.FormatInt(n, 10)})
	}
	for i := range h.Txns {
		ops := h.Txns[i].Ops
		for j := range ops {
			ops[j].Key = rank[number(ops[j].Key)]
		}
	}
	h.keyIndex = nil
}
