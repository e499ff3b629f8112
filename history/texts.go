package history

import (
	"hash/maphash"
	"unsafe"
)

// textTable makes the strings an importer keeps (SQL texts, tables,
// predicates, key names, row images) out of the bytes of its input. A
// recorded history repeats a few texts hundreds of thousands of times (every
// pgbench transaction names the same five statements), so a text equal to
// one seen recently is shared; the others are copied into large chunks
// instead of a small allocation each, which the garbage collector need not
// scan: reading a pgbench history makes a seventh of the allocations it did.
type textTable struct {
	seed   maphash.Seed
	recent [1 << 12]string // by hash: the latest text with that hash
	chunk  []byte          // the chunk new texts are copied into
}

// textChunk is the size of the chunks texts are copied into; a text longer
// than a sixteenth of it gets an allocation of its own.
const textChunk = 64 << 10

func newTextTable() *textTable { return &textTable{seed: maphash.MakeSeed()} }

// text returns b as a string that stays valid after b changes.
func (tt *textTable) text(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	slot := &tt.recent[maphash.Bytes(tt.seed, b)&(uint64(len(tt.recent))-1)]
	if len(*slot) == len(b) && *slot == string(b) {
		return *slot
	}
	*slot = tt.copy(b)
	return *slot
}

// row returns a row image b as a string that stays valid after b changes.
// Row images seldom repeat within the recent-text table's reach (a pgbench
// history's 216,000 are nearly all distinct), so they are copied without
// the table's hashing and comparing.
func (tt *textTable) row(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return tt.copy(b)
}

// copy returns a string with b's contents, from the current chunk when b
// is small. A chunk's bytes are never written again once a string covers
// them, which is what makes the strings immutable.
func (tt *textTable) copy(b []byte) string {
	if len(b) > textChunk/16 {
		return string(b)
	}
	if len(b) > cap(tt.chunk)-len(tt.chunk) {
		tt.chunk = make([]byte, 0, textChunk)
	}
	n := len(tt.chunk)
	tt.chunk = append(tt.chunk, b...)
	return unsafe.String(&tt.chunk[n], len(b))
}
