package isolation

import "iter"

// A transaction's own writes not yet committed live in two places: the
// writes to keys it created (createdKey: fresh hidden row ids, every row of
// a bulk load into a table without a primary key) hang off their keyState
// (pending), listed in txnLive.created, since no one else can see or write
// such a key until the creator ends; every other write is in txnLive.writes.
// A bulk load so costs no string-keyed map insertion a row.

// pendingWrite returns t's last write to ks, nil if none.
func (t *txn) pendingWrite(ks *keyState) *write {
	if ks.creator == t {
		return ks.pending
	}
	return t.writes[ks.tab][ks.key]
}

// setPendingWrite makes w t's last write to ks and returns the write it
// replaces, nil if none.
func (t *txn) setPendingWrite(ks *keyState, w *write) *write {
	if ks.creator == t {
		prev := ks.pending
		if prev == nil {
			c := t.createdOf(ks.tab)
			c.keys.push(ks)
		}
		ks.pending = w
		return prev
	}
	if t.writes == nil {
		t.writes = make(map[TableID]map[string]*write)
	}
	ws := t.writes[ks.tab]
	if ws == nil {
		ws = make(map[string]*write)
		t.writes[ks.tab] = ws
	}
	prev := ws[ks.key]
	ws[ks.key] = w
	return prev
}

// restoreWrite undoes the write of u, the latest not yet undone (rolling
// back to a savepoint): u.prev becomes t's last write to its key again.
func (t *txn) restoreWrite(u undoEntry) {
	ks := u.ks
	if ks.creator != t {
		if u.prev == nil {
			delete(t.writes[ks.tab], ks.key)
		} else {
			t.writes[ks.tab][ks.key] = u.prev
		}
		return
	}
	ks.pending = u.prev
	if u.prev == nil {
		// Undone in reverse order, ks is the latest key first written.
		c := t.createdOf(ks.tab)
		c.keys.truncate(c.keys.len() - 1)
	}
}

// createdOf returns t's list of the keys of table tab it created and
// wrote, adding an empty one when there is none.
func (t *txn) createdOf(tab TableID) *createdKeys {
	for i := range t.created {
		if t.created[i].tab == tab {
			return &t.created[i]
		}
	}
	t.created = append(t.created, createdKeys{tab: tab})
	return &t.created[len(t.created)-1]
}

// allWrites yields t's last write to every key it wrote: those of
// txnLive.writes in map order, then those to keys it created, table by
// table in creation order.
func (t *txn) allWrites() iter.Seq[*write] {
	return func(yield func(*write) bool) {
		for _, ws := range t.writes {
			for _, w := range ws {
				if !yield(w) {
					return
				}
			}
		}
		for _, c := range t.created {
			for ks := range c.keys.from(0) {
				if !yield(ks.pending) {
					return
				}
			}
		}
	}
}

// tableWrites yields t's last write to every key of table tab it wrote, in
// the order of allWrites.
func (t *txn) tableWrites(tab TableID) iter.Seq[*write] {
	return func(yield func(*write) bool) {
		for _, w := range t.writes[tab] {
			if !yield(w) {
				return
			}
		}
		for _, c := range t.created {
			if c.tab != tab {
				continue
			}
			for ks := range c.keys.from(0) {
				if !yield(ks.pending) {
					return
				}
			}
		}
	}
}

// dropCreatedWrites detaches t's writes from the keys it created as it
// ends: what it committed is in their versions now, and the writes must
// not keep their rows and slabs alive.
func (t *txn) dropCreatedWrites() {
	for _, c := range t.created {
		for ks := range c.keys.from(0) {
			ks.pending = nil
		}
	}
}
