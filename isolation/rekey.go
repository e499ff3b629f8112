package isolation

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// A table keyed by its primary key (TableSpec.HiddenRowID false) can become
// one keyed by hidden row ids when the primary key is dropped (ALTER TABLE
// ... DROP CONSTRAINT of it, or DROP COLUMN of one of its columns). Its rows
// keep the keys they have, now opaque identities: a row is the same key of
// the history before and after, its versions, readers and locks unchanged.
// Rows inserted later get fresh row ids, which must never equal a stored
// key. Since no key is ever removed from a table, the stored keys are fixed
// when the table is rekeyed, and the new ids are made of the greatest of
// them, P, followed by an 8-byte counter: a stored key that started with P
// would sort after it, so none does, and every new id sorts after all the
// rows stored before (scans list them first, as PostgreSQL's heap would).
// The history names the new ids by their counter after a prefix of '#'
// that no stored key's name starts with, so that the names stay distinct.
// A rollback of the DDL makes the table keyed by its primary key again; the
// keys made meanwhile keep their names, and a later rekey makes its ids
// after them and names them apart from them too.

// rowIDKeys is how a rekeyed table makes and names its new row ids.
type rowIDKeys struct {
	// prefix starts every new row id: the greatest key stored at the
	// rekey ("" when there was none).
	prefix string
	// name starts the history's name of every new row id.
	name string
}

// rowID reports whether k is one of the new row ids of a rekeyed table,
// and its number.
func (r *rowIDKeys) rowID(k []byte) (uint64, bool) {
	if len(k) != len(r.prefix)+8 || string(k[:len(r.prefix)]) != r.prefix {
		return 0, false
	}
	return binary.BigEndian.Uint64(k[len(r.prefix):]), true
}

// format names row id n in the history.
func (r *rowIDKeys) format(n uint64) string {
	return r.name + strconv.FormatUint(n, 10)
}

// rekeyToRowIDs makes table id keyed by hidden row ids (Store.RekeyToRowIDs).
func (e *engine) rekeyToRowIDs(id TableID) (restore func(), err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tb, err := e.table(id)
	if err != nil {
		return nil, err
	}
	if tb.spec.HiddenRowID {
		return func() {}, nil
	}
	r := &rowIDKeys{name: "#"}
	var names []string
	tb.keys.Scan(func(k string, _ *keyState) bool {
		r.prefix = k // Scan goes in key order: the last is the greatest
		names = append(names, tb.formatKey([]byte(k)))
		return true
	})
	for anyHasPrefix(names, r.name) {
		r.name += "#"
	}
	next := tb.nextRow
	tb.spec.HiddenRowID, tb.rowIDs, tb.nextRow = true, append(tb.rowIDs, r), 0
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		tb.spec.HiddenRowID, tb.nextRow = false, next
	}, nil
}

// anyHasPrefix reports whether one of names starts with prefix.
func anyHasPrefix(names []string, prefix string) bool {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}
