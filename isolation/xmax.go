package isolation

// PostgreSQL shows a row version's header as the system columns xmin and
// xmax, and applications read them: an ORM's optimistic lock compares xmin
// with the value it read (UPDATE ... WHERE id = $1 AND xmin = $2), and an
// upsert tells an insert from an update by xmax = 0 in its RETURNING. The
// store gives every version the values PostgreSQL's heap would hold:
//
//   - xmin is the transaction that wrote the version, or the subtransaction
//     (savepoint) it was written in (FrozenTransactionId for init's, whose
//     writers a checkpoint forgot);
//   - xmax of a version some committed transaction replaced or deleted is
//     that transaction; of the newest version, the (sub)transaction that
//     is replacing or deleting it, else the last that locked it or tried
//     to replace it and rolled back (PostgreSQL leaves the aborted id in
//     the header), a multixact when several held locks on it at once, 0
//     when none did;
//   - a transaction that locked a row and then updated it carries its lock
//     to the new version (xmax is its own id), as PostgreSQL's heap_update
//     does: INSERT ... ON CONFLICT DO UPDATE locks the row first, so its
//     updated rows show xmax <> 0 and its inserted rows xmax = 0.
//
// Ids are given out as PostgreSQL gives them: at a transaction's first
// write, lock or txid_current(), and to a subtransaction at its first
// write or lock (after its parents'), from one counter that checkpoints do
// not restart, so an id is never seen twice.

// RowVersion is what PostgreSQL's system columns xmin and xmax show for a
// version of a row (see ReadOptions.Version).
type RowVersion struct {
	Xmin, Xmax uint32
	// Ctid is the version's place in its table's heap (tid.go).
	Ctid Tid
}

// frozenXID is PostgreSQL's FrozenTransactionId: the xmin of init's
// versions. Normal transaction ids start above it.
const frozenXID = 2

// rowXmax is the xmax of a key's newest committed version, of: the version
// it belongs to (its writer). It is stale once another version follows.
type rowXmax struct {
	of       *txn
	xid      uint32
	lockOnly bool // a row lock, not a replacement or deletion
}

// versionOf names a committed version: the key and its writer.
type versionOf struct {
	ks *keyState
	w  *txn
}

// xid returns t's top-level transaction id, giving it one if it has none.
func (e *engine) xid(t *txn) uint32 {
	if t.id == 0 {
		return frozenXID
	}
	if t.xid == 0 {
		e.lastXID++
		t.xid = e.lastXID
	}
	return t.xid
}

// currentXID returns the id of live t's innermost subtransaction, or its
// own outside savepoints, giving out ids as needed.
func (e *engine) currentXID(t *txn) uint32 {
	xid := e.xid(t)
	for i, sub := range t.subXIDs {
		if sub == 0 {
			e.lastXID++
			t.subXIDs[i] = e.lastXID
		}
	}
	if n := len(t.subXIDs); n > 0 {
		xid = t.subXIDs[n-1]
	}
	return xid
}

// noteWrite records the xmin of w, live t's new write: its current
// (sub)transaction's id.
func (e *engine) noteWrite(t *txn, w *write) {
	xid := e.currentXID(t)
	if xid != t.xid {
		if t.subXmin == nil {
			t.subXmin = make(map[*write]uint32)
		}
		t.subXmin[w] = xid
	}
}

// ownXmin returns the xmin of live t's write w.
func (e *engine) ownXmin(t *txn, w *write) uint32 {
	if xid, ok := t.subXmin[w]; ok {
		return xid
	}
	return e.xid(t)
}

// rowVersion returns the system columns of the version s that t's read
// returned (e.mu held).
func (e *engine) rowVersion(t *txn, tb *table, s seen) RowVersion {
	if s.w == t {
		v := RowVersion{Xmin: e.xid(t), Xmax: t.ownXmax[s.ks]}
		if w := t.pendingWrite(s.ks); w != nil {
			v.Xmin = e.ownXmin(t, w)
			v.Ctid = ownTid(w, s.row)
		}
		return v
	}
	v := RowVersion{Xmin: e.committedXmin(tb, s.ks, s.w)}
	vs := s.ks.versions()
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].w != s.w {
			continue
		}
		v.Ctid = vs[i].tid
		if i < len(vs)-1 {
			v.Xmax = e.committedXmin(tb, s.ks, vs[i+1].w)
		} else if xid, ok := e.pendingReplacer(tb, s.ks); ok {
			v.Xmax = xid
		} else if x, ok := tb.xmax[s.ks]; ok && x.of == s.w {
			v.Xmax = x.xid
		}
		break
	}
	return v
}

// committedXmin is the xmin of w's committed version of ks: w's id, or
// the subtransaction's that wrote it.
func (e *engine) committedXmin(tb *table, ks *keyState, w *txn) uint32 {
	if xid, ok := tb.subXmin[versionOf{ks, w}]; ok {
		return xid
	}
	return e.xid(w)
}

// pendingReplacer returns the id of the (sub)transaction whose write in
// progress replaces or deletes the newest committed version of ks: the
// holder of its row lock that wrote it.
func (e *engine) pendingReplacer(tb *table, ks *keyState) (uint32, bool) {
	ent := e.lockEntry(resource{lockRow, uint32(tb.id), ks.key})
	if ent == nil {
		return 0, false
	}
	for _, h := range ent.holders {
		if h.t.txnLive == nil {
			continue
		}
		if w := h.t.pendingWrite(ks); w != nil {
			return e.ownXmin(h.t, firstWrite(w)), true
		}
	}
	return 0, false
}

// firstWrite returns the first of the own writes to a key that w ends.
func firstWrite(w *write) *write {
	for w.before != nil {
		w = w.before
	}
	return w
}

// noteUndone records that live t's write w, its first to a key it did not
// create, is rolled back: the version it replaced keeps the writer's id in
// its xmax, as PostgreSQL's header does.
func (e *engine) noteUndone(t *txn, w *write) {
	if w.ks.creator != t {
		w.tb.setXmax(w.ks, rowXmax{of: w.ks.latest().w, xid: e.ownXmin(t, w)})
	}
}

// noteLock records that t locked (not for a write) the version of ks it
// works on, as PostgreSQL writes a row lock into the tuple's xmax: t's
// current id, or a new multixact when other transactions hold locks on the
// row too.
func (e *engine) noteLock(t *txn, tb *table, ks *keyState, r resource) {
	xid := e.currentXID(t)
	if t.pendingWrite(ks) != nil {
		t.setOwnXmax(ks, xid)
		return
	}
	of := ks.latest().w
	if ent := e.lockEntry(r); ent != nil && len(ent.holders) > 1 {
		if x, ok := tb.xmax[ks]; ok && x.of == of && x.lockOnly && x.xid != xid {
			e.lastMultiXact++
			xid = e.lastMultiXact
		}
	}
	tb.setXmax(ks, rowXmax{of: of, xid: xid, lockOnly: true})
}

// noteReplace carries a lock t held on the newest committed version of
// ks, which its first write to ks replaces, to t's own new version.
func (e *engine) noteReplace(t *txn, tb *table, ks *keyState) {
	if x, ok := tb.xmax[ks]; ok && x.of == ks.latest().w && x.lockOnly && x.xid == e.currentXID(t) {
		t.setOwnXmax(ks, x.xid)
	}
}

// publishVersions gives the versions committing t wrote their xmin where a
// subtransaction wrote them, and the locks t carried to them.
func (e *engine) publishVersions(t *txn) {
	for w, xid := range t.subXmin {
		if t.pendingWrite(w.ks) == w && !w.tomb {
			if w.tb.subXmin == nil {
				w.tb.subXmin = make(map[versionOf]uint32)
			}
			w.tb.subXmin[versionOf{w.ks, t}] = xid
		}
	}
	for ks, xid := range t.ownXmax {
		if w := t.pendingWrite(ks); w != nil && !w.tomb {
			w.tb.setXmax(ks, rowXmax{of: t, xid: xid, lockOnly: true})
		}
	}
}

func (tb *table) setXmax(ks *keyState, x rowXmax) {
	if tb.xmax == nil {
		tb.xmax = make(map[*keyState]rowXmax)
	}
	tb.xmax[ks] = x
}

func (t *txn) setOwnXmax(ks *keyState, xid uint32) {
	if t.ownXmax == nil {
		t.ownXmax = make(map[*keyState]uint32)
	}
	t.ownXmax[ks] = xid
}

// xidOf is Txn.XID.
func (e *engine) xidOf(t *txn) uint32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.xid(t)
}

// ownVersion is Txn.OwnVersion.
func (e *engine) ownVersion(t *txn, id TableID, key []byte) RowVersion {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := RowVersion{Xmin: e.xid(t)}
	if tb, err := e.table(id); err == nil && t.txnLive != nil {
		if ks := tb.keyState(string(key), false); ks != nil {
			v.Xmax = t.ownXmax[ks]
			if w := t.pendingWrite(ks); w != nil {
				v.Xmin = e.ownXmin(t, w)
				v.Ctid = w.tid
			}
		}
	}
	return v
}
